"""What the model may propose: the typed NextAction and the due-diligence packet.

Schema-valid is not trusted: the engine validates semantics (policy, citations, risk)
after parsing.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

# "unrated" is the runtime's, for a packet of research stopped before it could rate the
# risk; a proposed finish must rate it (finish.validate_finish).
RiskRating = Literal["low", "medium", "high", "unrated"]


# The most one model call may report: a budget's own cap (a run's totals stay within
# what the database's columns hold).
MAX_CALL_TOKENS = 1_000_000_000
MAX_CALL_COST_USD = Decimal("100000")


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_tokens: StrictInt = Field(default=0, ge=0, le=MAX_CALL_TOKENS)
    output_tokens: StrictInt = Field(default=0, ge=0, le=MAX_CALL_TOKENS)
    cost_usd: Decimal = Field(default=Decimal("0"), ge=0, le=MAX_CALL_COST_USD)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claim: str
    evidence_ids: list[str] = Field(default_factory=list)


class PacketConflictValue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: str
    source_id: str
    source_label: str = ""
    retrieved_at: str = ""
    excerpt: str = ""


class PacketConflict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    conflict_id: str
    fact: str
    status: str = "open"
    values: list[PacketConflictValue] = Field(default_factory=list)


HitDispositionValue = Literal["confirmed_match", "false_positive"]
MAX_HIT_NOTE_CHARS = 500
HitNote = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_HIT_NOTE_CHARS)]
# Said by the runtime and the console alike when a sign-off or a closing decision leaves a
# hit undisposed.
DISPOSE_OF_EVERY_HIT = (
    "Mark each screening match (sanctions hit, politically exposed person, or adverse article "
    "found by a name alone) as a confirmed match or a false positive first"
)


class HitDisposition(BaseModel):
    """A reviewer's word on one screening match (a sanctions hit, a politically exposed
    person, or an adverse article found by a name alone), recorded in the packet they signed
    off."""

    model_config = ConfigDict(extra="forbid")

    evidence_id: str
    hit: str  # what the screening reported, as the evidence states it
    disposition: HitDispositionValue
    decided_by: str
    note: str = ""  # why, in the reviewer's words ("date of birth differs")
    # Why the match might be on a namesake, as the case showed it when they marked it.
    namesake_reasons: list[str] = Field(default_factory=list)


class ReviewRound(BaseModel):
    """A reviewer sent a packet back: why, and what the analyst replied, once they have."""

    model_config = ConfigDict(extra="forbid")

    rejected_by: str
    reason: str = ""
    rejected_at: datetime | None = None
    reply: str = ""
    replied_by: str = ""
    # Names of the documents attached to the case that the run was given with the reply.
    documents: list[str] = Field(default_factory=list)


class DueDiligencePacket(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: str
    selected_entity: str | None = None
    risk_rating: RiskRating
    findings: list[Finding] = Field(default_factory=list)
    sanctions_result: str = ""
    adverse_media_summary: str = ""
    unresolved_conflicts: list[PacketConflict] = Field(default_factory=list)
    open_gaps: list[str] = Field(default_factory=list)
    # Set by the runtime only (a partial packet after a stop, or a reviewer closing it).
    partial: StrictBool = False
    closed_by_reviewer: StrictBool = False
    closing_note: str = ""
    hit_dispositions: list[HitDisposition] = Field(default_factory=list)
    review_history: list[ReviewRound] = Field(default_factory=list)
    # The rating the run proposed, when the reviewer signed the packet off with another.
    proposed_risk_rating: RiskRating | None = None


MAX_TOOL_NAME_CHARS = 200
MAX_RATIONALE_CHARS = 2_000
# A decision nests a few levels (a packet's findings, a tool's arguments); far deeper is
# not a decision.
MAX_NESTING = 32
# NUL, which PostgreSQL refuses in text and JSON, the other control characters but tab
# and line breaks, and the bidirectional overrides that make text on a page read other
# than it is.
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each unsafe character replaced, to be recorded (a reply that is not a
    decision, an endpoint's error)."""
    return UNSAFE_CHARACTERS.sub("\ufffd", text)


