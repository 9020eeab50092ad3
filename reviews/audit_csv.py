"""The audit trail as a CSV file: one line per entry, the columns the page shows, in words.

Reasons, notes and names are typed by people and read by spreadsheets, so a cell that a
spreadsheet would run as a formula is written with a leading apostrophe (OWASP's advice
on CSV injection): it shows as typed and runs nothing. The file starts with a byte-order
mark, by which Excel knows it is UTF-8 (names such as Søren Ørsted stay whole).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterator

from reviews.audit_rows import AuditFilters, AuditRow, add_effects, audit_entries, rows_of
from runs.exports import CHUNK, in_chunks
from runs.models import Tenant

HEADER = (
    "When (UTC)",
    "Actor",
    "Actor's login",
    "Decision",
    "Review item",
    "Case",
    "Run",
    "Subject researched",
    "Case subject now",
    "Reason",
    "Details",
    "State version",
    "Effect",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def audit_csv_lines(tenant: Tenant, filters: AuditFilters) -> Iterator[str]:
    """The header, then the entries newest first, a chunk of lines at a time."""
    yield "\ufeff" + _lines([HEADER])
    entries = audit_entries(tenant, filters).iterator(chunk_size=CHUNK)
    for chunk in in_chunks(entries):
        rows = rows_of(chunk)
        add_effects(rows)
        yield _lines(_cells(row) for row in rows)


def _cells(row: AuditRow) -> tuple:
    decision = row.decision
    item = decision.item if decision is not None else None
    return (
        row.when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S"),
        row.actor.get_full_name() or row.actor.username,
        row.actor.username,
        row.label,
        f"{item.get_kind_display()} #{item.pk}" if item is not None else "",
        row.case.pk,
        row.run_id or "",
        row.researched or row.case.subject_name,
        row.case.subject_name,
        row.reason,
        "; ".join(row.details),
        f"v{decision.state_version}" if decision is not None else "",
        row.effect,
    )


def _lines(rows) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([_safe(value) for value in row])
    return buffer.getvalue()


def _safe(value) -> str:
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
