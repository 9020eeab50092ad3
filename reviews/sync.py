"""Keep a run's open review items in step with its committed state.

Called inside the storage transaction, so an item appears exactly when the run pauses
for it and is withdrawn when the run moves on without it (cancelled, resumed, replaced).
"""

from __future__ import annotations

import functools
import operator

from django.db.models import Q
from django.utils import timezone

from atlas.runtime.directorships import conflict_about
from atlas.runtime.namesakes import candidate_words, other_candidate_id, turned_down
from atlas.runtime.packets import namesake_reasons
from atlas.runtime.state import EXTENDABLE_REASONS, AtlasState, EvidenceItem, Signal
from reviews.models import HumanDecision, ReviewItem
from runs.evidence_links import web_link
from runs.numbers import whole_number
from runs.rating_grounds import grounds_of


def _conflict_payload(state: AtlasState) -> list[dict]:
    """Conflicts nobody has decided yet; one marked unresolvable stays in the packet but is
    not escalated again."""
    return [
        {**c.model_dump(mode="json"), "about": conflict_about(state, c)}
        for c in state.conflicts
        if c.status == "open"
    ]


def matches_payload(state: AtlasState) -> list[dict]:
    """What a reviewer must dispose of, one by one, to sign the packet off or to close the
    case as it stands: each screening match, the list, register or outlet it is from, and
    whom it is about ("" for the subject itself), and the registry candidate for the subject
    it is about when that is not the entity the subject was matched to ("" otherwise)."""
    reasons = namesake_reasons(state)
    return [_match(state, hit, reasons) for hit in state.screening_matches()]


def hits_among(matches: list[dict]) -> list[dict]:
    """The sanctions hits among `matches` (matches_payload), which the queues flag."""
    return [match for match in matches if match["kind"] == "sanctions"]


def _match(state: AtlasState, hit: EvidenceItem, reasons_by_match: dict[str, list[str]]) -> dict:
    reasons = reasons_by_match.get(hit.evidence_id, [])
    return {
        "evidence_id": hit.evidence_id,
        "claim": hit.claim,
        "list": hit.source_label,
        "about": hit.about,
        "candidate": _other_candidate(state, hit),
        "kind": hit.evidence_class,
        "url": web_link(hit.url),
        "possible_namesake": hit.possible_namesake or bool(reasons),
        # Why it may be on a namesake: the case gives the person screened another year of
        # birth, other nationalities or another middle name.
        "namesake_reasons": reasons,
    }


def _other_candidate(state: AtlasState, hit: EvidenceItem) -> str:
    """The registry candidate, in words, a match is about when the subject was matched to
    another entity of the same name (a namesake), or when the analyst said it is not the
    subject; "" when it is about the subject."""
    selected = state.selected_entity.model_dump() if state.selected_entity else None
    declined = turned_down(selected, state.answered_questions)
    candidate_id = other_candidate_id(hit.model_dump(), selected, declined)
    if not candidate_id:
        return ""
    candidates = [c.model_dump() for c in state.entity_candidates]
    evidence = [{"source_id": e.source_id, "claim": e.claim} for e in state.evidence]
    return candidate_words(candidate_id, candidates, evidence)


def suspect_sources(state: AtlasState) -> list[str]:
    """The sources holding text written as instructions to an AI agent, each once."""
    labels = [e.source_label for e in state.evidence if Signal.INSTRUCTIONS in e.signals]
    return list(dict.fromkeys(labels))


