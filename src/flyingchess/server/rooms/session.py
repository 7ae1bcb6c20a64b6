"""One stored game as a room plays it: its state, its actions, and every write to it.

Each change is computed first, written to the store, and only then adopted here, so a
failed write changes nothing. When several processes share the database every write is
fenced with this process's `epoch` (its claim on the game): once another process has
claimed the game, a write fails with `LostGame`, nothing is written, and the room is
told to stop (`on_lost`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from ...engine.events import Event
from ...engine.game import GameSetupError, IllegalMoveError, State, play, step, validate_players
from ...engine.rules import Rules, RulesError
from ...records.fair_dice import DiceProof, ProofError
from ...records.record import ActionError, Record, canonical_state, replay_actions, rules_to_json
from .. import metrics
from ..errors import MOVED_AWAY, DamagedGame, LostGame, RoomAway
from ..protocol import SPEEDS, ProtocolError, parse_timer
from ..storage.async_store import LoopStore
from ..storage.store import StoredGame
from .seats import Seats

REVEALED_MESSAGE: Final = "this game's dice were revealed when its rematch began: it cannot go on"
T = TypeVar("T")


class ActionLog:
    """A game's (roll, plane) actions, one byte each (roll * 8 + plane, 7 for a pass): a
    room holds its whole game in memory, and a long one should cost kilobytes, not a
    tuple per action."""

    PASS_CODE: Final = 7

    def __init__(self, actions: Iterable[tuple[int, int | None]] = ()) -> None:
        self.data = bytearray(roll * 8 + (self.PASS_CODE if plane is None else plane) for roll, plane in actions)

    def append(self, roll: int, plane: int | None) -> None:
        self.data.append(roll * 8 + (self.PASS_CODE if plane is None else plane))

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[tuple[int, int | None]]:
        for byte in self.data:
            yield byte >> 3, None if byte & 7 == self.PASS_CODE else byte & 7

    def pairs(self) -> list[tuple[int, int | None]]:
        return list(self)


@dataclass(frozen=True, kw_only=True)
class LoadedGame:
    """A stored game read once: every field parsed and checked, and its state replayed
    (`load`). A room and its session are built from it and parse nothing again."""

    id: str
    created: float
    updated: float
    rules: Rules
    players: tuple[str, ...]
    seats: Seats
    host_token: str | None
    started: bool
    extra: dict[str, Any]
    proof: DiceProof | None
    """The commitment this game's dice follow (a network game), or None (local dice)."""
    speed: str
    timer: int
    actions: list[tuple[int, int | None]]
    state: State


def load(stored: StoredGame, state: State | None = None) -> LoadedGame:
    """Read a stored game, checked field by field: DamagedGame when any part of it
    (rules, players, seats, timer, dice, speed, actions) would not be accepted from a
    page. CPU-bound (it replays the game): run it off the event loop. `state`: the state
    after its actions, when the caller has it already (a game it has just made)."""
    try:
        rules = Rules.from_json(stored.rules)
        players = validate_players(stored.players)
        if set(stored.seats) != set(players):
            raise ValueError("its seats do not match its players")
        seats = Seats.from_json(stored.seats)
        timer = parse_timer(stored.extra.get("timer", 0))
        proof = DiceProof.from_stored(stored.extra["dice"]) if "dice" in stored.extra else None
        if stored.speed not in SPEEDS:
            raise ValueError(f"unknown speed {stored.speed!r}")
        if state is None:
            state = replay_actions(players, rules, stored.actions)
        if stored.pending_roll is not None and not state.over:
            state, _ = step(state, stored.pending_roll)
    except (
        RulesError,
        GameSetupError,
        ActionError,
        IllegalMoveError,
        ProtocolError,
        ProofError,
        ValueError,
        TypeError,
        AttributeError,
    ) as error:
        raise DamagedGame(f"game {stored.id} cannot be loaded: {error}") from None
    return LoadedGame(
        id=stored.id,
        created=stored.created,
        updated=stored.updated,
        rules=rules,
        players=tuple(players),
        seats=seats,
        host_token=stored.host_token,
        started=stored.started,
        extra=stored.extra,
        proof=proof,
        speed=stored.speed,
        timer=timer,
        actions=stored.actions,
        state=state,
    )


