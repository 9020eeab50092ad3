"""OpenAI-compatible chat-completions adapter over stdlib HTTP.

The request carries the NextAction JSON schema as `response_format`; the assistant's
content is parsed as one NextAction by the engine; usage comes from the response. A
token count the response leaves out or garbles is estimated from the prompt and the
reply instead, priced like a reported one, and the reply says it was estimated.
429 and 5xx are retried with exponential backoff and jitter (tenacity).
"""

from __future__ import annotations

import http.client
import json
import math
import os
import threading
import time
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel
from tenacity import (
    RetryError,
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.budgets import estimate_tokens
from atlas.runtime.context import ModelContext
from atlas.runtime.decisions import MAX_CALL_COST_USD, MAX_CALL_TOKENS, Usage

# An attempt with less time than this left is not started.
MIN_WAIT = 0.05


class PriceTable(BaseModel):
    """USD per 1,000 tokens."""

    input_per_1k: Decimal = Decimal("0")
    output_per_1k: Decimal = Decimal("0")

    def cost(self, input_tokens: int, output_tokens: int) -> Decimal:
        return (
            self.input_per_1k * input_tokens / Decimal(1000)
            + self.output_per_1k * output_tokens / Decimal(1000)
        ).quantize(Decimal("0.000001"))


class _Retryable(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class OpenAIChatModel:
    kind = "llm"
    waits_on_network = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        prices: PriceTable | None = None,
        timeout_seconds: float = 30.0,
        max_attempts: int = 3,
        backoff_initial: float = 0.5,
        backoff_max: float = 8.0,
    ) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        ).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.prices = prices or PriceTable()
        self.timeout_seconds = timeout_seconds
        self.max_attempts = max_attempts
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self._client = _KeepAliveClient(self.base_url)

    def price_per_1k_tokens(self) -> Decimal | None:
        return max(self.prices.input_per_1k, self.prices.output_per_1k)

    def request_body(self, context: ModelContext) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": context.messages,
            "max_tokens": context.max_output_tokens,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "NextAction",
                    "schema": context.response_schema,
                    # Strict mode needs every object closed with all its properties required,
                    # and a tool's arguments are an open object; the runtime validates anyway.
                    "strict": False,
                },
            },
        }

    def decide(self, context: ModelContext) -> ModelReply:
        body = json.dumps(self.request_body(context)).encode()
        # The runtime's time limit bounds every wait: an attempt's timeout is capped at the
        # time left, and no retry starts after it or once the runtime stopped waiting.
        time_limit = context.time_limit_seconds
        give_up_at = math.inf if time_limit is None else time.monotonic() + time_limit

        def time_left() -> float:
            return give_up_at - time.monotonic()

        @retry(
            retry=retry_if_exception_type(_Retryable),
            stop=stop_after_attempt(self.max_attempts)
            | (lambda retry_state: time_left() - (retry_state.upcoming_sleep or 0) < MIN_WAIT),
            wait=wait_exponential(multiplier=self.backoff_initial, max=self.backoff_max)
            + wait_random(0, self.backoff_initial),
            sleep=context.abandoned.wait,
            reraise=False,
        )
        def post() -> dict[str, Any]:
            if context.abandoned.is_set():
                raise _PermanentError("abandoned", "the runtime stopped waiting for this call")
            return self._post(body, min(self.timeout_seconds, time_left()))

        try:
            payload = post()
        except RetryError as error:
            last = error.last_attempt.exception()
            kind = last.kind if isinstance(last, _Retryable) else "transport_error"
            return ModelReply(transport_error=kind, error_message=str(last))
        except _PermanentError as error:
            return ModelReply(transport_error=error.kind, error_message=str(error))
        try:
            content = payload["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            content = None
        raw = content if content is not None else json.dumps(payload)[:2000]
        usage, estimated = self._usage(payload, context, content or "")
        return ModelReply(raw=raw, usage=usage, usage_estimated=estimated)

    def _usage(self, payload: Any, context: ModelContext, reply_text: str) -> tuple[Usage, bool]:
        """The response's token counts; each one missing or unusable is estimated instead,
        so a call is never counted as free and a valid decision is never thrown away."""
        reported = payload.get("usage") if isinstance(payload, dict) else None
        if not isinstance(reported, dict):
            reported = {}
        input_tokens = _token_count(reported.get("prompt_tokens"))
        output_tokens = _token_count(reported.get("completion_tokens"))
        estimated = input_tokens is None or output_tokens is None
        if input_tokens is None:
            input_tokens = estimate_tokens(context.text())
        if output_tokens is None:
            output_tokens = estimate_tokens(reply_text)
        usage = Usage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=min(self.prices.cost(input_tokens, output_tokens), MAX_CALL_COST_USD),
        )
        return usage, estimated

    def _post(self, body: bytes, timeout: float) -> dict[str, Any]:
        if timeout < MIN_WAIT:
            raise _Retryable("timeout", "no time left before the run's deadline")
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"}
        try:
            status, data = self._client.post("/chat/completions", body, headers, timeout)
        except http.client.InvalidURL as error:
            raise _PermanentError("http_error", str(error)) from error
        except (TimeoutError, OSError, http.client.HTTPException) as error:
            raise _Retryable("timeout", f"transport error: {error}") from error
        if status >= 400:
            detail = data.decode(errors="replace")[:300]
            if status == 429:
                raise _Retryable("rate_limited", f"HTTP 429: {detail}")
            if status >= 500:
                raise _Retryable("server_error", f"HTTP {status}: {detail}")
            raise _PermanentError("http_error", f"HTTP {status}: {detail}")
        try:
            return json.loads(data.decode())
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise _PermanentError("bad_response", f"response is not JSON: {error}") from error


def _token_count(value: Any) -> int | None:
    """A reported token count, or None when it is missing, not a whole number, or out of
    range (below 0 or above what one call may use)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return value if 0 <= value <= MAX_CALL_TOKENS else None
    return None


class _KeepAliveClient:
    """HTTP(S) to one endpoint over a kept-alive connection per thread: a run's calls do not
    each pay a new TCP (and TLS) handshake."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self._invalid = (
            None
            if parts.scheme in ("http", "https") and parts.hostname
            else f"the model's base URL is not an http(s) URL: {base_url!r}"
        )
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._local = threading.local()

    def post(
        self, path: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes]:
        if self._invalid:
            raise http.client.InvalidURL(self._invalid)
        reused = getattr(self._local, "connection", None) is not None
        try:
            return self._exchange(path, body, headers, timeout)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            if not reused:
                raise
            # The server closed an idle kept-alive connection: one try on a new one.
            return self._exchange(path, body, headers, timeout)

    def _exchange(
        self, path: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes]:
        connection = getattr(self._local, "connection", None) or self._connect()
        # Each socket wait (connect, send, every read) is bounded by this call's timeout.
        connection.timeout = timeout
        if connection.sock is not None:
            connection.sock.settimeout(timeout)
        try:
            connection.request("POST", self._prefix + path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except BaseException:
            self._close()
            raise
        if response.will_close:
            self._close()
        return response.status, data

    def _connect(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        self._local.connection = kind(self._host, self._port)
        return self._local.connection

    def _close(self) -> None:
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()


class _PermanentError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
