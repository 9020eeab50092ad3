"""Whole numbers typed into a URL or a search box.

`str.isdigit()` accepts "²" and "①", which `int()` refuses, and 25 digits convert to an
int no database column holds: either was a server error. Only ASCII digits that fit a
64-bit column count as a number here.
"""

from __future__ import annotations

LARGEST = 2**63 - 1


def whole_number(text: str | None) -> int | None:
    """The number `text` spells in ASCII digits, if a bigint holds it; else None."""
    if not text or not text.isascii() or not text.isdecimal():
        return None
    value = int(text)
    return value if value <= LARGEST else None
