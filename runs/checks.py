"""System checks for what a deployment needs besides its settings."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.checks import Tags, Warning, register


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
