"""The value network: every player's chance to finish first, from any position.

One small network (one hidden layer, NumPy) serves every preset, custom rules and 2-4
players, because its inputs come from the compiled game rather than from any rule
written here:
- per player, in turn order from the player about to roll (so "slot 0" is always the
  roller, whoever that is): how many of its planes stand at each progress value (hangar
  to centre), its progress in expected rolls (the move table's fixed point), planes in
  the hangar, home and in play, whether the slot is played at all, and for each slot
  the progress that slot's next roll would send home from this one (the compiled
  captures: every face of every plane, jumps, flights and flight-line captures);
- for the position: sixes already rolled in this turn, the number of players, and the
  rule options as flags (`rules.RULE_FEATURE_NAMES`).

The output is a softmax over the playing slots: the chance that each finishes first.
It is trained by self-play on the batch simulator (benchmarks/train_value.py, which
records how) and used three ways: the strongest bot searches with it (bots/ace.py), the
page shows it as win chances, and `flyingchess analyse` prices every decision with it.

The one `encode` function works on arrays shaped like `BatchGame`'s ([B, players, 4]
positions), so training and play encode a position identically. Needs NumPy.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache
from importlib import resources
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..engine.board import CENTRE, HANGAR, PLANES_PER_COLOUR
from ..engine.game import State
from ..engine.rules import RULE_FEATURES, Rules, rule_flags
from .learned import FeatureTables, feature_tables, hit_chances

Floats = npt.NDArray[np.float32]

SLOTS: Final = 4
"""Player slots of the input (fewer players leave the last slots empty)."""
CELLS: Final = CENTRE + 2
"""Progress values -1 (hangar) .. CENTRE, indexed by progress + 1."""
SLOT_INPUTS: Final = CELLS + 5 + SLOTS
GLOBAL_INPUTS: Final = 3 + 3 + RULE_FEATURES
INPUTS: Final = SLOTS * SLOT_INPUTS + GLOBAL_INPUTS
RESPONSE_INPUTS: Final = INPUTS + SLOTS
"""A best-response network's inputs: the same, and which slot is the player it plays
for (the others play as one known bot, see `response_net`)."""
WEIGHTS_FILE: Final = "value_weights.npz"
OFFSETS_FILE: Final = "seat_offsets.json"


class ValueTables(NamedTuple):
    """What encoding needs from one rule set and player list, computed once."""

    features: FeatureTables
    rules: Floats
    players: int


@lru_cache(maxsize=64)
def value_tables(rules: Rules, players: tuple[str, ...]) -> ValueTables:
    return ValueTables(feature_tables(rules, players), np.array(rule_flags(rules), np.float32), len(players))


def encode(
    tables: ValueTables,
    positions: npt.NDArray[np.int8],
    turn: npt.ArrayLike,
    sixes: npt.ArrayLike,
    learner: npt.ArrayLike | None = None,
) -> Floats:
    """float32 [B, INPUTS]: B positions ([B, players, 4] progress), each seen from its
    player about to roll (`turn`, [B]) with `sixes` [B] sixes already rolled this turn.
    With `learner` ([B] player indices), [B, RESPONSE_INPUTS]: the learner's slot flagged
    too, for a best-response network."""
    rows, count = positions.shape[0], positions.shape[1]
    turn = np.asarray(turn, np.intp).reshape(-1)
    if learner is not None:
        flags = np.zeros((rows, SLOTS), np.float32)
        flags[np.arange(rows), (np.asarray(learner, np.intp).reshape(-1) - turn) % count] = 1.0
        return np.concatenate([encode(tables, positions, turn, sixes), flags], axis=1)
    order = (turn[:, None] + np.arange(count)) % count  # slot -> player index
    value, chance = hit_chances(tables.features, positions)
    rotated = np.take_along_axis(positions, order[:, :, None], axis=1)
    cells = rotated.astype(np.intp) + 1
    out = np.zeros((rows, INPUTS), np.float32)
    slots = out[:, : SLOTS * SLOT_INPUTS].reshape(rows, SLOTS, SLOT_INPUTS)
    flat = (np.arange(rows * count)[:, None] * CELLS + cells.reshape(rows * count, PLANES_PER_COLOUR)).ravel()
    counts = np.bincount(flat, minlength=rows * count * CELLS).reshape(rows, count, CELLS)  # planes per cell
    slots[:, :count, :CELLS] = counts * 0.5
    at = CELLS
    slots[:, :count, at] = np.take_along_axis(value.sum(axis=2), order, 1) / PLANES_PER_COLOUR
    slots[:, :count, at + 1] = (rotated == HANGAR).sum(axis=2) / PLANES_PER_COLOUR
    slots[:, :count, at + 2] = (rotated == CENTRE).sum(axis=2) / PLANES_PER_COLOUR
    slots[:, :count, at + 3] = ((rotated != HANGAR) & (rotated != CENTRE)).sum(axis=2) / PLANES_PER_COLOUR
    slots[:, :count, at + 4] = 1.0
    # loss[b, victim, attacker]: progress the attacker's next roll would send home, in slots
    loss = (chance * value[:, None]).sum(axis=3).transpose(0, 2, 1)  # [B, victim, attacker]
    loss = np.take_along_axis(np.take_along_axis(loss, order[:, :, None], 1), order[:, None, :], 2)
    slots[:, :count, at + 5 : at + 5 + count] = loss
    base = SLOTS * SLOT_INPUTS
    out[np.arange(rows), base + np.clip(np.asarray(sixes, np.intp).reshape(-1), 0, 2)] = 1.0
    out[:, base + 3 + count - 2] = 1.0
    out[:, base + 6 :] = tables.rules
    return out


PHASES: Final = ("opening", "play")
"""Seat offsets come in two sets: for the opening (every plane of every player in its
hangar) and for the rest of the game."""


@lru_cache(maxsize=64)
def _rules_key(rules: Rules) -> str:
    """Rules as the calibration file names them (once per rule set: ace asks often)."""
    return json.dumps(rules.to_json(), sort_keys=True)


class SeatOffsets:
    """Logit offsets for the configurations the shipped network was trained on: by
    configuration (rules and seating), phase, roller and slot (players in turn order
    from the roller), added before the softmax.

    Why: the network sees the players from the roller's point of view only, so it cannot
    tell where the seats sit around the board, which matters (in three-player games the
    seat before the empty one wins far more than its share; at the start of a two-player
    game the first to roll wins about 51%, where the network said 49.7%).
    benchmarks/calibrate_seats.py fits them on the network's own games and keeps a set only
    where it predicts fresh games better. Other configurations (custom rules, other
    seatings) keep the network's own chances."""

    def __init__(self, data: Any) -> None:
        self.table: dict[tuple[str, tuple[str, ...]], npt.NDArray[np.float32]] = {}
        for config in data["configs"]:
            players = tuple(config["players"])
            offsets = np.zeros((len(PHASES), len(players), SLOTS), np.float32)
            for phase, name in enumerate(PHASES):
                offsets[phase, :, : len(players)] = config["offsets"][name]
            self.table[(_rules_key(Rules.from_json(config["rules"])), players)] = offsets

    def rows(
        self, rules: Rules, players: tuple[str, ...], positions: npt.NDArray[np.int8], turn: npt.ArrayLike
    ) -> Floats | None:
        """[B, SLOTS]: each position's offsets (by its phase and roller), or None."""
        offsets = self.table.get((_rules_key(rules), players))
        if offsets is None:
            return None
        phase = np.where((positions == HANGAR).all(axis=(1, 2)), 0, 1)
        rows: Floats = offsets[phase, np.asarray(turn, np.intp)]
        return rows


