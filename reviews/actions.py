"""The only code that writes review state: claims and human decisions.

Every decision is one append-only `HumanDecision` carrying the fields of the runtime's
human input in its payload; the worker applies it when the run resumes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from pydantic import ValidationError as PydanticValidationError

from atlas.runtime.decisions import DISPOSE_OF_EVERY_HIT, MAX_HIT_NOTE_CHARS
from atlas.runtime.humans import parse_human_input
from atlas.runtime.rating_floor import rules_against, why_not
from atlas.runtime.state import AtlasState, Budgets
from atlas.runtime.wording import fact_about
from reviews.decision_details import BUDGET_UNITS
from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_request_resume
from runs.execution import RUNTIME_INPUT_KIND
from runs.models import Run
from runs.numbers import whole_number

MAX_REASON_CHARS = 2000


class ReviewError(ValidationError):
    """A decision that could not be recorded; the message says why, nothing was written."""


class AlreadyDecided(ReviewError):
    def __init__(self, decision: HumanDecision) -> None:
        self.decision = decision
        when = timezone.localtime(decision.created_at).strftime("%Y-%m-%d %H:%M:%S %Z")
        super().__init__(
            f"{_name(decision.actor)} already recorded “{decision.get_kind_display()}” "
            f"at {when}; your decision was not recorded."
        )


class ItemNotOpen(ReviewError):
    def __init__(self, item: ReviewItem) -> None:
        self.item = item
        super().__init__(
            "The run no longer waits for this item (it moved on or was cancelled); "
            "nothing was recorded."
        )


class ClaimHeld(ReviewError):
    def __init__(self, item: ReviewItem) -> None:
        self.item = item
        until = timezone.localtime(item.claim_expires_at).strftime("%H:%M:%S %Z")
        super().__init__(
            f"{_name(item.claimed_by)} is working on this item (claimed until {until}); "
            "nothing was recorded."
        )


FOUR_EYES_MESSAGE = "You opened this case, so another reviewer must decide on it (four-eyes rule)."


class FourEyes(ReviewError):
    """Nobody decides on a case they opened: refused like a stale page (a domain rule, not
    a role), so the decide views give back what was typed."""

    def __init__(self, item: ReviewItem) -> None:
        self.item = item
        super().__init__(f"{FOUR_EYES_MESSAGE} Nothing was recorded.")


class NotClaimed(ReviewError):
    """A release of a claim nobody holds: nothing changed."""

    def __init__(self, item: ReviewItem) -> None:
        self.item = item
        lapsed = f" ({_name(item.claimed_by)}'s claim had expired)" if item.claimed_by_id else ""
        super().__init__(f"This item was not claimed{lapsed}, so there was nothing to release.")


def _name(user) -> str:
    return user.get_full_name() or user.get_username()


def claim_is_live(item: ReviewItem, now=None) -> bool:
    now = now or timezone.now()
    return bool(item.claimed_by_id and item.claim_expires_at and item.claim_expires_at > now)


def _clean_reason(reason: str, *, what: str = "a reason") -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError(f"Give {what}; it is recorded in the audit trail.")
    if len(reason) > MAX_REASON_CHARS:
        raise ReviewError(
            f"Keep it under {MAX_REASON_CHARS:,} characters (yours has {len(reason):,})."
        )
    return reason


def _locked_item(item: ReviewItem) -> ReviewItem:
    # Row lock on PostgreSQL: two reviewers deciding one item queue here, and the second
    # sees the first's decision instead of racing it. SQLite serialises writers anyway.
    # The claim's holder is not joined: a statement that waited on the lock re-reads the
    # item's row but not the rows joined to it, so a claim made meanwhile would come back
    # with its holder's id and no holder.
    return (
        ReviewItem.objects.select_for_update(of=("self",))
        .select_related("run", "case")
        .get(pk=item.pk)
    )


def _existing_decision(item: ReviewItem) -> HumanDecision | None:
    return item.decisions.select_related("actor").order_by("id").first()


def refusal_for(item: ReviewItem, user, *, four_eyes: bool = True) -> ReviewError | None:
    """Why `user` cannot decide or claim `item` now, whatever they would decide; None if
    they can. Checked under the item's row lock before anything is recorded, and without
    it to tell a stale page from a bad form. `four_eyes`: whether the item is one nobody
    decides on a case they opened (every kind but a question to answer)."""
    if four_eyes and item.case.created_by_id == user.pk:
        return FourEyes(item)
    existing = _existing_decision(item)
    if existing is not None:
        return AlreadyDecided(existing)
    if item.status != ReviewItem.Status.OPEN:
        return ItemNotOpen(item)
    if claim_is_live(item) and item.claimed_by_id != user.pk:
        return ClaimHeld(item)
    return None


def _refuse_before_the_marks(item: ReviewItem, user) -> None:
    """A decision nobody may record now (someone else's claim or decision, the reviewer's
    own case) is refused for that, not for a mark or a rating its form left out; checked
    again under the lock."""
    if (refusal := refusal_for(item, user)) is not None:
        raise refusal


def _check_runtime_payload(kind: str, payload: dict, user) -> None:
    """Refuse a payload the runtime could not apply, before anything is stored."""
    try:
        parse_human_input(
            {
                **payload,
                "kind": RUNTIME_INPUT_KIND[kind],
                "decision_id": "check",
                "actor": user.get_username(),
            }
        )
    except PydanticValidationError as error:
        problems = "; ".join(e["msg"] for e in error.errors())
        raise ReviewError(f"This decision is not valid: {problems}") from None


def _record(
    item: ReviewItem,
    user,
    *,
    kind: str,
    reason: str,
    payload: dict,
    four_eyes: bool = True,
    closes_item: bool = True,
    precondition: Callable[[ReviewItem], None] | None = None,
) -> HumanDecision:
    """Lock the item, check it still waits for a decision, append one decision, and resume
    the run once the item is closed (until then it waits for the rest of the item)."""
    _check_runtime_payload(kind, payload, user)
    with transaction.atomic():
        # The run row first, then the item: the same order as the storage layer's step
        # commit (run, then its review items), so the two never deadlock.
        list(Run.objects.select_for_update().filter(pk=item.run_id).values_list("pk"))
        locked = _locked_item(item)
        if (refusal := refusal_for(locked, user, four_eyes=four_eyes)) is not None:
            raise refusal
        if precondition is not None:
            precondition(locked)
        try:
            with transaction.atomic():
                decision = HumanDecision.objects.create(
                    tenant_id=locked.tenant_id,
                    case_id=locked.case_id,
                    run_id=locked.run_id,
                    review_item=locked if closes_item else None,
                    part_of=None if closes_item else locked,
                    actor=user,
                    kind=kind,
                    reason=reason,
                    payload=payload,
                    state_version=locked.run.state_version,
                )
        except IntegrityError:
            # The named constraint reviews_decision_one_per_item: another decision won.
            winner = _existing_decision(locked)
            if winner is None:
                raise
            raise AlreadyDecided(winner) from None
        if closes_item:
            locked.status = ReviewItem.Status.DECIDED
            locked.decided_at = decision.created_at
            locked.save(update_fields=["status", "decided_at"])
            do_request_resume(locked.run)
    item.refresh_from_db()
    return decision


def do_claim_item(item: ReviewItem, user) -> ReviewItem:
    """Hold an item for `ATLAS_REVIEW_CLAIM_SECONDS`; an expired claim can be taken over."""
    with transaction.atomic():
        locked = _locked_item(item)
        four_eyes = locked.kind != ReviewItem.Kind.CLARIFICATION
        if (refusal := refusal_for(locked, user, four_eyes=four_eyes)) is not None:
            raise refusal
        locked.claimed_by = user
        locked.claim_expires_at = timezone.now() + timezone.timedelta(
            seconds=settings.ATLAS_REVIEW_CLAIM_SECONDS
        )
        locked.save(update_fields=["claimed_by", "claim_expires_at"])
    item.refresh_from_db()
    return item


def do_release_claim(item: ReviewItem, user) -> ReviewItem:
    """Give an item back to the queue; only its holder can while the claim lasts. Refused
    when this person holds no claim on it: there is nothing to give back."""
    with transaction.atomic():
        locked = _locked_item(item)
        if locked.claimed_by_id != user.pk and claim_is_live(locked):
            until = timezone.localtime(locked.claim_expires_at).strftime("%H:%M:%S %Z")
            raise ReviewError(
                f"{_name(locked.claimed_by)} holds this item until {until}: only they can "
                "release it before then."
            )
        if locked.claimed_by_id != user.pk:
            raise NotClaimed(locked)
        locked.claimed_by = None
        locked.claim_expires_at = None
        locked.save(update_fields=["claimed_by", "claim_expires_at"])
    item.refresh_from_db()
    return item


def _expect_kind(item: ReviewItem, *kinds: str) -> None:
    if item.kind not in kinds:
        raise ReviewError(f"This is a {item.get_kind_display().lower()}, not that kind of item.")


def do_decide_approval(
    item: ReviewItem, user, approve: bool, reason: str, reasons_seen: int | None = None
) -> HumanDecision:
    """`reasons_seen`: how many reasons for the approval the reviewer's page showed. A
    reason added since (a document marked sensitive, runs.actions.do_mark_sensitive) must
    be read before the action is approved; a denial stands whatever was added."""
    _expect_kind(item, ReviewItem.Kind.APPROVAL)
    reason = _clean_reason(reason)
    action_id = item.payload.get("action_id") or item.key

    def no_unseen_reasons(locked: ReviewItem) -> None:
        reasons = locked.payload.get("reasons", [])
        if approve and reasons_seen is not None and len(reasons) > reasons_seen:
            raise ReviewError(
                "Not approved: since this page was loaded, approval is also needed because "
                + " ".join(reasons[reasons_seen:])
                + " Read the request again, then decide."
            )

    return _record(
        item,
        user,
        kind=HumanDecision.Kind.APPROVE if approve else HumanDecision.Kind.DENY,
        reason=reason,
        payload={
            "action_id": action_id,
            "approved": approve,
            "reason": reason,
            "reasons_seen": list(item.payload.get("reasons", []))[:reasons_seen],
        },
        precondition=no_unseen_reasons,
    )


SETTLING_KINDS = (HumanDecision.Kind.RESOLVE_CONFLICT, HumanDecision.Kind.MARK_UNRESOLVABLE)


def settled_conflict_ids(run_ids: Iterable[int]) -> dict[int, set[str]]:
    """Per run, the conflicts a reviewer has settled, applied by the run or not yet."""
    settled: dict[int, set[str]] = {}
    decisions = HumanDecision.objects.filter(run_id__in=set(run_ids), kind__in=SETTLING_KINDS)
    for run_id, conflict_id in decisions.values_list("run_id", "payload__conflict_id"):
        settled.setdefault(run_id, set()).add(conflict_id)
    return settled


def open_conflict_facts(item: ReviewItem, settled: set[str] | None = None) -> list[str]:
    """What the packet of a sign-off item still has in dispute that nobody has settled
    (a conflict marked unresolvable by a reviewer is settled: it stays in the packet).
    `settled` is the run's entry of `settled_conflict_ids`, read here when not given."""
    if item.kind != ReviewItem.Kind.SIGNOFF:
        return []
    conflicts = (item.payload.get("packet") or {}).get("unresolved_conflicts") or []
    disputed = [c for c in conflicts if c.get("status", "open") == "open"]
    if disputed and settled is None:
        settled = settled_conflict_ids([item.run_id]).get(item.run_id, set())
    about = item.payload.get("conflicts_about") or {}
    return [
        fact_about(c.get("fact", "a fact"), about.get(c.get("conflict_id"), ""))
        for c in disputed
        if c.get("conflict_id") not in (settled or set())
    ]


