"""A run's state as its row stores it, and back.

The row leaves out the state's recent observations: they are the last rows of the run's
observations table, written in the same statement, so storing them again in the state
(the biggest part of it) would only make every step's write larger.

The loop's own bookkeeping (the actions it ran and was refused, its recent decisions and
progress signatures) grows with every iteration, and nothing but the runtime reads it: it
goes in `loop_memory` as JSON text, which PostgreSQL stores without parsing, where the
jsonb `state` (read by lists, queues, exports) keeps the research itself. Taking those
few kilobytes as jsonb was most of the server's time for a step's write.
"""

from __future__ import annotations

import json

from atlas.runtime.state import AtlasState, ObservationNote
from atlas.runtime.step_writer import MAX_OBSERVATIONS_IN_STATE
from runs.models import Observation, Run

NOT_STORED = {"observations"}
LOOP_MEMORY = {
    "action_counts",
    "decision_history",
    "executed_actions",
    "progress_history",
    "denied_signatures",
    "denied_actions",
    "approved_signatures",
}
LEFT_OUT_OF_STATE = NOT_STORED | LOOP_MEMORY


def state_json(state: AtlasState) -> str:
    """The state as the run's `state` column holds it."""
    return state.model_dump_json(exclude=LEFT_OUT_OF_STATE)


def loop_memory_json(state: AtlasState) -> str:
    """The loop's bookkeeping as the run's `loop_memory` column holds it."""
    return state.model_dump_json(include=LOOP_MEMORY)


def load_state(run: Run) -> AtlasState:
    """The run's state with its loop memory and recent observations, as the runtime left
    it."""
    data = run.state
    # A row written before the loop memory had a column of its own keeps it in the state.
    if run.loop_memory:
        data = {**data, **json.loads(run.loop_memory)}
    state = AtlasState.from_json(data)
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
