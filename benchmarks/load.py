"""Load test: many rooms of four players each over real WebSockets on loopback.

    python benchmarks/load.py [--rooms 500] [--seconds 60] [--json]

Starts `flyingchess serve --host 127.0.0.1 --trusted-proxy 127.0.0.1` on a free port with
a throw-away data folder and creates the rooms: red is the host's own seat, the other
three are open. Four clients connect per room: the host says hello with its token, the
other three join their seats, and the host starts the game once they are all in. Each
client then rolls or moves (its first legal plane) when it is its turn (after --pace
seconds on average, give or take half; the app's bots wait 0.25 s at "fast" and 0.6 s
at "normal"), so games run at bot speed. It stops by itself after --seconds (or when
every game is over) and reports rooms, clients, messages per second, the latency from
a client's request to the update it causes (percentiles), whether any update was lost
or arrived twice, and the server's memory.

Every client connects from 127.0.0.1 but names an address of its own in
X-Forwarded-For, as visitors behind a reverse proxy do, so the server's limits per
client address apply per simulated player. It fails (exit status 1) when no game
action succeeded: a latency over nothing is not a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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


async def player(
    url: str,
    game_id: str,
    colour: str,
    stats: Stats,
    deadline: float,
    ready: asyncio.Event,
    pace: float,
    address: str,
    host_token: str | None,
) -> None:
    """One client: the host (red, with `host_token`) or a guest who joins `colour`."""
    async with websockets.connect(
        url.replace("http", "ws", 1) + f"/ws/{game_id}", max_size=2**20, additional_headers={"X-Forwarded-For": address}
    ) as socket:
        await socket.recv()  # the snapshot
        if host_token:
            await socket.send(json.dumps({"type": "hello", "token": host_token}))
        else:
            await socket.send(json.dumps({"type": "join", "colour": colour, "name": colour}))
        last_actions = -1
        last_key: tuple[Any, ...] | None = None
        waiting_since: float | None = None
        start_sent = False
        await ready.wait()
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(socket.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
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
            if not game["started"]:
                if host_token and not start_sent and all(seat["kind"] != "open" for seat in game["seats"].values()):
                    start_sent = True  # everyone is in: the host starts the game
                    await socket.send(json.dumps({"type": "start"}))
                continue
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
            mine = game["seats"][colour]["kind"] in ("player", "human")
            if game["state"]["turn"] == colour and waiting_since is None and mine:
                request = (
                    {"type": "roll"}
                    if game["phase"] == "roll"
                    else {"type": "move", "plane": game["moves"][0]["plane"]}
                )
                if pace:  # think like a bot at the app's speed setting, not in lockstep
                    await asyncio.sleep(pace * random.uniform(0.5, 1.5))
                waiting_since = time.monotonic()
                stats.sent += 1
                await socket.send(json.dumps(request))


def client_address(room: int, seat: int) -> str:
    """A private address of its own for each simulated player."""
    number = room * 4 + seat
    return f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"


def server_cpu_seconds(pid: int) -> float:
    """User plus system CPU time the server process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(url: str, rooms: int, seconds: float, pid: int, pace: float) -> dict[str, Any]:
    games = []
    seats = {"red": {"kind": "human"}, **{c: {"kind": "open"} for c in COLOURS[1:]}}
    for n in range(rooms):
        body = json.dumps({"players": list(COLOURS), "seats": seats}).encode()
        request = urllib.request.Request(
            f"{url}/api/games",
            data=body,
            headers={"Content-Type": "application/json", "X-Forwarded-For": client_address(n, 0)},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.loads(response.read())
            games.append((created["id"], created["host_token"]))
    stats = Stats()
    ready = asyncio.Event()
    began = time.monotonic()
    deadline = began + seconds
    tasks = [
        asyncio.create_task(
            player(
                url,
                game_id,
                colour,
                stats,
                deadline,
                ready,
                pace,
                client_address(n, seat),
                host_token if seat == 0 else None,
            )
        )
        for n, (game_id, host_token) in enumerate(games)
        for seat, colour in enumerate(COLOURS)
    ]
    await asyncio.sleep(min(10.0, seconds / 4))  # let every client connect and join
    connected_memory = server_memory_mb(pid)
    cpu_before = server_cpu_seconds(pid)
    started = time.monotonic()
    ready.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.monotonic() - started
    cpu = server_cpu_seconds(pid) - cpu_before
    failures = [r for r in results if isinstance(r, Exception)]
    latencies = sorted(stats.latencies)

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2) if latencies else 0.0

    return {
        "rooms": rooms,
        "clients": rooms * 4,
        "pace_seconds": pace,
        "seconds": round(elapsed, 1),
        "requests": stats.sent,
        "messages_received": stats.received,
        "messages_per_second": round(stats.received / elapsed),
        "games_finished": stats.finished // 4,
        "latency_ms_p50": pct(0.5),
        "latency_ms_p95": pct(0.95),
        "latency_ms_p99": pct(0.99),
        "latency_ms_mean": round(statistics.fmean(latencies), 2) if latencies else 0.0,
        "latency_samples": len(latencies),
        "lost_updates": stats.lost,
        "duplicated_updates": stats.duplicated,
        "errors": stats.errors,
        "client_failures": len(failures),
        "server_memory_mb_connected": round(connected_memory, 1),
        "server_memory_mb_end": round(server_memory_mb(pid), 1),
        "server_cpu_share": round(cpu / elapsed, 2),
        "server_cpu_ms_per_request": round(1000 * cpu / max(1, stats.sent), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds a client waits before each roll or move (0: at once)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flyingchess",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--data",
                folder,
                "--trusted-proxy",
                "127.0.0.1",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
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
    if not figures["latency_samples"]:
        raise SystemExit(f"no game action succeeded (errors: {figures['errors']}): nothing was measured")


if __name__ == "__main__":
    main()