def _no_open_conflicts(item: ReviewItem) -> None:
    if facts := open_conflict_facts(item):
        raise ReviewError(
            f"The sources still disagree on {', '.join(facts)}. Settle that on the run's "
            "escalation first (pick the value that stands, or mark it unresolvable so the "
            "packet records it); the packet then comes back for sign-off."
        )


def screening_matches_of(item: ReviewItem) -> list[dict]:
    """The screening matches a sign-off or a closing decision needs a disposition of: listed
    on the item, or, for an item requested before items listed them, read from the run's
    state. Items requested before screening checked the register of politically exposed
    persons list the sanctions hits alone, which were then all the matches there were."""
    if item.kind not in (ReviewItem.Kind.SIGNOFF, ReviewItem.Kind.ESCALATION):
        return []
    for key in ("screening_matches", "sanctions_hits"):
        if key in item.payload:
            return item.payload[key]
    from reviews.sync import matches_payload

    return matches_payload(AtlasState.from_json(item.run.state))


def _marks(
    item: ReviewItem,
    hit_dispositions: dict[str, str] | None,
    hit_notes: dict[str, str] | None,
    *,
    every: bool = True,
) -> dict:
    """The payload's marks: `hit_dispositions`, refused unless it covers every screening
    match of the item (with `every`: a packet sent back keeps what the reviewer marked so
    far), and the notes on them if the reviewer wrote any, refused when one is too long.
    The run refuses a mark or note on anything else; refused here, nothing is recorded."""
    hit_dispositions = hit_dispositions or {}
    notes = {key: note.strip() for key, note in (hit_notes or {}).items() if note.strip()}
    hits = screening_matches_of(item)
    known = {hit["evidence_id"] for hit in hits}
    if unknown := sorted((set(hit_dispositions) | set(notes)) - known):
        raise ReviewError(
            f"Not a screening match of this run: {', '.join(unknown)}. Reload the page and "
            "mark the matches it lists."
        )
    missing = [hit["claim"] for hit in hits if hit["evidence_id"] not in hit_dispositions]
    if missing and every:
        raise ReviewError(f"{DISPOSE_OF_EVERY_HIT} ({len(missing)} of {len(hits)} not marked yet).")
    if too_long := [key for key, note in notes.items() if len(note) > MAX_HIT_NOTE_CHARS]:
        raise ReviewError(
            f"Keep each note on a match under {MAX_HIT_NOTE_CHARS} characters "
            f"({len(too_long)} {'is' if len(too_long) == 1 else 'are'} longer)."
        )
    return {"hit_dispositions": hit_dispositions} | ({"hit_notes": notes} if notes else {})


