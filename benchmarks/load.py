"""Load test: many rooms of four players each over real WebSockets on loopback.

    python benchmarks/load.py [--rooms 500] [--seconds 60] [--pace 0.9] [--json]
    python benchmarks/load.py --processes 2 --nginx [--kill-after 20]
    python benchmarks/load.py --processes 1,2 --nginx --pace 0   # one process, then two
    python benchmarks/load.py --processes 2 --nginx --pace 0.9 --disrupt KIND [--after 20] [--for 10]

One process (the default): `flyingchess serve --host 127.0.0.1 --trusted-proxy 127.0.0.1`
with SQLite in a throw-away folder. `--processes N` starts N processes over a PostgreSQL
and a Redis of their own (flyingchess.server.launch.loopback starts them, as the tests do;
Debian's `postgresql` and `redis-server` must be installed), and `--nginx` puts nginx in front of them (else each
client picks a process in turn). A list (`--processes 1,2`) measures each in turn,
every one on fresh servers, and prints them side by side. `--client-processes N` spreads
the clients over N processes of their own (each plays its share of the rooms): one event
loop for 2,000 connections is itself late while they all reconnect at once, and every
round trip it measures then includes that (`client_loop_lag_ms_p99_max` says how late).

Each room: red is the host's own seat, the other three are open. Four clients per room:
the host says hello with its token, the others join their seats, the host starts the game
once they are all in. Each client rolls or moves (its first legal plane) when it is its
turn, after --pace seconds on average (give or take half; 0: at once, to find where the
server saturates). A client whose connection closes reconnects as the page does and says
hello with its token. Every client names an address of its own in X-Forwarded-For, as
visitors behind a proxy do, so limits per client address apply per simulated player.

It reports messages and acknowledged actions per second, the latency from a request to
the update it causes (percentiles), the server's memory and CPU, and a **ledger**: every
action count a client saw acknowledged is compared with the database afterwards (an
acknowledged action missing from it is lost), and no client may see the same action
twice. `--disrupt KIND` makes something befall the cluster `--after` seconds in (for
`--for` seconds where it lasts): `kill` (SIGKILL the first process; `--kill-after S` is the
same), `freeze` (SIGSTOP it), `freeze-in-transaction` (SIGSTOP it once it is caught inside
a write transaction), `freeze-redis` (SIGSTOP Redis), `restart` (SIGTERM each process in
turn and start it again on its port, as docs/deploy.md's rolling restart). It reports how
long the rooms took to move again (by when half, nine in ten and all had), and by kind:
the last action any room acknowledged while Redis was frozen and how soon rooms moved
after it returned (their first acknowledged action: a player who learns of a turn from the
snapshot a returning room sends thinks first; and before that, their first message: the
room serving its pages again), with the clients' reconnection attempts meanwhile (they back off as
web/net.js does); the round trip's p99 during a restart; how long new visitors (the page,
the API, a WebSocket) waited while a process was frozen; the errors pages were shown; and
how busy the machine's cores were meanwhile (mean and busiest half second: every server,
database, nginx and client shares them). The servers' warnings and
errors are counted by line. It fails (exit status 1) when no action succeeded or the ledger finds a
lost or duplicated action: a figure over nothing is not a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import json
import math
import multiprocessing
import os
import random
import re
import signal
import statistics
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import websockets

loads: Callable[[str | bytes], Any] = json.loads
with contextlib.suppress(
    ImportError
):  # the clients share the machine with the server: the faster they read, the less they skew it
    import orjson

    loads = orjson.loads

T = TypeVar("T")
COLOURS = ("red", "yellow", "blue", "green")
HEALTHY_SECONDS = 10.0
OPEN_TIMEOUT_SECONDS = 4.0


def retry_delay(attempt: int) -> float:
    """Seconds before reconnection attempt number `attempt`: web/net.js's retryDelay
    (docs/protocol.md, Connecting and reconnecting)."""
    if attempt <= 0:
        return 0.1 + random.random() * 0.2
    base = min(5.0, 0.5 * 2.0 ** (attempt - 1))
    return base * (0.6 + 0.4 * random.random())


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    received: int = 0
    sent: int = 0
    acknowledged: int = 0
    duplicated: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    reconnects: int = 0
    hang_ups: dict[str, int] = field(default_factory=dict)
    """Why connections ended before the run did."""
    ledger: dict[str, int] = field(default_factory=dict)
    """The highest action count any client saw acknowledged, per game."""
    last_move: dict[str, float] = field(default_factory=dict)
    """When each game last moved (for stalls)."""
    stalls: list[float] = field(default_factory=list)
    """For each game, its longest wait between two acknowledged actions."""
    resumed: dict[str, float] = field(default_factory=dict)
    """For each game, when it first moved again after the disruption began."""
    moments: Moments = field(default_factory=lambda: Moments())
    """When the disruption began and ended, shared with the client processes."""
    last_during: dict[str, float] = field(default_factory=dict)
    """For each game, its last action while the disruption lasted (from its start)."""
    heard_after: dict[str, float] = field(default_factory=dict)
    """For each game, its first update or snapshot after the disruption ended (from its
    end): when its room served its pages again, before any player had to act."""
    back_after: dict[str, float] = field(default_factory=dict)
    """For each game, its first action after the disruption ended (from its end)."""
    timed_latencies: list[tuple[float, float]] = field(default_factory=list)
    """(when, ms) of every acknowledged request."""
    attempts: list[tuple[float, int]] = field(default_factory=list)
    """(when, client) of every reconnection attempt."""
    lags: list[tuple[float, float]] = field(default_factory=list)
    """(when, ms) the clients' own event loop woke late (`measure_lag`)."""
    client_cpu: float = 0.0
    """CPU seconds the clients took while they played."""

    @property
    def disrupted_at(self) -> float | None:
        return self.moments.at(0)

    @disrupted_at.setter
    def disrupted_at(self, when: float) -> None:
        self.moments.values[0] = when

    @property
    def restored_at(self) -> float | None:
        """When the disruption ended (a frozen process or Redis woken, the last restart done)."""
        return self.moments.at(1)

    @restored_at.setter
    def restored_at(self, when: float) -> None:
        self.moments.values[1] = when

    def kept(self) -> Stats:
        """These figures with the moments copied out of shared memory (to send them back)."""
        return dataclasses.replace(self, moments=Moments(list(self.moments.values)))

    @staticmethod
    def merged(parts: list[Stats], moments: Moments) -> Stats:
        """The figures of every client process together (each plays rooms of its own)."""
        total = Stats(moments=moments)
        for part in parts:
            for name in (f.name for f in dataclasses.fields(Stats) if f.name != "moments"):
                mine, theirs = getattr(total, name), getattr(part, name)
                if isinstance(mine, list):
                    mine.extend(theirs)
                elif isinstance(mine, dict):
                    for key, value in theirs.items():
                        mine[key] = mine.get(key, 0) + value  # counts add up; a game's figures are one process's
                else:
                    setattr(total, name, mine + theirs)
        return total


