"""Russian given names in their Ukrainian, Belarusian and Polish forms are read as the
Russian one, and a Ukrainian or Belarusian given name has its whole name read as that
language writes it: a sanctions hit (90) on the English spelling, without making
different names alike."""

from __future__ import annotations

import pytest

from atlas.runtime.tools.builtin import SANCTIONS_THRESHOLD, screen_sanctions
from atlas.runtime.tools.schemas import ScreenSanctionsArgs
from atlas.runtime.world import name_score


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        # Ukrainian given names, and h for g in every word of a name that has one.
        ("Yevgeny Grigorenko", "Yevhen Hryhorenko"),
        ("Igor Girkin", "Ihor Hirkin"),
        ("Nikolai Patrushev", "Mykola Patrushev"),
        ("Vladimir Putin", "Volodymyr Putin"),
        ("Pyotr Aven", "Petro Aven"),
        ("Aleksei Mordashov", "Oleksiy Mordashov"),
        ("Fyodor Bondarchuk", "Fedir Bondarchuk"),
        ("Gleb Frank", "Hlib Frank"),
        # Belarusian: -ou, -au and -enka for -ov and -enko.
        ("Aleksandr Lukashenko", "Aliaksandr Lukashenka"),
        ("Sergei Lavrov", "Siarhei Lavrou"),
        ("Dmitri Volkov", "Dzmitry Volkau"),
        ("Yevgeny Prigozhin", "Yauhen Pryhozhyn"),
        # Polish and Czech given names.
        ("Arkady Rotenberg", "Arkadiusz Rotenberg"),
        ("Vladimir Putin", "Włodzimierz Putin"),
        ("Pyotr Aven", "Petr Aven"),
        # Two of those forms meet as well.
        ("Mykola Patrushev", "Mikołaj Patruszew"),
        # More given names, and Belarusian surnames: -anka after ch for -enko, u for the v
        # before a consonant, -you for -ev, and a first ts or dz before i for t or d.
        ("Gennady Timchenko", "Hienadz Tsimchanka"),
        ("Roman Golovchenko", "Raman Halouchanka"),
        ("Semyon Bogdanov", "Siamion Bahdanau"),
        ("Valentin Rybakov", "Valiantsin Rybakou"),
        ("Vladislav Kovalev", "Uladzislau Kavalyou"),
        ("Svetlana Tikhanovskaya", "Sviatlana Tsikhanouskaya"),
        ("Dmitri Dashkevich", "Zmitser Dashkevich"),
        ("Denis Ivashin", "Dzianis Ivashyn"),
        ("Viktor Babariko", "Viktar Babaryka"),
        ("Yelena Orlova", "Olena Orlova"),
        ("Nadezhda Savchenko", "Nadiya Savchenko"),
    ],
)
def test_a_given_name_form_is_a_sanctions_hit_on_the_russian_one(query, listed):
    assert name_score(query, listed) >= SANCTIONS_THRESHOLD
    assert name_score(listed, query) >= SANCTIONS_THRESHOLD


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        # Without a Ukrainian or Belarusian given name, h and g stay apart...
        ("Olga Hill", "Olga Gill"),
        ("Halina Hill", "Galina Gill"),
        ("Hana Kim", "Gana Kim"),
        ("Helga Hansen", "Olga Hansen"),
        # ...and -ou or -au is not -ov.
        ("Paul Moreau", "Paul Morov"),
        ("Anna Marceau", "Anna Marcov"),
        # Aleš, a Czech name of its own, is not read as Aleksandr.
        ("Ales Novak", "Aleksandr Novak"),
        # One given name does not make two surnames one.
        ("Vladimir Ivanov", "Volodymyr Ivanenko"),
        ("Mykola Hrytsenko", "Nikolai Gordienko"),
    ],
)
def test_different_names_still_score_below_a_hit(query, listed):
    assert name_score(query, listed) < SANCTIONS_THRESHOLD
    assert name_score(listed, query) < SANCTIONS_THRESHOLD


@pytest.mark.parametrize("name", ["Dzmitry Volkau", "Dmytro Volkov", "Dmytro Serhiyovych Volkov"])
def test_screening_a_ukrainian_or_belarusian_spelling_finds_the_listed_person(
    world_tool_context, name
):
    result = screen_sanctions(ScreenSanctionsArgs(name=name), world_tool_context)
    scores = {hit.entry_id: hit.score for hit in result.hits}
    assert scores.get("hmt-7781", 0) >= SANCTIONS_THRESHOLD  # VOLKOV, Dmitri Sergeyevich
    assert "given names" in result.explanation
