"""A run's state as its row stores it, and back.

The row leaves out the state's recent observations: they are the last rows of the run's
observations table, written in the same statement, so storing them again in the state
(the biggest part of it) would only make every step's write larger.

What changes with every step (the counters and clocks, the call under way) and the loop's
own bookkeeping (the actions it ran and was refused, its recent decisions and progress
signatures, which grow with every iteration) are read by nothing but the runtime: they go
in `loop_memory` as JSON text, which PostgreSQL stores without parsing. The jsonb `state`
(read by lists, queues, exports) keeps the research itself, so a step that found nothing
new leaves it as it was, and its write does not carry it (runs.storage).
"""

from __future__ import annotations

import json

from atlas.runtime.residences import with_residence_facts
from atlas.runtime.state import AtlasState, ObservationNote
from atlas.runtime.step_writer import MAX_OBSERVATIONS_IN_STATE
from runs.models import Observation, Run

NOT_STORED = {"observations"}
STEP_COUNTERS = {
    "version",
    "step",
    "iteration",
    "input_tokens",
    "output_tokens",
    "model_cost_usd",
    "tool_cost_usd",
    "largest_model_call_cost_usd",
    "largest_model_call_tokens",
    "updated_at",
    "next_seq",
    "policy_denials",
    "consecutive_model_errors",
    "consecutive_transport_errors",
    "model_retry_at",
    "consecutive_tool_failures",
    "model_cursor",
    "tool_fault_cursors",
    "in_flight",
}
LOOP_BOOKKEEPING = {
    "action_counts",
    "decision_history",
    "executed_actions",
    "progress_history",
    "denied_signatures",
    "denied_actions",
    "approved_signatures",
}
LOOP_MEMORY = STEP_COUNTERS | LOOP_BOOKKEEPING
LEFT_OUT_OF_STATE = NOT_STORED | LOOP_MEMORY


def state_json(state: AtlasState) -> str:
    """The state as the run's `state` column holds it."""
    return state.model_dump_json(exclude=LEFT_OUT_OF_STATE)


def loop_memory_json(state: AtlasState) -> str:
    """The step's counters and the loop's bookkeeping as the run's `loop_memory` column
    holds them."""
    return state.model_dump_json(include=LOOP_MEMORY)


def load_state(run: Run) -> AtlasState:
    """The run's state with its loop memory and recent observations, as the runtime left
    it."""
    data = run.state
    # A row written before the loop memory had a column of its own keeps it in the state,
    # and one written before the counters moved there keeps those in the state.
    if run.loop_memory:
        data = {**data, **json.loads(run.loop_memory)}
    state = with_residence_facts(AtlasState.from_json(data))
    # A row written before the column left them out still carries its own.
    if "observations" not in run.state:
        state.observations = recent_observations(run.pk)
    return state


def recent_observations(run_id: int) -> list[ObservationNote]:
    rows = Observation.objects.filter(run_id=run_id).order_by("-step", "-id")
    newest_first = rows[:MAX_OBSERVATIONS_IN_STATE].values_list(
        "step", "source", "name", "ok", "model_view", "error_type", "error_message", "source_ids"
    )
    return [
        ObservationNote(
            step=step,
            source=source,
            name=name,
            ok=ok,
            model_view=model_view or "",
            error_type=error_type or None,
            error_message=error_message or None,
            source_ids=source_ids or [],
        )
        for step, source, name, ok, model_view, error_type, error_message, source_ids in reversed(
            newest_first
        )
    ]
