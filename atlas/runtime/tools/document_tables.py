"""The cells of a table as a document's text gives it: split by bars, tabs or runs of
spaces ("| Jane Roe | Director | Iran |", "Jane Roe   Director   Iran")."""

from __future__ import annotations

import re

CELL_BREAK = re.compile(r"[ \t]*\|[ \t]*|\t+|[ \t]{2,}")
# The header of a column saying where each person lives.
RESIDENCE_HEADER = re.compile(
    r"(?i)(?:usual[ \t]+)?(?:country[ \t]+of[ \t]+)?residence|resident[ \t]+in|lives[ \t]+in"
)
# The header of a column giving each person's nationality.
NATIONALITY_HEADER = re.compile(r"(?i)nationalit(?:y|ies)|citizenships?")
# The header of a column giving each person's date of birth.
BIRTH_HEADER = re.compile(r"(?i)date[ \t]+of[ \t]+birth|birth[ \t]*date|d\.?o\.?b\.?|born")


def cells(line: str) -> list[str]:
    return CELL_BREAK.split(line.strip().strip("|").strip())


def person_columns(header: list[str]) -> tuple[int | None, int | None]:
    """The indexes of the header's "Country of residence" and "Nationality" columns, each
    None where it has none."""
    return _column(header, RESIDENCE_HEADER), _column(header, NATIONALITY_HEADER)


def birth_column(header: list[str]) -> int | None:
    """The index of the header's "Date of birth" column, None where it has none."""
    return _column(header, BIRTH_HEADER)


def _column(header: list[str], heading: re.Pattern[str]) -> int | None:
    return next((at for at, cell in enumerate(header) if heading.fullmatch(cell)), None)


def cell_at(row: list[str], column: int | None) -> str:
    """The row's cell in `column`, or "" for no column or a row too short for it."""
    return row[column] if column is not None and column < len(row) else ""