class GameSession:
    def __init__(
        self,
        store: LoopStore,
        game: LoadedGame,
        epoch: int | None,
        on_lost: Callable[[], Awaitable[None]],
        holds: Callable[[], bool] = lambda: True,
        on_lapsed: Callable[[], None] = lambda: None,
    ) -> None:
        """The session of a game read from the store (`load`).
        `holds` says whether this process still holds the game's lease (cluster/nodes.py);
        `on_lost` is called when another process has claimed the game, `on_lapsed` when
        the lease ran out on this process's clock (it may get the game back)."""
        self.store = store
        self.epoch = epoch
        self.on_lost = on_lost
        self.on_lapsed = on_lapsed
        self.holds = holds
        self.id = game.id
        self.created = game.created
        self.updated = game.updated
        self.rules = game.rules
        self.players = game.players
        self.seats = game.seats
        self.host_token = game.host_token
        self.started = game.started
        self.extra = game.extra
        self.proof = game.proof
        """The commitment this game's dice follow (a network game), or None (local dice)."""
        self.speed = game.speed
        self.actions = ActionLog(game.actions)
        self.state = game.state

    async def _fenced(self, write: Awaitable[T]) -> T:
        """A store write; if another process has claimed the game meanwhile, nothing was
        written, the room stops at once and the page is told to reconnect. When this
        process's lease has run out on its own clock the write is not even sent, and the
        room pauses (its pages stay: Redis may come back before anyone else takes it)."""
        try:
            if not self.holds():
                if inspect.iscoroutine(write):
                    write.close()
                raise LostGame(f"game {self.id}: this process's lease has run out")
            return await write
        except LostGame:
            if self.holds():
                await self.on_lost()
            else:
                self.on_lapsed()
            raise RoomAway(MOVED_AWAY) from None

    async def write_seats(self, seats: Seats, started: bool) -> None:
        """Store new seats, then adopt them (a failed write leaves the old ones). Until
        the game has started, the dice proof follows who holds the seats (docs/records.md
        §6): stored in the same write, so seats and proof never disagree."""
        proof = self.proof
        if proof is not None and not self.started:
            proof = proof.with_seated(seats.held_by_players())
        extra = dict(self.extra, dice=proof.stored()) if proof is not None and proof != self.proof else None
        self.updated = await self._fenced(
            self.store.set_seats(self.id, seats.to_json(), started, epoch=self.epoch, valid=self.holds, extra=extra)
        )
        self.seats = seats
        self.started = started
        if extra is not None:
            self.extra, self.proof = extra, proof

    async def hold_roll(self, value: int, rolled: State) -> None:
        """A person rolled and has a move to choose: the die is stored before it is shown."""
        self.updated = await self._fenced(
            self.store.set_pending_roll(self.id, value, epoch=self.epoch, valid=self.holds)
        )
        self.state = rolled

    async def commit(self, rolled: State, value: int, plane: int | None) -> list[Event]:
        """Apply, store, then adopt the new state (the store write comes before any message)."""
        after, events = step(rolled, plane)
        await self.store_action(value, plane, after)
        return events

    async def store_action(self, value: int, plane: int | None, after: State) -> None:
        """Write an action, then adopt the state it led to (a failed write changes nothing)."""
        self.updated = await self._fenced(
            self.store.append_action(
                self.id,
                len(self.actions),
                value,
                plane,
                after.over,
                after.winner,
                list(after.ranking),
                epoch=self.epoch,
                valid=self.holds,
            )
        )
        self.actions.append(value, plane)
        self.state = after
        metrics.actions.inc()

    async def write_proof(self, proof: DiceProof) -> None:
        """Store a changed dice commitment (a contribution, a reveal), then adopt it."""
        extra = dict(self.extra, dice=proof.stored())
        self.updated = await self._fenced(self.store.set_extra(self.id, extra, epoch=self.epoch, valid=self.holds))
        self.extra, self.proof = extra, proof

    @property
    def dice_revealed(self) -> bool:
        """The seed may be shown: the game is over, or it was given up for a rematch."""
        return self.proof is not None and (self.proof.revealed or self.state.over)

    async def set_speed(self, speed: str) -> None:
        await self._fenced(self.store.set_speed(self.id, speed, epoch=self.epoch, valid=self.holds))
        self.speed = speed

    async def add_chat(self, at: float, colour: str | None, name: str, text: str, keep: int) -> None:
        await self._fenced(
            self.store.add_chat(self.id, at, colour, name, text, keep=keep, epoch=self.epoch, valid=self.holds)
        )

    # ---------------------------------------------------------------- reading

    def record(self, public_seats: dict[str, Any]) -> Record:
        record = Record(
            self.rules,
            self.players,
            [],
            rules_to_json(self.rules),
            dict(self.extra, seats=public_seats, id=self.id),
        )
        if self.proof is not None:
            record.extra["dice"] = self.proof.public(reveal=self.dice_revealed)
        for value, plane in self.actions:
            record.add(value, plane)
        return record

    def replay_steps(self, first: int, count: int) -> dict[str, Any]:
        """Steps `first`..`first + count - 1` of the game for the replay viewer, with the
        state before the first of them. Pure work over a copy of the action list: callers
        run it in a worker thread, so a long game never holds up other rooms."""
        actions = self.actions.pairs()  # a copy: the game may move on meanwhile
        first = min(first, len(actions))
        state = replay_actions(self.players, self.rules, actions[:first])
        before = canonical_state(state)
        steps = []
        for value, plane in actions[first : first + count]:
            state, events = play(state, value, plane)
            steps.append(
                {
                    "roll": value,
                    "plane": plane,
                    "events": [e.to_json() for e in events],
                    "state": canonical_state(state),
                }
            )
        end = first + len(steps)
        return {
            "initial": before,
            "from": first,
            "steps": steps,
            "total": len(actions),
            "next": end if end < len(actions) else None,
        }
