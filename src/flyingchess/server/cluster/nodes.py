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

Needs the `cluster` extra (redis-py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import redis
import redis.asyncio as aioredis

from ..protocol import decode_message, encode_message

LEASE_SECONDS: Final = 5.0
"""How long a room's owner may go without renewing before another process may take it."""
HEARTBEAT_SECONDS: Final = 0.5
"""How often a process says it is alive (more often when the lease is shorter)."""
BEATS_TO_DEATH: Final = 4
"""Beats a process may miss before the others take it for dead and take its rooms: a
frozen process is known dead 1.5-2 s after its last beat (3 beats of 1 s took 2-3 s and
were most of a failover's time), while a loop late by up to 1.5 s is not taken for dead."""
CONNECTIONS: Final = 32
"""Redis connections a process keeps at most; a command waits for a free one."""
PUBLISH_BATCH: Final = 512
"""Messages to other processes sent in one round trip at most."""
POSTED_AT_MOST: Final = 50_000
"""Messages waiting for Redis at most: past that (Redis away for long under load) a post
fails and the page it was for is forgotten, instead of the queue growing without end."""
PROBE_SECONDS: Final = 0.3
"""How long a probe waits for Redis to answer (`probe`): short, to notice its return at once."""
CLOCK_MARGIN: Final = 0.02
"""The share of a lease (or of a heartbeat's life) a process gives up, counted on its
own clock: Redis's clock may run up to this much faster than ours."""
log = logging.getLogger("flyingchess.server")

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) == ARGV[1] then
        redis.call('PEXPIRE', key, ARGV[2])
    else
        table.insert(lost, i)
    end
end
return lost
"""
_ACQUIRE = """
local held = {}
for i, key in ipairs(KEYS) do
    local owner = redis.call('GET', key)
    if not owner then
        redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
        table.insert(held, i)
    elseif owner == ARGV[1] then
        redis.call('PEXPIRE', key, ARGV[2])
        table.insert(held, i)
    end
end
return held
"""
_TAKE_OVER = """
local taken = {}
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) == ARGV[1] then
        redis.call('SET', key, ARGV[2], 'PX', ARGV[3])
        table.insert(taken, i)
    end
end
return taken
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

Handler = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Outgoing:
    """A message waiting for Redis: `sent` settles with its receivers' count (None for a
    post, which nobody awaits); `valid` says whether it may still go (None: always)."""

    channel: str
    text: str
    sent: asyncio.Future[int] | None
    valid: Callable[[], bool] | None = None


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


def owner_key(game_id: str) -> str:
    return f"fc:owner:{game_id}"