def sign_off_problems(
    item: ReviewItem,
    approve: bool,
    reason: str,
    hit_dispositions: dict[str, str] | None = None,
    risk_rating: str = "",
    hit_notes: dict[str, str] | None = None,
) -> dict[str, str]:
    """Everything wrong with a sign-off or a send-back as given, by field ("reason", "hits"
    for the screening matches' marks, "risk_rating"): every problem at once, so one try
    tells the reviewer all of them."""
    return _checked_sign_off(item, approve, reason, hit_dispositions, risk_rating, hit_notes)[1]


def _checked_sign_off(
    item: ReviewItem,
    approve: bool,
    reason: str,
    hit_dispositions: dict[str, str] | None,
    risk_rating: str,
    hit_notes: dict[str, str] | None,
) -> tuple[dict, dict[str, str]]:
    """The payload a sign-off or a send-back records, and everything wrong with it by field,
    each check made once."""
    problems: dict[str, str] = {}

    def checked(field: str, check):
        try:
            return check()
        except ReviewError as problem:
            problems[field] = " ".join(problem.messages)
            return {}

    payload = {
        "approved": approve,
        "reason": checked("reason", lambda: _clean_reason(reason)),
        "packet_step": item.payload.get("step"),
    }
    marks = checked("hits", lambda: _marks(item, hit_dispositions, hit_notes, every=approve))
    if approve:
        marked = marks.get("hit_dispositions", hit_dispositions or {})
        payload |= marks | checked("risk_rating", lambda: _rating_set(item, risk_rating, marked))
    else:
        # What was marked so far is kept for the audit, and shown beside the same matches
        # when the packet returns.
        payload |= {key: value for key, value in marks.items() if value}
    return payload, problems