def desired_items(state: AtlasState) -> dict[tuple[str, str], dict]:
    """(kind, key) -> {summary, payload} for what this state asks people to do."""
    wanted: dict[tuple[str, str], dict] = {}
    subject = state.brief.subject
    if state.status == "waiting_for_input" and state.pending_question:
        question = state.pending_question
        wanted[(ReviewItem.Kind.CLARIFICATION, question.question_id)] = {
            "summary": f"{subject}: {question.question}"[:500],
            "payload": question.model_dump(mode="json"),
        }
    if state.status != "awaiting_review":
        return wanted
    reason = state.termination_reason
    if reason == "awaiting_approval" and state.pending_approval:
        action = state.pending_approval
        wanted[(ReviewItem.Kind.APPROVAL, action.action_id)] = {
            "summary": f"{subject}: run {action.tool_name}",
            "payload": action.model_dump(mode="json"),
        }
    # What a sign-off or an escalation asks a disposition of.
    matches = (
        matches_payload(state)
        if reason == "finish_proposed" or reason in EXTENDABLE_REASONS
        else []
    )
    if reason == "finish_proposed" and state.proposed_packet:
        packet = state.proposed_packet
        wanted[(ReviewItem.Kind.SIGNOFF, f"packet-{state.step}")] = {
            "summary": f"{subject}: packet rated {packet.risk_rating} risk",
            "payload": {
                "packet": packet.model_dump(mode="json"),
                "step": state.step,
                "sanctions_hits": hits_among(matches),
                "screening_matches": matches,
                "suspect_sources": suspect_sources(state),
                "rating_grounds": grounds_of(state),
                # Whom each disputed fact is about, for the words that hold sign-off back.
                "conflicts_about": {
                    c.conflict_id: about
                    for c in state.conflicts
                    if c.status == "open" and (about := conflict_about(state, c))
                },
            },
        }
    conflicts = _conflict_payload(state)
    if reason in EXTENDABLE_REASONS or (reason == "finish_proposed" and conflicts):
        label = "unresolved conflict" if reason == "finish_proposed" else reason.replace("_", " ")
        wanted[(ReviewItem.Kind.ESCALATION, f"{reason}-{state.step}")] = {
            "summary": f"{subject}: {label}",
            "payload": {
                "reason": reason,
                "user_status": state.user_status,
                "conflicts": conflicts,
                "open_gaps": state.proposed_packet.open_gaps if state.proposed_packet else [],
                "usage": {
                    "iterations": state.iteration,
                    "tokens": state.tokens,
                    "cost_usd": str(state.cost_usd),
                },
                "budgets": state.budgets.model_dump(mode="json"),
                "sanctions_hits": hits_among(matches),
                "screening_matches": matches,
            },
        }
    return wanted


def sync_review_items(
    run_id: int,
    state: AtlasState,
    wanted: dict[tuple[str, str], dict] | None = None,
    asked_before: dict[tuple[str, str], dict] | None = None,
) -> None:
    """`wanted` is `desired_items(state)` when the caller has already computed it;
    `asked_before` is what the run's previous commit wanted, when the caller knows it (only
    the run's own commits open or withdraw its items, so those are the open ones, apart
    from any a reviewer has decided since)."""
    if wanted is None:
        wanted = desired_items(state)
    if asked_before is None:
        open_keys = {
            (kind, base_key(key))
            for kind, key in ReviewItem.objects.filter(
                run_id=run_id, status=ReviewItem.Status.OPEN
            ).values_list("kind", "key")
        }
    else:
        open_keys = set(asked_before)
    stale = [key for key in open_keys if key not in wanted]
    if stale:
        ReviewItem.objects.filter(
            functools.reduce(
                operator.or_,
                (
                    Q(kind=kind, key=key) | Q(kind=kind, key__startswith=key + RETRY_MARK)
                    for kind, key in stale
                ),
            ),
            run_id=run_id,
            status=ReviewItem.Status.OPEN,
        ).update(status=ReviewItem.Status.WITHDRAWN)
    missing = [key for key in wanted if key not in open_keys]
    if not missing:
        return
    now = timezone.now()
    # One statement; an item of the same kind and key that exists already (even one that
    # was decided or withdrawn) is left as it is, as the unique constraint says.
    ReviewItem.objects.bulk_create(
        [
            ReviewItem(
                run_id=run_id,
                tenant_id=int(state.tenant_id),
                case_id=int(state.case_id),
                kind=kind,
                key=key,
                summary=wanted[(kind, key)]["summary"],
                payload=wanted[(kind, key)]["payload"],
                requested_at=now,
            )
            for kind, key in missing
        ],
        ignore_conflicts=True,
    )


# An item asked again after its decision was refused: the same request under a key of its
# own ("packet-7~56", after decision 56), since a decided item keeps its one decision.
RETRY_MARK = "~"


def base_key(key: str) -> str:
    return key.split(RETRY_MARK, 1)[0]


def reopen_refused_items(run_id: int, decision_ids: list[str], wanted: dict) -> None:
    """The requests whose decision the run refused (`human_input_rejected`) while it still
    asks for them are asked again, or nobody could ever decide them. The refused decision
    stays on its item, in the audit trail, marked not applied (decisions are append-only)."""
    ids = [n for n in map(whole_number, decision_ids) if n is not None]
    refused = HumanDecision.objects.filter(
        pk__in=ids, run_id=run_id, review_item__isnull=False
    ).select_related("review_item")
    for decision in refused:
        item = decision.review_item
        if (item.kind, base_key(item.key)) not in wanted:
            continue
        ReviewItem.objects.get_or_create(
            run_id=run_id,
            kind=item.kind,
            key=f"{base_key(item.key)}{RETRY_MARK}{decision.pk}",
            defaults={
                "tenant_id": item.tenant_id,
                "case_id": item.case_id,
                "summary": item.summary,
                "payload": item.payload,
                "requested_at": timezone.now(),
            },
        )