def text_problem(payload: Any) -> str | None:
    """What makes a decoded decision unusable as text, if anything: nesting beyond
    MAX_NESTING, a string (key or value) with an unsafe character, or a number JSON cannot
    hold (a float too large decodes as infinity)."""
    pending = [(payload, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_NESTING:
            return f"it nests deeper than {MAX_NESTING} levels"
        if isinstance(value, str):
            if found := UNSAFE_CHARACTERS.search(value):
                return f"it contains the control character U+{ord(found.group()):04X}"
        elif isinstance(value, float) and not math.isfinite(value):
            return f"it holds a number JSON cannot hold ({value})"
        elif isinstance(value, dict):
            pending.extend((item, depth + 1) for pair in value.items() for item in pair)
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
    return None


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    usage: Usage | None = None

    @model_validator(mode="before")
    @classmethod
    def _printable(cls, data: Any) -> Any:
        if problem := text_problem(data):
            raise ValueError(f"Not usable as a decision: {problem}")
        return data


class CallTool(_Action):
    kind: Literal["call_tool"] = "call_tool"
    # A plain string on purpose: an unknown tool is a policy outcome (tool_rejected),
    # not a schema error that would burn a model-repair turn. Only a name far longer than
    # any tool's is refused: the rejection would echo it into every later prompt.
    tool_name: str = Field(max_length=MAX_TOOL_NAME_CHARS)
    arguments: dict[str, Any] = Field(default_factory=dict)
    rationale_summary: str = ""

    @field_validator("rationale_summary")
    @classmethod
    def _summary_kept_short(cls, summary: str) -> str:
        # Commentary, not the decision: a long one is cut, not a reason to refuse the call.
        if len(summary) <= MAX_RATIONALE_CHARS:
            return summary
        return summary[: MAX_RATIONALE_CHARS - 1] + "…"


class AskHuman(_Action):
    kind: Literal["ask_human"] = "ask_human"
    question: str = Field(min_length=1, max_length=10_000)
    blocking: StrictBool = True
    candidates: list[str] = Field(default_factory=list, max_length=50)

    @field_validator("question")
    @classmethod
    def _says_something(cls, question: str) -> str:
        if not question.strip():
            raise ValueError("a question must say something")
        return question.strip()

    @field_validator("candidates")
    @classmethod
    def _short_candidates(cls, candidates: list[str]) -> list[str]:
        if any(len(candidate) > 500 for candidate in candidates):
            raise ValueError("a candidate is at most 500 characters")
        return candidates


class Finish(_Action):
    kind: Literal["finish"] = "finish"
    packet: DueDiligencePacket


NextAction = Annotated[CallTool | AskHuman | Finish, Field(discriminator="kind")]
NEXT_ACTION_ADAPTER: TypeAdapter[CallTool | AskHuman | Finish] = TypeAdapter(NextAction)
# 2: a packet carries its review history; 3: and the rating its run proposed, when the
# reviewer signed it off with another
NEXT_ACTION_SCHEMA_VERSION = "next-action/3"


class InvalidModelOutput(ValueError):
    """The model's output was not JSON or not a valid NextAction."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def parse_next_action(raw: str | dict[str, Any]) -> CallTool | AskHuman | Finish:
    """Parse raw model text (or an already-decoded object) into one NextAction."""
    if isinstance(raw, str):
        text = raw.strip()
        fenced = text.startswith("```")
        if fenced:
            # Models often wrap JSON in a fenced block; the fence is not part of the object.
            text = text.strip("`")
            if text.lower().startswith("json"):
                text = text[4:]
        try:
            payload = _loaded(text) if fenced else strict_json(text)
        except (json.JSONDecodeError, ValueError) as error:
            raise InvalidModelOutput("invalid_json", f"Output is not JSON: {error}") from error
        except RecursionError:
            raise InvalidModelOutput(
                "invalid_json", "Output is not JSON a decision can be: it nests too deeply."
            ) from None
    else:
        payload = raw
    if not isinstance(payload, dict):
        raise InvalidModelOutput("invalid_action", "Output must be one JSON object.")
    if "kind" not in payload and isinstance(payload.get("refusal"), str):
        # How the OpenAI adapter hands on a reply that declined to answer.
        raise InvalidModelOutput("invalid_action", f"The model refused: {payload['refusal']}")
    if "kind" not in payload and payload.get("tool_calls"):
        raise InvalidModelOutput(
            "invalid_action", "The model called tools of its own instead of giving a NextAction."
        )
    try:
        return NEXT_ACTION_ADAPTER.validate_python(payload)
    except ValidationError as error:
        summary = "; ".join(_located(e["loc"], e["msg"]) for e in error.errors()[:5])
        raise InvalidModelOutput("invalid_action", f"Not a valid NextAction: {summary}") from error


def strict_json(text: str, **options: Any) -> Any:
    """`text` decoded as JSON, refusing NaN and Infinity, which Python's decoder accepts
    but JSON (and a database's JSON column) does not."""
    return json.loads(text, parse_constant=_not_json, **options)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a number JSON allows")


def _loaded(text: str) -> Any:
    """A fenced block's `text` as JSON; or, when the block is followed by a remark ("Hope
    this helps!"), the block's JSON. A second fenced block after it is a second answer, and
    which one is meant is not guessed."""
    try:
        return strict_json(text)
    except json.JSONDecodeError as error:
        block, fence, after = text.partition("```")
        if not fence or "```" in after:
            raise
        try:
            return strict_json(block)
        except json.JSONDecodeError:
            raise error from None


def _located(location: tuple, message: str) -> str:
    where = ".".join(str(part) for part in location)
    return f"{where}: {message}" if where else message


@cache
def next_action_json_schema_text() -> str:
    """`next_action_json_schema()` as the JSON an endpoint is sent (and bills as prompt)."""
    return json.dumps(next_action_json_schema())


@cache
def next_action_json_schema() -> dict[str, Any]:
    """JSON schema sent as the OpenAI ``response_format``: one object, its ``kind`` one of
    the three, with the properties of all three kinds.

    The API refuses a root that is not an object (a oneOf of the kinds), so what each kind
    requires is left to parse_next_action. Generated once (it costs milliseconds) and shared:
    treat it as read-only."""
    union = NEXT_ACTION_ADAPTER.json_schema()
    members = (CallTool, AskHuman, Finish)
    properties: dict[str, Any] = {}
    for member in members:
        properties.update(union["$defs"].pop(member.__name__)["properties"])
    kinds = [member.model_fields["kind"].default for member in members]
    properties["kind"] = {"type": "string", "enum": kinds}
    return {
        "type": "object",
        "properties": properties,
        "required": ["kind"],
        "additionalProperties": False,
        "$defs": union["$defs"],
    }


def action_to_json(action: CallTool | AskHuman | Finish) -> dict[str, Any]:
    return action.model_dump(mode="json", exclude_none=True)