class ValueNet:
    """inputs -> hidden (ReLU) -> one logit per slot; softmax over the slots in play."""

    def __init__(
        self,
        w1: npt.ArrayLike,
        b1: npt.ArrayLike,
        w2: npt.ArrayLike,
        b2: npt.ArrayLike,
        seat_offsets: SeatOffsets | None = None,
    ) -> None:
        """`seat_offsets`: the seat calibration fitted for these very weights (the shipped
        network has one; a network in training has none)."""
        self.seat_offsets = seat_offsets
        self.w1 = np.asarray(w1, np.float32)
        self.b1 = np.asarray(b1, np.float32)
        self.w2 = np.asarray(w2, np.float32)
        self.b2 = np.asarray(b2, np.float32)
        hidden = self.b1.shape[0]
        inputs = self.w1.shape[0]
        if inputs not in (INPUTS, RESPONSE_INPUTS) or self.w1.shape[1] != hidden or self.w2.shape != (hidden, SLOTS):
            raise ValueError(
                f"value network shapes {self.w1.shape}, {self.w2.shape}: expected ({INPUTS} or {RESPONSE_INPUTS}, H), (H, 4)"
            )
        if self.b2.shape != (SLOTS,):
            raise ValueError(f"value network output bias {self.b2.shape}: expected ({SLOTS},)")

    @property
    def responds(self) -> bool:
        """Whether it is a best-response network (its inputs flag the learner's slot)."""
        return bool(self.w1.shape[0] == RESPONSE_INPUTS)

    @classmethod
    def random(cls, hidden: int, rng: np.random.Generator) -> ValueNet:
        """A fresh network (He initialisation), for training."""
        return cls(
            rng.normal(0, np.sqrt(2 / INPUTS), (INPUTS, hidden)),
            np.zeros(hidden),
            rng.normal(0, np.sqrt(1 / hidden), (hidden, SLOTS)),
            np.zeros(SLOTS),
        )

    def responding(self) -> ValueNet:
        """A best-response network that starts as this one: the learner's flags weigh
        nothing yet (a warm start for benchmarks/train_response.py)."""
        if self.responds:
            return ValueNet(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())
        w1 = np.concatenate([self.w1, np.zeros((SLOTS, self.w1.shape[1]), np.float32)])
        return ValueNet(w1, self.b1.copy(), self.w2.copy(), self.b2.copy())

    def arrays(self) -> dict[str, Floats]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def logits(self, inputs: Floats, players: int) -> Floats:
        with _one_blas_thread():
            hidden = np.maximum(inputs @ self.w1 + self.b1, 0)
            logits: Floats = hidden @ self.w2 + self.b2
        logits[:, players:] = -np.inf
        return logits

    def chances(self, inputs: Floats, players: int, offsets: Floats | None = None) -> Floats:
        """[B, SLOTS]: each slot's chance to finish first (0 for empty slots); `offsets`
        ([B, SLOTS], from `position_offsets`) are added to the logits first."""
        logits = self.logits(inputs, players)
        if offsets is not None:
            logits[:, :players] += offsets[:, :players]
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        chances: Floats = weights / weights.sum(axis=1, keepdims=True)
        return chances

    def position_offsets(
        self, rules: Rules, players: tuple[str, ...], positions: npt.NDArray[np.int8], turn: npt.ArrayLike
    ) -> Floats | None:
        """[B, SLOTS]: the seat calibration's offsets for these positions, or None."""
        return None if self.seat_offsets is None else self.seat_offsets.rows(rules, players, positions, turn)


