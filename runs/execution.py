"""Drive a persisted run with the runtime: the bridge between a Run row and the loop.

The worker calls `advance_run` while it holds the run's lease; `run_case` and tests use
`run_inline` / `run_headless` to drive a run in this process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings

from atlas.runtime.adapters.openai import PriceTable
from atlas.runtime.engine import Runtime, build_runtime, drive
from atlas.runtime.humans import HumanInput, HumanInputRejected, parse_human_input
from atlas.runtime.memory import MemoryCancelSignal, SystemClock
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.ports import CancelSignal, StaleRunVersion
from atlas.runtime.scenario import Scenario, parse_scenario
from atlas.runtime.state import AtlasState
from reviews.models import HumanDecision
from runs.command_presence import CommandHeartbeat
from runs.leases import (
    HEADLESS,
    THIS_PROCESS,
    LocalHold,
    hold_here,
    park_until_model_retry,
    release_lease,
    was_waiting_for_model,
)
from runs.models import Run
from runs.presence import WorkerPresence
from runs.run_state import load_state
from runs.storage import DjangoDocumentSource, DjangoRunStore

logger = logging.getLogger(__name__)

SCRIPTED_IN_SCENARIO = "scripted"

# HumanDecision.kind -> the runtime's human input kind. The decision's payload carries the
# input's own fields (question_id/text, action_id/approved/reason, conflict_id/value or
# unresolvable/note, extra_*, approved/reason, decision).
RUNTIME_INPUT_KIND = {
    HumanDecision.Kind.APPROVE: "approval",
    HumanDecision.Kind.DENY: "approval",
    HumanDecision.Kind.ANSWER: "clarification_answer",
    HumanDecision.Kind.RESOLVE_CONFLICT: "conflict_resolution",
    HumanDecision.Kind.MARK_UNRESOLVABLE: "conflict_resolution",
    HumanDecision.Kind.EXTEND_BUDGET: "budget_extension",
    HumanDecision.Kind.SIGN_OFF: "packet_signoff",
    HumanDecision.Kind.REJECT_PACKET: "packet_signoff",
    HumanDecision.Kind.CLOSE_CASE: "close_case",
}


def scenario_of(run: Run) -> Scenario | None:
    if not run.scenario:
        return None
    return parse_scenario(run.scenario)


def runtime_for(run: Run, cancel: CancelSignal) -> Runtime:
    tenant = run.tenant
    scenario = scenario_of(run)
    # "scripted" means the turns travel inside the run's scenario.
    model = None if run.model_name == SCRIPTED_IN_SCENARIO else run.model_name
    return build_runtime(
        model,
        scenario=scenario,
        store=DjangoRunStore(),
        clock=SystemClock(),
        cancel=cancel,
        documents=DjangoDocumentSource(run.case_id),
        tenant_policy=TenantPolicy(
            approval_cost_threshold_usd=tenant.approval_cost_threshold_usd,
            forbidden_tools=list(tenant.forbidden_tools or []),
            high_risk_jurisdictions=list(tenant.high_risk_jurisdictions or []),
            nationality_counts=tenant.nationality_counts,
        ),
        openai_options=openai_options(),
    )


def openai_options() -> dict:
    """The OpenAI-compatible endpoint's address, key, time limit and prices, as configured
    (an unset address or key falls back to the standard environment variables)."""
    return {
        "base_url": settings.OPENAI_BASE_URL or None,
        "api_key": settings.OPENAI_API_KEY or None,
        "timeout_seconds": settings.OPENAI_TIMEOUT_SECONDS,
        "prices": PriceTable(
            input_per_1k=settings.OPENAI_PRICE_INPUT_PER_1K_USD,
            output_per_1k=settings.OPENAI_PRICE_OUTPUT_PER_1K_USD,
        ),
    }


def human_input_from(decision: HumanDecision) -> HumanInput:
    return parse_human_input(
        {
            **decision.payload,
            "kind": RUNTIME_INPUT_KIND[decision.kind],
            "decision_id": str(decision.pk),
            "actor": decision.actor.get_username(),
        }
    )


def pending_decisions(run: Run, state: AtlasState) -> list[HumanDecision]:
    settled = set(state.applied_decision_ids) | set(state.rejected_decisions)
    return [
        decision
        for decision in run.decisions.select_related("actor").order_by("id")
        if decision.kind in RUNTIME_INPUT_KIND and str(decision.pk) not in settled
    ]


def apply_decisions(runtime: Runtime, run: Run, state: AtlasState) -> AtlasState:
    for decision in pending_decisions(run, state):
        try:
            human_input = human_input_from(decision)
        except ValueError as error:
            # reviews.actions validates payloads before storing them, so this is a bug or a
            # hand-made row: keep it in the audit trail, say why, and carry on.
            logger.error("Decision %s of run %s is malformed: %s", decision.pk, run.pk, error)
            Run.objects.filter(pk=run.pk).update(
                last_error=f"Decision {decision.pk} ({decision.kind}) is malformed: {error}"
            )
            continue
        try:
            state = runtime.apply_human_input(state, human_input)
        except HumanInputRejected as error:
            # The run moved on (a newer packet, a withdrawn question): the decision stays in
            # the audit trail and is settled as not applied, never replayed later.
            state = runtime.reject_human_input(state, human_input, str(error))
    return state


def advance_run(
    run_id: int,
    *,
    owner: str,
    cancel: CancelSignal,
    still_owner: Callable[[], bool] = lambda: True,
    park_model_waits: bool = False,
) -> str:
    """Move a run as far as it goes now; the caller holds the lease. Returns the status.

    With `park_model_waits` (a worker), a run whose model endpoint asked it to call again
    later is handed back until then (`leases.park_until_model_retry`) instead of waited for.
    """
    run = Run.objects.select_related("tenant", "case").get(pk=run_id)
    if run.is_terminal:
        return run.status
    if run.lease_owner != owner:
        # The caller's belief that it holds the run is only as fresh as its last renewal;
        # the row says who does. (A pass that lost a race to a new owner stops here.)
        logger.info("Run %s is held by %r, not %s; not advanced", run_id, run.lease_owner, owner)
        return run.status
    state = load_state(run)
    runtime = runtime_for(run, cancel)
    if run.resume_requested_at is not None:
        # Only the request seen here: one made since asks for another pass.
        Run.objects.filter(pk=run_id, resume_requested_at=run.resume_requested_at).update(
            resume_requested_at=None
        )
    try:
        if run.cancel_requested_at is not None:
            return runtime.cancel(state).status
        if state.status == "queued":
            # Decisions answer what a paused run asked; a queued run never asked anything.
            state = runtime.start(state)
        else:
            if state.status == "researching" and not waited_for_model(run, state):
                # Nobody else pauses in `researching`: the previous holder of the lease
                # died or lost it.
                state = runtime.resume_after_crash(state)
            state = apply_decisions(runtime, run, state)
        if state.status == "researching":
            state = runtime.run_until_pause(
                state, keep_going=still_owner, hand_back_waits=park_model_waits
            )
            wait = runtime.model_wait_seconds(state) if state.status == "researching" else 0
            if wait > 0 and still_owner():
                park_until_model_retry(run_id, owner, wait)
    except StaleRunVersion:
        logger.info("Run %s was advanced by another writer; %s stops here", run_id, owner)
        return Run.objects.values_list("status", flat=True).get(pk=run_id)
    return state.status


def waited_for_model(run: Run, state: AtlasState) -> bool:
    """The run was handed back to wait for its model endpoint, with nothing in flight: a
    planned wait, not a worker that died (whose run is resumed and its deadline moved).
    A worker that died after the endpoint's answer and before handing the run back left
    the same state, so the lease says which it was."""
    return (
        state.model_retry_at is not None and state.in_flight is None and was_waiting_for_model(run)
    )


def cancel_idle_run(run: Run) -> str:
    """Cancel a run that no worker is stepping (paused, or queued and never claimed)."""
    run = Run.objects.select_related("tenant", "case").get(pk=run.pk)
    if run.is_terminal:
        return run.status
    state = load_state(run)
    return runtime_for(run, MemoryCancelSignal()).cancel(state).status


class HeldElsewhere(Exception):
    """The run is being driven by a worker or another process: not here too."""


def _hold(run: Run, owner: str = THIS_PROCESS) -> None:
    """Keep workers' sweeps away while this process drives the run itself."""
    if not hold_here(run.pk, owner):
        owner = Run.objects.filter(pk=run.pk).values_list("lease_owner", flat=True).first()
        raise HeldElsewhere(f"Run {run.pk} is being driven by {owner!r}; it was not driven here.")


