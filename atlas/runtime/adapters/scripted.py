"""A decision maker that replays scripted turns (tests, demos, scenario files).

The cursor lives in the state (`context.turn_index`), so a paused or resumed run picks up
exactly where it stopped.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.context import ModelContext
from atlas.runtime.decisions import Usage
from atlas.runtime.scenario import RawTurn, ScriptTurn, TransportErrorTurn, load_turns, parse_turn
from atlas.runtime.wording import counted


class ScriptedModel:
    kind = "scripted"
    waits_on_network = False

    def __init__(
        self, turns: Sequence[ScriptTurn | dict[str, Any]], name: str = "scripted"
    ) -> None:
        self.turns = [parse_turn(turn, index) for index, turn in enumerate(turns)]
        self.name = name

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        return cls(load_turns(path), name=f"scripted:{path}")

    def price_per_1k_tokens(self) -> Decimal | None:
        return None

    def decide(self, context: ModelContext) -> ModelReply:
        index = context.turn_index
        if index >= len(self.turns):
            return ModelReply(
                fatal=True,
                transport_error="script_exhausted",
                error_message=f"The script has {counted(len(self.turns), 'turn')} and ran out.",
            )
        turn = self.turns[index]
        if isinstance(turn, RawTurn):
            return ModelReply(raw=turn.raw)
        if isinstance(turn, TransportErrorTurn):
            return ModelReply(
                transport_error=turn.transport_error,
                error_message=f"model transport error: {turn.transport_error}",
            )
        usage = turn.usage or Usage()
        return ModelReply(action=turn.model_copy(update={"usage": None}), usage=usage)