class Cluster:
    """This process's place among the others. `handle(op, handler)` registers what to do
    with a message sent to this process; `start()` connects and listens."""

    def __init__(self, url: str, lease_seconds: float = LEASE_SECONDS) -> None:
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
        self.outgoing: deque[Outgoing] = deque()
        self.outgoing_ready = asyncio.Event()
        self.handlers: dict[str, Handler] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.renew_script = self.redis.register_script(_RENEW)
        self.release_script = self.redis.register_script(_RELEASE)
        self.take_over_script = self.redis.register_script(_TAKE_OVER)
        self.acquire_script = self.redis.register_script(_ACQUIRE)
        self.heartbeat_seconds = min(HEARTBEAT_SECONDS, lease_seconds / BEATS_TO_DEATH)
        self.healthy_since = time.monotonic()
        """When Redis last answered (a process cut off for a lease owns nothing)."""
        self.held_until: dict[str, float] = {}
        """Until when (this process's monotonic clock) it holds each room's lease."""
        self.alive_until = 0.0
        """Until when the others take this process for alive (its last beat's life)."""

    def handle(self, op: str, handler: Handler) -> None:
        self.handlers[op] = handler

    @property
    def channel(self) -> str:
        return f"fc:node:{self.node}"

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

    # ----------------------------------------------------------------- liveness

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

    async def ping(self) -> None:
        """A round trip to Redis (the health check); ClusterError when this process is
        cut off from the others even though Redis answers now."""
        await self.redis.ping()
        if self.cut_off():
            raise ClusterError("Redis answers again, but the heartbeat has not caught up yet")

    async def probe(self) -> bool:
        """Whether Redis answers a ping within PROBE_SECONDS (and if so, it is healthy now)."""
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                await self.prober.ping()
        except (redis.RedisError, OSError, TimeoutError):
            return False
        self.healthy_since = time.monotonic()
        return True

    def holds(self, game_id: str) -> bool:
        """Whether this process may still act for the room: its lease has not run out and
        the others do not take it for dead yet, on its own clock, whatever Redis says or
        does not say meanwhile."""
        now = time.monotonic()
        return now < self.held_until.get(game_id, 0.0) and now < self.alive_until

    def _held(self, game_id: str, sent: float) -> None:
        self.held_until[game_id] = sent + self.lease_seconds * (1 - CLOCK_MARGIN)

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

    # ----------------------------------------------------------------- leases

    async def owner_of(self, game_id: str) -> str | None:
        return (await self.owners_of([game_id]))[0]

    async def owners_of(self, game_ids: list[str]) -> list[str | None]:
        """The owners of these rooms (one round trip)."""
        if not game_ids:
            return []
        owners = await self.redis.mget([owner_key(game_id) for game_id in game_ids])
        return [owner.decode() if isinstance(owner, bytes) else owner for owner in owners]

    async def _beat_if_stale(self) -> None:
        """Beat now if the last beat is about to die (Redis came back, or the loop was
        late): a room taken now must not stop at once for want of one."""
        if time.monotonic() + self.heartbeat_seconds >= self.alive_until:
            await self._beat()

    async def acquire(self, game_id: str) -> bool:
        """Take the room's lease if nobody holds it (or this process already does)."""
        await self._beat_if_stale()
        sent = time.monotonic()
        acquired = await self.redis.set(owner_key(game_id), self.node, nx=True, px=int(self.lease_seconds * 1000))
        if acquired:
            self._held(game_id, sent)
            return True
        if await self.owner_of(game_id) != self.node:
            return False
        return not await self.renew([game_id])  # ours still: counted from now on our clock

    async def acquire_all(self, game_ids: list[str]) -> set[str]:
        """Take the leases of these rooms that nobody holds (or this process already
        does), in one round trip; returns the rooms held now. Hundreds of rooms coming back
        at once (Redis returning) took up to 0.8 s as one command each."""
        if not game_ids:
            return set()
        await self._beat_if_stale()
        sent = time.monotonic()
        held_at = await self.acquire_script(
            keys=[owner_key(game_id) for game_id in game_ids], args=[self.node, int(self.lease_seconds * 1000)]
        )
        held = {game_ids[int(index) - 1] for index in held_at}
        for game_id in held:
            self._held(game_id, sent)
        return held

    async def take_over(self, game_id: str, dead: str) -> bool:
        """Take the room's lease from a process taken for dead (only if it still holds it)."""
        return game_id in await self.take_over_all([game_id], dead)

    async def take_over_all(self, game_ids: list[str], dead: str) -> set[str]:
        """Take the leases of these rooms from a process taken for dead, those it still
        holds, in one round trip; returns the rooms taken."""
        if not game_ids:
            return set()
        await self._beat_if_stale()
        sent = time.monotonic()
        taken_at = await self.take_over_script(
            keys=[owner_key(game_id) for game_id in game_ids], args=[dead, self.node, int(self.lease_seconds * 1000)]
        )
        taken = {game_ids[int(index) - 1] for index in taken_at}
        for game_id in taken:
            self._held(game_id, sent)
        return taken

    async def renew(self, game_ids: list[str]) -> list[str]:
        """Renew the leases of these rooms; returns those this process no longer holds."""
        if not game_ids:
            return []  # nothing asked of Redis: the heartbeat says whether it answers
        sent = time.monotonic()
        lost_at = await self.renew_script(
            keys=[owner_key(game_id) for game_id in game_ids], args=[self.node, int(self.lease_seconds * 1000)]
        )
        self.healthy_since = time.monotonic()
        lost = [game_ids[int(index) - 1] for index in lost_at]
        for game_id in set(game_ids).difference(lost):
            self._held(game_id, sent)
        for game_id in lost:
            self.held_until.pop(game_id, None)
        return lost

    async def release(self, game_id: str) -> None:
        self.held_until.pop(game_id, None)
        with contextlib.suppress(redis.RedisError, OSError):
            await self.release_script(keys=[owner_key(game_id)], args=[self.node])

    # ----------------------------------------------------------------- messages

    async def send(self, node: str, message: dict[str, Any]) -> bool:
        """Send to one process (at most once), in order. False when nobody received it:
        that process is gone. Raises what Redis raised if it could not be sent."""
        if not self.tasks:
            raise redis.ConnectionError("not connected to the other processes")
        sent: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.outgoing.append(Outgoing(f"fc:node:{node}", encode_message(message), sent))
        self.outgoing_ready.set()
        return await sent > 0

    def post(self, node: str, message: dict[str, Any], valid: Callable[[], bool]) -> None:
        """Send to one process in order with the rest, without waiting for Redis: what a
        room tells the pages of other processes. A room must not wait on Redis to tell its
        own pages (a frozen Redis held their updates back for its socket timeouts, 12 s), and
        what it said is dropped unsent if `valid()` no longer holds when Redis can take it
        (the room's lease ran out meanwhile: its state may be stale). ConnectionError when
        nothing can be queued (not connected, or too much waiting already)."""
        if not self.tasks or len(self.outgoing) >= POSTED_AT_MOST:
            raise ConnectionError("cannot reach the other processes now")
        self.outgoing.append(Outgoing(f"fc:node:{node}", encode_message(message), None, valid))
        self.outgoing_ready.set()

    async def _publish(self) -> None:
        """Send what is waiting, many messages per round trip: one publish each was
        most of the Redis work at load, and a command each could run out of connections."""
        while True:
            await self.outgoing_ready.wait()
            self.outgoing_ready.clear()
            while self.outgoing:
                batch = [self.outgoing.popleft() for _ in range(min(len(self.outgoing), PUBLISH_BATCH))]
                batch = [item for item in batch if item.valid is None or item.valid()]
                if not batch:
                    continue
                failure: BaseException | None = None
                receivers: list[int] = []
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for item in batch:
                            pipe.publish(item.channel, item.text)
                        receivers = await pipe.execute()
                except (redis.RedisError, OSError) as error:
                    failure = error
                    log.warning("cannot send %d messages to the other processes: %s", len(batch), error)
                except asyncio.CancelledError:
                    for item in batch:
                        if item.sent is not None:
                            item.sent.cancel()
                    raise
                for n, item in enumerate(batch):
                    if item.sent is None or item.sent.done():
                        continue
                    if failure is None:
                        item.sent.set_result(int(receivers[n]))
                    else:
                        item.sent.set_exception(failure)

    async def _listen(self) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    async for raw in pubsub.listen():
                        if raw.get("type") != "message":
                            continue
                        try:
                            message = decode_message(raw["data"])
                            handler = self.handlers.get(message.get("op"))
                        except (ValueError, TypeError, AttributeError):
                            continue
                        if handler is not None:
                            try:
                                await handler(message)
                            except Exception:
                                log.exception("cluster message %r failed", message.get("op"))
            except (redis.RedisError, OSError) as error:
                log.warning("lost the Redis subscription (%s); listening again", error)
                await asyncio.sleep(0.5)
