"""How fast flyingchess.clients.game_client plays: a seat taken through the client against a bot at the
server's fastest pace, on a real `flyingchess serve` process on loopback.

    python benchmarks/client_pace.py [--games 3]

Prints, per game, the actions played, the client's own decisions and the wall time, and
the client's round trip per roll or move (sent until the update that shows it): within
its first 40 messages of a game (inside the burst of 60 the server allows) and after them, when the
client paces itself at 25 messages a second to stay under the server's limit of 30
(docs/clients.md). Needs the `web` extra. Fails (exit 1) if no game reached its end.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess.clients.game_client import GameClient, create_game
from flyingchess.server.launch.process import ServerProcess


async def one_game(base: str, seed: int) -> tuple[int, int, float, list[float]]:
    rng = random.Random(seed)
    invite, host_token = await create_game(
        base, ["red", "blue"], {"red": {"kind": "bot", "bot": "heuristic"}, "blue": {"kind": "open"}}, speed="instant"
    )
    started = time.perf_counter()
    trips: list[float] = []
    async with GameClient(invite) as guest, GameClient(invite, host_token) as host:
        await guest.join("blue", "client")
        await host.start()
        while (game := await guest.my_turn(120)).phase != "over":
            sent = time.perf_counter()
            if game.phase == "roll":
                await guest.roll()
            else:
                await guest.move(rng.choice(game.moves).plane)
            trips.append(time.perf_counter() - sent)
    return game.actions, len(trips), time.perf_counter() - started, trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    finished = 0
    all_trips: list[float] = []
    burst: list[float] = []
    with tempfile.TemporaryDirectory() as folder, ServerProcess(Path(folder), network=True) as server:
        for game in range(args.games):
            actions, decisions, seconds, trips = asyncio.run(one_game(server.url, game))
            finished += 1
            all_trips += trips[40:]
            burst += trips[:40]
            print(f"game {game + 1}: {actions} actions ({decisions} by the client) in {seconds:.2f} s")
    if not finished or not burst:
        raise SystemExit("no game was played: nothing was measured")
    for name, trips in (("in the burst", burst), ("paced", all_trips)):
        if len(trips) >= 2:
            cuts = statistics.quantiles(trips, n=100)
            print(
                f"client roll/move round trip, {name}: median {statistics.median(trips) * 1000:.1f} ms,"
                f" p95 {cuts[94] * 1000:.1f} ms over {len(trips)}"
            )


if __name__ == "__main__":
    main()
