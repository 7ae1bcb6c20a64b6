"""Messages between processes over Redis: each listens on its own channel (`fc:node:NODE`)
and sends in order, many messages a round trip (`Messages`, a part of `Cluster`)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import redis

from ..protocol import decode_message, encode_message
from .liveness import Liveness

PUBLISH_BATCH: Final = 512
"""Messages to other processes sent in one round trip at most."""
POSTED_AT_MOST: Final = 50_000
"""Messages waiting for Redis at most: past that (Redis away for long under load) a post
fails and the page it was for is forgotten, instead of the queue growing without end."""
log = logging.getLogger("flyingchess.server")

Handler = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Outgoing:
    """A message waiting for Redis: `sent` settles with its receivers' count (None for a
    post, which nobody awaits); `valid` says whether it may still go (None: always)."""

    channel: str
    text: str
    sent: asyncio.Future[int] | None
    valid: Callable[[], bool] | None = None


class Messages(Liveness):
    """What this process sends the others and does with what they send it: `handle(op,
    handler)` registers what to do with a message sent to this process."""

    def __init__(self, url: str, lease_seconds: float) -> None:
        super().__init__(url, lease_seconds)
        self.outgoing: deque[Outgoing] = deque()
        self.outgoing_ready = asyncio.Event()
        self.handlers: dict[str, Handler] = {}

    def handle(self, op: str, handler: Handler) -> None:
        self.handlers[op] = handler

    @property
    def channel(self) -> str:
        return f"fc:node:{self.node}"

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
