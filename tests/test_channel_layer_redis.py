"""The Redis channel layer as configured: it outlives Redis dropping its connections."""

from __future__ import annotations

import uuid

import pytest
import redis
from asgiref.sync import async_to_sync
from channels_redis.core import RedisChannelLayer
from django.conf import settings

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis")


def configured_layer(client_name: str) -> RedisChannelLayer:
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config["hosts"] = [{**host, "client_name": client_name} for host in config["hosts"]]
    return RedisChannelLayer(**config)


def drop_connections(client_name: str) -> int:
    """What a Redis restart does to a process's pool: its connections are closed."""
    admin = redis.Redis.from_url(settings.REDIS_URL)
    try:
        ids = [client["id"] for client in admin.client_list() if client["name"] == client_name]
        for client_id in ids:
            admin.client_kill_filter(_id=client_id)
        return len(ids)
    finally:
        admin.close()


def test_a_page_joins_and_hears_its_run_after_redis_dropped_every_connection():
    name = f"atlas-test-{uuid.uuid4().hex[:8]}"
    layer = configured_layer(name)

    async def scenario() -> dict:
        channel = await layer.new_channel()
        await layer.group_add("run-probe", channel)
        assert drop_connections(name) >= 1
        # A page connecting now: the first command meets a closed connection.
        await layer.group_add("run-probe", channel)
        await layer.group_send("run-probe", {"type": "run.updated", "last_seq": 7})
        message = await layer.receive(channel)
        await layer.group_discard("run-probe", channel)
        return message

    assert async_to_sync(scenario)() == {"type": "run.updated", "last_seq": 7}
