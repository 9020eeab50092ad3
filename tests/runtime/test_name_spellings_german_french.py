"""Russian names as German and French write them score as the English spelling does, high
enough for a sanctions hit (90), without making different names alike."""

from __future__ import annotations

import pytest

from atlas.runtime.tools.builtin import SANCTIONS_THRESHOLD
from atlas.runtime.world import name_score


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        ("Boris Yeltsin", "Boris Jelzin"),
        ("Boris Yeltsin", "Boris Eltsine"),
        ("Sergei Yesenin", "Sergueï Essénine"),
        ("Nikita Khrushchev", "Nikita Khrouchtchev"),
        ("Nikita Khrushchev", "Nikita Chruschtschow"),
        ("Mikhail Gorbachev", "Michail Gorbatschow"),
        ("Yevgeny Prigozhin", "Evgueni Prigojine"),
        ("Yevgeny Prigozhin", "Jewgeni Prigoschin"),
        ("Jewgeni Prigoschin", "Evgueni Prigojine"),
        ("Igor Zhukov", "Igor Schukow"),
    ],
)
def test_a_german_or_french_spelling_is_a_sanctions_hit_on_the_english_one(query, listed):
    assert name_score(query, listed) >= SANCTIONS_THRESHOLD
    assert name_score(listed, query) >= SANCTIONS_THRESHOLD


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        ("Anna Lee", "Anne Lee"),
        ("Boris Yeltsin", "Boris Yakovlev"),
        ("Ivan Petrov", "Ivan Pavlov"),
        ("Jens Olsen", "Hans Olsen"),
        ("Nikita Khrushchev", "Nikita Kuznetsov"),
    ],
)
def test_names_that_differ_still_score_below_a_hit(query, listed):
    assert name_score(query, listed) < SANCTIONS_THRESHOLD
