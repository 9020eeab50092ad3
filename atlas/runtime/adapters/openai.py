"""OpenAI-compatible chat-completions adapter over stdlib HTTP.

The request carries the NextAction JSON schema as `response_format`; the assistant's
content is parsed as one NextAction by the engine; usage comes from the response. A
token count the response leaves out, garbles or could not have meant (more than the
request's bytes, more output than it allowed, none for a prompt) is estimated from the
prompt and the reply instead, priced like a reported one, and the reply says it was
estimated. A request that timed out, or whose reply was cut short or too large to read, is
charged an estimate too (the endpoint may bill it) and is not sent again within the call: the
runtime's next call reserves its budget first.
429, 5xx, 408 and 409 are retried with exponential backoff and jitter (tenacity), and
never sooner than a Retry-After asks, in seconds or as a date (up to two minutes; the runtime
keeps to one that outlasts the call); any other 4xx ends the run (no retry fixes a wrong key
or model name).
What servers send instead of a plain JSON completion is read as they meant it: a stream
nobody asked for, a gzipped body, a stray byte that is not UTF-8. A refusal or tool calls in
place of content are the model's answer, not a decision: the engine asks again, and the trace
shows them.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import threading
import time
import zlib
from datetime import UTC, datetime
from decimal import Decimal
from email.message import Message
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from pydantic import BaseModel, Field
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
from atlas.runtime.decisions import MAX_CALL_COST_USD, MAX_CALL_TOKENS, Usage, printable

# An attempt with less time than this left is not started.
MIN_WAIT = 0.05


class PriceTable(BaseModel):
    """USD per 1,000 tokens."""

    input_per_1k: Decimal = Field(default=Decimal("0"), ge=0)
    output_per_1k: Decimal = Field(default=Decimal("0"), ge=0)

    @classmethod
    def from_environment(cls) -> PriceTable:
        """The prices of OPENAI_PRICE_INPUT_PER_1K_USD and OPENAI_PRICE_OUTPUT_PER_1K_USD,
        with the settings' defaults: an adapter built without a table never counts a call
        as free by omission."""
        return cls(
            input_per_1k=os.environ.get("OPENAI_PRICE_INPUT_PER_1K_USD", "0.0005"),
            output_per_1k=os.environ.get("OPENAI_PRICE_OUTPUT_PER_1K_USD", "0.0015"),
        )

    def cost(self, input_tokens: int, output_tokens: int) -> Decimal:
        return (
            self.input_per_1k * input_tokens / Decimal(1000)
            + self.output_per_1k * output_tokens / Decimal(1000)
        ).quantize(Decimal("0.000001"))


class _Retryable(Exception):
    def __init__(
        self, kind: str, message: str, retry_after: float = 0.0, *, billed: bool = False
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after
        # The endpoint may have answered the request, and may bill it.
        self.billed = billed


def _backoff(initial: float, most: float):
    """Exponential backoff with jitter, but never sooner than the endpoint's Retry-After."""
    exponential = wait_exponential(multiplier=initial, max=most) + wait_random(0, initial)

    def wait(retry_state) -> float:
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        asked = failure.retry_after if isinstance(failure, _Retryable) else 0.0
        return max(exponential(retry_state), asked)

    return wait


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
            (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
            .strip()
            .rstrip("/")
        )
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.prices = prices if prices is not None else PriceTable.from_environment()
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
        sent: list[int] = []  # one entry a request, so a retried call says how many it made
        reply = self._decide(context, sent)
        return reply.model_copy(update={"requests": len(sent)}) if len(sent) > 1 else reply

    def _decide(self, context: ModelContext, sent: list[int]) -> ModelReply:
        body = json.dumps(self.request_body(context)).encode()
        # The runtime's time limit bounds every wait: an attempt's timeout is capped at the
        # time left, and no retry starts after it or once the runtime stopped waiting.
        time_limit = context.time_limit_seconds
        give_up_at = math.inf if time_limit is None else time.monotonic() + time_limit
        billed = 0  # requests sent that gave no usable reply but that the endpoint may bill

        def time_left() -> float:
            return give_up_at - time.monotonic()

        def asks_a_long_wait(retry_state) -> bool:
            # Longer than this call's own back-off: the runtime keeps to it between calls,
            # where a worker can hand the run back instead of holding its slot.
            failure = retry_state.outcome.exception() if retry_state.outcome else None
            return isinstance(failure, _Retryable) and failure.retry_after > self.backoff_max

        def may_be_billed(retry_state) -> bool:
            # Sent again here, it would be charged twice against one call's reservation.
            failure = retry_state.outcome.exception() if retry_state.outcome else None
            return isinstance(failure, _Retryable) and failure.billed

        @retry(
            retry=retry_if_exception_type(_Retryable),
            stop=stop_after_attempt(self.max_attempts)
            | asks_a_long_wait
            | may_be_billed
            | (lambda retry_state: time_left() - (retry_state.upcoming_sleep or 0) < MIN_WAIT),
            wait=_backoff(self.backoff_initial, self.backoff_max),
            sleep=context.abandoned.wait,
            reraise=False,
        )
        def post() -> dict[str, Any]:
            nonlocal billed
            if context.abandoned.is_set():
                raise _PermanentError("abandoned", "the runtime stopped waiting for this call")
            sent.append(1)
            try:
                return self._post(body, min(self.timeout_seconds, time_left()))
            except (_Retryable, _PermanentError) as failure:
                billed += failure.billed
                raise

        try:
            payload = post()
        except RetryError as error:
            last = error.last_attempt.exception()
            kind = last.kind if isinstance(last, _Retryable) else "transport_error"
            reply = self._failed(kind, str(last), context, billed)
            # The endpoint's wait, if any, outlasts this call: the runtime keeps to it.
            asked = last.retry_after if isinstance(last, _Retryable) else 0.0
            return reply.model_copy(update={"retry_after_seconds": asked})
        except _PermanentError as error:
            return self._failed(
                error.kind, str(error), context, billed, fatal=error.kind == "http_error"
            )
        content = _answer_text(payload)
        usage, estimated = self._usage(payload, context, body, content or "")
        details = _reply_details(payload)
        if content is None:
            return ModelReply(
                transport_error="bad_response",
                error_message="the endpoint's reply is not a chat completion with text in "
                "choices[0].message.content",
                usage=usage,
                usage_estimated=estimated,
                **details,
            )
        return ModelReply(raw=content, usage=usage, usage_estimated=estimated, **details)

    def _failed(
        self,
        kind: str,
        message: str,
        context: ModelContext,
        billed: int,
        *,
        fatal: bool = False,
    ) -> ModelReply:
        """A call that got no usable reply, charged an estimate for each request the endpoint
        may bill (one that timed out after it was sent, or whose reply could not be read)."""
        if not billed:
            return ModelReply(transport_error=kind, error_message=message, fatal=fatal)
        input_tokens = estimate_tokens(context.request_text()) * billed
        output_tokens = context.max_output_tokens * billed
        usage = Usage(
            input_tokens=min(input_tokens, MAX_CALL_TOKENS),
            output_tokens=min(output_tokens, MAX_CALL_TOKENS),
            cost_usd=min(self.prices.cost(input_tokens, output_tokens), MAX_CALL_COST_USD),
        )
        return ModelReply(
            transport_error=kind,
            error_message=message,
            fatal=fatal,
            usage=usage,
            usage_estimated=True,
        )

    def _usage(
        self, payload: Any, context: ModelContext, body: bytes, reply_text: str
    ) -> tuple[Usage, bool]:
        """The response's token counts; each one missing, unusable or implausible is
        estimated instead, so a call is never counted as free (nor as absurdly dear) and a
        valid decision is never thrown away."""
        reported = payload.get("usage") if isinstance(payload, dict) else None
        if not isinstance(reported, dict):
            reported = {}
        input_tokens = _plausible(
            _token_count(reported.get("prompt_tokens")),
            # A prompt is at least one token, and a token at least a byte of the request.
            least=1,
            most=len(body) + PROMPT_OVERHEAD_TOKENS,
        )
        output_tokens = _plausible(
            _token_count(reported.get("completion_tokens")),
            least=1 if reply_text else 0,
            most=context.max_output_tokens + PROMPT_OVERHEAD_TOKENS,
        )
        estimated = input_tokens is None or output_tokens is None
        if input_tokens is None:
            input_tokens = estimate_tokens(context.request_text())
        if output_tokens is None:
            output_tokens = estimate_tokens(reply_text)
        usage = Usage(
            input_tokens=min(input_tokens, MAX_CALL_TOKENS),
            output_tokens=min(output_tokens, MAX_CALL_TOKENS),
            cost_usd=min(self.prices.cost(input_tokens, output_tokens), MAX_CALL_COST_USD),
        )
        return usage, estimated

    def _post(self, body: bytes, timeout: float) -> dict[str, Any]:
        if timeout < MIN_WAIT:
            raise _Retryable("no_time", "no time left before the run's deadline")
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"}
        try:
            reply = self._client.post("/chat/completions", body, headers, timeout)
        except http.client.InvalidURL as error:
            raise _PermanentError("http_error", str(error)) from error
        except TimeoutError as error:
            raise _Retryable("timeout", f"no reply within {timeout:.1f} s", billed=True) from error
        except _ReplyCutShort as error:
            raise _Retryable("incomplete_reply", str(error), billed=True) from error
        except _ReplyTooLarge as error:
            raise _PermanentError("bad_response", str(error), billed=True) from error
        except (OSError, http.client.HTTPException) as error:
            raise _Retryable("connection_error", f"transport error: {error}") from error
        text = _body_text(reply.body, reply.headers.get("Content-Encoding"))
        if reply.status >= 400:
            detail = text[:300]
            retry_after = _retry_after(reply.headers.get("Retry-After"), reply.headers.get("Date"))
            if reply.status == 429:
                raise _Retryable("rate_limited", f"HTTP 429: {detail}", retry_after)
            if reply.status >= 500 or reply.status in (408, 409):
                raise _Retryable("server_error", f"HTTP {reply.status}: {detail}", retry_after)
            raise _PermanentError("http_error", f"HTTP {reply.status}: {detail}")
        content_type = reply.headers.get_content_type()
        if content_type == "text/event-stream" or text.lstrip().startswith("data:"):
            return _joined_stream(text)
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise _PermanentError(
                "bad_response",
                f"the endpoint's reply is not JSON ({content_type}): {_excerpt(text)}",
            ) from error


