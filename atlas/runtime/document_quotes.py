"""A document quoted by its own words: the lines that give the values read from it."""

from __future__ import annotations

from atlas.runtime.context import clipped
from atlas.runtime.redaction import redact

QUOTE_LIMIT = 300  # characters of a quote, as evidence claims are shown to the model


def quoted_lines(text: str, values: list[str], fallback: str) -> str:
    """The lines of `text` that hold `values`, each line once, in the order of the values,
    joined by " … ", with personal data redacted. A value is looked for whole, then by its
    last word (a surname written first, "ROE, Jane"). `fallback` when no line holds any: a
    value read across lines.

    The whole text is redacted before its lines are taken: a table row's personal data is
    known by its column's header, lines above it (redaction keeps the line breaks)."""
    lines = [" ".join(line.split()) for line in redact(text).splitlines()]
    folded = [line.casefold() for line in lines]
    picked: list[int] = []
    for value in values:
        words = value.casefold().split()
        for needle in (" ".join(words), words[-1] if words and len(words[-1]) > 2 else ""):
            found = next((i for i, line in enumerate(folded) if needle and needle in line), None)
            if found is not None:
                if found not in picked:
                    picked.append(found)
                break
    if not picked:
        return fallback
    return clipped(" … ".join(lines[i] for i in picked), QUOTE_LIMIT)
