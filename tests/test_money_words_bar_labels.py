"""The metrics page's bars name their version in full: a long label wraps between words,
and whatever is cut ends in "…" with the whole text in the bar's title and the chart's
aria-label."""

from __future__ import annotations

import re
from decimal import Decimal

from runs.views.charts import LABEL_LINE_CHARS, bar_chart, wrapped_label

LONG_MODEL = "openai:meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo"
VERSION = f"{LONG_MODEL} · atlas-prompt/9 · atlas-policy/8"


def test_a_version_label_wraps_at_its_separators_instead_of_being_cut():
    lines = wrapped_label("playbook · atlas-prompt/9 · atlas-policy/8")
    assert [line.replace("\u00a0", " ") for line in lines] == [
        "playbook ·",
        "atlas-prompt/9 ·",
        "atlas-policy/8",
    ]


def test_a_word_too_long_for_a_line_is_cut_with_an_ellipsis():
    lines = wrapped_label(VERSION)
    assert lines[0] == LONG_MODEL[: LABEL_LINE_CHARS - 1] + "…"
    assert all(len(line) <= LABEL_LINE_CHARS for line in lines)


def test_past_three_lines_the_label_ends_between_words_with_an_ellipsis():
    words = "Closed by a reviewer after the sanctions screening found a confirmed match"
    lines = wrapped_label(f"{words} and more words than three lines hold")
    assert len(lines) == 3 and lines[-1].endswith("…")
    kept = " ".join(line.removesuffix("…") for line in lines).split()
    assert kept == words.split()[: len(kept)]  # every word shown is shown whole


def test_every_bar_keeps_its_full_label_for_a_pointer_and_a_screen_reader():
    svg = bar_chart([(VERSION, Decimal("0.25")), ("playbook", None)], unit="ratio", label="Rate")
    assert f"<title>{VERSION}</title>" in svg
    aria = re.search(r'aria-label="([^"]*)"', svg)[1]
    assert aria == f"Rate: {VERSION}: 25.0%; playbook: no data"
    shown = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)
    assert shown[1:4] == ["atlas-prompt/9\u00a0·", "atlas-policy/8", "playbook"]
