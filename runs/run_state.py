"""A run's state as its row stores it, and back.

The row leaves out the state's recent observations: they are the last rows of the run's
observations table, written in the same statement, so storing them again in the state
(the biggest part of it) would only make every step's write larger.
"""

from __future__ import annotations

from atlas.runtime.state import AtlasState, ObservationNote
from atlas.runtime.step_writer import MAX_OBSERVATIONS_IN_STATE
from runs.models import Observation, Run

NOT_STORED = {"observations"}


def state_json(state: AtlasState) -> str:
    """The state as the run's `state` column holds it."""
    return state.model_dump_json(exclude=NOT_STORED)


def load_state(run: Run) -> AtlasState:
    """The run's state with its recent observations, as the runtime left it."""
    state = AtlasState.from_json(run.state)
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