class Moments:
    """When the disruption began and ended (time.monotonic(): one clock for every process
    on the machine), in memory the client processes share (`--client-processes`)."""

    def __init__(self, values: Any = None) -> None:
        self.values = values if values is not None else [math.nan, math.nan]

    @staticmethod
    def shared() -> Moments:
        return Moments(multiprocessing.get_context("spawn").RawArray("d", [math.nan, math.nan]))

    def at(self, index: int) -> float | None:
        value = float(self.values[index])
        return None if math.isnan(value) else value


@dataclass
class Player:
    """One client: the host (red, with `token`) or a guest who joins `colour`."""

    urls: list[str]
    game_id: str
    colour: str
    stats: Stats
    ready: asyncio.Event
    pace: float
    address: str
    token: str | None
    host: bool = False
    seen: set[tuple[int, bool]] = field(default_factory=set)
    """(action count, waiting for a move) of every update with events: one seen twice is a duplicate."""
    start_sent: bool = False
    asked_sync: bool = False
    waiting_since: float | None = None
    over: bool = False
    attempt: int = 0
    """Reconnections since a connection last stayed healthy (the back-off grows with it)."""
    number: int = 0
    opened_at: float | None = None
    unanswered: tuple[dict[str, Any], tuple[Any, ...]] | None = None
    """The roll or move sent and the game it was meant for, until the game moves on: sent
    again after a reconnection if the game still waits for it (as web/game.js does)."""
    resend_now: bool = False
    latest_key: tuple[Any, ...] | None = None
    """Where the game stood in the last message (`_request_key`)."""
    unanswered_lost: bool = False
    """Whether the unanswered request was refused `reconnecting` (sent again with the next snapshot)."""

    async def run(self, deadline: float) -> None:
        at = random.randrange(len(self.urls))
        try:
            async with asyncio.timeout_at(deadline):  # the run's end, whatever the client is doing
                while True:
                    try:
                        if await self._connect(self.urls[at % len(self.urls)]):
                            return
                    except websockets.ConnectionClosed as closed:
                        self._hung_up(f"closed {closed.rcvd.code if closed.rcvd else 'abruptly'}")
                    except ConnectionError as refused:
                        self._hung_up(f"refused: {refused}")
                    except websockets.InvalidStatus as answered:  # a balancer's 502/504, a 503 refusal
                        self._hung_up(f"handshake answered {answered.response.status_code}")
                    except websockets.InvalidHandshake as failed:
                        self._hung_up(f"handshake failed: {type(failed).__name__}")
                    except (OSError, TimeoutError) as failed:
                        self._hung_up(type(failed).__name__)
                    self.stats.reconnects += 1
                    at += 1  # the next process (when there is no balancer), after the page's back-off
                    if self.opened_at is not None and time.monotonic() - self.opened_at >= HEALTHY_SECONDS:
                        self.attempt = 0  # as web/net.js: the waits start over after a healthy connection
                    self.opened_at = None
                    await asyncio.sleep(retry_delay(self.attempt))
                    self.attempt += 1
                    self.stats.attempts.append((time.monotonic(), self.number))
        except TimeoutError:
            return

    def _hung_up(self, reason: str) -> None:
        self.stats.hang_ups[reason] = self.stats.hang_ups.get(reason, 0) + 1

    async def _connect(self, url: str) -> bool:
        """One connection, until it closes; True when the game is over."""
        socket_url = url.replace("http", "ws", 1) + f"/ws/{self.game_id}"
        headers = {"X-Forwarded-For": self.address}
        async with websockets.connect(
            socket_url, max_size=2**20, additional_headers=headers, open_timeout=OPEN_TIMEOUT_SECONDS
        ) as socket:
            self.opened_at = time.monotonic()
            first = loads(await socket.recv())
            if first.get("type") != "snapshot":
                raise ConnectionError(first.get("code", "refused"))
            if self.token:
                await socket.send(json.dumps({"type": "hello", "token": self.token}))
            else:
                await socket.send(json.dumps({"type": "join", "colour": self.colour, "name": self.colour}))
            await self.ready.wait()
            self.waiting_since = None
            game = first["game"]
            lost, self.unanswered = self.unanswered, None
            if lost is not None and lost[1] == _request_key(game):  # the click is not asked for again
                self.unanswered = lost
                self.waiting_since = time.monotonic()
                self.stats.sent += 1
                await socket.send(json.dumps(lost[0]))
            elif game["started"] and game["state"]["turn"] == self.colour:
                self.asked_sync = True
                await socket.send(json.dumps({"type": "sync"}))  # back after a reconnect: look again
            while True:
                message = loads(await socket.recv())
                self.stats.received += 1
                request = self._on_message(message)
                if self.over:
                    return True
                if request is not None:
                    if self.resend_now:
                        self.resend_now = False
                    elif self.pace and request["type"] != "start":  # think like a bot at the app's speed setting
                        decided_for = self.latest_key
                        await asyncio.sleep(self.pace * random.uniform(0.5, 1.5))
                        request = await self._catch_up(socket, request, decided_for)
                        if self.over:
                            return True
                        if request is None:
                            continue
                    if request["type"] != "start":
                        self.waiting_since = time.monotonic()
                        self.stats.sent += 1
                    await socket.send(json.dumps(request))

    async def _catch_up(
        self, socket: Any, request: dict[str, Any], decided_for: tuple[Any, ...] | None
    ) -> dict[str, Any] | None:
        """Read what came while the player thought, as a page shows it: a request decided
        for a game that has moved on since is not sent (a page's click applies to the board
        it shows), a newer decision is."""
        newer = None
        while True:
            try:
                message = loads(await asyncio.wait_for(socket.recv(), 0.001))
            except TimeoutError:
                break
            self.stats.received += 1
            decision = self._on_message(message)
            if message["type"] in ("update", "snapshot"):
                newer = decision  # what the latest state asks for (None: nothing)
            if self.over:
                return None
        return request if self.latest_key == decided_for else newer

    def _on_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Note what a message says; the request to send in answer, if any."""
        stats, kind = self.stats, message["type"]
        if kind == "joined":
            self.token = message["token"]
            return None
        if kind == "error":
            stats.errors[message["code"]] = stats.errors.get(message["code"], 0) + 1
            self.waiting_since = None
            if message["code"] != "reconnecting":  # nothing changed: asked again with the room back
                self.unanswered = None
            self.unanswered_lost = True
            return None
        if kind not in ("update", "snapshot"):
            return None
        if kind == "snapshot" and self.asked_sync:
            self.asked_sync = False  # the answer to the sync sent after a reconnect
        elif kind == "snapshot":  # unasked: the room moved to another process under this page,
            self.waiting_since = None  # and a request its old owner never answered is asked again
        if stats.restored_at is not None and self.game_id not in stats.heard_after:
            stats.heard_after[self.game_id] = time.monotonic() - stats.restored_at
        game = message["game"]
        self.latest_key = _request_key(game) if game["started"] else None
        if kind == "snapshot" and self.unanswered_lost:
            self.unanswered_lost = False
            if self.unanswered is not None and self.unanswered[1] == _request_key(game):
                self.resend_now = True  # as web/game.js: the player does not decide twice
                return self.unanswered[0]
        if not game["started"]:
            everyone_in = all(seat["kind"] != "open" for seat in game["seats"].values())
            if self.host and everyone_in and not self.start_sent:
                self.start_sent = True  # everyone is in: the host starts the game
                return {"type": "start"}
            return None
        if kind == "update" and message["events"]:
            self.unanswered = None
            self._on_action(game)
        if game["phase"] == "over":
            self.over = True
            return None
        mine = game["seats"][self.colour]["kind"] in ("player", "human")
        if game["state"]["turn"] != self.colour or self.waiting_since is not None or not mine:
            return None
        request = {"type": "roll"} if game["phase"] == "roll" else {"type": "move", "plane": game["moves"][0]["plane"]}
        self.unanswered = (request, _request_key(game))
        return request

    def _on_action(self, game: dict[str, Any]) -> None:
        stats, now = self.stats, time.monotonic()
        key = (game["actions"], game["phase"] == "move")
        if key in self.seen:
            stats.duplicated += 1
        self.seen.add(key)
        stats.ledger[self.game_id] = max(stats.ledger.get(self.game_id, 0), game["actions"])
        previous = stats.last_move.get(self.game_id)
        if previous is not None:
            stats.stalls.append(now - previous)
        stats.last_move[self.game_id] = now
        if stats.disrupted_at is not None and now > stats.disrupted_at:
            if self.game_id not in stats.resumed:
                stats.resumed[self.game_id] = now - stats.disrupted_at
            if stats.restored_at is None:
                stats.last_during[self.game_id] = now - stats.disrupted_at
            elif self.game_id not in stats.back_after:
                stats.back_after[self.game_id] = now - stats.restored_at
        if self.waiting_since is not None:
            stats.latencies.append((now - self.waiting_since) * 1000)
            stats.timed_latencies.append((now, (now - self.waiting_since) * 1000))
            stats.acknowledged += 1
            self.waiting_since = None


def _request_key(game: dict[str, Any]) -> tuple[Any, ...]:
    """Where the game stands for a request (web/game.js, requestKey): had the request been
    played, the action count or the phase would differ."""
    return (game["actions"], game["state"]["turn"], game["phase"])


@dataclass
class Disruption:
    """What befalls the cluster `after` seconds into the run (`--disrupt KIND`), for
    `seconds` where it lasts: see DISRUPTIONS."""

    kind: str
    after: float
    seconds: float
    pids: list[int]
    redis_pid: int | None = None
    postgres: Any = None
    restart: Callable[[int], int] | None = None
    """Stop server `n` with SIGTERM, start it again on its port; its new pid (blocking)."""
    notes: dict[str, Any] = field(default_factory=dict)


async def _kill(disruption: Disruption, stats: Stats) -> None:
    os.kill(disruption.pids[0], signal.SIGKILL)


async def _freeze(disruption: Disruption, stats: Stats) -> None:
    os.kill(disruption.pids[0], signal.SIGSTOP)
    try:
        await asyncio.sleep(disruption.seconds)
    finally:
        os.kill(disruption.pids[0], signal.SIGCONT)


def _inside_a_write(postgres: Any, pid: int) -> bool:
    """Whether process `pid` is inside a transaction that has written (holds rows)."""
    import psutil
    import psycopg

    ports = [
        connection.laddr.port
        for connection in psutil.Process(pid).net_connections(kind="tcp")
        if connection.raddr and connection.raddr.port == postgres.port
    ]
    with psycopg.connect(postgres.url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE client_port = ANY(%s) AND backend_xid IS NOT NULL", (ports,)
        ).fetchone()
    return bool(row and row[0])


async def _freeze_in_transaction(disruption: Disruption, stats: Stats) -> None:
    pid = disruption.pids[0]
    for tries in range(1, 2001):
        os.kill(pid, signal.SIGSTOP)
        await asyncio.sleep(0.02)
        if await asyncio.to_thread(_inside_a_write, disruption.postgres, pid):
            disruption.notes["frozen_inside_a_transaction_after_tries"] = tries
            break
        os.kill(pid, signal.SIGCONT)
        await asyncio.sleep(0.01)
    else:
        os.kill(pid, signal.SIGCONT)
        raise SystemExit("the process was never caught inside a write transaction: nothing was measured")
    stats.disrupted_at = time.monotonic()
    try:
        await asyncio.sleep(disruption.seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


async def _freeze_redis(disruption: Disruption, stats: Stats) -> None:
    assert disruption.redis_pid is not None
    os.kill(disruption.redis_pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(disruption.seconds)
    finally:
        os.kill(disruption.redis_pid, signal.SIGCONT)


async def _rolling_restart(disruption: Disruption, stats: Stats) -> None:
    assert disruption.restart is not None
    for n in range(len(disruption.pids)):
        disruption.pids[n] = await asyncio.to_thread(disruption.restart, n)
        await asyncio.sleep(2.5)  # docs/deploy.md: nginx tries a process it saw failing again after 2 s


DISRUPTIONS: dict[str, Callable[[Disruption, Stats], Coroutine[Any, Any, None]]] = {
    "kill": _kill,  # SIGKILL the first process
    "freeze": _freeze,  # SIGSTOP the first process for --for seconds
    "freeze-in-transaction": _freeze_in_transaction,  # the same, caught inside a write transaction
    "freeze-redis": _freeze_redis,  # SIGSTOP Redis for --for seconds
    "restart": _rolling_restart,  # SIGTERM each process in turn and start it again (docs/deploy.md)
}


async def visit(url: str, games: list[str], durations: list[float], until: Callable[[], bool]) -> None:
    """New visitors, one every half second while `until()` is false: the page, the API,
    a game's WebSocket and its snapshot, each timed."""
    while not until():
        for path in ("/", "/api/meta"):
            started = time.monotonic()
            try:
                await asyncio.to_thread(_fetch, url + path)
                durations.append(time.monotonic() - started)
            except OSError:
                durations.append(float("inf"))
        started = time.monotonic()
        try:
            socket_url = url.replace("http", "ws", 1) + f"/ws/{random.choice(games)}"
            async with websockets.connect(socket_url, open_timeout=10) as socket:
                await asyncio.wait_for(socket.recv(), 10)
            durations.append(time.monotonic() - started)
        except (OSError, TimeoutError, websockets.WebSocketException):
            durations.append(float("inf"))
        await asyncio.sleep(0.5)


