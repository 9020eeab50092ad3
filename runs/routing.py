"""Websocket routes for live pages and the worker's named channel."""

from __future__ import annotations

websocket_urlpatterns: list = []
worker_consumers: dict = {}
