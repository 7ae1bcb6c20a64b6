"""The simulator: many seeded games between registered bots.

Game i is fully determined by (seed, i): its dice and its bots' seeds derive from those
two numbers alone, so results do not depend on how games are spread over processes.
Seats rotate with i so that no bot keeps the first move or one colour.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..bots import Bot, introduce, make_bot
from ..engine.board import CENTRE
from ..engine.game import DEFAULT_PLAYERS, State, new_game, play_out
from ..engine.rules import Rules


@dataclass(frozen=True)
class GameResult:
    index: int
    lineup: tuple[str, ...]
    """The bot name in each seat, in turn order."""
    places: tuple[float, ...]
    """Each seat's finishing place (1 = winner); see `finishing_places`."""
    rolls: int


def finishing_places(state: State) -> tuple[float, ...]:
    """Places by seat. Players who did not finish (end: first) are ranked behind the
    finishers by total progress, sharing the average place on a tie."""
    places: list[float] = [0.0] * len(state.players)
    for place, colour in enumerate(state.ranking, start=1):
        places[state.players.index(colour)] = float(place)
    unplaced = [seat for seat, colour in enumerate(state.players) if colour not in state.ranking]
    score = {seat: sum(p if p != CENTRE else CENTRE for p in state.planes[seat]) for seat in unplaced}
    ordered = sorted(unplaced, key=lambda seat: -score[seat])
    next_place = len(state.ranking) + 1
    position = 0
    while position < len(ordered):
        tied = [s for s in ordered[position:] if score[s] == score[ordered[position]]]
        average = next_place + position + (len(tied) - 1) / 2
        for seat in tied:
            places[seat] = average
        position += len(tied)
    return tuple(places)


def lineup_for(bots: Sequence[str], index: int) -> tuple[str, ...]:
    """Seat rotation: game `index` moves every bot `index` seats on."""
    shift = index % len(bots)
    return tuple(bots[(seat - shift) % len(bots)] for seat in range(len(bots)))


def play_bots(rules: Rules, bots: Sequence[Bot], dice: random.Random) -> tuple[State, int]:
    """One game between bot objects in seat order (default colours); returns (final, rolls).

    Forced moves (none or one legal) are made without asking the bot; a bot with a
    `choose_among(state, moves)` shortcut is given the moves already computed. The bots
    are introduced to the table first (`bots.introduce`)."""
    colours = DEFAULT_PLAYERS[len(bots)]
    introduce(dict(zip(colours, bots)))
    shortcuts = [getattr(bot, "choose_among", None) for bot in bots]

    def choose(state: State, value: int, moves: tuple[int, ...]) -> int | None:
        shortcut = shortcuts[state.turn]
        if shortcut is not None:
            plane: int | None = shortcut(state, moves)
            return plane
        return bots[state.turn].choose(state._replace(roll=value))

    uniform = dice.random
    return play_out(new_game(colours, rules), choose, lambda: int(uniform() * 6) + 1, ask_forced=False)


def play_game(rules: Rules, bots: Sequence[str], seed: int, index: int) -> GameResult:
    """Game `index` of a run with master `seed`."""
    lineup = lineup_for(bots, index)
    dice = random.Random(f"flyingchess-sim:{seed}:{index}")
    seats = [make_bot(name, dice.getrandbits(32)) for name in lineup]
    state, rolls = play_bots(rules, seats, dice)
    return GameResult(index, lineup, finishing_places(state), rolls)


def _play_chunk(arguments: tuple[Rules, tuple[str, ...], int, range]) -> list[GameResult]:
    rules, bots, seed, indices = arguments
    return [play_game(rules, bots, seed, index) for index in indices]


def run_games(
    rules: Rules, bots: Sequence[str], games: int, seed: int, jobs: int = 1, chunk: int = 50
) -> Iterator[GameResult]:
    """Every game's result, in index order, over `jobs` processes."""
    if not 2 <= len(bots) <= 4:
        raise ValueError("2, 3 or 4 bots play")
    for name in bots:
        make_bot(name)  # fails early, naming an unknown bot
    chunks = [(rules, tuple(bots), seed, range(start, min(start + chunk, games))) for start in range(0, games, chunk)]
    if jobs <= 1:
        for arguments in chunks:
            yield from _play_chunk(arguments)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(_play_chunk, chunks):
            yield from results