def _fetch(url: str) -> None:
    with urllib.request.urlopen(url, timeout=10) as response:
        response.read()


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """uvloop when installed (as the server uses it): the clients' own overhead is less."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def client_address(room: int, seat: int) -> str:
    """A private address of its own for each simulated player."""
    number = room * 4 + seat
    return f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"


async def measure_lag(lags: list[tuple[float, float]], deadline: float) -> None:
    """(when, ms) the clients' own event loop wakes late: every figure above includes it,
    since the clients share the machine with the servers."""
    while time.monotonic() < deadline:
        asked = time.monotonic()
        await asyncio.sleep(0.05)
        lags.append((asked, (time.monotonic() - asked - 0.05) * 1000))


def machine_cpu() -> tuple[int, int]:
    """(busy, total) clock ticks of every core since boot (/proc/stat)."""
    ticks = [int(tick) for tick in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and waiting for the disk
    return sum(ticks) - idle, sum(ticks)


async def watch_the_machine(busy: list[float], until: Callable[[], bool]) -> None:
    """The share of the machine's CPU in use, each half second until `until()`: whether a
    slow stretch is the machine being full (every process here shares its cores)."""
    before = machine_cpu()
    while not until():
        await asyncio.sleep(0.5)
        now = machine_cpu()
        busy.append((now[0] - before[0]) / max(1, now[1] - before[1]))
        before = now


def process_stat(pid: int) -> tuple[float, float]:
    """(CPU seconds so far, resident MB) of a process ((0, 0) for one that has gone)."""
    if not Path(f"/proc/{pid}/stat").exists():
        return 0.0, 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    memory = next(  # none for a process killed but not yet reaped
        (
            int(line.split()[1]) / 1024
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("VmRSS:")
        ),
        0.0,
    )
    return cpu, memory


def create_games(url: str, rooms: int) -> list[tuple[str, str]]:
    games = []
    seats = {"red": {"kind": "human"}, **{c: {"kind": "open"} for c in COLOURS[1:]}}
    for n in range(rooms):
        body = json.dumps({"players": list(COLOURS), "seats": seats}).encode()
        request = urllib.request.Request(
            f"{url}/api/games",
            data=body,
            headers={"Content-Type": "application/json", "X-Forwarded-For": client_address(n, 0)},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            created = json.loads(response.read())
            games.append((created["id"], created["host_token"]))
    return games


async def play(
    urls: list[str], rooms: list[tuple[int, str, str]], pace: float, deadline: float, stats: Stats, ready: asyncio.Event
) -> None:
    """The four clients of each of `rooms` ((number, game id, host token)) until the run's
    end: they connect and join at once, and play from when `ready` is set."""
    players = [
        Player(
            urls,
            game_id,
            colour,
            stats,
            ready,
            pace,
            client_address(n, seat),
            host_token if seat == 0 else None,
            host=seat == 0,
            number=n * 4 + seat,
        )
        for n, game_id, host_token in rooms
        for seat, colour in enumerate(COLOURS)
    ]
    tasks = [asyncio.create_task(player.run(deadline)) for player in players]
    await ready.wait()
    cpu_before = time.process_time()
    ticker = asyncio.create_task(measure_lag(stats.lags, deadline))
    await asyncio.gather(*tasks, return_exceptions=True)
    ticker.cancel()
    stats.client_cpu = time.process_time() - cpu_before


def stop_collecting() -> None:
    """The clients' own pauses would count as the server's latency: a full collection of
    2,000 connections' objects takes 100-300 ms here, so the clients do not collect."""
    gc.collect()
    gc.freeze()
    gc.disable()


