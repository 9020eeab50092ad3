"""How reviewers marked the same screening matches on earlier runs of a case: shown beside
each match a reviewer is asked to mark again, so a name cleared last time is weighed with
that decision in view (never marked for them)."""

from __future__ import annotations

from reviews.models import ReviewItem
from runs.models import Run
from runs.people import names_by_login


def earlier_marks(item: ReviewItem) -> dict[str, dict]:
    """Evidence id -> the latest disposition of that match on another run of the item's
    case whose packet a reviewer signed off or closed: the disposition, who made it (as the
    console names people), the run and when it ended. A match's evidence id is the same on
    every run that finds it (the reducer derives it from the listing or article and whom it
    is about)."""
    rows = (
        Run.objects.signed_off()
        .filter(case_id=item.case_id)
        .exclude(pk=item.run_id)
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at", "state__proposed_packet__hit_dispositions")
    )
    marks = {}
    for run_id, finished_at, dispositions in rows:
        for disposition in dispositions or []:
            marks[disposition["evidence_id"]] = {
                "disposition": disposition["disposition"],
                "decided_by": disposition.get("decided_by", ""),
                "note": disposition.get("note", ""),
                "run_id": run_id,
                "when": finished_at,
            }
    names = names_by_login(mark["decided_by"] for mark in marks.values())
    for mark in marks.values():
        mark["decided_by"] = names.get(mark["decided_by"]) or mark["decided_by"]
    return marks
