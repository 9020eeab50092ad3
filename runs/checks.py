"""System checks for what a deployment needs besides its settings."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register


@register(Tags.staticfiles)
def static_files_collected(app_configs, **kwargs) -> list[Warning]:
    """With DEBUG off, pages link the hashed files collectstatic writes to STATIC_ROOT, and
    render with an error until it has run."""
    if settings.DEBUG or (Path(settings.STATIC_ROOT) / "staticfiles.json").exists():
        return []
    return [
        Warning(
            f"Static files have not been collected into {settings.STATIC_ROOT}: with DEBUG "
            "off, pages cannot link them.",
            hint="Run manage.py collectstatic --noinput (again after each upgrade).",
            id="atlas.W001",
        )
    ]


@register()
def model_endpoint_configured(app_configs, **kwargs) -> list[Error]:
    """Without an address, every run on an `openai:` model would fail only after its case
    and run were stored: the server and the workers refuse to start instead."""
    if not settings.ATLAS_MODEL.startswith("openai:") or settings.OPENAI_BASE_URL.strip():
        return []
    return [
        Error(
            f"ATLAS_MODEL is {settings.ATLAS_MODEL!r} but OPENAI_BASE_URL is not set: no run "
            "could reach the model.",
            hint="Set OPENAI_BASE_URL to the endpoint's address (ending in /v1 for most "
            "servers), or ATLAS_MODEL=playbook.",
            id="atlas.E001",
        )
    ]
