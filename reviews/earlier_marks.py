"""How reviewers marked the same screening matches before, on earlier runs of a case, on
the signed-off runs of the tenant's other cases matched to the same registry entity (a
customer screened again), or when sending a packet back: shown beside each match a
reviewer is asked to mark again, so a name cleared last time is weighed with that decision
in view (never marked for them)."""

from __future__ import annotations

from django.db.models import Q

from reviews.models import HumanDecision, ReviewItem
from runs.models import Run
from runs.people import names_by_login


def earlier_marks(item: ReviewItem) -> dict[str, dict]:
    """Evidence id -> the latest mark of that match before this item: on another run of
    the item's case, or of another case of the tenant matched to the same registry entity,
    whose packet a reviewer signed off or closed; or made by a reviewer sending a packet of
    the case back (of this run too). Each with the disposition, who made it (as the console
    names people), the run, the other case it was on (None for this one), when, and
    whether it was made sending a packet back. A match's evidence id is the same on every
    run that finds it (the reducer derives it from the listing or article and whom it is
    about), and a screening by the matched entity is the same on every case matched to
    it."""
    found = [
        (finished_at, run_id, disposition, False, case_id)
        for run_id, case_id, finished_at, dispositions in _signed_off_before(item)
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
                item.case_id,
            )
            for key, value in payload["hit_dispositions"].items()
        ]
    marks = {}
    for when, run_id, disposition, was_sent_back, case_id in sorted(
        found, key=lambda f: (f[0], f[1])
    ):
        marks[disposition["evidence_id"]] = {
            "disposition": disposition["disposition"],
            "decided_by": disposition.get("decided_by", ""),
            "note": disposition.get("note", ""),
            "run_id": run_id,
            "other_case": case_id if case_id != item.case_id else None,
            "when": when,
            "sent_back": was_sent_back,
        }
    names = names_by_login(mark["decided_by"] for mark in marks.values())
    for mark in marks.values():
        mark["decided_by"] = names.get(mark["decided_by"]) or mark["decided_by"]
    return marks


def _signed_off_before(item: ReviewItem) -> list[tuple]:
    """(run id, case id, when it finished, its hit dispositions) of the signed-off runs of
    the item's case, and of the tenant's other cases matched to the entity the item's run
    was matched to, but the item's own run."""
    tenant_id, label, entity_id = (
        Run.objects.filter(pk=item.run_id)
        .values_list("tenant_id", "matched_entity", "state__selected_entity__entity_id")
        .get()
    )
    same_entity = Q(pk__in=[])
    if label and entity_id:
        # The label narrows the search by a column; the state names the entity itself.
        same_entity = Q(tenant_id=tenant_id, matched_entity=label)
    rows = (
        Run.objects.signed_off()
        .filter(Q(case_id=item.case_id) | same_entity)
        .exclude(pk=item.run_id)
        .values_list(
            "pk",
            "case_id",
            "finished_at",
            "state__selected_entity__entity_id",
            "state__proposed_packet__hit_dispositions",
        )
    )
    return [
        (run_id, case_id, finished_at, dispositions)
        for run_id, case_id, finished_at, matched, dispositions in rows
        if case_id == item.case_id or matched == entity_id
    ]
