"""Who owns which room: a lease in Redis per room (`fc:owner:GAME` = its owner's node id),
taken, renewed, taken over from the dead and given up (`Leases`, a part of `Cluster`)."""

from __future__ import annotations

import contextlib
import time

import redis

from .liveness import CLOCK_MARGIN, Liveness

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


def owner_key(game_id: str) -> str:
    return f"fc:owner:{game_id}"


class Leases(Liveness):
    """The rooms' leases, each held only until it would expire on this process's own
    clock (`holds`), so a process never waits for Redis to say a lease is gone."""

    def __init__(self, url: str, lease_seconds: float) -> None:
        super().__init__(url, lease_seconds)
        self.renew_script = self.redis.register_script(_RENEW)
        self.release_script = self.redis.register_script(_RELEASE)
        self.take_over_script = self.redis.register_script(_TAKE_OVER)
        self.acquire_script = self.redis.register_script(_ACQUIRE)
        self.held_until: dict[str, float] = {}
        """Until when (this process's monotonic clock) it holds each room's lease."""

    def holds(self, game_id: str) -> bool:
        """Whether this process may still act for the room: its lease has not run out and
        the others do not take it for dead yet, on its own clock, whatever Redis says or
        does not say meanwhile."""
        now = time.monotonic()
        return now < self.held_until.get(game_id, 0.0) and now < self.alive_until

    def _held(self, game_id: str, sent: float) -> None:
        self.held_until[game_id] = sent + self.lease_seconds * (1 - CLOCK_MARGIN)

    async def owner_of(self, game_id: str) -> str | None:
        return (await self.owners_of([game_id]))[0]

    async def owners_of(self, game_ids: list[str]) -> list[str | None]:
        """The owners of these rooms (one round trip)."""
        if not game_ids:
            return []
        owners = await self.redis.mget([owner_key(game_id) for game_id in game_ids])
        return [owner.decode() if isinstance(owner, bytes) else owner for owner in owners]

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
