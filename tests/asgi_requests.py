"""Requests served by the ASGI application daphne runs, as daphne would serve them."""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.db import connections

from atlas.routing import application


def served_by_asgi(path: str, cookie: bytes = b"") -> tuple[list[bytes], list[str]]:
    """GET `path` from the ASGI application daphne serves: the body messages, and the
    warnings raised while serving them.

    On a thread of its own, since async_to_sync refuses a thread with a running event loop.
    """

    async def get() -> list[bytes]:
        headers = [(b"host", b"testserver")] + ([(b"cookie", cookie)] if cookie else [])
        request = HttpCommunicator(application, "GET", path, headers=headers)
        await request.send_input({"type": "http.request", "body": b""})
        start = await request.receive_output(timeout=5)
        assert start["type"] == "http.response.start" and start["status"] == 200, start
        parts = []
        while True:
            message = await request.receive_output(timeout=5)
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                return parts

    def in_thread():
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                parts = async_to_sync(get)()
            return parts, [str(warning.message) for warning in caught]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(in_thread).result()