# The messages' framing and the response schema, beyond the text of the messages.
PROMPT_OVERHEAD_TOKENS = 64


# The most of a reply read, compressed or not: a decision is a few kilobytes, and a
# worker drives several runs at once.
MAX_REPLY_BYTES = 8_000_000


def _body_text(data: bytes, encoding: str | None) -> str:
    """The body as text. JSON is UTF-8: a stray byte that is not costs one character, not
    the whole decision."""
    return _decompressed(data, encoding).decode("utf-8-sig", errors="replace")


def _decompressed(data: bytes, encoding: str | None) -> bytes:
    """The body a server compressed although the request did not ask it to."""
    encoding = (encoding or "identity").strip().lower()
    if encoding == "identity":
        return data
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise _PermanentError("bad_response", f"the endpoint's reply is encoded as {encoding!r}")
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # a gzip or a zlib header
    try:
        inflated = inflater.decompress(data, MAX_REPLY_BYTES + 1)
    except zlib.error as error:
        raise _PermanentError(
            "bad_response", f"the endpoint's {encoding} reply is corrupt"
        ) from error
    if len(inflated) > MAX_REPLY_BYTES:
        raise _PermanentError("bad_response", str(_ReplyTooLarge()), billed=True)
    return inflated


def _joined_stream(text: str) -> dict[str, Any]:
    """One chat completion from a stream of chunks (server-sent events), as a server that
    streams whether asked or not sends it: the content joined, the last usage reported."""
    content: list[str] = []
    completion: dict[str, Any] = {}
    finish_reason = None
    for line in text.splitlines():
        data = line.removeprefix("data:").strip()
        if not line.startswith("data:") or not data or data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except (json.JSONDecodeError, RecursionError) as error:
            raise _PermanentError(
                "bad_response", f"the endpoint's stream is not JSON: {_excerpt(data)}"
            ) from error
        if not isinstance(chunk, dict):
            continue
        completion.update({key: chunk[key] for key in ("model", "usage") if chunk.get(key)})
        choice = _first_choice(chunk)
        delta = choice.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("content"), str):
            content.append(delta["content"])
        finish_reason = choice.get("finish_reason") or finish_reason
    message = {"role": "assistant", "content": "".join(content) if content else None}
    return {**completion, "choices": [{"message": message, "finish_reason": finish_reason}]}


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any]:
    choices = chunk.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return {}


