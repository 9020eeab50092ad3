"""What a person typed into a search box, as the lists compare it: its runs of whitespace
collapsed (subjects are stored that way) and its length bounded."""

from __future__ import annotations

import re

from runs.numbers import whole_number

MAX_LENGTH = 200

# A case as the pages name it ("Case 8 · run 9"): "8", "#8", "case 8", "Case #8".
_CASE_NUMBER = re.compile(r"(?:case\s*)?#?\s*(\d+)", re.IGNORECASE | re.ASCII)


def search_text(value: str) -> str:
    return " ".join(value.split())[:MAX_LENGTH]


def case_number(query: str) -> int | None:
    """The number of the case `query` names, if it names one."""
    if match := _CASE_NUMBER.fullmatch(query):
        return whole_number(match.group(1))
    return None
