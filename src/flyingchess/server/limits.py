"""Every limit the server enforces, in one place, and the token buckets behind its rates.

SECURITY.md and docs/protocol.md list these values; tests pass their own `Limits` to
script games faster than a person plays.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Final

LONGEST_SIMULATED_GAME: Final = 739
"""Actions in the longest of 18,000 random-bot games over every preset and 2-4 players
(random play makes the longest games); the record cap leaves a wide margin above it."""


@dataclass(frozen=True)
class Limits:
    """What one client, connection, seat or request may use. Rates are per second."""

    message_rate: float = 30.0
    """WebSocket messages a connection may send per second, after a burst of `message_burst`."""
    message_burst: float = 60.0
    flood_refusals: int = 300
    """Messages refused for rate before a connection is closed as a flood."""
    create_rate: float = 1 / 3
    """New games, record imports and rematches per client address: one every 3 s..."""
    create_burst: float = 20.0
    """...after a burst of 20."""
    join_rate: float = 1 / 10
    """Seats one client address may take in one room: two at once, then one every 10 s."""
    join_burst: float = 2.0
    chat_rate: float = 0.5
    """Chat lines per seat: a burst of 6, then one every 2 s."""
    chat_burst: float = 6.0
    react_rate: float = 1.0
    """Reactions per seat: a burst of 10, then one a second."""
    react_burst: float = 10.0
    chat_history: int = 100
    """Chat lines kept per game in the database (older lines are deleted)."""
    watchers_per_room: int = 200
    """Pages watching one room at once (players and spectators): every update goes to each."""
    connections_per_address: int = 128
    """Open connections from one remote address (loopback and trusted proxies are exempt)."""
    header_seconds: float = 10.0
    """How long a connection may take to send a request's headers before it is closed."""
    body_seconds: float = 30.0
    """How long a request may take to send its body."""
    json_body_bytes: int = 64_000
    """The largest JSON body of an ordinary request (a new game)."""
    record_bytes: int = 1_000_000
    """The largest record file an import accepts."""
    record_actions: int = 5_000
    """The most actions an imported record may have (about 7x the longest simulated game)."""
    replay_page: int = 1_000
    """The most replay steps one answer carries (`GET .../replay?from=N`)."""
    replay_rate: float = 2.0
    """Replay pages per client address: a burst of 20, then two a second (each costs
    tens of milliseconds of work)."""
    replay_burst: float = 20.0
    heavy_jobs: int = 2
    """Replay pages worked out at the same time, whoever asks (more wait their turn)."""
    outbox_characters: int = 1_000_000
    """How far a page may fall behind in reading before it is hung up on (1013)."""
    list_page: int = 50
    """Games or rooms one list answer carries by default..."""
    list_page_max: int = 200
    """...and at most (`?limit=`)."""
    rooms_in_memory: int = 2_000
    """Rooms held in memory; rooms nobody watches are dropped first (they reload from
    storage). When every room is watched, new games are refused with `server-busy`."""
    room_idle_seconds: float = 60.0
    """A room nobody has watched for this long is dropped from memory."""
    address_keys: int = 20_000
    """Client addresses remembered per rate limit (the oldest are forgotten first)."""
    contribution_wait: float = 2.0
    """Seconds a start waits for a seated page's share in the dice (docs/records.md §6)
    before going on without it."""

    @classmethod
    def unlimited(cls) -> Limits:
        """Rates high enough for scripts that play at full speed (tests, benchmarks)."""
        return cls(
            message_rate=1e6,
            message_burst=1e6,
            create_rate=1e6,
            create_burst=1e6,
            join_rate=1e6,
            join_burst=1e6,
            chat_rate=1e6,
            chat_burst=1e6,
            react_rate=1e6,
            react_burst=1e6,
            contribution_wait=0.2,  # scripts send no shares: they need not wait long
        )


class TokenBucket:
    """A burst of `burst` tokens refilled at `rate` a second; each allowed event takes one.

    `refused` counts refusals, so a connection that keeps sending after being told to
    slow down can be recognised as a flood."""

    def __init__(self, now: float, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
        self.refused = 0

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False

    def wait(self) -> float:
        """Seconds until the next event would be allowed."""
        return max(0.0, (1 - self.tokens) / self.rate) if self.rate > 0 else math.inf


class KeyedBuckets:
    """One token bucket per key (a client address, or an address and a room).

    Only the `capacity` most recently used keys are remembered, so a client cycling
    through addresses cannot grow memory; a forgotten key starts with a full burst."""

    def __init__(self, rate: float, burst: float, capacity: int = 20_000) -> None:
        self.rate = rate
        self.burst = burst
        self.capacity = capacity
        self.buckets: OrderedDict[Hashable, TokenBucket] = OrderedDict()

    def allow(self, key: Hashable, now: float) -> float:
        """0 when the event may happen now, else the seconds to wait before asking again."""
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(now, self.rate, self.burst)
            if len(self.buckets) > self.capacity:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return 0.0 if bucket.allow(now) else max(bucket.wait(), 0.001)
