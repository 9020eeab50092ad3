"""The bounded agent loop.

How a host drives a run::

    runtime = build_runtime("playbook", store=store, cancel=cancel, documents=docs,
                            tenant_policy=TenantPolicy(...))
    state = new_state(run_id=..., case_id=..., tenant_id=..., brief=CaseBrief(...))
    state = runtime.start(state)             # queued -> researching, `run_started`
    state = runtime.run_until_pause(state)   # step() until status != researching
    # status is now waiting_for_input / awaiting_review (paused), or terminal.
    state = runtime.apply_human_input(state, ClarificationAnswer(...))  # -> researching
    state = runtime.run_until_pause(state)
    state = runtime.cancel(state)            # a paused run; a running one: set the CancelSignal
    state = runtime.resume_after_crash(state)  # a worker picked up a run another worker left

Every method returns the new state and has already committed it through
``store.commit_step`` (optimistic version check: ``StaleRunVersion`` means another writer
won; reload and retry or give up). The runtime never mutates the state passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from atlas.runtime.humans import HumanInput
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.ports import CancelSignal, Clock, DocumentSource, RunStore, TraceEventRecord
from atlas.runtime.state import AtlasState

if TYPE_CHECKING:
    from atlas.runtime.adapters.base import DecisionMaker
    from atlas.runtime.scenario import HumanScript, Scenario
    from atlas.runtime.tools.registry import ToolRegistry

EventListener = Callable[[TraceEventRecord], None]


class Runtime:
    def __init__(
        self,
        model: DecisionMaker,
        *,
        registry: ToolRegistry | None = None,
        tenant_policy: TenantPolicy | None = None,
        store: RunStore | None = None,
        clock: Clock | None = None,
        cancel: CancelSignal | None = None,
        documents: DocumentSource | None = None,
        listeners: Sequence[EventListener] = (),
        retry_backoff_seconds: float = 0.05,
    ) -> None:
        raise NotImplementedError  # filled in by the next commit

    def start(self, state: AtlasState) -> AtlasState:
        """queued -> researching; sets the deadline; emits `run_started`."""
        raise NotImplementedError

    def step(self, state: AtlasState) -> AtlasState:
        """Exactly one iteration (or one approved action); commits; returns the new state."""
        raise NotImplementedError

    def run_until_pause(
        self, state: AtlasState, keep_going: Callable[[], bool] = lambda: True
    ) -> AtlasState:
        """step() while researching and keep_going() (a lease check, for example)."""
        raise NotImplementedError

    def apply_human_input(self, state: AtlasState, human_input: HumanInput) -> AtlasState:
        """Apply one human decision (idempotent by decision_id)."""
        raise NotImplementedError

    def cancel(self, state: AtlasState) -> AtlasState:
        """cancelled/cancelled with `run_cancelled` (for a run that is not stepping)."""
        raise NotImplementedError

    def resume_after_crash(self, state: AtlasState) -> AtlasState:
        """`run_resumed`; reconcile an in-flight tool call by idempotency key."""
        raise NotImplementedError

    def request_cancel(self) -> None:
        """Cancel this runtime's current step from any thread."""
        raise NotImplementedError


def build_runtime(
    model: str | DecisionMaker | None = None,
    *,
    scenario: Scenario | None = None,
    store: RunStore | None = None,
    clock: Clock | None = None,
    cancel: CancelSignal | None = None,
    documents: DocumentSource | None = None,
    tenant_policy: TenantPolicy | None = None,
    registry: ToolRegistry | None = None,
    listeners: Sequence[EventListener] = (),
) -> Runtime:
    """Build a Runtime from a model spec: "playbook", "scripted:FILE", "openai:MODEL"
    (a `model` argument overrides the scenario's model), or a DecisionMaker instance."""
    raise NotImplementedError


def drive(runtime: Runtime, state: AtlasState, human: HumanScript | None = None) -> AtlasState:
    """Headless: run until pause, answering questions/approvals from the human script."""
    raise NotImplementedError
