"""What a person typed into a search box, as the lists compare it: its runs of whitespace
collapsed (subjects are stored that way) and its length bounded."""

from __future__ import annotations

MAX_LENGTH = 200


def search_text(value: str) -> str:
    return " ".join(value.split())[:MAX_LENGTH]
