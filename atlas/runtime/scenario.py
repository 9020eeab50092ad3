"""The scenario file of DESIGN.md, parsed strictly (unknown keys or values are errors)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    Strict,
    ValidationError,
    field_validator,
)

from atlas.runtime.decisions import AskHuman, CallTool, Finish, strict_json
from atlas.runtime.state import (
    NOTES_MAX_LENGTH,
    CostBudget,
    DeadlineBudget,
    IterationBudget,
    ModelErrorBudget,
    NoProgressBudget,
    TokenBudget,
)

TOOL_NAMES = (
    "resolve_entity",
    "screen_sanctions",
    "search_adverse_media",
    "extract_uploaded_document",
)
FAULT_WORDS = (
    "ok",
    "timeout",
    "rate_limited",
    "forbidden",
    "not_found",
    "effect_unknown",
    "oversized",
)
_FAULT_RE = re.compile(
    r"ok|timeout|rate_limited|forbidden|not_found|effect_unknown|oversized|slow:\d+(\.\d+)?"
)
MAX_SLOW_SECONDS = 3600  # a slow tool longer than any tool's timeout is a timeout anyway

EVENT_TYPES = (
    "run_started",
    "run_resumed",
    "model_requested",
    "model_decision",
    "model_failed",
    "policy_denied",
    "tool_rejected",
    "duplicate_action_blocked",
    "approval_requested",
    "approval_granted",
    "approval_denied",
    "tool_started",
    "tool_retryable_failure",
    "tool_failed",
    "tool_succeeded",
    "result_truncated",
    "clarification_requested",
    "clarification_received",
    "conflict_detected",
    "no_progress_detected",
    "cycle_detected",
    "budget_exhausted",
    "final_rejected",
    "finish_proposed",
    "escalated",
    "run_cancelled",
    "run_failed",
    "run_completed",
    # extra events
    "conflict_resolved",
    "budget_extended",
    "packet_approved",
    "packet_rejected",
    "human_input_rejected",
    "document_added",
    "document_marked_sensitive",
)


# Far more than any scenario needs, and well inside what a run's JSON columns can store.
MAX_NESTING = 64


class ScenarioError(ValueError):
    """A scenario file that cannot be used, with a message naming the bad key."""


class StrictModel(BaseModel):
    # Strict types too: true or "3" where a number belongs is refused, not read as 1 or 3.
    model_config = ConfigDict(extra="forbid", strict=True)


class ScenarioDocument(StrictModel):
    path: str
    name: str | None = None
    sensitive: bool = False

    @field_validator("name")
    @classmethod
    def _usable_file_name(cls, value: str | None) -> str | None:
        # Shown whole ("Board minutes 2024/25.txt" is a title, not a path), but the file is
        # stored under its last part, of which "..", "/" or "x/" leave nothing to store. An
        # empty name, like none, means the file's own name.
        if value and (os.path.basename(value) in ("", ".", "..") or "\0" in value):
            raise ValueError(f"{value!r} is not a file name; give one such as report.pdf")
        return value


class ScenarioCase(StrictModel):
    subject: str = Field(min_length=1)
    subject_type: Literal["company", "person"] = "company"
    jurisdiction: str | None = None
    notes: str = Field(default="", max_length=NOTES_MAX_LENGTH)
    documents: list[ScenarioDocument] = Field(default_factory=list)

    @field_validator("subject", "jurisdiction", "notes")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        # PostgreSQL refuses NUL in text; a case is stored before it is researched.
        if value and "\0" in value:
            raise ValueError("must not contain a NUL character")
        return value


class ScenarioBudgets(StrictModel):
    max_iterations: IterationBudget | None = None
    max_tokens: TokenBudget | None = None
    # An amount may also be written as a decimal string, as the contract writes it ("1.00").
    max_cost_usd: Annotated[CostBudget, Strict(False)] | None = None
    deadline_seconds: DeadlineBudget | None = None
    max_model_errors: ModelErrorBudget | None = None
    max_no_progress: NoProgressBudget | None = None

    def overrides(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class RawTurn(StrictModel):
    raw: str

    @field_validator("raw")
    @classmethod
    def _storable(cls, value: str) -> str:
        # The run stores its script. A model's NUL is tried as JSON text ("\\u0000").
        if "\0" in value:
            raise ValueError("must not contain a NUL character; write it as \\u0000 inside JSON")
        return value


class TransportErrorTurn(StrictModel):
    transport_error: Literal["timeout", "rate_limited"]


ScriptTurn = CallTool | AskHuman | Finish | RawTurn | TransportErrorTurn


class ScriptedModelSpec(StrictModel):
    turns: list[ScriptTurn]

    @field_validator("turns", mode="before")
    @classmethod
    def _parse_turns(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueError("must be a list of turns")
        return [parse_turn(turn, index) for index, turn in enumerate(value)]


def parse_turn(turn: Any, index: int = 0) -> ScriptTurn:
    if isinstance(turn, BaseModel):
        return turn  # type: ignore[return-value]
    if not isinstance(turn, dict):
        raise ValueError(f"turn {index} must be an object")
    try:
        if "raw" in turn:
            return RawTurn.model_validate(turn)
        if "transport_error" in turn:
            return TransportErrorTurn.model_validate(turn)
        kind = turn.get("kind")
        model = {"call_tool": CallTool, "ask_human": AskHuman, "finish": Finish}.get(kind)
        if model is None:
            raise ValueError(
                f"turn {index}: 'kind' must be call_tool, ask_human or finish (got {kind!r}); "
                "use {'raw': ...} for raw model text"
            )
        return model.model_validate(turn)
    except ValidationError as error:
        raise ValueError(f"turn {index}: {describe_validation_error(error)}") from error


class CancelOn(StrictModel):
    event: str
    nth: int = Field(default=1, ge=1)
    # Beyond DESIGN.md's two keys: how long after the event the person presses cancel. At
    # 0 (the contract's meaning) the cancel lands as the event is recorded, so a cancel on
    # `tool_started` stops the call before it runs; a little later, it interrupts the call.
    after_seconds: float = Field(default=0, ge=0, le=60, allow_inf_nan=False)

    @field_validator("event")
    @classmethod
    def _known_event(cls, value: str) -> str:
        if value not in EVENT_TYPES:
            raise ValueError(f"unknown event type {value!r}")
        return value


def _usable_answer(value: str) -> str:
    # Refused here rather than when the run reaches the question: by then the case and the
    # run are stored. NUL: the run stores its scenario, and PostgreSQL refuses it in JSON.
    if not value.strip():
        raise ValueError("must not be blank")
    if "\0" in value:
        raise ValueError("must not contain a NUL character")
    return value


class HumanScript(StrictModel):
    answers: list[Annotated[str, AfterValidator(_usable_answer)]] = Field(default_factory=list)
    approvals: list[Literal["approve", "deny"]] = Field(default_factory=list)
    cancel_on: CancelOn | None = None


class Scenario(StrictModel):
    case: ScenarioCase
    budgets: ScenarioBudgets = Field(default_factory=ScenarioBudgets)
    model: Literal["playbook"] | ScriptedModelSpec = "playbook"
    tool_faults: dict[str, list[str]] = Field(default_factory=dict)
    human: HumanScript = Field(default_factory=HumanScript)
    # Where relative document paths start: the file's folder, never a key of the file.
    _base_dir: str | None = PrivateAttr(default=None)

    @field_validator("tool_faults")
    @classmethod
    def _known_faults(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for tool, words in value.items():
            if tool not in TOOL_NAMES:
                raise ValueError(f"unknown tool {tool!r} (expected one of {', '.join(TOOL_NAMES)})")
            for word in words:
                if not _FAULT_RE.fullmatch(word):
                    raise ValueError(
                        f"unknown fault {word!r} for {tool} (expected one of "
                        f"{', '.join(FAULT_WORDS)} or slow:SECONDS)"
                    )
                if word.startswith("slow:") and float(word[5:]) > MAX_SLOW_SECONDS:
                    raise ValueError(
                        f"fault {word!r} for {tool}: at most slow:{MAX_SLOW_SECONDS} seconds"
                    )
        return value

    def document_path(self, document: ScenarioDocument) -> Path:
        """Where a document is. A scenario read from a file names its documents relative to
        the file's folder and inside it: a suite someone else wrote cannot attach files from
        elsewhere on the machine (ScenarioError)."""
        path = Path(document.path)
        if not self._base_dir:
            return path
        folder = Path(self._base_dir).resolve()
        inside = (folder / path).resolve()
        if path.is_absolute() or not inside.is_relative_to(folder):
            raise ScenarioError(
                f"scenario case.documents: {document.path!r} must be a path inside the "
                "scenario file's folder, relative to it"
            )
        if "\\" in document.path and not inside.exists():
            raise ScenarioError(
                f"scenario case.documents: no such file '{document.path}'; separate its "
                "folders with '/', not '\\'"
            )
        return inside


# What pydantic says in its own terms, in the file's: a JSON object, not a class instance.
_PLAIN_MESSAGES = {
    "model_type": "Input should be an object",
    "model_attributes_type": "Input should be an object",
    "dict_type": "Input should be an object",
}
_INPUT_SHOULD_BE = "Input should be "


def _is_union_member(part: str | int) -> bool:
    # Pydantic puts the union member an error belongs to in its location, named by its type:
    # literal['playbook'], ScriptedModelSpec. Field names and keys are never written so.
    return isinstance(part, str) and ("[" in part or part in _model_class_names())


def _model_class_names() -> set[str]:
    names: set[str] = set()
    classes = [BaseModel]
    while classes:
        cls = classes.pop()
        for subclass in cls.__subclasses__():
            names.add(subclass.__name__)
            classes.append(subclass)
    return names


def _message(item: Any) -> str:
    if item["type"] == "value_error":
        # A validator's own words, without pydantic's "Value error, " in front.
        return str(item["ctx"]["error"]) if "ctx" in item else item["msg"].split(", ", 1)[-1]
    return _PLAIN_MESSAGES.get(item["type"], item["msg"])


def describe_validation_error(error: ValidationError) -> str:
    """Pydantic's errors as one line of plain words, each naming the key it is about."""
    errors = []
    for item in error.errors():
        location = tuple(part for part in item["loc"] if not _is_union_member(part))
        # Located at a union member itself: the value is not of that member's type.
        mismatch = bool(item["loc"]) and _is_union_member(item["loc"][-1])
        errors.append((location, mismatch, item))
    # A value that one member of a union took in ({"turns": ...} as a script) is described
    # by that member's errors alone: the other members' "should be" would only mislead.
    entered = {loc[:i] for loc, mismatch, _ in errors if not mismatch for i in range(len(loc))}
    messages: dict[str, list[str]] = {}
    for location, mismatch, item in errors:
        if mismatch and location in entered:
            continue
        key = ".".join(str(part) for part in location) or "(top level)"
        if item["type"] == "extra_forbidden":
            messages.setdefault(f"unknown key '{key}'", [])
        elif (message := _message(item)) not in (said := messages.setdefault(f"'{key}'", [])):
            said.append(message)
    parts = []
    for where, said in list(messages.items())[:5]:
        if len(said) > 1 and all(message.startswith(_INPUT_SHOULD_BE) for message in said):
            # What each member of a union wanted: "Input should be 'playbook' or an object".
            wanted = " or ".join(message.removeprefix(_INPUT_SHOULD_BE) for message in said)
            said = [_INPUT_SHOULD_BE + wanted]
        parts.append(f"{where}: {'; '.join(said)}" if said else where)
    return "; ".join(parts)


