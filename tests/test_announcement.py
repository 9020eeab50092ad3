"""The live status line's words for a step: read aloud by screen readers as a run goes."""

from __future__ import annotations

import pytest
from django.utils import timezone

from runs.fragments import announcement
from runs.models import TraceEvent
from runs.step_views import group_steps


def steps_of(*events: tuple[str, dict]) -> list:
    now = timezone.now()
    return group_steps(
        1,
        [
            TraceEvent(seq=seq, step=1, type=kind, data=data, timestamp=now)
            for seq, (kind, data) in enumerate(events, start=1)
        ],
    )


DECIDED = ("model_decision", {"kind": "call_tool", "tool_name": "extract_uploaded_document"})


@pytest.mark.parametrize(
    ("events", "said"),
    [
        ((DECIDED, ("tool_started", {})), "Step 1: extract_uploaded_document running."),
        (
            (DECIDED, ("tool_started", {}), ("tool_succeeded", {"summary": "ok"})),
            "Step 1: extract_uploaded_document done.",
        ),
        (
            (DECIDED, ("tool_started", {}), ("tool_failed", {"error_type": "cancelled"})),
            "Step 1: extract_uploaded_document interrupted.",
        ),
        (
            (DECIDED, ("tool_started", {}), ("tool_failed", {"error_type": "timeout"})),
            "Step 1: extract_uploaded_document failed.",
        ),
        # Never ran: waiting for a reviewer's approval, then cancelled.
        (
            (DECIDED, ("approval_requested", {}), ("run_cancelled", {})),
            "Step 1: extract_uploaded_document.",
        ),
        ((("model_decision", {"kind": "finish"}),), "Step 1: Proposed the packet."),
        ((("model_decision", {"kind": "ask_human"}),), "Step 1: Asked the analyst."),
    ],
)
def test_a_step_is_said_done_only_when_its_tool_ran(events, said):
    assert announcement({}, steps_of(*events)) == said
