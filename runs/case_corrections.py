"""A case's subject corrections as people read them: each change as its label, the value
before and the value after."""

from __future__ import annotations

from runs.models import Case, CaseEdit

FIELD_LABELS = {
    "subject_name": "Subject",
    "subject_type": "Subject type",
    "jurisdiction": "Jurisdiction",
    "notes": "Notes",
}


def changes_of(edit: CaseEdit) -> list[tuple[str, str, str]]:
    return [
        (FIELD_LABELS.get(name, name), change["before"], change["after"])
        for name, change in edit.changes.items()
    ]


def corrections_of(case: Case) -> list[dict]:
    """The case's corrections, oldest first."""
    return [
        {"edit": edit, "changes": changes_of(edit)}
        for edit in case.edits.select_related("edited_by").order_by("edited_at", "id")
    ]
