"""A real local HTTP server speaking the OpenAI chat-completions protocol, for tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NO_USAGE = object()


class FakeChatServer:
    """Answers /v1/chat/completions from a queue of (status, body) responses, or (status,
    body, headers). A body is a JSON value, or bytes sent as they are."""

    def __init__(self) -> None:
        self.responses: list[tuple[int, dict]] = []
        self.requests: list[dict] = []
        self.paths: list[str] = []  # the path (and query) each request was sent to
        self.headers: list[dict] = []
        self.connections: list[tuple[str, int]] = []  # client address of each request
        self.request_times: list[float] = []  # time.monotonic() as each request came in
        self.drop_after_response = False
        self.delay_seconds = 0.0  # before answering, as a slow endpoint would
        self.trickle_seconds = 0.0  # between the bytes of the answer's body
        self.close_each_connection = False  # "Connection: close", as many proxies answer
        # Send only this many bytes of the body, then close: a connection lost mid-reply.
        self.cut_body_at: int | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keeps connections open, as real endpoints do

            def do_POST(self):  # noqa: N802 - http.server's naming
                server.connections.append(self.client_address)
                server.request_times.append(time.monotonic())
                length = int(self.headers["Content-Length"])
                request = json.loads(self.rfile.read(length))
                server.requests.append(request)
                server.paths.append(self.path)
                server.headers.append(dict(self.headers))
                time.sleep(server.delay_seconds)
                refusal = _schema_refusal(request)
                extra = []
                if refusal:
                    status, body = 400, {"error": {"message": refusal, "type": "invalid_request"}}
                else:
                    status, body, *extra = (
                        server.responses.pop(0) if server.responses else (500, {"error": "empty"})
                    )
                headers = extra[0] if extra else {}
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                if "Date" in headers:  # the response's own, instead of the server's clock
                    self.send_response_only(status)
                else:
                    self.send_response(status)
                if "Content-Type" not in headers:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                if server.close_each_connection:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                if server.cut_body_at is not None:
                    payload = payload[: server.cut_body_at]
                    self.close_connection = True
                try:
                    if server.trickle_seconds:
                        for byte in payload:  # a byte at a time, as a stalling proxy might
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(server.trickle_seconds)
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client stopped waiting (a timeout, a cancel)
                if server.drop_after_response:
                    self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def completion(
        self, content: dict | str, prompt_tokens: int = 1200, completion_tokens: int = 80
    ):
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return self.completion_reporting(content, usage)

    def completion_reporting(self, content: dict | str, usage: object = NO_USAGE):
        """A completion whose `usage` is whatever the endpoint sent, or left out."""
        text = content if isinstance(content, str) else json.dumps(content)
        body = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
        if usage is not NO_USAGE:
            body["usage"] = usage
        return 200, body


def _schema_refusal(request: dict) -> str | None:
    """Why the real API would refuse the request's response schema, if it would: its root
    must be an object, not a union of objects."""
    schema = request.get("response_format", {}).get("json_schema", {}).get("schema", {})
    if schema.get("type") != "object" or {"anyOf", "oneOf", "allOf"} & set(schema):
        return "Invalid schema for response_format 'NextAction': the root must be an object"
    return None
