"""Websocket routes for live pages and the worker's named channel."""

from __future__ import annotations

from django.conf import settings
from django.urls import path

from runs.consumers import RunStreamConsumer
from runs.worker import RunWorkerConsumer

websocket_urlpatterns: list = [
    path("ws/runs/<int:run_id>/", RunStreamConsumer.as_asgi(), name="runs-live"),
]
worker_consumers: dict = {settings.ATLAS_WORKER_CHANNEL: RunWorkerConsumer.as_asgi()}