def do_sign_off(
    item: ReviewItem,
    user,
    approve: bool,
    reason: str,
    hit_dispositions: dict[str, str] | None = None,
    risk_rating: str = "",
    hit_notes: dict[str, str] | None = None,
) -> HumanDecision:
    """Sign off (every screening match disposed of, with a note where the reviewer wrote
    one, at the proposed rating or another the evidence allows) or send a proposed packet
    back. Refused with every problem at once, by field (the ReviewError's `message_dict`)."""
    _expect_kind(item, ReviewItem.Kind.SIGNOFF)
    _refuse_before_the_marks(item, user)
    payload, problems = _checked_sign_off(
        item, approve, reason, hit_dispositions, risk_rating, hit_notes
    )
    if problems:
        raise ReviewError(problems)
    return _record(
        item,
        user,
        kind=HumanDecision.Kind.SIGN_OFF if approve else HumanDecision.Kind.REJECT_PACKET,
        reason=payload["reason"],
        payload=payload,
        precondition=_no_open_conflicts if approve else None,
    )


def _rating_set(item: ReviewItem, rating: str, hit_dispositions: dict[str, str]) -> dict:
    """The payload's rating when the reviewer chose another than the packet's; refused,
    before anything is recorded, when the run would refuse it: when the evidence rules it
    out once the matches marked false positives are set aside."""
    if not rating or rating == item.run.risk_rating:
        return {}
    set_aside = {key for key, value in hit_dispositions.items() if value == "false_positive"}
    state = AtlasState.from_json(item.run.state)
    if rules := rules_against(state, rating, set_aside):
        raise ReviewError(why_not(state, rating, rules))
    return {"risk_rating": rating}


