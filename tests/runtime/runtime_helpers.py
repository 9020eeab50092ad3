"""Helpers shared by the runtime tests (imported as a plain module)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.adapters.scripted import ScriptedModel
from atlas.runtime.context import ModelContext
from atlas.runtime.decisions import Finish
from atlas.runtime.engine import Runtime
from atlas.runtime.humans import (
    ApprovalDecision,
    ClarificationAnswer,
    ConflictResolution,
    PacketSignOff,
)
from atlas.runtime.memory import MemoryRunStore
from atlas.runtime.state import AtlasState


class ScriptThenPlaybook:
    """Scripted turns first, then the playbook: lets a test force a few decisions and
    still finish with a packet citing real evidence ids."""

    kind = "scripted"
    name = "scripted+playbook"
    waits_on_network = False

    def __init__(self, turns: Sequence[Any]) -> None:
        self.script = ScriptedModel(turns)
        self.playbook = Playbook()

    def price_per_1k_tokens(self) -> Decimal | None:
        return None

    def decide(self, context: ModelContext) -> ModelReply:
        if context.turn_index < len(self.script.turns):
            return self.script.decide(context)
        return self.playbook.decide(context)


class FnModel:
    kind = "scripted"
    name = "fn"

    def __init__(self, fn: Callable[[ModelContext], ModelReply]) -> None:
        self.fn = fn
        self.contexts: list[ModelContext] = []

    def price_per_1k_tokens(self) -> Decimal | None:
        return None

    def decide(self, context: ModelContext) -> ModelReply:
        self.contexts.append(context)
        return self.fn(context)


def call(tool: str, usage: dict | None = None, **arguments: Any) -> dict:
    turn: dict[str, Any] = {
        "kind": "call_tool",
        "tool_name": tool,
        "arguments": arguments,
        "rationale_summary": f"call {tool}",
    }
    if usage:
        turn["usage"] = usage
    return turn


def minimal_pdf(text: str, *, padding: int = 0) -> bytes:
    """A tiny one-page PDF with a text line per input line, built by hand. With `padding`,
    its page holds that many more bytes (spaces), compressed: a small file that expands."""
    lines = text.splitlines()
    stream_lines = ["BT", "/F1 10 Tf", "14 TL", "40 800 Td"]
    for line in lines:
        safe = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream_lines.append(f"({safe}) Tj T*")
    stream_lines.append("ET")
    stream = "\n".join(stream_lines).encode("latin-1")
    stream_filter = b""
    if padding:
        stream = zlib.compress(stream + b" " * padding, 9)
        stream_filter = b" /Filter /FlateDecode"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length "
        + str(len(stream)).encode()
        + stream_filter
        + b" >>\nstream\n"
        + stream
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def types(store: MemoryRunStore, state: AtlasState) -> list[str]:
    return store.event_types(state.run_id)


def events_of(store: MemoryRunStore, state: AtlasState, type_: str) -> list:
    return [e for e in store.events[state.run_id] if e.type == type_]


def stored_observations(store: MemoryRunStore, state: AtlasState) -> list:
    """Every observation of the run, in order (the state keeps only the latest few)."""
    return store.observations[state.run_id]


def playbook_skipping(*keys: str) -> FnModel:
    """The playbook as a model that never sees the work listed under `keys` of the
    projection ("directors_to_screen"): its low rating is refused, so it offers medium."""
    finishes: list[Finish] = []

    def decide(context: ModelContext) -> ModelReply:
        projection = dict(context.projection, **dict.fromkeys(keys, []))
        action = Playbook().next_action(projection)
        if isinstance(action, Finish):
            finishes.append(action)
            if len(finishes) > 1:
                action.packet.risk_rating = "medium"
        return ModelReply(action=action)

    return FnModel(decide)


def tool_arguments(store, state, tool: str) -> list[dict]:
    """The arguments of each call of `tool` the run started, in order."""
    return [
        e.data["arguments"]
        for e in events_of(store, state, "tool_started")
        if e.data["tool"] == tool
    ]


def one_sentence(text: str) -> bool:
    """DESIGN.md: each reason code has a one-sentence user-visible status text."""
    return text.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", text)


def run(runtime: Runtime, state: AtlasState) -> AtlasState:
    return runtime.run_until_pause(runtime.start(state))


def answer(runtime: Runtime, state: AtlasState, text: str) -> AtlasState:
    """The analyst answers the run's pending question with `text`; the run goes on."""
    given = ClarificationAnswer(
        decision_id=f"d-{state.step}-{text}",
        actor="analyst-ann",
        question_id=state.pending_question.question_id,
        text=text,
    )
    return runtime.run_until_pause(runtime.apply_human_input(state, given))


def decide(
    runtime: Runtime,
    state: AtlasState,
    *,
    approved: bool,
    reason: str = "",
    actor: str = "reviewer-rita",
    decision_id: str | None = None,
) -> AtlasState:
    """A reviewer decides the run's pending approval; the run goes on."""
    decision = ApprovalDecision(
        decision_id=decision_id or f"d-{state.step}",
        actor=actor,
        action_id=state.pending_approval.action_id,
        approved=approved,
        reason=reason,
    )
    return runtime.run_until_pause(runtime.apply_human_input(state, decision))


def settled(
    runtime: Runtime,
    state: AtlasState,
    conflict_id: str,
    chosen: str | None,
    decision_id: str = "d-settle",
) -> AtlasState:
    """A reviewer settles the conflict `conflict_id` on `chosen` (None: rules it
    unresolvable); the run goes on until it pauses."""
    resolution = ConflictResolution(
        decision_id=decision_id,
        actor="reviewer-rita",
        conflict_id=conflict_id,
        value=chosen,
        unresolvable=chosen is None,
        note="Settled on what was read so far.",
    )
    return run(runtime, runtime.apply_human_input(state, resolution))


# The standard clean trajectory of one playbook iteration that runs a tool.
TOOL_TURN = ["model_requested", "model_decision", "tool_started", "tool_succeeded"]
FINISH_TURN = ["model_requested", "model_decision", "finish_proposed"]
# After its media search the playbook screens each director of the company by name, then
# searches adverse media on each: Acme Analytics has two.
ACME_DIRECTOR_STEPS = TOOL_TURN * 4


def signed_off(
    runtime: Runtime,
    state: AtlasState,
    rating: str | None,
    disposition: str = "confirmed_match",
    notes: dict[str, str] | None = None,
    *,
    marks: dict[str, str] | None = None,
) -> AtlasState:
    """A reviewer signs the packet off with `rating` (None: as proposed), marking every
    screening match `disposition`, or each as `marks` says."""
    return runtime.apply_human_input(
        state,
        PacketSignOff(
            decision_id="d-1",
            actor="rita",
            approved=True,
            reason="Weighed every match.",
            hit_dispositions=marks
            or {m.evidence_id: disposition for m in state.screening_matches()},
            risk_rating=rating,
            hit_notes=notes or {},
        ),
    )