class InProcessClients:
    """Every client in this process's event loop (`--client-processes 1`)."""

    def __init__(
        self, urls: list[str], rooms: list[tuple[int, str, str]], pace: float, deadline: float, moments: Moments
    ) -> None:
        self.stats = Stats(moments=moments)
        self.ready = asyncio.Event()
        self.task = asyncio.create_task(play(urls, rooms, pace, deadline, self.stats, self.ready))

    def go(self) -> None:
        self.ready.set()

    async def finish(self) -> list[Stats]:
        await self.task
        return [self.stats]


class ClientProcesses:
    """The clients spread over processes of their own, each with its share of the rooms
    (`--client-processes N`): one event loop for 2,000 connections wakes up to a quarter
    of a second late while a restart's pages reconnect, and every round trip it measures
    then includes that."""

    def __init__(
        self,
        urls: list[str],
        rooms: list[tuple[int, str, str]],
        pace: float,
        deadline: float,
        moments: Moments,
        count: int,
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.ready = context.Event()
        self.pipes: list[Any] = []
        self.workers: list[Any] = []
        for k in range(count):
            receiving, sending = context.Pipe(duplex=False)
            worker = context.Process(
                target=client_process,
                args=(urls, rooms[k::count], pace, deadline, moments, self.ready, sending),
                name=f"clients {k}",
                daemon=True,
            )
            worker.start()
            sending.close()
            self.pipes.append(receiving)
            self.workers.append(worker)

    def go(self) -> None:
        self.ready.set()

    async def finish(self) -> list[Stats]:
        parts = []
        for pipe, worker in zip(self.pipes, self.workers, strict=True):
            try:
                parts.append(await asyncio.to_thread(pipe.recv))
            except EOFError:
                await asyncio.to_thread(worker.join)
                raise SystemExit(
                    f"a client process failed (exit status {worker.exitcode}): nothing was measured"
                ) from None
            await asyncio.to_thread(worker.join)
        return parts


def client_process(
    urls: list[str],
    rooms: list[tuple[int, str, str]],
    pace: float,
    deadline: float,
    moments: Moments,
    ready: Any,
    results: Any,
) -> None:
    """One process of `ClientProcesses`: plays its rooms, sends its figures back."""

    async def main() -> Stats:
        stats = Stats(moments=moments)
        playing = asyncio.Event()
        loop = asyncio.get_running_loop()

        def begin() -> None:
            stop_collecting()
            playing.set()

        def wait_for_the_start() -> None:
            ready.wait()
            loop.call_soon_threadsafe(begin)

        threading.Thread(target=wait_for_the_start, daemon=True).start()
        await play(urls, rooms, pace, deadline, stats, playing)
        return stats

    results.send(run_loop(main()).kept())


async def run(
    urls: list[str],
    rooms: int,
    seconds: float,
    pids: list[int],
    pace: float,
    disruption: Disruption | None,
    client_processes: int = 1,
) -> tuple[dict[str, Any], Stats, list[str]]:
    games = create_games(urls[0], rooms)
    moments = Moments.shared() if client_processes > 1 else Moments()
    deadline = time.monotonic() + seconds
    numbered = [(n, game_id, host_token) for n, (game_id, host_token) in enumerate(games)]
    clients: InProcessClients | ClientProcesses = (
        InProcessClients(urls, numbered, pace, deadline, moments)
        if client_processes == 1
        else ClientProcesses(urls, numbered, pace, deadline, moments, client_processes)
    )
    await asyncio.sleep(min(10.0, seconds / 4))  # let every client connect and join
    stop_collecting()
    before = [process_stat(pid) for pid in pids]
    started = time.monotonic()
    clients.go()
    stats = Stats(moments=moments)  # the moments, until the clients' figures come back
    visitors: list[float] = []
    machine_busy: list[float] = []
    if disruption is not None:
        await asyncio.sleep(disruption.after)
        stats.disrupted_at = time.monotonic()
        watching_the_machine = asyncio.create_task(
            watch_the_machine(
                machine_busy, lambda: stats.restored_at is not None and time.monotonic() > stats.restored_at + 2
            )
        )
        freezing_a_process = disruption.kind in ("freeze", "freeze-in-transaction")
        game_ids = [game for game, _ in games]
        watching = [
            asyncio.create_task(visit(urls[0], game_ids, visitors, lambda: stats.restored_at is not None))
            for _ in range(1 if freezing_a_process else 0)
        ]
        await DISRUPTIONS[disruption.kind](disruption, stats)
        stats.restored_at = time.monotonic()
        await asyncio.gather(*watching, watching_the_machine)
    stats = Stats.merged(await clients.finish(), moments)
    elapsed = time.monotonic() - started
    gc.enable()
    now_pids = disruption.pids if disruption is not None else pids
    alive = [pid for pid in pids if pid in now_pids and process_stat(pid)[1] > 0]  # the same processes throughout
    after = {pid: process_stat(pid) for pid in alive}
    cpu = sum(after[pid][0] - before[pids.index(pid)][0] for pid in alive)
    latencies = sorted(stats.latencies)
    lags = sorted(ms for _, ms in stats.lags)

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2) if latencies else 0.0

    figures = {
        "rooms": rooms,
        "clients": rooms * 4,
        "processes": len(pids),
        "pace_seconds": pace,
        "seconds": round(elapsed, 1),
        "requests": stats.sent,
        "acknowledged": stats.acknowledged,
        "actions_per_second": round(stats.acknowledged / elapsed),
        "messages_received": stats.received,
        "messages_per_second": round(stats.received / elapsed),
        "latency_ms_p50": pct(0.5),
        "latency_ms_p95": pct(0.95),
        "latency_ms_p99": pct(0.99),
        "latency_ms_mean": round(statistics.fmean(latencies), 2) if latencies else 0.0,
        "latency_samples": len(latencies),
        "duplicated_updates": stats.duplicated,
        "errors": stats.errors,
        "reconnects": stats.reconnects,
        "hang_ups": stats.hang_ups,
        "server_memory_mb": round(sum(after[pid][1] for pid in alive), 1),
        "server_cpu_share": round(cpu / elapsed, 2),
        "server_cpu_ms_per_action": round(1000 * cpu / max(1, stats.acknowledged), 3),
        "client_processes": client_processes,
        "client_cpu_share": round(stats.client_cpu / elapsed, 2),
        "client_loop_lag_ms_p99_max": [
            round(lags[int(0.99 * len(lags))], 1) if lags else 0.0,
            round(max(lags, default=0.0), 1),
        ],
        "longest_stall_seconds": round(max(stats.stalls, default=0.0), 2),
    }
    if disruption is not None:
        figures.update(disruption_figures(disruption, stats, [game for game, _ in games], visitors))
        figures["machine_cpu_busy_during_the_disruption_mean_max"] = [
            round(statistics.fmean(machine_busy), 2) if machine_busy else None,
            round(max(machine_busy, default=0.0), 2),
        ]
    return figures, stats, [game for game, _ in games]


