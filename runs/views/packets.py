"""The due-diligence packet of a run: a printable page and a JSON download."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.http import content_disposition_header

from atlas.runtime.directors import as_settled_in
from atlas.runtime.directorships import companies_directed, stored_conflict_about
from atlas.runtime.namesakes import turned_down
from atlas.runtime.wording import fact_label
from reviews.models import HumanDecision, ReviewItem
from runs.access import get_for_tenant, has_role, require_role, tenant_of
from runs.evidence_links import cited_findings, numbered, web_link
from runs.exports import decision_record
from runs.models import Document, Run
from runs.packet_changes import PacketChanges, changes_since_last_signoff
from runs.rating_grounds import rating_grounds
from runs.review_rounds import review_rounds
from runs.views.cases import READERS, HtmxHttpRequest


def _when(value):
    """An ISO timestamp from the state as a datetime for the template; text if it is not one."""
    if not value:
        return None
    try:
        return parse_datetime(str(value)) or value
    except ValueError:
        return value


class NoPacketYet(Http404):
    def __init__(self, run: Run) -> None:
        super().__init__("This run has no packet yet.")
        self.run = run


def _run_with_packet(request: HtmxHttpRequest, run_id: int) -> Run:
    run = get_for_tenant(
        Run.objects.select_related("case", "case__created_by"), tenant_of(request), pk=run_id
    )
    if not (run.state or {}).get("proposed_packet"):
        raise NoPacketYet(run)
    return run


def _decisions(run: Run) -> list[HumanDecision]:
    return list(
        HumanDecision.objects.filter(run=run)
        .select_related("actor", "review_item")
        .order_by("created_at", "id")
    )


def _versions(run: Run) -> dict[str, str]:
    bundle = (run.state or {}).get("versions") or {}
    return {
        "model": run.model_name,
        "model_kind": bundle.get("model_kind", ""),
        "prompt": run.prompt_version or bundle.get("prompt", ""),
        "schema": run.schema_version or bundle.get("schema_version", ""),
        "policy": run.policy_version or bundle.get("policy", ""),
        "toolset": run.toolset_version or bundle.get("toolset", ""),
    }


def _searched_for(item: dict) -> str:
    """Whom the search that found an article was for, when not the subject ("co-director
    Colin Marsh at Harrow Bay Freight Ltd (GB)"): an article's title does not say. (The
    entry saying a search found nothing names whom it was for itself.)"""
    is_article = str(item.get("source_id", "")).startswith("article:")
    return (item.get("about") or "") if is_article else ""


def _conflicts(state: dict, packet: dict) -> list[dict]:
    """Every conflict the run met, resolved or not; the packet's copy fills any gap."""
    by_id: dict[str, dict] = {}
    for conflict in packet.get("unresolved_conflicts") or []:
        by_id[conflict.get("conflict_id", "")] = {**conflict, "resolution": None}
    for conflict in state.get("conflicts") or []:
        by_id[conflict.get("conflict_id", "")] = conflict
    about = companies_directed(state.get("selected_entity"), state.get("directorships"))
    for conflict in by_id.values():
        conflict["fact_label"] = fact_label(str(conflict.get("fact", "")))
        conflict["about"] = stored_conflict_about(conflict, about)
        conflict["values"] = [
            {**value, "retrieved": _when(value.get("retrieved_at"))}
            for value in conflict.get("values") or []
        ]
    return list(by_id.values())


def packet_context(run: Run) -> dict[str, Any]:
    state = run.state or {}
    packet = state["proposed_packet"]
    documents = {str(d.pk): d for d in Document.objects.filter(case_id=run.case_id)}
    selected = state.get("selected_entity") or {}
    matched_source = f"registry:{selected.get('entity_id')}" if selected else None
    declined = turned_down(selected or None, state.get("answered_questions") or [])
    # Evidence claims reworded as the packet's are, for the directors a reviewer settled.
    settled = as_settled_in(state)
    evidence = []
    for item in numbered(state.get("evidence") or []):
        document = documents.get(str(item.get("document_id") or ""))
        evidence.append(
            {
                **item,
                "claim": settled(item.get("claim", "")),
                "link": web_link(item.get("url")),
                "copies_shown": [
                    {**copy, "link": web_link(copy.get("url"))} for copy in item.get("copies") or []
                ],
                "document_name": document.original_name if document else "",
                "retrieved": _when(item.get("retrieved_at")),
                # A registry record of a same-name candidate the subject was not matched to;
                # not the record of a company it directs (which has an "about").
                "other_candidate": matched_source is not None
                and item.get("evidence_class") == "registry"
                and item.get("source_id") != matched_source
                and not item.get("about"),
                # A candidate's record when the subject was matched to none (the analyst
                # said it is not the subject, or nobody picked one); not the record of a
                # company that lists a director by the subject's name (it has an "about").
                "unmatched_candidate": matched_source is None
                and item.get("evidence_class") == "registry"
                and str(item.get("source_id", "")).startswith("registry:")
                and not item.get("about"),
                "declined_candidate": declined and bool(item.get("candidate_id")),
                "searched_for": _searched_for(item),
            }
        )
    findings = cited_findings(packet, {item["evidence_id"]: item for item in evidence})
    for finding in findings:
        citations = finding["citations"]
        finding["unmatched_candidate"] = bool(citations) and all(
            c.get("unmatched_candidate") for c in citations
        )
    conflicts = _conflicts(state, packet)
    decisions = _decisions(run)
    decision_by_id = {str(d.pk): d for d in decisions}
    for conflict in conflicts:
        resolution = conflict.get("resolution") or None
        if resolution:
            conflict["decision"] = decision_by_id.get(str(resolution.get("decision_id", "")))
        conflict["reopened_after"] = [
            {**earlier, "decision": decision_by_id.get(str(earlier.get("decision_id", "")))}
            for earlier in conflict.get("earlier_resolutions") or []
        ]
    return {
        "run": run,
        "case": run.case,
        "packet": packet,
        "findings": findings,
        "review_rounds": review_rounds(packet),
        "changes": changes_since_last_signoff(run),
        "evidence": evidence,
        "rating_grounds": rating_grounds(state),
        "sanctions_evidence": _with_dispositions(
            [e for e in evidence if e.get("evidence_class") in ("sanctions", "pep")],
            packet,
            decisions,
        ),
        "media_evidence": _with_dispositions(
            [e for e in evidence if e.get("evidence_class") == "adverse_media"], packet, decisions
        ),
        "resolved_conflicts": [c for c in conflicts if c.get("status") == "resolved"],
        "unresolved_conflicts": [c for c in conflicts if c.get("status") != "resolved"],
        "decisions": decisions,
        "versions": _versions(run),
        "selected_entity": state.get("selected_entity"),
        "matched_by_answer": _matched_by_answer(selected, state.get("answered_questions") or []),
    }