def parse_scenario(data: Any, base_dir: str | Path | None = None) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError("scenario must be a JSON object")
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        raise ScenarioError(f"invalid scenario: {describe_validation_error(error)}") from error
    if base_dir is not None:
        scenario._base_dir = str(base_dir)
    return scenario


def read_json(path: Path, what: str) -> Any:
    """A JSON file written by hand, or a one-line ScenarioError saying why it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"cannot read {what} {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ScenarioError(
            f"{what} {path} is not UTF-8 text (byte {error.start} cannot be decoded)"
        ) from None
    too_deep = ScenarioError(f"{what} {path} nests more than {MAX_NESTING} levels deep")
    try:
        data = strict_json(text, object_pairs_hook=_without_repeated_keys)
    except _RepeatedKey as repeated:
        raise ScenarioError(
            f"{what} {path} gives the key {repeated.key!r} twice in one object"
        ) from None
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise ScenarioError(f"{what} {path} is not valid JSON: {error}") from error
    except RecursionError:
        raise too_deep from None
    if _nests_deeper_than(data, MAX_NESTING):
        raise too_deep
    return data


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object as json.loads builds it, refused when a key repeats (JSON keeps the last
    one silently, so a scenario would not do what it seems to say)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _RepeatedKey(key)
        data[key] = value
    return data


def _nests_deeper_than(data: Any, limit: int) -> bool:
    # Level by level rather than recursively, so the check itself cannot overflow the stack.
    level = [data] if isinstance(data, dict | list) else []
    for _ in range(limit):
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    data = read_json(path, "scenario")
    budgets = data.get("budgets") if isinstance(data, dict) else None
    if isinstance(budgets, dict) and (nulls := [k for k, v in budgets.items() if v is None]):
        # A stored scenario may hold nulls (the defaults); one written by hand says nothing.
        raise ScenarioError(
            f"invalid scenario: 'budgets': {', '.join(nulls)}: null is not a budget (leave the "
            "key out for the default)"
        )
    return parse_scenario(data, base_dir=path.parent)


def load_turns(path: str | Path) -> list[ScriptTurn]:
    """A `scripted:FILE` model file: a JSON list of turns, or {"turns": [...]}."""
    path = Path(path)
    data = read_json(path, "script")
    if isinstance(data, dict):
        data = data.get("turns")
    try:
        return ScriptedModelSpec.model_validate({"turns": data}).turns
    except ValidationError as error:
        raise ScenarioError(f"invalid script {path}: {describe_validation_error(error)}") from error