def do_decide(
    item: ReviewItem,
    user,
    approve: bool,
    reason: str,
    hit_dispositions: dict[str, str] | None = None,
    reasons_seen: int | None = None,
    risk_rating: str = "",
    hit_notes: dict[str, str] | None = None,
) -> HumanDecision:
    """Approve/deny from the approval queue: a tool approval or a packet sign-off."""
    if item.kind == ReviewItem.Kind.SIGNOFF:
        return do_sign_off(item, user, approve, reason, hit_dispositions, risk_rating, hit_notes)
    return do_decide_approval(item, user, approve, reason, reasons_seen)


def do_answer_question(item: ReviewItem, user, text: str) -> HumanDecision:
    _expect_kind(item, ReviewItem.Kind.CLARIFICATION)
    text = _clean_reason(text, what="an answer")
    question_id = item.payload.get("question_id") or item.key
    return _record(
        item,
        user,
        kind=HumanDecision.Kind.ANSWER,
        reason=text,
        payload={
            "question_id": question_id,
            "text": text,
            # What the analyst had attached when answering goes to the run with the answer.
            "document_ids": [
                str(pk) for pk in item.case.documents.order_by("pk").values_list("pk", flat=True)
            ],
        },
        four_eyes=False,
    )


def open_conflict_ids(item: ReviewItem) -> list[str]:
    """Conflicts of this escalation nobody has decided on yet (in state or in a decision)."""
    from atlas.runtime.state import AtlasState

    ids = [c["conflict_id"] for c in item.payload.get("conflicts", [])]
    if item.run.state:
        state = AtlasState.from_json(item.run.state)
        settled_in_state = {c.conflict_id for c in state.conflicts if c.status != "open"}
        ids = [cid for cid in ids if cid not in settled_in_state]
    decided = set(
        HumanDecision.objects.filter(
            run_id=item.run_id,
            kind__in=SETTLING_KINDS,
            created_at__gte=item.requested_at,
        ).values_list("payload__conflict_id", flat=True)
    )
    return [cid for cid in ids if cid not in decided]


