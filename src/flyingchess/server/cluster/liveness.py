"""Which processes are alive: this one's connections to Redis and its heartbeat, counted
on its own clock, and the others' beats (`Liveness`, the base of `Cluster`'s parts)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Final

import redis
import redis.asyncio as aioredis

HEARTBEAT_SECONDS: Final = 0.5
"""How often a process says it is alive (more often when the lease is shorter)."""
BEATS_TO_DEATH: Final = 4
"""Beats a process may miss before the others take it for dead and take its rooms: a
frozen process is known dead 1.5-2 s after its last beat (3 beats of 1 s took 2-3 s and
were most of a failover's time), while a loop late by up to 1.5 s is not taken for dead."""
CONNECTIONS: Final = 32
"""Redis connections a process keeps at most; a command waits for a free one."""
PROBE_SECONDS: Final = 0.3
"""How long a probe waits for Redis to answer (`probe`): short, to notice its return at once."""
CLOCK_MARGIN: Final = 0.02
"""The share of a lease (or of a heartbeat's life) a process gives up, counted on its
own clock: Redis's clock may run up to this much faster than ours."""
log = logging.getLogger("flyingchess.server")


class Liveness:
    """This process among the others: who it is (`node`), its connections to Redis, its
    beat (`fc:alive:NODE`) and whether Redis still answers it, and who else beats."""

    def __init__(self, url: str, lease_seconds: float) -> None:
        self.url = url
        self.lease_seconds = lease_seconds
        self.node = secrets.token_hex(6)
        # A blocking pool: under load a command waits for a connection instead of failing
        # with "too many connections" (the default pool refuses past 100).
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=CONNECTIONS, timeout=3, socket_connect_timeout=3, socket_timeout=3
        )
        self.redis: aioredis.Redis = aioredis.Redis(connection_pool=pool)
        # Probes have connections of their own: the others may all be waiting on a frozen Redis.
        self.prober: aioredis.Redis = aioredis.Redis.from_url(
            url, max_connections=2, socket_timeout=PROBE_SECONDS, socket_connect_timeout=PROBE_SECONDS
        )
        self.tasks: list[asyncio.Task[None]] = []
        """What runs while this process is started: its listener, heartbeat and sender."""
        self.heartbeat_seconds = min(HEARTBEAT_SECONDS, lease_seconds / BEATS_TO_DEATH)
        self.healthy_since = time.monotonic()
        """When Redis last answered (a process cut off for a lease owns nothing)."""
        self.alive_until = 0.0
        """Until when the others take this process for alive (its last beat's life)."""

    async def _beat(self) -> None:
        alive_ms = int(self.heartbeat_seconds * BEATS_TO_DEATH * 1000)
        sent = time.monotonic()
        await self.redis.set(f"fc:alive:{self.node}", "1", px=alive_ms)
        self.alive_until = sent + alive_ms / 1000 * (1 - CLOCK_MARGIN)
        self.healthy_since = time.monotonic()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                await self._beat()
            except (redis.RedisError, OSError) as error:
                log.warning("Redis did not answer the heartbeat: %s", error)

    async def probe(self) -> bool:
        """Whether Redis answers a ping within PROBE_SECONDS (and if so, it is healthy now)."""
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                await self.prober.ping()
        except (redis.RedisError, OSError, TimeoutError):
            return False
        self.healthy_since = time.monotonic()
        return True

    def cut_off(self) -> bool:
        """Whether Redis has not answered for a lease: this process can own nothing."""
        return time.monotonic() - self.healthy_since > self.lease_seconds

    async def alive(self, node: str) -> bool:
        return node in await self.living([node])

    async def living(self, nodes: list[str]) -> set[str]:
        """Which of these processes are alive (one round trip): beating, and listening
        on their channel. A killed process stops listening the moment its connection to
        Redis closes, so it is known dead at once; a frozen one, after four missed beats."""
        if not nodes:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.mget([f"fc:alive:{node}" for node in nodes])
            pipe.pubsub_numsub(*(f"fc:node:{node}" for node in nodes))
            beats, listeners = await pipe.execute()
        return {
            node
            for node, beat, (_, count) in zip(nodes, beats, listeners, strict=True)
            if beat is not None and count > 0
        }

    async def _beat_if_stale(self) -> None:
        """Beat now if the last beat is about to die (Redis came back, or the loop was
        late): a room taken now must not stop at once for want of one."""
        if time.monotonic() + self.heartbeat_seconds >= self.alive_until:
            await self._beat()
