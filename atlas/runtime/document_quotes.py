"""A document quoted by its own words: the lines that give the values read from it."""

from __future__ import annotations

import re

from atlas.runtime.redaction import redact

QUOTE_LIMIT = 300  # characters of a quote, as evidence claims are shown to the model


def quoted_lines(text: str, values: list[str], fallback: str) -> str:
    """The lines of `text` that give `values`, joined by " … ", with personal data redacted:
    first the line giving the most of them, then, for any value it lacks, the first line
    giving that one. A value is found as whole words, as written or surname first ("ROE,
    Jane"). A line too long to quote whole is cut around its first value. `fallback` when no
    line gives any value (one read across lines, say).

    The whole text is redacted before its lines are taken: a table row's personal data is
    known by its column's header, lines above it (redaction keeps the line breaks)."""
    lines = [" ".join(line.split()) for line in redact(text).splitlines()]
    patterns = [_written(value) for value in values if value.split()]
    held = [[p.search(line) for p in patterns] for line in lines]
    picked: list[int] = []
    ranked = sorted(range(len(lines)), key=lambda i: -sum(m is not None for m in held[i]))
    if not ranked or not any(held[ranked[0]]):
        return fallback
    picked.append(ranked[0])
    for index, _ in enumerate(patterns):
        if any(held[i][index] for i in picked):
            continue
        if (line := next((i for i in range(len(lines)) if held[i][index]), None)) is not None:
            picked.append(line)
    budget = QUOTE_LIMIT // len(picked)
    return " … ".join(_around(lines[i], next(m for m in held[i] if m), budget) for i in picked)


def _written(value: str) -> re.Pattern[str]:
    """`value` as whole words, its spaces any run of spaces; a name also surname first."""
    words = [re.escape(word) for word in value.split()]
    spaced = r"\s+"
    forms = [spaced.join(words)]
    if len(words) >= 2:
        forms.append(words[-1] + r",\s*" + spaced.join(words[:-1]))
    return re.compile(rf"(?<!\w)(?:{'|'.join(forms)})(?!\w)", re.IGNORECASE)


def _around(line: str, match: re.Match[str], limit: int) -> str:
    """`line`, or as much of it around `match` as `limit` allows, each cut marked."""
    if len(line) <= limit:
        return line
    start = max(0, min(match.start() - limit // 3, len(line) - limit))
    end = start + limit
    return ("…" if start else "") + line[start:end].strip() + ("…" if end < len(line) else "")
