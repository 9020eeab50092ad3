"""Tell live pages that a run has new committed trace events.

The message only carries the newest sequence number; consumers read the events
themselves from the database, so a lost or repeated message can never leave a gap
or a duplicate on a page.

A worker does not announce to a run nobody watches: its heartbeat asks the channel layer
which of its runs have a live page (`runs.audience`) and records it here with
`set_audience`; announcements of an unwatched run are held back, and the newest one is
sent as soon as a page turns up or the worker lets go of the run. A page that opens in
between has read the events from the database on connecting, so it waits at most one
heartbeat for what came after.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


def announce_run_update(run_id: int, last_seq: int) -> None:
    """Push after commit: the events must be readable by the time a consumer looks."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        loop = _calling_event_loop()
        if loop is not None:
            # A worker's run thread: hand the send to the worker's event loop and carry
            # on with the run instead of waiting for the channel layer's round trip.
            _announce_on(loop, layer, run_id, last_seq)
            return
        try:
            async_to_sync(layer.group_send)(run_group(run_id), _message(run_id, last_seq))
        except Exception as error:
            # After the commit, so never the run's failure: a layer that is down, or a
            # process shutting down. Pages catch up from the database when they reconnect.
            logger.warning("Could not announce run %s up to event %s: %r", run_id, last_seq, error)

    transaction.on_commit(send)


def _message(run_id: int, last_seq: int) -> dict:
    return {"type": "run.updated", "run_id": run_id, "last_seq": last_seq}


def _calling_event_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this thread was entered from through sync_to_async, if any
    (the one async_to_sync would go back to)."""
    threadlocal = SyncToAsync.threadlocal
    if getattr(threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return loop
    return None  # this thread runs a loop of its own: async_to_sync knows what to do


# Announcements handed to an event loop and not sent yet, newest sequence number per run:
# while one waits, later commits of the same run only raise its number (one message).
_pending: dict[tuple[asyncio.AbstractEventLoop, int], int] = {}
_pending_lock = threading.Lock()
_sending: set[asyncio.Task] = set()


# Set by the worker's heartbeat for the runs it drives: False for one without a live page.
# A run not in here is always announced.
_audience: dict[int, bool] = {}
# The newest sequence number not announced because nobody was watching, per run.
_held_back: dict[int, int] = {}


def set_audience(run_id: int, watched: bool) -> None:
    """Called on the worker's event loop; a newly watched run gets what was held back."""
    with _pending_lock:
        _audience[run_id] = watched
    if watched:
        _release_held_back(run_id)


def forget_audience(run_id: int) -> None:
    """The worker let go of the run: send what was held back, announce it always again."""
    with _pending_lock:
        _audience.pop(run_id, None)
    _release_held_back(run_id)


def _release_held_back(run_id: int) -> None:
    with _pending_lock:
        last_seq = _held_back.pop(run_id, None)
    layer = get_channel_layer()
    if last_seq is not None and layer is not None:
        _announce_on(asyncio.get_running_loop(), layer, run_id, last_seq)


def _announce_on(loop: asyncio.AbstractEventLoop, layer, run_id: int, last_seq: int) -> None:
    key = (loop, run_id)
    with _pending_lock:
        if _audience.get(run_id) is False:
            _held_back[run_id] = max(last_seq, _held_back.get(run_id, last_seq))
            return
        queued = key in _pending
        _pending[key] = max(last_seq, _pending.get(key, last_seq))
    if queued:
        return
    try:
        loop.call_soon_threadsafe(_start_send, layer, key, run_id)
    except RuntimeError:  # the loop closed meanwhile: messages are at most once anyway
        with _pending_lock:
            _pending.pop(key, None)


def _start_send(layer, key: tuple[asyncio.AbstractEventLoop, int], run_id: int) -> None:
    with _pending_lock:
        last_seq = _pending.pop(key, None)
    if last_seq is None:
        return
    task = asyncio.ensure_future(_send(layer, run_id, last_seq))
    _sending.add(task)
    task.add_done_callback(_sending.discard)


async def _send(layer, run_id: int, last_seq: int) -> None:
    try:
        await layer.group_send(run_group(run_id), _message(run_id, last_seq))
    except Exception:
        # Pages catch up from the database on their next message or reconnect.
        logger.exception("Could not announce run %s up to event %s", run_id, last_seq)
