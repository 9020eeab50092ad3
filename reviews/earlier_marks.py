"""How reviewers marked the same screening matches before, on earlier runs of a case or
when sending a packet back: shown beside each match a reviewer is asked to mark again, so
a name cleared last time is weighed with that decision in view (never marked for them)."""

from __future__ import annotations

from reviews.models import HumanDecision, ReviewItem
from runs.models import Run
from runs.people import names_by_login


def earlier_marks(item: ReviewItem) -> dict[str, dict]:
    """Evidence id -> the latest mark of that match on the item's case, before this item:
    on another run whose packet a reviewer signed off or closed, or made by a reviewer
    sending a packet back (of this run too). Each with the disposition, who made it (as the
    console names people), the run, when, and whether it was made sending a packet back. A
    match's evidence id is the same on every run that finds it (the reducer derives it from
    the listing or article and whom it is about)."""
    signed_off = (
        Run.objects.signed_off()
        .filter(case_id=item.case_id)
        .exclude(pk=item.run_id)
        .values_list("pk", "finished_at", "state__proposed_packet__hit_dispositions")
    )
    found = [
        (finished_at, run_id, disposition, False)
        for run_id, finished_at, dispositions in signed_off
        for disposition in dispositions or []
    ]
    sent_back = HumanDecision.objects.filter(
        case_id=item.case_id,
        kind=HumanDecision.Kind.REJECT_PACKET,
        payload__has_key="hit_dispositions",
        created_at__lt=item.requested_at,
    ).values_list("run_id", "created_at", "actor__username", "payload")
    for run_id, created_at, login, payload in sent_back:
        notes = payload.get("hit_notes") or {}
        found += [
            (
                created_at,
                run_id,
                {
                    "evidence_id": key,
                    "disposition": value,
                    "decided_by": login,
                    "note": notes.get(key, ""),
                },
                True,
            )
            for key, value in payload["hit_dispositions"].items()
        ]
    marks = {}
    for when, run_id, disposition, was_sent_back in sorted(found, key=lambda f: (f[0], f[1])):
        marks[disposition["evidence_id"]] = {
            "disposition": disposition["disposition"],
            "decided_by": disposition.get("decided_by", ""),
            "note": disposition.get("note", ""),
            "run_id": run_id,
            "when": when,
            "sent_back": was_sent_back,
        }
    names = names_by_login(mark["decided_by"] for mark in marks.values())
    for mark in marks.values():
        mark["decided_by"] = names.get(mark["decided_by"]) or mark["decided_by"]
    return marks
