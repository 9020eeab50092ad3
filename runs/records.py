"""The run record of DESIGN.md (`run_case --json`, exports, evaluation)."""

from __future__ import annotations

from atlas.runtime.state import AtlasState
from runs.models import Run


def run_record(run: Run, *, with_trace: bool = True) -> dict:
    state = AtlasState.from_json(run.state)
    record = {
        "run_id": run.pk,
        "status": run.status,
        "termination_reason": run.termination_reason or None,
        "user_status": run.user_status,
        "iterations": run.iterations,
        "tokens": run.tokens,
        "cost_usd": str(run.cost_usd),
        "packet": state.proposed_packet.model_dump(mode="json") if state.proposed_packet else None,
        "conflicts": [conflict.model_dump(mode="json") for conflict in state.conflicts],
    }
    if with_trace:
        record["trace"] = [
            {"seq": seq, "type": type_, "step": step, "data": data}
            for seq, type_, step, data in run.events.order_by("seq").values_list(
                "seq", "type", "step", "data"
            )
        ]
    return record