def _spread(values: list[float]) -> list[float]:
    """[p50, p90, max] of some seconds."""
    if not values:
        return []
    if len(values) == 1:
        return [round(values[0], 2)] * 3
    deciles = statistics.quantiles(values, n=10)
    return [round(deciles[4], 2), round(deciles[8], 2), round(max(values), 2)]


def disruption_figures(disruption: Disruption, stats: Stats, games: list[str], visitors: list[float]) -> dict[str, Any]:
    """What the disruption did to play: when rooms moved again, what pages saw meanwhile."""
    assert stats.disrupted_at is not None and stats.restored_at is not None
    moving = [game for game in games if game in stats.last_move]
    figures: dict[str, Any] = {
        "disruption": disruption.kind,
        "disruption_seconds": round(stats.restored_at - stats.disrupted_at, 1),
        **disruption.notes,
        "rooms_moving_again": f"{len(stats.resumed)} of {len(moving)}",
        "rooms_moving_again_seconds_p50_p90_max": _spread(list(stats.resumed.values())),
    }
    if disruption.kind == "freeze-redis":
        figures["last_action_during_the_outage_seconds_max"] = round(max(stats.last_during.values(), default=0.0), 2)
        figures["rooms_serving_again_after_redis_returned_seconds_p50_p90_max"] = _spread(
            list(stats.heard_after.values())
        )
        figures["rooms_back_after_redis_returned_seconds_p50_p90_max"] = _spread(list(stats.back_after.values()))
        during = [number for at, number in stats.attempts if stats.disrupted_at <= at <= stats.restored_at]
        per_client = [during.count(number) for number in set(during)] or [0]
        figures["reconnection_attempts_per_client_during_the_outage_max_mean"] = [
            max(per_client),
            round(len(during) / (len(stats.ledger) * 4 or 1), 1),
        ]
    if disruption.kind == "restart":
        window = sorted(ms for at, ms in stats.timed_latencies if stats.disrupted_at <= at <= stats.restored_at + 2)
        figures["latency_ms_p99_during_the_restart"] = (
            round(window[int(0.99 * (len(window) - 1))], 1) if window else None
        )
    if visitors:
        figures["new_visitor_requests"] = len(visitors)
        figures["new_visitor_slowest_seconds"] = round(max(visitors), 2)
        figures["new_visitor_requests_over_2_seconds"] = sum(1 for seconds in visitors if seconds > 2)
    figures["errors_shown_to_pages"] = {code: n for code, n in stats.errors.items() if code != "reconnecting"}
    return figures