def _matched_by_answer(selected: dict, answered: list[dict]) -> dict | None:
    """The analyst's answer that picked the matched entity, when one did: a reviewer sees
    that a person, not the name search, said which registry entity the case is about."""
    if not selected:
        return None
    picks = [a for a in answered if a.get("picked_entity_id")]
    if picks and picks[-1]["picked_entity_id"] == selected.get("entity_id"):
        return picks[-1]
    return None


def _with_dispositions(evidence: list[dict], packet: dict, decisions) -> list[dict]:
    """Each entry with the reviewer's disposition of it where it was a screening match
    (a sanctions hit, a politically exposed person, an adverse article found by a name
    alone), once signed off, and the reviewer named as the console names people."""
    names = {d.actor.get_username(): d.actor.get_full_name() for d in decisions}
    dispositions = {
        d["evidence_id"]: {**d, "decided_by": names.get(d["decided_by"]) or d["decided_by"]}
        for d in packet.get("hit_dispositions") or []
    }
    return [{**item, "disposition": dispositions.get(item["evidence_id"])} for item in evidence]


@require_role(*READERS)
def packet(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    try:
        run = _run_with_packet(request, run_id)
    except NoPacketYet as missing:
        # A link followed too early (a bookmark, a shared address): say why, and where the
        # run can be followed instead of a bare "not found".
        return render(request, "runs/no_packet.html", {"run": missing.run}, status=404)
    context = packet_context(run)
    if has_role(request.user, "reviewer"):
        # Where a reviewer who has read the packet decides on it.
        context["open_review_item"] = (
            ReviewItem.objects.filter(
                run=run,
                kind__in=[ReviewItem.Kind.SIGNOFF, ReviewItem.Kind.ESCALATION],
                status=ReviewItem.Status.OPEN,
            )
            .order_by("kind", "id")
            .first()
        )
    return render(request, "runs/packet.html", context)


def _changes_json(changes: PacketChanges | None) -> dict | None:
    if changes is None:
        return None
    return {
        "run_id": changes.run_id,
        "risk_rating": changes.rating or None,
        "new_evidence_ids": [item.get("evidence_id") for item in changes.new],
        "no_longer_found": [
            {"evidence_id": item.get("evidence_id"), "claim": item.get("claim", "")}
            for item in changes.gone
        ],
    }


def _findings_json(packet: dict, findings: list[dict]) -> list[dict]:
    """The packet's findings as stored, each saying, as its page flags it, whether a source
    it cites holds text written as instructions to the agent, and which."""
    return [
        {
            **stored,
            "cites_a_suspect_source": shown["suspect"],
            **({"suspect_sources": shown["suspect_sources"]} if shown["suspect"] else {}),
        }
        for stored, shown in zip(packet.get("findings") or [], findings, strict=True)
    ]


@require_role(*READERS)
def packet_json(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_with_packet(request, run_id)
    context = packet_context(run)
    body = {
        "run_id": run.pk,
        "case_id": run.case_id,
        "subject": run.subject_name,
        **(
            {"case_subject_corrected_to": run.case.subject_name}
            if run.case.subject_name != run.subject_name
            else {}
        ),
        # What the analyst wrote on the case, as this run was given it.
        "case_notes": (run.state.get("brief") or {}).get("notes", ""),
        "status": run.status,
        "termination_reason": run.termination_reason or None,
        "user_status": run.user_status,
        "packet": {
            **context["packet"],
            "findings": _findings_json(context["packet"], context["findings"]),
        },
        # What the risk rating stands on, as the packet page says it.
        "rating_grounds": context["rating_grounds"],
        "evidence": [
            {
                k: v
                for k, v in item.items()
                if k not in {"anchor", "number", "retrieved", "link", "copies_shown"}
            }
            for item in context["evidence"]
        ],
        "conflicts": [
            {
                **{
                    k: v
                    for k, v in c.items()
                    if k not in {"decision", "fact_label", "about", "reopened_after"}
                },
                "values": [
                    {k: v for k, v in value.items() if k != "retrieved"} for value in c["values"]
                ],
            }
            for c in context["resolved_conflicts"] + context["unresolved_conflicts"]
        ],
        "decisions": [decision_record(d) for d in context["decisions"]],
        "versions": context["versions"],
        "since_last_signoff": _changes_json(context["changes"]),
        "exported_at": timezone.now(),
    }
    response = HttpResponse(
        json.dumps(body, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = content_disposition_header(
        True, f"atlas-packet-run-{run.pk}.json"
    )
    return response
