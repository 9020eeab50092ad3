"""A request body larger than ATLAS_REQUEST_MAX_BYTES is refused as it arrives.

Daphne reads a whole body before the application sees any of it, and then queues all of it
in memory for the application, so a check in Django comes after the memory is spent: one
anonymous 300 MB POST grew a server by gigabytes. Here the body is counted as the server
receives it: a declared length over the limit is answered 413 before a byte of the body is
read, and a chunked body is cut off with a 413 once it passes the limit. Both `daphne`
(production) and `manage.py serve` (the embedded default) build their requests from
`daphne.http_protocol.WebRequest`, which `install` replaces with the counting subclass.
"""

from __future__ import annotations

import logging

from daphne import http_protocol

logger = logging.getLogger(__name__)

REFUSAL = (
    "This request is larger than Atlas accepts ({limit:,} bytes); nothing was saved. "
    "A document can be at most {upload_limit:,} bytes.\n"
)


class SizeLimitedRequest(http_protocol.WebRequest):
    max_bytes = 0  # set by install()
    max_upload_bytes = 0

    def gotLength(self, length):  # noqa: N802 - Twisted's name
        self.received_bytes = 0
        self.refused = False
        if length is not None and length > self.max_bytes:
            # No "100 Continue" to a client that asks before sending a body we refuse.
            self.requestHeaders.removeHeader(b"Expect")
            self._refuse()
        super().gotLength(length)

    def handleContentChunk(self, data):  # noqa: N802 - Twisted's name
        if self.refused:
            return
        self.received_bytes += len(data)
        if self.received_bytes > self.max_bytes:
            self._refuse()
            return
        super().handleContentChunk(data)

    def requestReceived(self, command, path, version):  # noqa: N802 - Twisted's name
        if not self.refused:
            super().requestReceived(command, path, version)

    def _refuse(self) -> None:
        self.refused = True
        # The method and path are not read yet when the declared length is refused.
        logger.warning(
            "Refused a request from %s: its body is over ATLAS_REQUEST_MAX_BYTES (%s bytes)",
            getattr(self.getClientAddress(), "host", "an unknown address"),
            f"{self.max_bytes:,}",
        )
        body = REFUSAL.format(limit=self.max_bytes, upload_limit=self.max_upload_bytes).encode()
        self.channel.transport.write(
            b"HTTP/1.1 413 Content Too Large\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n"
            b"Connection: close\r\n\r\n" + body
        )
        self.channel.transport.loseConnection()


def install(max_bytes: int, max_upload_bytes: int) -> None:
    SizeLimitedRequest.max_bytes = max_bytes
    SizeLimitedRequest.max_upload_bytes = max_upload_bytes
    http_protocol.WebRequest = SizeLimitedRequest
