"""In-memory implementations of the ports, for tests and headless use."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from atlas.runtime.ports import (
    BaseRunStore,
    DocumentNotFound,
    StaleRunVersion,
    StepCommit,
    StoredDocument,
    ToolCallRecord,
)
from atlas.runtime.state import AtlasState, AttachedDocument


class MemoryRunStore(BaseRunStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.versions: dict[str, int] = {}
        self.states: dict[str, dict] = {}
        self.events: dict[str, list] = {}
        self.observations: dict[str, list] = {}
        self.tool_calls: dict[str, ToolCallRecord] = {}
        self.commits = 0

    def commit_step(self, commit: StepCommit) -> None:
        with self._lock:
            stored = self.versions.get(commit.run_id, 0)
            if stored != commit.expected_version:
                raise StaleRunVersion(
                    f"run {commit.run_id}: stored version {stored}, "
                    f"step computed from {commit.expected_version}"
                )
            events = self.events.setdefault(commit.run_id, [])
            for event in commit.events:
                expected_seq = len(events) + 1
                if event.seq != expected_seq:
                    raise AssertionError(f"seq gap: got {event.seq}, expected {expected_seq}")
                events.append(event)
            self.observations.setdefault(commit.run_id, []).extend(commit.observations)
            for record in commit.tool_calls:
                self.tool_calls[record.idempotency_key] = record
            self.versions[commit.run_id] = commit.state.version
            self.states[commit.run_id] = commit.state.model_dump(mode="json")
            self.commits += 1

    def save_tool_call(self, record: ToolCallRecord) -> None:
        with self._lock:
            self.tool_calls[record.idempotency_key] = record

    def find_tool_call(self, idempotency_key: str) -> ToolCallRecord | None:
        with self._lock:
            return self.tool_calls.get(idempotency_key)

    def load_state(self, run_id: str) -> AtlasState:
        with self._lock:
            return AtlasState.model_validate(self.states[run_id])

    def event_types(self, run_id: str) -> list[str]:
        return [event.type for event in self.events.get(run_id, [])]


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock tests move by hand; `auto_advance` adds seconds on every now() call."""

    def __init__(self, start: datetime | None = None, auto_advance: float = 0.0) -> None:
        self._now = start or datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
        self._mono = 1000.0
        self.auto_advance = auto_advance
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            current = self._now
            if self.auto_advance:
                self._advance(self.auto_advance)
            return current

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._advance(seconds)

    def _advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)
        self._mono += seconds


class MemoryCancelSignal:
    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        return self._event.wait(timeout)


class MemoryDocumentSource:
    """Stored documents by id. Those a test attaches or marks after a run started are the
    case's documents `attached()` reports (the brief holds the rest)."""

    def __init__(self, documents: list[StoredDocument] | None = None) -> None:
        self._documents = {doc.document_id: doc for doc in documents or []}
        self._on_case: dict[str, AttachedDocument] = {}

    def add(self, document: StoredDocument) -> None:
        self._documents[document.document_id] = document

    def attach(self, document: StoredDocument, *, sensitive: bool = False) -> None:
        self.add(document)
        self._on_case[document.document_id] = AttachedDocument(
            document_id=document.document_id, name=document.name, sensitive=sensitive
        )

    def mark_sensitive(self, document_id: str) -> None:
        name = self._documents[document_id].name if document_id in self._documents else ""
        self._on_case[document_id] = AttachedDocument(
            document_id=document_id, name=name, sensitive=True
        )

    def attached(self) -> list[AttachedDocument]:
        return [document.model_copy() for document in self._on_case.values()]

    def get(self, document_id: str) -> StoredDocument:
        try:
            return self._documents[document_id]
        except KeyError:
            raise DocumentNotFound(document_id) from None
