"""Which runs have a live page open right now, as the channel layer's groups say.

A live page joins its run's group (`runs.live.run_group`) for as long as it is open, so a
group with no member is a run nobody is watching. The layers keep their groups in their
own way, so this reads what the two layers Atlas runs on keep: Redis's per-group sorted
set (members scored by when they joined) and the in-memory layer's dictionary.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer

from runs import live
from runs.outages import Outage

logger = logging.getLogger(__name__)
ASKING = Outage(logger, "Asking the channel layer which runs have a live page")


async def record_audience(run_ids: Iterable[int], still_driven: Callable[[int], bool]) -> None:
    """Ask which of the runs a worker drives have a live page and tell `runs.live`, which
    holds back the others' announcements. When the layer cannot say, every run is
    announced. A run let go of while the layer answered is left alone."""
    run_ids = list(run_ids)
    layer = get_channel_layer()
    try:
        watched = await watched_runs(layer, run_ids) if layer is not None else None
    except asyncio.CancelledError:
        raise
    except Exception as error:
        ASKING.failed(error)
        watched = None
    else:
        ASKING.succeeded()
    for run_id in run_ids:
        if not still_driven(run_id):
            continue
        if watched is None:
            live.forget_audience(run_id)
        else:
            live.set_audience(run_id, run_id in watched)


async def watched_runs(layer: BaseChannelLayer, run_ids: Iterable[int]) -> set[int] | None:
    """The runs among `run_ids` with a live page; None if this layer cannot say."""
    run_ids = list(run_ids)
    if isinstance(layer, InMemoryChannelLayer):
        return {run_id for run_id in run_ids if layer.groups.get(live.run_group(run_id))}
    try:
        from channels_redis.core import RedisChannelLayer
    except ImportError:  # pragma: no cover - channels-redis is a dependency
        return None
    if not isinstance(layer, RedisChannelLayer):
        return None
    return await _watched_in_redis(layer, run_ids)


async def _watched_in_redis(layer, run_ids: list[int]) -> set[int]:
    by_host: dict[int, list[int]] = defaultdict(list)
    for run_id in run_ids:
        by_host[layer.consistent_hash(live.run_group(run_id))].append(run_id)
    # Members older than the group expiry are dropped by the layer's next group_send.
    joined_after = int(time.time()) - layer.group_expiry
    watched: set[int] = set()
    for index, ids in by_host.items():
        async with layer.connection(index).pipeline(transaction=False) as pipe:
            for run_id in ids:
                pipe.zcount(layer._group_key(live.run_group(run_id)), joined_after, "+inf")
            counts = await pipe.execute()
        watched.update(run_id for run_id, count in zip(ids, counts, strict=True) if count)
    return watched