def run_inline(run: Run, cancel: CancelSignal | None = None) -> Run:
    """Drive a run in this process until it pauses or ends (tests, headless commands)."""
    _hold(run)
    try:
        advance_run(
            run.pk,
            owner=THIS_PROCESS,
            cancel=cancel or MemoryCancelSignal(),
            still_owner=LocalHold(run.pk),
        )
    finally:
        release_lease(run.pk, THIS_PROCESS)
    run.refresh_from_db()
    return run


def run_headless(run: Run, scenario: Scenario | None, cancel: CancelSignal | None = None) -> Run:
    """Like run_inline, but answers questions and approvals from the scenario's human script.
    `cancel` is the caller's (Ctrl+C); a scenario's cancel_on is wired by build_runtime."""
    cancel = cancel or MemoryCancelSignal()
    # Alive for as long as it drives, as a worker is: should the command die, a cancel ends
    # the run at once instead of after the hold runs out.
    presence = WorkerPresence(HEADLESS)
    presence.keep()
    try:
        _hold(run, HEADLESS)
        run = Run.objects.select_related("tenant", "case").get(pk=run.pk)
        runtime = runtime_for(run, cancel)
        state = load_state(run)
        if state.status == "queued":
            state = runtime.start(state)
        keep_going = LocalHold(run.pk, HEADLESS)
        with CommandHeartbeat(run.pk, HEADLESS, presence):
            drive(runtime, state, scenario.human if scenario else None, keep_going=keep_going)
    finally:
        release_lease(run.pk, HEADLESS)
        presence.withdraw()
    run.refresh_from_db()
    return run
