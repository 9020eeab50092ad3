"""ASGI entry point: HTTP through Django, websockets through Channels routing."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "atlas.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from django.conf import settings  # noqa: E402

from atlas import request_size  # noqa: E402

request_size.install(settings.ATLAS_REQUEST_MAX_BYTES, settings.ATLAS_UPLOAD_MAX_BYTES)

from atlas.routing import application  # noqa: E402,F401
