"""The runtime's storage port, persisted by Django: one transaction per step.

A step's state, trace events, observations and tool-call records are written together,
and only if the run's stored version is still the one the step started from (the SQL is
in `runs.step_writes`).
"""

from __future__ import annotations

import contextlib
import logging
import threading

from django.db import connection, transaction

from atlas.runtime.cancellation import CancelRequest
from atlas.runtime.ports import (
    BaseRunStore,
    DocumentNotFound,
    DocumentUnreadable,
    StaleRunVersion,
    StepCommit,
    StoredDocument,
    ToolCallRecord,
)
from atlas.runtime.state import AttachedDocument
from reviews.sync import desired_items, reopen_refused_items, sync_review_items
from runs.live import announce_run_update
from runs.models import Document, Run, ToolCall
from runs.run_state import state_json
from runs.step_writes import upsert_tool_calls, write_step

logger = logging.getLogger(__name__)


class DjangoRunStore(BaseRunStore):
    """One instance per runtime; it remembers the review items its last commit of each run
    asked for, so a commit skips the sync when nothing changed (the hot path is a
    researching step), and the state it left in the run's row, so a step that changed
    only counters and bookkeeping (runs.run_state) does not write the state again."""

    def __init__(self) -> None:
        self._synced_items: dict[int, dict] = {}
        # run id -> (the row's version, its state text) as this store's last commit left them
        self._state_rows: dict[int, tuple[int, str]] = {}

    def commit_step(self, commit: StepCommit) -> None:
        run_id = int(commit.run_id)
        wanted = desired_items(commit.state)
        # Only this run's own commits open or withdraw its items, so when the state asks
        # for the same items as the last commit did, they are already in place; and the
        # first commit starts from the state the run was queued with, which asked nothing.
        asked_before = {} if commit.expected_version == 0 else self._synced_items.get(run_id)
        refused = [e.data["decision_id"] for e in commit.events if e.type == "human_input_rejected"]
        syncing = asked_before != wanted or bool(refused)
        state_text = state_json(commit.state)
        # Only a row still at the version this store's last commit gave it holds the state
        # text that commit left there: the version is checked in the same statement.
        state_unchanged = self._state_rows.get(run_id) == (commit.expected_version, state_text)
        self._state_rows.pop(run_id, None)
        # Without items to sync, the step's write is a transaction on its own.
        with transaction.atomic() if syncing else contextlib.nullcontext():
            if not write_step(commit, state_text, state_unchanged=state_unchanged):
                raise StaleRunVersion(
                    f"run {run_id} is no longer at version {commit.expected_version}"
                )
            if syncing:
                sync_review_items(run_id, commit.state, wanted, asked_before)
                reopen_refused_items(run_id, refused, wanted)
            if commit.events:
                announce_run_update(run_id, commit.events[-1].seq)
        self._synced_items[run_id] = wanted
        self._state_rows[run_id] = (commit.state.version, state_text)

    def cancel_request(self, run_id: str) -> CancelRequest | None:
        """Who asked to cancel the run and when, as its row keeps them (do_request_cancel)."""
        run = (
            Run.objects.select_related("cancel_requested_by")
            .only("cancel_requested_at", "cancel_requested_by")
            .get(pk=int(run_id))
        )
        if run.cancel_requested_at is None:
            return None
        person = run.cancel_requested_by
        return CancelRequest(
            requested_by=shown_name(person) if person else None,
            requested_by_id=str(person.pk) if person else None,
            requested_at=run.cancel_requested_at,
        )

    def save_tool_call(self, record: ToolCallRecord) -> None:
        # One upsert statement is its own transaction: no BEGIN/COMMIT round trips.
        upsert_tool_calls(int(record.run_id), [record])

    def find_tool_call(self, idempotency_key: str) -> ToolCallRecord | None:
        row = ToolCall.objects.filter(idempotency_key=idempotency_key).first()
        if row is None:
            return None
        return ToolCallRecord(
            idempotency_key=row.idempotency_key,
            run_id=str(row.run_id),
            step=row.step,
            tool=row.tool,
            arguments=row.arguments,
            effect_status=row.effect_status,
            attempts=row.attempts,
            cost_usd=row.cost_usd,
            result=row.result,
            error_type=row.error_type or None,
            started_at=row.started_at,
            finished_at=row.finished_at,
            duration_ms=row.duration_ms,
        )


def shown_name(user) -> str:
    """The name the console shows for a person; never their e-mail address, even when
    their login is one."""
    name = user.get_full_name() or user.get_username()
    return f"user {user.pk}" if "@" in name else name


class DjangoDocumentSource:
    """Reads a case's uploaded files; only documents of that case are reachable."""

    def __init__(self, case_id: int) -> None:
        self.case_id = case_id
        self._owner = threading.get_ident()

    def get(self, document_id: str) -> StoredDocument:
        try:
            return self._read(document_id)
        finally:
            # Tools run on the gateway's reused helper threads: do not leave a database
            # connection open on one (it would outlive the run and block dropping a test
            # database).
            if threading.get_ident() != self._owner and not connection.in_atomic_block:
                connection.close()

    def attached(self) -> list[AttachedDocument]:
        rows = Document.objects.filter(case_id=self.case_id).order_by("pk")
        return [
            AttachedDocument(document_id=str(pk), name=name, sensitive=sensitive)
            for pk, name, sensitive in rows.values_list("pk", "original_name", "sensitive")
        ]

    def _read(self, document_id: str) -> StoredDocument:
        try:
            document = Document.objects.get(pk=int(document_id), case_id=self.case_id)
        except (Document.DoesNotExist, ValueError):
            raise DocumentNotFound(document_id) from None
        try:
            with document.file.open("rb") as handle:
                content = handle.read()
        except OSError as error:
            # The path is for operators (a MEDIA_ROOT this worker does not share), not for
            # the model or the analyst.
            logger.warning(
                "Document %s of case %s cannot be read: %s", document.pk, self.case_id, error
            )
            raise DocumentUnreadable(
                f"The file of “{document.original_name}” cannot be read from storage."
            ) from None
        return StoredDocument(
            document_id=str(document.pk),
            name=document.original_name,
            content_type=document.content_type,
            content=content,
        )