def settled_conflict_message(run_id: int, conflict_id: str) -> str:
    """Why a decision on `conflict_id` came too late: who settled it on the run, and how."""
    state = Run.objects.filter(pk=run_id).values_list("state", flat=True).first() or {}
    conflict = next(
        (c for c in state.get("conflicts") or [] if c.get("conflict_id") == conflict_id), None
    )
    resolution = (conflict or {}).get("resolution")
    if not resolution:
        return "This conflict is already settled or not part of this escalation."
    decision_id = whole_number(str(resolution.get("decision_id") or ""))
    decision = (
        HumanDecision.objects.filter(pk=decision_id).select_related("actor").first()
        if decision_id is not None
        else None
    )
    who = (decision.actor.get_full_name() if decision else "") or "A reviewer"
    value = resolution.get("value")
    settled = f"“{value}” stands" if value else "it was marked unresolvable"
    return f"{who} already settled this conflict: {settled}."


def do_resolve_conflict(
    item: ReviewItem,
    user,
    conflict_id: str,
    *,
    chosen_value: str | None = None,
    unresolvable: bool = False,
    note: str = "",
) -> HumanDecision:
    """Pick the value that stands, or mark the conflict unresolvable with a note.

    The decision closes the escalation only when it settles its last open conflict; until
    then the item stays open so the other conflicts can be decided too, and the run waits:
    resumed at the first, it would withdraw the escalation and re-raise the rest.
    """
    _expect_kind(item, ReviewItem.Kind.ESCALATION)
    note = _clean_reason(note, what="a note explaining the resolution")
    with transaction.atomic():
        list(Run.objects.select_for_update().filter(pk=item.run_id).values_list("pk"))
        locked = _locked_item(item)
        remaining = open_conflict_ids(locked)
        if conflict_id not in remaining:
            raise ReviewError(settled_conflict_message(item.run_id, conflict_id))
        if unresolvable:
            kind = HumanDecision.Kind.MARK_UNRESOLVABLE
            payload = {"conflict_id": conflict_id, "unresolvable": True, "note": note}
        else:
            values = next(
                c["values"] for c in locked.payload["conflicts"] if c["conflict_id"] == conflict_id
            )
            if chosen_value not in {v["value"] for v in values}:
                raise ReviewError("Pick one of the competing values, or mark it unresolvable.")
            kind = HumanDecision.Kind.RESOLVE_CONFLICT
            payload = {"conflict_id": conflict_id, "value": chosen_value, "note": note}
        return _record(
            locked,
            user,
            kind=kind,
            reason=note,
            payload=payload,
            closes_item=remaining == [conflict_id],
        )


def _require_extendable(item: ReviewItem) -> None:
    if not item.budget_can_be_extended:
        raise ReviewError(
            "This run proposed a packet; it did not stop on a budget. Resolve the conflict or "
            "close the case instead."
        )


# Each extension field: the budget it raises, that budget in words, and the amount in words.
EXTENSIONS = {
    "extra_iterations": ("max_iterations", "iteration limit", "iterations"),
    "extra_tokens": ("max_tokens", "token budget", "tokens"),
    "extra_cost_usd": ("max_cost_usd", "cost budget", "dollars"),
    "extra_seconds": ("deadline_seconds", "time limit", "seconds"),
}
WHOLE_NUMBERS = ("extra_iterations", "extra_tokens")


def budget_ceiling(budget: str) -> Decimal:
    """The most the runtime lets `budget` be (atlas.runtime.state.Budgets)."""
    return next(
        Decimal(str(rule.le))
        for rule in Budgets.model_fields[budget].metadata
        if hasattr(rule, "le")
    )


