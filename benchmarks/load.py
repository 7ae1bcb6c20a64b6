"""Load test: many rooms of four players each over real WebSockets on loopback.

    python benchmarks/load.py [--rooms 500] [--seconds 60] [--json]

Starts `flyingchess serve --host 127.0.0.1` on a free port with a throw-away data folder,
creates the rooms (four open seats each), and connects four clients per room; each
client joins its seat and rolls or moves (its first legal plane) as soon as it is its
turn (after --pace seconds on average, give or take half; the app's bots wait 0.25 s at
"fast" and 0.6 s at "normal"), so games
run at bot speed. It stops by itself after --seconds (or when every game
is over) and reports rooms, clients, messages per second, the latency from a client's
request to the update it causes (percentiles), whether any update was lost or arrived
twice, and the server's memory. Every address is 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

COLOURS = ("red", "yellow", "blue", "green")


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.received = 0
        self.sent = 0
        self.lost = 0
        self.duplicated = 0
        self.errors: dict[str, int] = {}
        self.finished = 0


async def player(url: str, game_id: str, colour: str, stats: Stats, deadline: float,
                 ready: asyncio.Event, pace: float = 0.0) -> None:
    async with websockets.connect(url.replace("http", "ws", 1) + f"/ws/{game_id}", max_size=2**20) as socket:
        await socket.recv()  # the snapshot
        await socket.send(json.dumps({"type": "join", "colour": colour, "name": colour}))
        last_actions = -1
        last_key: tuple[Any, ...] | None = None
        waiting_since: float | None = None
        await ready.wait()
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(socket.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            stats.received += 1
            message = json.loads(raw)
            if message["type"] == "error":
                stats.errors[message["code"]] = stats.errors.get(message["code"], 0) + 1
                waiting_since = None
                continue
            if message["type"] not in ("update", "snapshot"):
                continue
            game = message["game"]
            if message["type"] == "update" and message["events"]:
                key = (game["actions"], game["phase"], game["roll"], len(message["events"]))
                if key == last_key:
                    stats.duplicated += 1
                last_key = key
                if last_actions >= 0 and game["actions"] > last_actions + 1:
                    stats.lost += 1
                last_actions = max(last_actions, game["actions"])
                if waiting_since is not None:
                    stats.latencies.append((time.monotonic() - waiting_since) * 1000)
                    waiting_since = None
            if game["phase"] == "over":
                stats.finished += 1
                break
            if game["state"]["turn"] == colour and waiting_since is None and \
                    game["seats"][colour]["kind"] == "player":
                request = {"type": "roll"} if game["phase"] == "roll" else \
                    {"type": "move", "plane": game["moves"][0]["plane"]}
                if pace:  # think like a bot at the app's speed setting, not in lockstep
                    await asyncio.sleep(pace * random.uniform(0.5, 1.5))
                waiting_since = time.monotonic()
                stats.sent += 1
                await socket.send(json.dumps(request))


def server_memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(url: str, rooms: int, seconds: float, pid: int, pace: float) -> dict[str, Any]:
    ids = []
    for _ in range(rooms):
        body = json.dumps({"players": list(COLOURS), "seats": {c: {"kind": "open"} for c in COLOURS}}).encode()
        request = urllib.request.Request(f"{url}/api/games", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            ids.append(json.loads(response.read())["id"])
    stats = Stats()
    ready = asyncio.Event()
    began = time.monotonic()
    deadline = began + seconds
    tasks = [asyncio.create_task(player(url, game_id, colour, stats, deadline, ready, pace))
             for game_id in ids for colour in COLOURS]
    await asyncio.sleep(min(10.0, seconds / 4))  # let every client connect and join
    connected_memory = server_memory_mb(pid)
    started = time.monotonic()
    ready.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.monotonic() - started
    failures = [r for r in results if isinstance(r, Exception)]
    latencies = sorted(stats.latencies)

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2) if latencies else 0.0

    return {
        "rooms": rooms, "clients": rooms * 4, "pace_seconds": pace, "seconds": round(elapsed, 1),
        "requests": stats.sent, "messages_received": stats.received,
        "messages_per_second": round(stats.received / elapsed), "games_finished": stats.finished // 4,
        "latency_ms_p50": pct(0.5), "latency_ms_p95": pct(0.95), "latency_ms_p99": pct(0.99),
        "latency_ms_mean": round(statistics.fmean(latencies), 2) if latencies else 0.0,
        "lost_updates": stats.lost, "duplicated_updates": stats.duplicated, "errors": stats.errors,
        "client_failures": len(failures), "server_memory_mb_connected": round(connected_memory, 1),
        "server_memory_mb_end": round(server_memory_mb(pid), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds a client waits before each roll or move (0: at once)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [sys.executable, "-m", "flyingchess", "serve", "--host", "127.0.0.1", "--port", "0", "--data", folder],
            stdout=subprocess.PIPE, text=True)
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            url = line.split("running at ")[1].split()[0].rstrip("/")
            figures = asyncio.run(run(url, args.rooms, args.seconds, process.pid, args.pace))
        finally:
            process.terminate()
            process.wait(timeout=10)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
