"""The small interfaces the host (Django's ``runs`` app) implements for the runtime."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from atlas.runtime.state import AtlasState, AttachedDocument

EffectStatus = Literal["intended", "succeeded", "failed", "unknown", "cancelled"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TraceEventRecord(_Record):
    run_id: str
    seq: int  # gap-free per run, starting at 1
    step: int
    type: str
    timestamp: datetime  # UTC
    data: dict[str, Any] = Field(default_factory=dict)
    duration_ms: int | None = None


class ObservationRecord(_Record):
    run_id: str
    step: int
    source: Literal["tool", "human", "runtime"]
    name: str
    ok: bool
    data: Any = None  # stored whole
    model_view: str = ""  # what the model was shown (bounded, redacted, fenced)
    error_type: str | None = None
    error_message: str | None = None
    source_ids: list[str] = Field(default_factory=list)


class ToolCallRecord(_Record):
    idempotency_key: str
    run_id: str
    step: int
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)  # normalized
    effect_status: EffectStatus = "intended"
    attempts: int = 0
    cost_usd: Decimal = Decimal("0")
    result: Any = None  # stored whole
    error_type: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    duration_ms: int | None = None


class StepCommit(_Record):
    """One atomic write: the new state plus what the step produced."""

    run_id: str
    expected_version: int  # the stored version this step was computed from
    # Carries version == expected_version + 1. It is the runtime's working object: read
    # or serialize it during commit_step and keep no reference to it afterwards.
    state: AtlasState
    events: list[TraceEventRecord] = Field(default_factory=list)
    observations: list[ObservationRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)  # upserts by key


class StaleRunVersion(Exception):
    """The stored run version is not the one this step started from (another writer won)."""


@runtime_checkable
class RunStore(Protocol):
    def commit_step(self, commit: StepCommit) -> None:
        """Atomically persist state, events, observations and tool-call upserts.

        Raise StaleRunVersion if the stored version != commit.expected_version.
        """

    def record_tool_intent(self, commit: StepCommit) -> None:
        """Durable commit made BEFORE a tool runs (state with the in-flight call, the
        `tool_started` event and the `intended` tool-call record). May simply be
        commit_step."""

    def save_tool_call(self, record: ToolCallRecord) -> None:
        """Upsert one tool-call record by idempotency key, without a version check: the
        fallback when the commit that should have carried a tool's result fails, so
        whoever takes the run over can still reconcile the call."""

    def find_tool_call(self, idempotency_key: str) -> ToolCallRecord | None:
        """The stored record for a key, for reconciliation after a crash."""


class BaseRunStore(ABC):
    """Convenience base: record_tool_intent is a commit_step."""

    @abstractmethod
    def commit_step(self, commit: StepCommit) -> None: ...

    @abstractmethod
    def save_tool_call(self, record: ToolCallRecord) -> None: ...

    @abstractmethod
    def find_tool_call(self, idempotency_key: str) -> ToolCallRecord | None: ...

    def record_tool_intent(self, commit: StepCommit) -> None:
        self.commit_step(commit)


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """UTC-aware wall-clock time."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, for durations."""


@runtime_checkable
class CancelSignal(Protocol):
    def is_set(self) -> bool: ...

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds; True as soon as cancellation is requested."""


class StoredDocument(_Record):
    document_id: str
    name: str
    content_type: str = "text/plain"
    content: bytes


class DocumentNotFound(KeyError):
    pass


class DocumentUnreadable(Exception):
    """The document is attached, but its file cannot be read where the run is driven."""


@runtime_checkable
class DocumentSource(Protocol):
    def get(self, document_id: str) -> StoredDocument:
        """The uploaded document's bytes, name and content type; DocumentNotFound if absent,
        DocumentUnreadable if its file cannot be read."""

    def attached(self) -> list[AttachedDocument]:
        """The case's documents as they stand now, with their sensitive marks: either can
        change after the run started and its brief was written (see case_documents)."""
