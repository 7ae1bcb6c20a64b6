"""Attacks on a real server while a bystander plays: does the bystander notice?

    python benchmarks/attacks.py [--seconds 6] [--only NAME ...] [--json]

Starts `flyingchess serve --host 127.0.0.1` on a free port with a throw-away data folder.
A bystander plays a two-seat game in its own room over a WebSocket, about ten rolls or
moves a second, and times each one from request to update. Meanwhile one hostile client
runs each attack below in turn for --seconds. For every attack it prints what the
attacker tried and how it was answered, the bystander's round trips (median and 99th
percentile) and the server's peak memory. The attacker and the bystander share the
loopback address: the worst case for limits kept per client address.

It fails (exit status 1) when an attack made no attempt or the bystander measured no
round trip: a figure over nothing is not a figure. The targets (issue 9): p99 under
100 ms and memory under 300 MB during every attack.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil
import websockets

Attack = Callable[["Target", float], Awaitable[Counter[str]]]
COLOURS = ("red", "yellow", "blue", "green")


class Target:
    def __init__(self, url: str) -> None:
        self.url = url
        self.port = int(url.rsplit(":", 1)[1])
        self.ws = url.replace("http", "ws", 1)

    def api(self, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    async def create(self, body: Any, path: str = "/api/games") -> Any:
        """A new game, waiting out the per-address limit (the attacks spend it too)."""
        for _ in range(60):
            try:
                return await asyncio.to_thread(self.api, path, body)
            except urllib.error.HTTPError as error:
                if error.code != 429:
                    raise
                await asyncio.sleep(float(error.headers.get("Retry-After", "1")))
        raise RuntimeError("the server kept refusing a new game")

    async def http(self, head: str, body: bytes = b"", read: bool = True) -> str:
        """One raw HTTP request; returns the status code (or what went wrong)."""
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError as error:
            return f"connect failed ({error.errno})"
        try:
            writer.write(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
            await writer.drain()
            if not read:
                return "sent"
            line = await asyncio.wait_for(reader.readline(), 10)
            return line.split(b" ")[1].decode() if line.startswith(b"HTTP/") else "closed"
        except (TimeoutError, OSError, IndexError) as error:
            return type(error).__name__
        finally:
            writer.close()


# ---------------------------------------------------------------- attacks


async def repeat(seconds: float, attempt: Callable[[], Awaitable[str]], parallel: int = 4) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        while time.monotonic() < deadline:
            outcomes[await attempt()] += 1

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return outcomes


async def dns_rebinding(target: Target, seconds: float) -> Counter[str]:
    """A page on evil.example whose name now resolves to 127.0.0.1 lists and deletes games."""

    async def attempt() -> str:
        return await target.http(
            f"DELETE /api/games/x HTTP/1.1\nHost: evil.example:{target.port}\n"
            f"Origin: http://evil.example:{target.port}\nConnection: close\n"
        )

    return await repeat(seconds, attempt)


async def cross_site_forms(target: Target, seconds: float) -> Counter[str]:
    """A plain form on another site posts text/plain bodies."""
    body = b'{"players": ["red", "blue"]}'

    async def attempt() -> str:
        return await target.http(
            f"POST /api/games HTTP/1.1\nHost: 127.0.0.1:{target.port}\nOrigin: http://evil.example\n"
            f"Content-Type: text/plain\nContent-Length: {len(body)}\nConnection: close\n",
            body,
        )

    return await repeat(seconds, attempt)


async def huge_bodies(target: Target, seconds: float) -> Counter[str]:
    """Four at a time, 300 MB declared and 8 MB sent of each."""
    chunk = b"[" * 8_000_000

    async def attempt() -> str:
        return await target.http(
            f"POST /api/records HTTP/1.1\nHost: 127.0.0.1:{target.port}\nContent-Type: application/json\n"
            "Content-Length: 300000000\n",
            chunk,
        )

    return await repeat(seconds, attempt)


async def huge_frames(target: Target, seconds: float) -> Counter[str]:
    """16 MB WebSocket frames."""
    game = (await target.create({"players": ["red", "blue"]}))["id"]
    frame = "x" * 16_000_000

    async def attempt() -> str:
        try:
            async with websockets.connect(f"{target.ws}/ws/{game}", max_size=None) as socket:
                await socket.recv()
                await socket.send(frame)
                await socket.recv()
                return "answered"
        except websockets.ConnectionClosed as closed:
            return f"closed {closed.rcvd.code if closed.rcvd else '-'}"
        except OSError as error:
            return type(error).__name__

    return await repeat(seconds, attempt, parallel=2)


def passes_record(count: int) -> bytes:
    return json.dumps(
        {
            "format": "flyingchess/1",
            "rules": "classic",
            "players": ["red", "blue"],
            "actions": [{"roll": 1, "plane": None}] * count,
        }
    ).encode()


async def huge_records(target: Target, seconds: float) -> Counter[str]:
    """Legal records of 205,000 passes (4.9 MB), and of 5,001; replays of the longest allowed."""
    records = [passes_record(205_000), passes_record(5_001), passes_record(5_000)]
    accepted = (await target.create(json.loads(records[2]), "/api/records"))["id"]
    turn = 0

    async def attempt() -> str:
        nonlocal turn
        turn += 1
        if turn % 3 == 0:
            status = await target.http(
                f"GET /api/games/{accepted}/replay HTTP/1.1\nHost: 127.0.0.1:{target.port}\nConnection: close\n"
            )
            return f"replay {status}"
        body = records[turn % 2]
        return await target.http(
            f"POST /api/records HTTP/1.1\nHost: 127.0.0.1:{target.port}\nContent-Type: application/json\n"
            f"Content-Length: {len(body)}\nConnection: close\n",
            body,
        )

    return await repeat(seconds, attempt, parallel=2)


async def room_flood(target: Target, seconds: float) -> Counter[str]:
    """New games as fast as the server answers, then one look at the lobby and the list."""
    body = json.dumps({"players": list(COLOURS), "seats": {c: {"kind": "open"} for c in COLOURS}}).encode()

    async def attempt() -> str:
        return await target.http(
            f"POST /api/games HTTP/1.1\nHost: 127.0.0.1:{target.port}\nContent-Type: application/json\n"
            f"Content-Length: {len(body)}\nConnection: close\n",
            body,
        )

    outcomes = await repeat(seconds, attempt, parallel=8)
    for path in ("/api/rooms", "/api/games"):
        status = await target.http(f"GET {path} HTTP/1.1\nHost: 127.0.0.1:{target.port}\nConnection: close\n")
        outcomes[f"{path} {status}"] += 1
    return outcomes


async def idle_connections(target: Target, seconds: float) -> Counter[str]:
    """1,100 connections held open, half of them with a request line never finished."""
    outcomes: Counter[str] = Counter()
    held = []
    for n in range(1_100):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
        except OSError as error:
            outcomes[f"connect failed ({error.errno})"] += 1
            continue
        if n % 2:
            writer.write(b"GET /api/meta HT")
        held.append((reader, writer))
        outcomes["opened"] += 1
    await asyncio.sleep(seconds)
    for reader, writer in held:
        if reader.at_eof() or writer.is_closing():
            outcomes["closed by the server"] += 1
        writer.close()
    return outcomes


async def seat_grab(target: Target, seconds: float) -> Counter[str]:
    """Take every open seat of lobby rooms from one address, over many connections."""
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    colours = COLOURS
    while time.monotonic() < deadline:
        room = (await target.create({"players": list(colours), "seats": {c: {"kind": "open"} for c in colours}}))["id"]

        async def grab(colour: str, room: str = room) -> str:
            async with websockets.connect(f"{target.ws}/ws/{room}") as socket:
                await socket.recv()
                await socket.send(json.dumps({"type": "join", "colour": colour, "name": "grabber"}))
                while True:
                    message = json.loads(await socket.recv())
                    if message["type"] in ("joined", "error"):
                        return "joined" if message["type"] == "joined" else message["code"]

        for result in await asyncio.gather(*(grab(c) for c in colours)):
            outcomes[result] += 1
        await asyncio.sleep(1.0)
    return outcomes


async def chat_flood(target: Target, seconds: float) -> Counter[str]:
    """A host chatting as fast as it can, with long lines, coming back when cut off."""
    created = await target.create({"players": ["red", "blue"]})
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        async with websockets.connect(f"{target.ws}/ws/{created['id']}") as socket:
            await socket.recv()
            await socket.send(json.dumps({"type": "hello", "token": created["host_token"]}))

            async def read() -> None:
                async for raw in socket:
                    message = json.loads(raw)
                    outcomes[message.get("code", message["type"])] += 1

            reader = asyncio.create_task(read())
            while time.monotonic() < deadline:
                try:
                    await socket.send(json.dumps({"type": "chat", "text": "spam " * 39}))
                except websockets.ConnectionClosed as closed:
                    outcomes[f"cut off ({closed.rcvd.code if closed.rcvd else '-'})"] += 1
                    break
                await asyncio.sleep(0.001)
            reader.cancel()
    return outcomes


ATTACKS: dict[str, Attack] = {  # the room flood last: it spends the address's allowance of new games
    "dns-rebinding": dns_rebinding,
    "cross-site-forms": cross_site_forms,
    "huge-bodies": huge_bodies,
    "huge-frames": huge_frames,
    "huge-records": huge_records,
    "seat-grab": seat_grab,
    "chat-flood": chat_flood,
    "idle-connections": idle_connections,
    "room-flood": room_flood,
}


# ---------------------------------------------------------------- the bystander


class Bystander:
    """Plays both seats of its own game (games made up front: the attacker may exhaust
    the shared address's allowance of new games), timing each request to its update."""

    def __init__(self, target: Target, games: int = 6) -> None:
        self.target = target
        self.games = [target.api("/api/games", {"players": ["red", "blue"]}) for _ in range(games)]
        self.timings: list[float] = []
        self.running = True

    async def play(self) -> None:
        for created in self.games:
            async with websockets.connect(f"{self.target.ws}/ws/{created['id']}") as socket:
                game = json.loads(await socket.recv())["game"]
                await socket.send(json.dumps({"type": "hello", "token": created["host_token"]}))
                while self.running and game["phase"] != "over":
                    request = (
                        {"type": "roll"}
                        if game["phase"] == "roll"
                        else {"type": "move", "plane": game["moves"][0]["plane"]}
                    )
                    began = time.perf_counter()
                    await socket.send(json.dumps(request))
                    while True:
                        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
                        if message["type"] == "update" and message["events"]:
                            break
                        if message["type"] == "error":
                            raise RuntimeError(f"the bystander's {request} was refused: {message}")
                    self.timings.append((time.perf_counter() - began) * 1000)
                    game = message["game"]
                    await asyncio.sleep(0.1)
            if not self.running:
                return
        raise RuntimeError("the bystander ran out of games: start more with a longer run")


async def measure(target: Target, pid: int, names: list[str], seconds: float) -> list[dict[str, Any]]:
    bystander = Bystander(target)
    playing = asyncio.create_task(bystander.play())
    process = psutil.Process(pid)
    rows = []
    await asyncio.sleep(1.0)
    for name in names:
        peak = 0.0
        first = len(bystander.timings)

        async def sample() -> None:
            nonlocal peak
            while True:
                peak = max(peak, process.memory_info().rss / 2**20)
                await asyncio.sleep(0.1)

        sampler = asyncio.create_task(sample())
        outcomes = await ATTACKS[name](target, seconds)
        sampler.cancel()
        if playing.done():
            playing.result()  # raises what stopped the bystander
        timings = sorted(bystander.timings[first:])
        if not timings:
            raise SystemExit(f"{name}: the bystander measured no round trip")
        if sum(outcomes.values()) == 0:
            raise SystemExit(f"{name}: the attack made no attempt")
        rows.append(
            {
                "attack": name,
                "attempts": sum(outcomes.values()),
                "outcomes": dict(outcomes),
                "bystander_moves": len(timings),
                "p50_ms": round(statistics.median(timings), 1),
                "p99_ms": round(timings[min(len(timings) - 1, int(0.99 * len(timings)))], 1),
                "server_mb_peak": round(peak, 1),
            }
        )
        await asyncio.sleep(1.0)
    bystander.running = False
    await playing
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="how long each attack runs")
    parser.add_argument("--only", nargs="+", choices=list(ATTACKS), help="run only these attacks")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    with tempfile.TemporaryDirectory() as folder, open(Path(folder) / "log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "flyingchess", "serve", "--host", "127.0.0.1", "--port", "0", "--data", folder],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        try:
            assert process.stdout is not None
            url = process.stdout.readline().split("running at ")[1].split()[0].rstrip("/")
            names = [name for name in ATTACKS if not args.only or name in args.only]  # in the safe order
            rows = asyncio.run(measure(Target(url), process.pid, names, args.seconds))
            log_bytes = (Path(folder) / "log").stat().st_size
        finally:
            process.terminate()
            process.wait(timeout=10)
    if args.json:
        print(json.dumps({"attacks": rows, "server_log_bytes": log_bytes}))
        return
    print(f"{'attack':18} {'attempts':>8} {'moves':>6} {'p50 ms':>7} {'p99 ms':>7} {'peak MB':>8}  outcomes")
    for row in rows:
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(row["outcomes"].items(), key=lambda kv: -kv[1])[:4])
        print(
            f"{row['attack']:18} {row['attempts']:>8} {row['bystander_moves']:>6} {row['p50_ms']:>7} "
            f"{row['p99_ms']:>7} {row['server_mb_peak']:>8}  {outcomes}"
        )
    print(f"server log: {log_bytes} bytes")


if __name__ == "__main__":
    main()
