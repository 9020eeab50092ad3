"""A request body over ATLAS_REQUEST_MAX_BYTES is refused by daphne as it arrives, before it
is held in memory; smaller requests are served as before. Driven over a real socket against
`daphne` as production runs it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1024 * 1024


@pytest.fixture(scope="module")
def daphne_port(tmp_path_factory):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path_factory.mktemp('size') / 'db.sqlite3'}",
        "ATLAS_REQUEST_MAX_BYTES": str(LIMIT),
        "ATLAS_UPLOAD_MAX_BYTES": str(LIMIT // 2),
    }
    env.pop("REDIS_URL", None)
    daphne = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "atlas.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if daphne.poll() is not None:
                pytest.fail(daphne.stderr.read().decode())
            time.sleep(0.1)
    yield port
    daphne.terminate()
    daphne.wait(10)


def _exchange(port: int, head: bytes, body_chunks=(), *, read_timeout: float = 10) -> bytes:
    """Send `head`, then each chunk while the server still reads; what the server answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as connection:
        connection.sendall(head)
        try:
            for chunk in body_chunks:
                connection.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed while we were still sending: the answer is waiting
        answer = b""
        try:
            while part := connection.recv(65536):
                answer += part
        except ConnectionResetError:
            pass
        return answer


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(daphne_port):
    head = (
        b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/octet-stream\r\n"
        b"Content-Length: 300000000\r\n\r\n"
    )
    began = time.monotonic()
    answer = _exchange(daphne_port, head)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"larger than Atlas accepts (1,048,576 bytes); nothing was saved" in answer
    assert b"A document can be at most 524,288 bytes." in answer
    assert time.monotonic() - began < 5  # answered without waiting for 300 MB


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(daphne_port):
    head = (
        b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/octet-stream\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"a" * 65536
    chunk = b"%x\r\n" % len(piece) + piece + b"\r\n"
    answer = _exchange(daphne_port, head, [chunk] * 40)  # 2.5 MB, never finished
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_a_request_under_the_limit_reaches_the_application(daphne_port):
    body = b"a" * (LIMIT // 2)
    head = (
        b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/octet-stream\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    answer = _exchange(daphne_port, head, [body])
    # Django's own answer: the form post has no CSRF token.
    assert answer.startswith(b"HTTP/1.1 403 "), answer[:200]


class _Server:
    """What daphne's server does with the requests it is told of."""

    def __init__(self) -> None:
        self.connections: dict = {}

    def protocol_connected(self, protocol) -> None:
        self.connections[protocol] = {}

    def protocol_disconnected(self, protocol) -> None:
        self.connections[protocol]["disconnected"] = True


def test_a_refused_request_is_forgotten_once_its_connection_closes():
    """Daphne reaps a connection only once it is told it closed: a refused request not
    told so would stay in its memory for good, one per refusal."""
    from types import SimpleNamespace

    from twisted.internet.error import ConnectionDone
    from twisted.python.failure import Failure
    from twisted.web.test.requesthelper import DummyChannel

    from atlas.request_size import SizeLimitedRequest

    server = _Server()
    channel = DummyChannel()
    channel.factory = SimpleNamespace(server=server)
    request = SizeLimitedRequest(channel)
    request.gotLength(300_000_000)
    assert request.refused
    assert channel.transport.written.getvalue().startswith(b"HTTP/1.1 413 ")

    request.connectionLost(Failure(ConnectionDone()))

    assert server.connections[request] == {"disconnected": True}
