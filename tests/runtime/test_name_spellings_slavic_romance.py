"""Russian names as Polish, Czech, the scholarly romanization, Spanish, Italian and
Ukrainian write them score as the English spelling does, high enough for a sanctions hit
(90), without making different names alike."""

from __future__ import annotations

import pytest

from atlas.runtime.tools.builtin import SANCTIONS_THRESHOLD, resolve_entity, screen_sanctions
from atlas.runtime.tools.schemas import ResolveEntityArgs, ScreenSanctionsArgs
from atlas.runtime.world import name_score


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        # Polish: sz, cz, szcz, rz and ż, w for v, j for y, c for ts, ie after a consonant.
        ("Nikita Khrushchev", "Nikita Chruszczow"),
        ("Mikhail Gorbachev", "Michaił Gorbaczow"),
        ("Boris Yeltsin", "Borys Jelcyn"),
        ("Sergei Shoigu", "Siergiej Szojgu"),
        ("Yevgeny Prigozhin", "Jewgienij Prigożyn"),
        # Czech: č, š, ž, and ch for kh.
        ("Nikita Khrushchev", "Nikita Chruščov"),
        ("Mikhail Gorbachev", "Michail Gorbačov"),
        ("Boris Yeltsin", "Boris Jelcin"),
        ("Sergei Shoigu", "Sergej Šojgu"),
        # The scholarly romanization: ë, and the soft sign's apostrophe.
        ("Nikita Khrushchev", "Nikita Chruščëv"),
        ("Boris Yeltsin", "Boris El'cin"),
        # Spanish: j for kh.
        ("Nikita Khrushchev", "Nikita Jrushchov"),
        ("Mikhail Gorbachev", "Mijaíl Gorbachov"),
        # Italian and Romanian: ci and sci before a vowel.
        ("Mikhail Gorbachev", "Michail Gorbaciov"),
        ("Nikita Khrushchev", "Nikita Krusciov"),
        # Ukrainian: h for g, in a word with a Slavic ending or a name Ukrainian spells so.
        ("Mikhail Gorbachev", "Mykhailo Horbachov"),
        ("Grigory Surkis", "Hryhoriy Surkis"),
        ("Sergei Glazyev", "Serhiy Hlazyev"),
        # Two foreign spellings of one name meet as well.
        ("Nikita Chruszczow", "Nikita Jrushchov"),
    ],
)
def test_a_slavic_or_romance_spelling_is_a_sanctions_hit_on_the_english_one(query, listed):
    assert name_score(query, listed) >= SANCTIONS_THRESHOLD
    assert name_score(listed, query) >= SANCTIONS_THRESHOLD


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        ("Jens Olsen", "Hans Olsen"),
        ("Jan Czech", "Jana Cech"),
        ("Marek Cerny", "Marcel Cerny"),
        ("Jorge Cruz", "Jose Cruz"),
        ("Piotr Nowak", "Pawel Nowak"),
        ("Boris Yeltsin", "Boris Yeltsov"),
        ("Mikhail Gorbachev", "Mikhail Gorbunov"),
        ("Nikita Khrushchev", "Nikita Kruglov"),
        # h and g stay apart in names without a Slavic ending.
        ("John Hill", "John Gill"),
        ("Mary Hall", "Mary Gall"),
        ("Tom Hood", "Tom Good"),
        ("Helen Carter", "Galen Carter"),
        ("Henry Ford", "Gerry Ford"),
    ],
)
def test_different_names_in_those_letters_still_score_below_a_hit(query, listed):
    assert name_score(query, listed) < SANCTIONS_THRESHOLD
    assert name_score(listed, query) < SANCTIONS_THRESHOLD


def test_screening_a_polish_spelling_with_the_patronymic_finds_the_listed_person(
    world_tool_context,
):
    result = screen_sanctions(
        ScreenSanctionsArgs(name="Dmitrij Siergiejewicz Wołkow"), world_tool_context
    )
    listed = {hit.entry_id: hit for hit in result.hits}
    assert "hmt-7781" in listed  # VOLKOV, Dmitri Sergeyevich
    assert listed["hmt-7781"].score >= SANCTIONS_THRESHOLD
    assert "Polish" in result.explanation


@pytest.mark.parametrize(
    "name",
    [
        "Dmitri Sergeyevich Volkov",
        "Dmitrij Siergiejewicz Wołkow",
        "Dmitrij Sergejevič Volkov",
        "Dmitrij Sergejewitsch Wolkow",
    ],
)
def test_a_name_with_the_patronymic_resolves_to_the_registry_person_in_any_spelling(
    world_tool_context, name
):
    """The registry names him without his patronymic: a spelling read aloud is matched as
    one found inside the longer name, as the English spelling is."""
    result = resolve_entity(ResolveEntityArgs(name=name, entity_type="person"), world_tool_context)
    scores = {candidate.entity_id: candidate.score for candidate in result.candidates}
    assert scores.get("pe-dmitri-volkov", 0) >= SANCTIONS_THRESHOLD
