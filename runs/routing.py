"""Websocket routes for live pages and the worker's named channel."""

from __future__ import annotations

from django.conf import settings

from runs.worker import RunWorkerConsumer

websocket_urlpatterns: list = []
worker_consumers: dict = {settings.ATLAS_WORKER_CHANNEL: RunWorkerConsumer.as_asgi()}
