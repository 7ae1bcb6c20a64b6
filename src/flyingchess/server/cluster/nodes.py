"""Several server processes over Redis (`serve --redis redis://...`): which process owns
which room, messages between processes, and which processes are alive.

- **Ownership**: one process owns a room at a time, holding a lease in Redis
  (`fc:owner:GAME` = its node id, renewed every LEASE/3 seconds). The owner alone plays
  the game: it loads it from the database, claims it there (the epoch that fences every
  write, so a process that lost its lease can never apply a move), runs its bots and
  clocks, and stores every change.
- **Forwarding**: a page may reach any process. A process that does not own the page's
  room forwards the page's messages to the owner's channel (`fc:node:NODE`) and relays
  what the owner sends back; an update is published once per process, whatever the
  number of its pages in the room.
- **Failover**: a process beats every half second (`fc:alive:NODE`, kept for four beats). One
  that stops beating is taken for dead: the next page to arrive for one of its rooms
  makes its own process the owner at once (it need not wait out the lease), which claims
  the game in the database and loads it. A process taken for dead wrongly (frozen, cut
  off) cannot do harm: the claim fences its writes and its next renewal finds the lease
  gone. Pages of the lost owner are closed with 1012 ("service restart") and reconnect
  by themselves.
- **Counting on its own clock**: a process never waits for Redis to tell it a lease is
  gone (a frozen or unreachable Redis tells nothing). It holds a room only until the
  lease it last renewed would expire, and only while its own heartbeat is younger than
  the others' death sentence, both counted from when the command was *sent* (Redis set
  the expiry later) and shortened by `CLOCK_MARGIN` for clocks that run at different
  rates. Past that moment the room stops: it writes and sends nothing more (`holds`).

The parts: `liveness.py` (the heartbeat and who else beats), `leases.py` (who owns which
room) and `messages.py` (what processes send each other), joined here as `Cluster`.

Needs the `cluster` extra (redis-py).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

import redis

from .leases import Leases
from .messages import Messages

LEASE_SECONDS: Final = 5.0
"""How long a room's owner may go without renewing before another process may take it."""


class ClusterError(Exception):
    """Redis cannot be reached or used: one line saying which and why."""


def check_reachable(url: str, timeout: float = 5.0) -> None:
    """Fail fast at start: ClusterError when Redis does not answer."""
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        client.ping()
        client.close()
    except (redis.RedisError, ValueError, OSError) as error:
        raise ClusterError(f"cannot reach Redis at {_without_password(url)}: {error}") from None


def _without_password(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://{rest.split('@', 1)[1]}"
    return url


class Cluster(Leases, Messages):
    """This process's place among the others, made of its parts (`Liveness`, `Leases`,
    `Messages`). `handle(op, handler)` registers what to do with a message sent to this
    process; `start()` connects and listens."""

    def __init__(self, url: str, lease_seconds: float = LEASE_SECONDS) -> None:
        super().__init__(url, lease_seconds)

    async def start(self) -> None:
        await self.redis.ping()
        await self._beat()
        self.tasks = [
            asyncio.create_task(self._listen()),
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self._publish()),
        ]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        while self.outgoing:
            sent = self.outgoing.popleft().sent
            if sent is not None:
                sent.cancel()
        with contextlib.suppress(redis.RedisError, OSError):
            await self.redis.delete(f"fc:alive:{self.node}")
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self.prober.aclose()

    async def ping(self) -> None:
        """A round trip to Redis (the health check); ClusterError when this process is
        cut off from the others even though Redis answers now."""
        await self.redis.ping()
        if self.cut_off():
            raise ClusterError("Redis answers again, but the heartbeat has not caught up yet")
