"""The age an article gives the person it was found by, and the years of birth it means."""

from __future__ import annotations

import pytest

from atlas.runtime.article_ages import age_given, born_years_at


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("Britain froze the assets of Oleg Danilov, 62, a former deputy minister.", 62),
        ("Oleg Danilov (62) was named.", 62),
        ("Oleg P. Danilov, aged 62.", 62),
        ("OLEG DANILOV, 62, SANCTIONED", 62),
        ("The 62-year-old former deputy minister Oleg Danilov said nothing.", 62),
        ("A court heard Oleg Danilov, 62", 62),
        # Not an age: an address, a year, someone else's.
        ("Oleg Danilov, 62 Baker Street, London", None),
        ("Oleg Danilov, 2022, said", None),
        ("Ivan Petrov, 55, and Oleg Danilov said", None),
        ("The 62-year-old Ivan Petrov and Oleg Danilov", None),
        ("Oleg Danilov, 9, a schoolboy", None),
        # Two ages for one name: which is his is not told.
        ("Oleg Danilov, 62, ... later Oleg Danilov (63) said", None),
        ("Danilov, 62, was named.", None),  # a surname alone may be anyone's
    ],
)
def test_the_age_an_article_gives_the_person_searched_for(text, age):
    assert age_given(text, "Oleg Danilov") == age


def test_a_name_of_one_word_is_given_no_age():
    assert age_given("Madonna, 62, sang.", "Madonna") is None


@pytest.mark.parametrize(
    ("published", "years"),
    [("2022-05-05", (1959, 1960)), ("May 2022", ()), ("", ())],
)
def test_an_age_on_a_date_is_one_of_two_years_of_birth(published, years):
    assert born_years_at(62, published) == years


def test_a_long_text_with_many_mentions_is_read_at_once():
    text = "Oleg Danilov said. " * 20_000 + "Oleg Danilov, 62, left. " + "Oleg " * 50_000
    assert age_given(text, "Oleg Danilov") == 62