def past_the_ceiling(budgets: Budgets, extra: dict[str, Decimal]) -> dict[str, str]:
    """Each extension field that would take its budget past the runtime's ceiling, with
    what the reviewer may add at most."""
    refusals = {}
    for name, (budget, words, _) in EXTENSIONS.items():
        now = Decimal(str(getattr(budgets, budget)))
        ceiling = budget_ceiling(budget)
        if extra.get(name) and now + Decimal(str(extra[name])) > ceiling:
            show = BUDGET_UNITS[name]
            refusals[name] = (
                f"This run's {words} is {show(now)} and can go no higher than "
                f"{show(ceiling)}: add at most {show(max(ceiling - now, 0))}."
            )
    return refusals


def _extension_amount(name: str, value) -> Decimal:
    unit = EXTENSIONS[name][2]
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ReviewError(f"The {unit} to add must be a number, not {value!r}.")
    amount = Decimal(str(value))
    if not amount.is_finite():
        raise ReviewError(f"The {unit} to add must be a finite number, not {value}.")
    if amount < 0:
        raise ReviewError(
            f"An extension only adds: the {unit} to add cannot be negative ({value})."
        )
    if name in WHOLE_NUMBERS and amount != amount.to_integral_value():
        raise ReviewError(f"Add a whole number of {unit}, not {value}.")
    return amount


def do_extend_budget(
    item: ReviewItem,
    user,
    *,
    extra_iterations: int = 0,
    extra_tokens: int = 0,
    extra_cost_usd: Decimal = Decimal("0"),
    extra_seconds: float = 0,
    reason: str,
) -> HumanDecision:
    """Give a run stopped on a budget more room. Refused, with nothing recorded, for an
    amount that is negative or not a number, an extension that adds nothing, and one that
    would take a budget past the ceiling the runtime holds it to: checked against the run's
    budgets as they stand under the run's row lock, whoever calls."""
    _expect_kind(item, ReviewItem.Kind.ESCALATION)
    reason = _clean_reason(reason)
    given = {
        "extra_iterations": extra_iterations,
        "extra_tokens": extra_tokens,
        "extra_cost_usd": extra_cost_usd,
        "extra_seconds": extra_seconds,
    }
    extra = {name: _extension_amount(name, value) for name, value in given.items()}
    if not any(extra.values()):
        raise ReviewError("Extend at least one budget (iterations, tokens, cost or time).")

    def extendable_within_ceilings(locked: ReviewItem) -> None:
        _require_extendable(locked)
        refusals = past_the_ceiling(Budgets.model_validate(locked.run.budgets or {}), extra)
        if refusals:
            raise ReviewError(" ".join(refusals.values()) + " Nothing was recorded.")

    return _record(
        item,
        user,
        kind=HumanDecision.Kind.EXTEND_BUDGET,
        reason=reason,
        precondition=extendable_within_ceilings,
        payload={
            "extra_iterations": int(extra["extra_iterations"]),
            "extra_tokens": int(extra["extra_tokens"]),
            # Fixed-point: str() of an amount typed as 1e1 is "1E+1".
            "extra_cost_usd": f"{extra['extra_cost_usd']:f}",
            "extra_seconds": float(extra["extra_seconds"]),
        },
    )


def do_close_case(
    item: ReviewItem,
    user,
    decision: str,
    hit_dispositions: dict[str, str] | None = None,
    risk_rating: str = "",
    hit_notes: dict[str, str] | None = None,
) -> HumanDecision:
    """Close the case as it stands (every screening match disposed of, with a note where
    the reviewer wrote one, at the packet's rating or another the evidence allows): the
    packet so far, with the decision, becomes the case's record."""
    _expect_kind(item, ReviewItem.Kind.ESCALATION, ReviewItem.Kind.SIGNOFF)
    _refuse_before_the_marks(item, user)
    decision = _clean_reason(decision, what="the closing decision")
    payload = {"decision": decision} | _marks(item, hit_dispositions, hit_notes)
    payload |= _rating_set(item, risk_rating, payload["hit_dispositions"])
    return _record(item, user, kind=HumanDecision.Kind.CLOSE_CASE, reason=decision, payload=payload)