@lru_cache(maxsize=1)
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # an optional helper: without it BLAS keeps its own threads
        return None
    return ThreadpoolController()


def _one_blas_thread() -> AbstractContextManager[Any]:
    """The network's products are small: on a busy machine BLAS threads cost more than
    they bring (a decision's leaves took 4.8 ms with two threads on two shared cores, 0.8
    with one), so each product runs on one thread, for the bot's own calls only."""
    controller = _blas_controller()
    return nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


def read_net(weights: bytes) -> ValueNet:
    """A network from the bytes of an .npz file of w1, b1, w2, b2 (what
    benchmarks/train_value.py and train_response.py write)."""
    with np.load(io.BytesIO(weights)) as arrays:
        return ValueNet(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"])


def weights_digest(weights: bytes) -> str:
    """The SHA-256 a seat calibration names its weights by."""
    return hashlib.sha256(weights).hexdigest()


class WrongCalibration(ValueError):
    """A seat calibration fitted for other weights than the ones it was given with."""


def calibrated_net(weights: bytes, offsets: str) -> ValueNet:
    """The network in `weights` with the seat calibration in `offsets` (the text of a
    seat_offsets.json). The calibration names the weights it was fitted for: weights
    without a calibration of their own are refused rather than silently miscalibrated."""
    data = json.loads(offsets)
    if data.get("weights_sha256") != weights_digest(weights):
        raise WrongCalibration("the seat calibration was fitted for other weights: run benchmarks/calibrate_seats.py")
    net = read_net(weights)
    net.seat_offsets = SeatOffsets(data)
    return net


@lru_cache(maxsize=1)
def shipped_net() -> ValueNet:
    """The trained network that ships with the package, with its seat calibration
    (`calibrated_net`: refused if the calibration was fitted for other weights)."""
    package = resources.files(__package__)
    try:
        return calibrated_net(
            package.joinpath(WEIGHTS_FILE).read_bytes(), package.joinpath(OFFSETS_FILE).read_text(encoding="utf-8")
        )
    except WrongCalibration as error:
        raise WrongCalibration(
            f"{OFFSETS_FILE} was fitted for other weights than {WEIGHTS_FILE}: run benchmarks/calibrate_seats.py --write"
        ) from error


RESPONSES: Final[dict[str, str]] = {"greedy": "response_greedy.npz", "expectimax": "response_greedy.npz"}
"""The best-response networks that ship, by the bot whose table they answer
(benchmarks/train_response.py). Against `greedy`, `ace` with the one trained against it
at the leaves won more than with the self-play network, paired on the same games: +1.1
points with 4 players and +1.3 with 2 (4,000 games each; docs/bots.md, "The response
networks"). `expectimax` (greedy's evaluation a roll deeper) has no batched twin to
train against, and the same network carries over: +1.5 and +1.0 (4,000 games each).
The ones trained against `heuristic` and against mixed tables made `ace` no stronger,
so none ships for them (docs/bots.md, "Tried and not shipped")."""


@lru_cache(maxsize=8)
def response_net(opponent: str) -> ValueNet | None:
    """The shipped network trained to answer `opponent` (a registry name) in every other
    seat, or None where none was trained."""
    file = RESPONSES.get(opponent)
    if file is None:
        return None
    net = read_net(resources.files(__package__).joinpath(file).read_bytes())
    if not net.responds:
        raise ValueError(f"{file} is not a best-response network ({net.w1.shape[0]} inputs)")
    return net


def position_arrays(states: Sequence[State]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """(positions, turn, sixes) of engine states of one game, as `encode` takes them."""
    positions = np.array([state.planes for state in states], np.int8)
    turn = np.array([state.turn for state in states], np.intp)
    sixes = np.array([state.sixes for state in states], np.intp)
    return positions, turn, sixes


def win_chances(
    states: Sequence[State], net: ValueNet | None = None, learner: int | None = None
) -> npt.NDArray[np.float64]:
    """[len(states), players]: each player's chance to finish first, in the order of
    `state.players`, for states of one game waiting for the die or for a move (a state
    waiting for a move is valued as it stands, before the move). A decided game gives
    1 to its winner. A best-response network needs `learner`, the player it plays for."""
    if not states:
        return np.zeros((0, 0))
    net = net or shipped_net()
    if net.responds != (learner is not None):
        raise ValueError("a best-response network values positions for a learner, and only it does")
    first = states[0]
    count = len(first.players)
    tables = value_tables(first.rules, first.players)
    positions, turn, sixes = position_arrays(states)
    offsets = net.position_offsets(first.rules, first.players, positions, turn)
    learners = None if learner is None else np.full(len(states), learner, np.intp)
    slot_chances = net.chances(encode(tables, positions, turn, sixes, learners), count, offsets)[:, :count]
    order = (turn[:, None] + np.arange(count)) % count
    result = np.zeros((len(states), count))
    np.put_along_axis(result, order, slot_chances, axis=1)
    for row, state in enumerate(states):
        if state.ranking:
            result[row] = [1.0 if colour == state.ranking[0] else 0.0 for colour in state.players]
    return result


__all__ = [
    "INPUTS",
    "RESPONSES",
    "RESPONSE_INPUTS",
    "SLOTS",
    "SeatOffsets",
    "ValueNet",
    "ValueTables",
    "encode",
    "response_net",
    "shipped_net",
    "value_tables",
    "win_chances",
]
