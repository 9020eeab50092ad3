"""Human inputs applied to a paused run (`Runtime.apply_human_input`).

Every input carries a decision_id (idempotency: applying the same id twice does nothing)
and the actor who made it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from atlas.runtime.decisions import HitDispositionValue, HitNote
from atlas.runtime.state import CostBudget, DeadlineBudget, IterationBudget, TokenBudget


class _HumanInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision_id: str = Field(min_length=1)
    actor: str = Field(min_length=1)


class ClarificationAnswer(_HumanInput):
    """Answer to the pending question (`waiting_for_input`)."""

    kind: Literal["clarification_answer"] = "clarification_answer"
    question_id: str
    text: str = Field(min_length=1)
    # The case's documents when the answer was sent: those the run does not have yet are
    # given to it with the answer. None: whatever the case holds when it is applied.
    document_ids: list[str] | None = None


class ApprovalDecision(_HumanInput):
    """A reviewer's decision on the pending action (`awaiting_review`/`awaiting_approval`)."""

    kind: Literal["approval"] = "approval"
    action_id: str
    approved: bool
    reason: str = ""
    # The reasons for approval the reviewer was shown, when the console knows them: a
    # reason added to the request since it was made (a document marked sensitive meanwhile)
    # is then covered, and the call is not asked about again.
    reasons_seen: list[str] = Field(default_factory=list)


class ConflictResolution(_HumanInput):
    """Pick the right value of a conflicting fact, or mark it unresolvable with a note."""

    kind: Literal["conflict_resolution"] = "conflict_resolution"
    conflict_id: str
    value: str | None = None
    unresolvable: bool = False
    note: str = ""

    @model_validator(mode="after")
    def _value_or_unresolvable(self) -> ConflictResolution:
        if self.unresolvable == (self.value is not None):
            raise ValueError("give either a chosen value or unresolvable=True, not both")
        return self


class BudgetExtension(_HumanInput):
    """More room for a run stopped by a budget (or by repetition / no progress)."""

    kind: Literal["budget_extension"] = "budget_extension"
    extra_iterations: IterationBudget = 0
    extra_tokens: TokenBudget = 0
    extra_cost_usd: CostBudget = Decimal("0")
    extra_seconds: DeadlineBudget = 0


class PacketSignOff(_HumanInput):
    """Reviewer sign-off on a proposed packet (`awaiting_review`/`finish_proposed`).

    Approved → `completed`/`packet_approved`; rejected → back to `researching` with the
    reason as a human observation. The reviewer must not be the analyst who opened it.
    """

    kind: Literal["packet_signoff"] = "packet_signoff"
    approved: bool
    reason: str = ""
    # The step at which the signed packet was proposed; a sign-off for a packet that has
    # since been replaced is refused instead of landing on the new one.
    packet_step: int | None = None
    # Evidence id of each screening match -> the reviewer's disposition; an approval needs
    # one for every match of the run.
    hit_dispositions: dict[str, HitDispositionValue] = Field(default_factory=dict)
    # Evidence id -> why the reviewer marked it so, where they said.
    hit_notes: dict[str, HitNote] = Field(default_factory=dict)
    # The reviewer's rating, when not the proposed one: never below what the evidence
    # allows once the matches they marked false positives are set aside.
    risk_rating: Literal["low", "medium", "high"] | None = None


class CloseCase(_HumanInput):
    """Close the case as it stands: `completed`/`packet_approved`, packet marked closed."""

    kind: Literal["close_case"] = "close_case"
    decision: str = Field(min_length=1)
    # As for a sign-off: the closed packet is the case's record, so every screening match
    # of the run needs the reviewer's disposition, and the reviewer may rate it.
    hit_dispositions: dict[str, HitDispositionValue] = Field(default_factory=dict)
    # Evidence id -> why the reviewer marked it so, where they said.
    hit_notes: dict[str, HitNote] = Field(default_factory=dict)
    risk_rating: Literal["low", "medium", "high"] | None = None


HumanInput = Annotated[
    ClarificationAnswer
    | ApprovalDecision
    | ConflictResolution
    | BudgetExtension
    | PacketSignOff
    | CloseCase,
    Field(discriminator="kind"),
]
HUMAN_INPUT_ADAPTER: TypeAdapter = TypeAdapter(HumanInput)


class HumanInputRejected(ValueError):
    """The input does not fit the run's current state (wrong status, unknown id, ...)."""


def parse_human_input(data: dict) -> HumanInput:
    return HUMAN_INPUT_ADAPTER.validate_python(data)
