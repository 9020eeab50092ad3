"""The audit trail's rows: the decisions people made on runs, and the changes they made to a
case's record between runs (a corrected subject, a document marked sensitive), newest
first in one list.

The three sources are read as one UNION of the columns they share, so the list pages and
counts in the database; only a page's rows are then read whole.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db.models import CharField, F, QuerySet, Value

from atlas.runtime.wording import fact_about
from reviews.decision_details import decision_details
from reviews.models import HumanDecision
from runs.case_corrections import changes_of
from runs.execution import RUNTIME_INPUT_KIND
from runs.models import CaseEdit, Document, Run, Tenant
from runs.search_text import matching_cases, name_contains
from runs.views.run_filters import within_days

CORRECTED_SUBJECT = "correct_subject"
MARKED_SENSITIVE = "mark_sensitive"
APPLIED = "Applied"
CASE_RECORD_KINDS = {
    CORRECTED_SUBJECT: "Corrected the subject",
    MARKED_SENSITIVE: "Marked a document sensitive",
}


@dataclass
class AuditRow:
    when: dt.datetime
    actor: Any
    label: str
    case: Any
    kind: str
    run_id: int | None = None
    reason: str = ""
    details: list[str] = field(default_factory=list)
    decision: HumanDecision | None = None  # for the columns only a run's decision has
    # What the decision was about: its run's subject, which a later correction of the
    # case does not change. Empty for the case's own records.
    researched: str = ""
    # What a decision did to its run ("" for one that asks nothing of a run); see add_effects.
    effect: str = ""


@dataclass
class AuditFilters:
    case: str = ""
    actor: str = ""
    kind: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None

    @property
    def any(self) -> bool:
        return bool(self.case or self.actor or self.kind or self.date_from or self.date_to)


def audit_entries(tenant: Tenant, filters: AuditFilters) -> QuerySet:
    """(source, pk, kind, created_at) of every matching entry, newest first."""
    parts = []
    if not filters.kind or filters.kind in HumanDecision.Kind.values:
        decisions = HumanDecision.objects.filter(tenant=tenant)
        if filters.kind:
            decisions = decisions.filter(kind=filters.kind)
        parts.append(
            _shaped(decisions, "decision", F("kind"), "actor", subject="run__subject_name")
        )
    if filters.kind in ("", CORRECTED_SUBJECT):
        edits = CaseEdit.objects.filter(case__tenant=tenant).annotate(created_at=F("edited_at"))
        parts.append(_shaped(edits, "edit", Value(CORRECTED_SUBJECT), "edited_by"))
    if filters.kind in ("", MARKED_SENSITIVE):
        marks = Document.objects.filter(
            case__tenant=tenant, sensitive_marked_at__isnull=False
        ).annotate(created_at=F("sensitive_marked_at"))
        parts.append(_shaped(marks, "mark", Value(MARKED_SENSITIVE), "sensitive_marked_by"))
    parts = [_filtered(part, filters) for part in parts]
    if not parts:
        return HumanDecision.objects.none().values_list("pk")
    combined = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    return combined.order_by("-created_at", "-pk")


def rows_of(entries: list[tuple]) -> list[AuditRow]:
    """A page of audit_entries read whole, in the page's order."""
    ids: dict[str, list[int]] = {"decision": [], "edit": [], "mark": []}
    for source, pk, *_ in entries:
        ids[source].append(pk)
    decisions = (
        HumanDecision.objects.select_related("actor", "case", "review_item", "part_of", "run")
        .defer("run__state", "run__scenario")
        .in_bulk(ids["decision"])
    )
    edits = CaseEdit.objects.select_related("edited_by", "case").in_bulk(ids["edit"])
    marks = Document.objects.select_related("sensitive_marked_by", "case").in_bulk(ids["mark"])
    rows = []
    for source, pk, *_ in entries:
        if source == "decision":
            d = decisions[pk]
            rows.append(
                AuditRow(
                    when=d.created_at,
                    actor=d.actor,
                    label=d.get_kind_display(),
                    case=d.case,
                    kind=d.kind,
                    run_id=d.run_id,
                    reason=d.reason,
                    decision=d,
                    researched=d.run.subject_name,
                )
            )
        elif source == "edit":
            edit = edits[pk]
            rows.append(
                AuditRow(
                    when=edit.edited_at,
                    actor=edit.edited_by,
                    label=CASE_RECORD_KINDS[CORRECTED_SUBJECT],
                    case=edit.case,
                    kind=CORRECTED_SUBJECT,
                    reason=edit.reason,
                    details=[
                        f"{label}: “{before or '—'}” → “{after or '—'}”"
                        for label, before, after in changes_of(edit)
                    ],
                )
            )
        else:
            document = marks[pk]
            rows.append(
                AuditRow(
                    when=document.sensitive_marked_at,
                    actor=document.sensitive_marked_by,
                    label=CASE_RECORD_KINDS[MARKED_SENSITIVE],
                    case=document.case,
                    kind=MARKED_SENSITIVE,
                    details=[f"Document: “{document.original_name}”"],
                )
            )
    return rows


def add_effects(rows: list[AuditRow]) -> None:
    """Set each row's details (its decision's payload in words) and effect: one query for
    the runs of the rows' decisions."""
    decisions = [row.decision for row in rows if row.decision is not None]
    settled_by_run = {
        pk: (applied or [], rejected or {})
        for pk, applied, rejected in Run.objects.filter(
            pk__in={d.run_id for d in decisions}
        ).values_list("pk", "state__applied_decision_ids", "state__rejected_decisions")
    }
    for row in rows:
        decision = row.decision
        if decision is None:
            continue
        row.details = [*_conflict_named(decision), *decision_details(decision.payload or {})]
        if decision.kind not in RUNTIME_INPUT_KIND:
            continue
        applied, rejected = settled_by_run.get(decision.run_id, ([], {}))
        if str(decision.pk) in applied:
            row.effect = APPLIED
        elif because := rejected.get(str(decision.pk)):
            row.effect = f"Not applied: {because}"
        else:
            row.effect = "Not yet applied"


def _conflict_named(decision: HumanDecision) -> list[str]:
    """Which fact a decision on one conflict of an escalation settled, as its item had it."""
    conflict_id = (decision.payload or {}).get("conflict_id")
    item = decision.item
    if not conflict_id or item is None:
        return []
    settled = [
        c
        for c in item.payload.get("conflicts") or []
        if c.get("conflict_id") == conflict_id and c.get("fact")
    ]
    if not settled:
        return []
    return [f"Conflict on the {fact_about(settled[0]['fact'], settled[0].get('about') or '')}"]


def _shaped(
    rows: QuerySet, source: str, kind, actor: str, subject: str = "case__subject_name"
) -> QuerySet:
    return rows.annotate(
        source=Value(source, output_field=CharField()),
        entry_kind=kind if isinstance(kind, F) else Value(kind.value, output_field=CharField()),
        entry_actor=F(f"{actor}__username"),
        entry_case_name=F("case__subject_name"),
        entry_subject=F(subject),
        entry_case_id=F("case_id"),
    )


def _filtered(rows: QuerySet, filters: AuditFilters) -> QuerySet:
    if filters.case:
        rows = rows.filter(
            matching_cases(filters.case, "case") | name_contains("entry_subject", filters.case)
        )
    if filters.actor:
        rows = rows.filter(entry_actor=filters.actor)
    rows = within_days(rows, filters.date_from, filters.date_to)
    return rows.order_by().values_list("source", "pk", "entry_kind", "created_at")
