"""The run record of DESIGN.md (`run_case --json`, evaluation)."""

from __future__ import annotations

from runs.exports import run_fields, run_row
from runs.models import Run

RECORD_KEYS = (
    "run_id",
    "status",
    "termination_reason",
    "user_status",
    "iterations",
    "tokens",
    "cost_usd",
    "packet",
    "conflicts",
)


def run_record(run: Run) -> dict:
    """The export's run fields cut to the contract's keys, plus the whole trace."""
    fields = run_fields(run_row(run))
    record = {key: fields[key] for key in RECORD_KEYS}
    record["trace"] = [
        {"seq": seq, "type": type_, "step": step, "data": data}
        for seq, type_, step, data in run.events.order_by("seq").values_list(
            "seq", "type", "step", "data"
        )
    ]
    return record