def check_ledger(stats: Stats, database: Any, games: list[str]) -> int:
    """Acknowledged actions the database does not hold (lost ones)."""
    lost = 0
    for game_id in games:
        acknowledged = stats.ledger.get(game_id, 0)
        stored = database.load(game_id)
        if stored is None or len(stored.actions) < acknowledged:
            lost += 1
    return lost


def server_log_lines(servers: list[Any]) -> dict[str, int]:
    """What the servers logged (warnings and errors), by line with numbers blanked: a
    quiet run logs nothing, and a run that hid its trouble would show it here."""
    counts: dict[str, int] = {}
    for server in servers:
        for line in server.log().splitlines():
            if line.strip() and not line.startswith((" ", "Traceback")):
                key = re.sub(r"[0-9a-f]{6,}|\d+", "#", line)[:120]
                counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1])[:10])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pace", type=float, default=0.0, help="seconds a client waits before each roll or move")
    parser.add_argument(
        "--processes",
        default="1",
        help="server processes (2+: over PostgreSQL and Redis); a list such as 1,2 measures each in turn",
    )
    parser.add_argument("--nginx", action="store_true", help="put nginx in front of the processes")
    parser.add_argument(
        "--disrupt", choices=sorted(DISRUPTIONS), default=None, help="what befalls the cluster during the run"
    )
    parser.add_argument("--after", type=float, default=20.0, help="seconds into the run the disruption begins")
    parser.add_argument("--for", dest="lasting", type=float, default=10.0, help="seconds a freeze lasts")
    parser.add_argument("--kill-after", type=float, default=None, help="the same as --disrupt kill --after S")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="processes the clients are spread over (each plays its share of the rooms)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        counts = [int(count) for count in args.processes.split(",")]
    except ValueError:
        parser.error("--processes: a number, or numbers separated by commas")
    if args.rooms < 1 or min(counts) < 1 or args.seconds <= 0 or args.client_processes < 1:
        parser.error("--rooms, --processes, --client-processes and --seconds must be positive")
    if args.kill_after is not None:
        args.disrupt, args.after = "kill", args.kill_after
    if args.disrupt is not None and min(counts) < 2:
        parser.error("--disrupt needs --processes 2 or more")
    if args.disrupt is not None and not 0 < args.after < args.seconds:
        parser.error("--after must fall inside the run (0 < --after < --seconds)")
    from flyingchess.server.launch.loopback import missing

    needed = (["postgres", "redis"] if max(counts) > 1 else []) + (["nginx"] if args.nginx else [])
    absent = missing(*needed)
    if absent is not None:
        raise SystemExit(absent)
    results = [measure(args, count) for count in counts]
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0]))
    else:
        for key in results[0]:
            print(f"{key:36} " + "   ".join(str(figures.get(key)) for figures in results))
    for figures in results:
        if not figures["latency_samples"]:
            raise SystemExit(f"no game action succeeded (errors: {figures['errors']}): nothing was measured")
        if figures["lost_actions"] or figures["duplicated_updates"]:
            raise SystemExit("the ledger found acknowledged actions lost or seen twice")


