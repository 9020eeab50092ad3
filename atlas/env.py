"""Small readers for settings that come from the environment.

Each one fails loudly on a malformed value instead of guessing.
"""

from __future__ import annotations

import math
import os
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ImproperlyConfigured(f"{name} must be a finite number, got {raw!r}")
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum:g}, got {value:g}")
    return value


def env_decimal(name: str, default: str) -> Decimal:
    """A finite amount of at least zero (a price, a threshold)."""
    raw = os.environ.get(name, default)
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value < 0:
        raise ImproperlyConfigured(
            f"{name} must be a decimal amount of at least 0, got {raw!r}"
        ) from None
    return value


def env_url(name: str, default: str, schemes: tuple[str, ...]) -> str:
    """An address whose scheme is one of `schemes` ("postgres://host/db"); a typo in the
    scheme or a bare host name is refused here, not met later as a driver's traceback."""
    raw = os.environ.get(name, default).strip()
    scheme, separator, rest = raw.partition("://")
    scheme = scheme.lower()
    if not separator or scheme not in schemes or not (rest or scheme == "sqlite"):
        raise ImproperlyConfigured(
            f"{name} must be an address starting {' or '.join(s + '://' for s in schemes)}, "
            f"got {raw!r}"
        )
    return raw


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_model(name: str, default: str) -> str:
    """A decision maker's name: playbook, scripted:FILE or openai:MODEL."""
    value = os.environ.get(name, default).strip()
    kind, _, rest = value.partition(":")
    if value != "playbook" and not (kind in ("scripted", "openai") and rest.strip()):
        raise ImproperlyConfigured(
            f"{name} must be playbook, scripted:FILE or openai:MODEL, got {value!r}"
        )
    return value