def _excerpt(text: str) -> str:
    return " ".join(text.split())[:200]


def _plausible(count: int | None, *, least: int, most: int) -> int | None:
    return count if count is not None and least <= count <= most else None


def _answer_text(payload: Any) -> str | None:
    """What the model answered, as text: its content, or else what it sent in place of
    content (a refusal, tool calls) as a JSON object of those fields, which is no NextAction,
    so the engine asks again and records them; None when the reply has neither."""
    content = _content_text(payload)
    if content is not None and content.strip():
        return content
    try:
        message = payload["choices"][0]["message"]
        instead = {key: message[key] for key in ("refusal", "tool_calls") if message.get(key)}
    except (KeyError, IndexError, TypeError, AttributeError):
        return content
    return json.dumps(instead) if instead else content


def _content_text(payload: Any) -> str | None:
    """The assistant's text: `choices[0].message.content`, a string or a list of text
    parts; None when the reply has no such thing."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        parts = [part.get("text") for part in content if isinstance(part, dict)]
        if all(isinstance(part, str) for part in parts) and len(parts) == len(content):
            return "".join(parts)
    return None


def _reply_details(payload: Any) -> dict[str, str]:
    """The model that answered and why it stopped, as the endpoint says, for the trace: an
    endpoint that quietly serves another model, or cut a reply short, shows there."""
    details = {}
    if isinstance(payload, dict) and isinstance(payload.get("model"), str):
        details["provider_model"] = printable(payload["model"][:100])
    try:
        reason = payload["choices"][0]["finish_reason"]
    except (KeyError, IndexError, TypeError):
        reason = None
    if isinstance(reason, str):
        details["finish_reason"] = printable(reason[:40])
    return details


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
        # A base URL copied with the endpoint's own path still names the endpoint.
        self._prefix = parts.path.rstrip("/").removesuffix("/chat/completions")
        self._query = f"?{parts.query}" if parts.query else ""  # Azure's api-version, say
        self._local = threading.local()

    def post(self, path: str, body: bytes, headers: dict[str, str], timeout: float) -> _Reply:
        """One POST that takes at most `timeout` seconds in all (TimeoutError otherwise), its
        body whole (_ReplyCutShort otherwise) and at most MAX_REPLY_BYTES (_ReplyTooLarge)."""
        if self._invalid:
            raise http.client.InvalidURL(self._invalid)
        reused = getattr(self._local, "connection", None) is not None
        give_up_at = time.monotonic() + timeout
        try:
            return self._exchange(path, body, headers, give_up_at)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            if not reused:
                raise
            # The server closed an idle kept-alive connection: one try on a new one.
            return self._exchange(path, body, headers, give_up_at)

    def _exchange(
        self, path: str, body: bytes, headers: dict[str, str], give_up_at: float
    ) -> _Reply:
        connection = getattr(self._local, "connection", None) or self._connect()
        try:
            connection.timeout = _time_until(give_up_at)
            if connection.sock is not None:
                connection.sock.settimeout(connection.timeout)
            url = self._prefix + path + self._query
            connection.request("POST", url, body=body, headers=headers)
            # Held here: a reply that closes the connection takes the socket off it.
            sock = connection.sock
            sock.settimeout(_time_until(give_up_at))
            response = connection.getresponse()
            data = _read_body(response, sock, give_up_at)
        except BaseException:
            self._close()
            raise
        if response.will_close:
            self._close()
        return _Reply(response.status, data, response.headers)

    def _connect(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        self._local.connection = kind(self._host, self._port)
        return self._local.connection

    def _close(self) -> None:
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()


class _Reply(NamedTuple):
    status: int
    body: bytes
    headers: Message


class _ReplyCutShort(Exception):
    """The connection closed before the whole body came."""


class _ReplyTooLarge(Exception):
    def __str__(self) -> str:
        return f"the endpoint's reply is larger than {MAX_REPLY_BYTES // 1_000_000} MB"


def _read_body(response: http.client.HTTPResponse, sock: Any, give_up_at: float) -> bytes:
    chunks: list[bytes] = []
    received = 0
    try:
        # A body trickled in slowly is cut at the call's time limit, not each read's.
        while chunk := response.read1(READ_CHUNK_BYTES):
            chunks.append(chunk)
            received += len(chunk)
            if received > MAX_REPLY_BYTES:
                raise _ReplyTooLarge()
            sock.settimeout(_time_until(give_up_at))
    except http.client.IncompleteRead as error:  # a chunked body that stopped
        raise _ReplyCutShort(
            f"the connection closed before the reply was complete ({received:,} bytes in)"
        ) from error
    if response.length:  # read1 takes a closed connection for the body's end
        expected = received + response.length
        raise _ReplyCutShort(f"the connection closed after {received:,} of {expected:,} bytes")
    response.read()  # nothing is left; this marks the response done
    return b"".join(chunks)


READ_CHUNK_BYTES = 65536
# The longest Retry-After kept to: a run does not sit in a worker's slot for an hour on an
# endpoint's word.
MAX_RETRY_AFTER_SECONDS = 120.0


def _time_until(moment: float) -> float:
    left = moment - time.monotonic()
    if left <= 0:
        raise TimeoutError("the call's time limit passed")
    return left


def _retry_after(value: str | None, replied_at: str | None = None) -> float:
    """Retry-After in seconds, given as seconds or as an HTTP date (counted from the reply's
    own Date, so two clocks that disagree do not matter, else from this machine's); 0 for a
    moment past, a negative number or anything unreadable."""
    if value is None:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = _seconds_between(replied_at, value)
    if not math.isfinite(seconds) or seconds <= 0:
        return 0.0
    return min(seconds, MAX_RETRY_AFTER_SECONDS)


def _seconds_between(start: str | None, end: str) -> float:
    moment = _http_date(end)
    if moment is None:
        return 0.0
    return (moment - (_http_date(start) or datetime.now(UTC))).total_seconds()


def _http_date(text: str | None) -> datetime | None:
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class _PermanentError(Exception):
    def __init__(self, kind: str, message: str, *, billed: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.billed = billed