def measure(args: argparse.Namespace, processes: int) -> dict[str, Any]:
    """One run against `processes` fresh servers (and their own PostgreSQL, Redis, nginx)."""
    from flyingchess.server.launch.loopback import Nginx, Postgres, Redis, free_port
    from flyingchess.server.launch.process import ServerProcess as Server
    from flyingchess.server.storage.databases import open_database
    from flyingchess.server.storage.store import SqliteStore

    started: list[Any] = []
    with tempfile.TemporaryDirectory() as folder:
        try:
            options = ["--trusted-proxy", "127.0.0.1"]
            database_url = None
            postgres = redis = None
            if processes > 1:
                postgres, redis = Postgres(), Redis()
                started += [postgres, redis]
                database_url = postgres.url
                options += ["--database", database_url, "--redis", redis.url]
            ports = [free_port() for _ in range(processes)]  # a restarted process comes back on its port

            def start(n: int, again: int = 0) -> Any:
                data = Path(folder) / (f"node{n}-again{again}" if again else f"node{n}")
                return Server(data, network=True, options=[*options, "--port", str(ports[n])])

            servers = [start(n) for n in range(processes)]
            started += servers
            exits: list[int | None] = []

            def restart(n: int) -> int:
                servers[n].process.terminate()
                exits.append(servers[n].process.wait(timeout=60))
                servers[n] = start(n, again=len(exits))
                started.append(servers[n])
                _fetch(servers[n].url + "/api/health")
                return int(servers[n].process.pid)

            urls = [server.url for server in servers]
            if args.nginx:
                nginx = Nginx(ports, clients_on_loopback_are_proxies=True)
                started.append(nginx)
                urls = [nginx.url]
            pids = [s.process.pid for s in servers]
            disruption = None
            if args.disrupt is not None:
                disruption = Disruption(
                    args.disrupt,
                    args.after,
                    args.lasting,
                    list(pids),
                    redis_pid=redis.process.pid if redis is not None else None,
                    postgres=postgres,
                    restart=restart,
                )
            figures, stats, games = run_loop(
                run(urls, args.rooms, args.seconds, pids, args.pace, disruption, args.client_processes)
            )
            if exits:
                figures["exit_statuses_after_sigterm"] = exits
            sqlite_file = Path(folder) / "node0" / "games.sqlite3"
            if database_url is None and not sqlite_file.is_file():
                raise SystemExit(f"no database at {sqlite_file} to check the ledger against")
            database = open_database(database_url) if database_url else SqliteStore(sqlite_file)
            figures["lost_actions"] = check_ledger(stats, database, games)
            database.close()
            figures["server_log_lines"] = server_log_lines([s for s in started if isinstance(s, Server)])
            if exits:  # each process's own account of its drain, numbers and all
                figures["handed_over"] = [
                    line.removeprefix("flyingchess: handed ")
                    for s in started
                    if isinstance(s, Server)
                    for line in s.log().splitlines()
                    if line.startswith("flyingchess: handed ")
                ]
            figures["nginx"] = args.nginx
            return figures
        finally:
            for thing in reversed(started):
                thing.stop()


if __name__ == "__main__":
    main()
