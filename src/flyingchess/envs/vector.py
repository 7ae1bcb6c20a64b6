"""Thousands of games at once for training a network: the batch simulator as an RL
environment.

`VectorGames` is the plain NumPy API: N games, one learner seat in each, every other
seat played by an opponent (a bot name, or a batched policy over observations, such as
a frozen copy of the learner); `step(actions)` plays the learner's move in every game,
lets the opponents move until the learner must choose again, and returns batched
observations and masks (the single environments' vectors, entry by entry: see
`observation.py`), the learner's rewards, terminated/truncated flags, and resets finished
games in the same step (their last observation is in the info). `FlyingChessVectorEnv`
is the same as a `gymnasium.vector.VectorEnv`. docs/environments.md has the recipes.

    games = VectorGames(4096, players=4, opponents="heuristic", seed=1)
    observation, mask = games.reset()
    while training:
        actions = policy(observation, mask)          # any masked policy, batched
        observation, mask, reward, terminated, truncated, info = games.step(actions)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..bots import Bot, make_bot
from ..engine.board import CENTRE, HANGAR, LANE_FIRST, PLANES_PER_COLOUR, RING_INDEX, RING_SIZE, SEAT, TAKEOFF
from ..engine.game import roll
from ..engine.rules import Rules
from .batch import ACTIONS, PASS_ACTION, BatchGame, Bools, Indices, heuristic_actions, random_actions
from .episode import EPISODE_MAX_ROLLS, end_rewards, parse_rules
from .evaluation import greedy_actions
from .observation import (
    DIE_AT,
    LAST_MOVED_AT,
    MOVE_FEATURES,
    MOVES_AT,
    OBSERVATION_SIZE,
    PLANE_FEATURES,
    RULES_AT,
    SEAT_FEATURES,
    SIX_MOVED_AT,
    SIXES_AT,
    TURN_AT,
    rule_features,
)

Floats = npt.NDArray[np.float32]
ObservationPolicy = Callable[[Floats, Bools], npt.ArrayLike]
"""A batched policy: (observations [n, OBSERVATION_SIZE], masks [n, 5] bool) -> actions [n]."""

_PROGRESS_VALUES: Final = CENTRE - HANGAR + 1
_BITS: Final = np.arange(PLANES_PER_COLOUR, dtype=np.uint8)


# --------------------------------------------------------------------------- observations


@dataclass(frozen=True, eq=False)
class ObservationTables:
    """`observe`'s per-plane entries laid out for look-ups, for one rule set and player list."""

    planes: Floats
    """[(observer * P + seat player) * 58 + progress + 1]: a plane's 7 entries; then 58
    rows of zeros, for seats nobody plays."""
    slot_player: Indices
    """[observer, seat offset]: the player index sitting that many seats clockwise (-1: nobody)."""
    turn_offset: Indices
    """[observer, player]: how many seats clockwise the player sits from the observer."""
    rules: Floats


@lru_cache(maxsize=64)
def observation_tables(rules: Rules, players: tuple[str, ...]) -> ObservationTables:
    count = len(players)
    planes = np.zeros((count, count, _PROGRESS_VALUES, PLANE_FEATURES), np.float32)
    for observer, observer_colour in enumerate(players):
        me = SEAT[observer_colour]
        for seat, colour in enumerate(players):
            for progress in range(HANGAR, CENTRE + 1):
                row = planes[observer, seat, progress - HANGAR]
                if progress == HANGAR:
                    row[0] = 1
                elif progress == TAKEOFF:
                    row[1] = 1
                elif progress < LANE_FIRST:
                    row[2] = 1
                    cell = RING_INDEX[SEAT[colour]][progress]
                    row[6] = ((cell - RING_INDEX[me][1]) % RING_SIZE + 1) / RING_SIZE
                elif progress < CENTRE:
                    row[3] = 1
                else:
                    row[4] = 1
                row[5] = max(progress, 0) / CENTRE
    slot_player = np.full((count, 4), -1, np.intp)
    turn_offset = np.zeros((count, count), np.intp)
    for observer, colour in enumerate(players):
        for seat, other in enumerate(players):
            offset = (SEAT[other] - SEAT[colour]) % 4
            slot_player[observer, offset] = seat
            turn_offset[observer, seat] = offset
    flat = np.concatenate(
        [planes.reshape(-1, PLANE_FEATURES), np.zeros((_PROGRESS_VALUES, PLANE_FEATURES), np.float32)]
    )
    return ObservationTables(flat, slot_player, turn_offset, rule_features(rules))


def batch_observe(
    game: BatchGame, rolls: npt.ArrayLike, observer: npt.ArrayLike, games: Indices | None = None
) -> Floats:
    """`observe(state, colour)` for every game at once (or the `games` given): `observer`
    is the observing player's index in each game, `rolls` the die it sees (0: none).
    (One look-up per plane in a table of its 7 entries; an empty seat looks up a row of
    zeros. Written for speed: this is most of a vector step's work.)"""
    rows = np.arange(game.batch) if games is None else np.asarray(games, np.intp)
    count = len(game.players)
    tables = observation_tables(game.rules, game.players)
    seen = np.broadcast_to(np.asarray(observer, np.intp), (game.batch,))[rows]
    dice = np.broadcast_to(np.asarray(rolls, np.intp), (game.batch,))[rows]
    n = len(rows)
    slots = tables.slot_player[seen]  # [n, 4]: the player in each seat clockwise, -1 none
    present = slots >= 0
    players = np.where(present, slots, 0)
    positions = np.take(game.positions.reshape(-1, PLANES_PER_COLOUR), rows[:, None] * count + players, axis=0)
    index = (seen[:, None] * count + players) * _PROGRESS_VALUES - HANGAR
    index = np.where(present, index, len(tables.planes) - _PROGRESS_VALUES - HANGAR)  # the zero rows
    looked_up = np.take(tables.planes, (index[:, :, None] + positions).reshape(-1), axis=0)
    out = np.zeros((n, OBSERVATION_SIZE), np.float32)
    seats = out[:, :DIE_AT].reshape(n, 4, SEAT_FEATURES)  # a view: written in place
    seats[:, :, 2:] = looked_up.reshape(n, 4, 4 * PLANE_FEATURES)
    seats[:, :, 0] = present
    ranking = game.ranking[rows]
    ranked = (np.left_shift(1, np.maximum(ranking, 0)) * (ranking >= 0)).sum(axis=1)
    seats[:, :, 1] = (ranked[:, None] >> players) & 1 & present
    rolled = np.flatnonzero(dice > 0)
    out[rolled, DIE_AT + dice[rolled] - 1] = 1
    out[:, SIXES_AT] = np.minimum(game.sixes[rows], 3) / 3
    live = np.flatnonzero(~game.over[rows])
    turn = game.turn[rows][live].astype(np.intp)
    out[live, TURN_AT + tables.turn_offset[seen[live], turn]] = 1
    out[live, SIX_MOVED_AT : SIX_MOVED_AT + 4] = (game.six_moved[rows][live, None] >> _BITS) & 1
    out[live, LAST_MOVED_AT : LAST_MOVED_AT + 4] = (game.last_moved[rows][live, None] >> _BITS) & 1
    deciding = rows[(dice > 0) & ~game.over[rows] & (game.turn[rows] == seen)]
    if len(deciding):
        out[np.searchsorted(rows, deciding), MOVES_AT:RULES_AT] = move_previews(
            game, np.broadcast_to(np.asarray(rolls, np.intp), (game.batch,)), deciding
        )
    out[:, RULES_AT:] = tables.rules
    return out


def move_previews(game: BatchGame, rolls: Indices, games: Indices) -> Floats:
    """[len(games), 16]: the MOVES_AT entries of the player to move in each of `games`
    (sorted indices), from the compiled tables (`BatchGame.move_facts`)."""
    part = game if len(games) == game.batch else game.take(games)
    dice = rolls[games]
    start, captures, special = part.move_facts(dice)
    paths = start.view(np.uint8).astype(np.intp) * 7 + dice[:, None]
    lands = (part.arrays.end_words[paths] & np.uint32(0xFF)).astype(np.uint8).view(np.int8)
    legal = part.action_mask(dice)[:, :PLANES_PER_COLOUR]
    out = np.zeros((len(games), PLANES_PER_COLOUR, MOVE_FEATURES), np.float32)
    out[:, :, 0] = np.maximum(lands, 0) / CENTRE
    out[:, :, 1] = captures
    out[:, :, 2] = special
    out[:, :, 3] = lands == CENTRE
    out *= legal[:, :, None]
    return out.reshape(len(games), -1)


def real_options(game: BatchGame, rolls: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """How many different moves the player to move has in each game (planes at the same
    progress make the same move); 0 means a pass. As `moves.choices` for one game."""
    legal = game.move_mask(rolls)
    planes = game.mover_planes()
    new = legal.copy()
    for plane in range(1, PLANES_PER_COLOUR):
        for earlier in range(plane):
            new[:, plane] &= ~(legal[:, earlier] & (planes[:, earlier] == planes[:, plane]))
    options: npt.NDArray[np.int8] = new.sum(axis=1, dtype=np.int8)
    return options


def first_legal(mask: Bools) -> Indices:
    """The lowest legal plane of each row of a [B, 5] mask, else PASS_ACTION."""
    planes = mask[:, :PLANES_PER_COLOUR]
    actions: Indices = np.where(planes.any(axis=1), np.argmax(planes, axis=1), PASS_ACTION)
    return actions


# --------------------------------------------------------------------------- opponents


class Opponent:
    """Plays the moves of the players to move in the games of `rows` (a bool mask over
    `game`'s batch), with the dice `rolls`."""

    name = "opponent"

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        raise NotImplementedError


class Heuristic(Opponent):
    name = "heuristic"

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        return heuristic_actions(game, rolls)[rows]


class Greedy(Opponent):
    name = "greedy"

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        games = np.flatnonzero(rows)
        part = game if len(games) == game.batch else game.take(games)
        return greedy_actions(part, rolls[games])


class Random(Opponent):
    name = "random"

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        return random_actions(game.move_mask(rolls), rng)[rows]


class EngineBot(Opponent):
    """Any registered bot, asked game by game through the engine (exact, not fast)."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        self.name = name
        self.bot: Bot = make_bot(name, seed)

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        chosen = []
        for index in np.flatnonzero(rows):
            state, _ = roll(game.to_state(int(index)), int(rolls[index]))
            plane = self.bot.choose(state)
            chosen.append(PASS_ACTION if plane is None else plane)
        return np.array(chosen, np.intp)


class Policy(Opponent):
    """A batched policy over observations (docs/environments.md): a function, or a frozen
    copy of the learner for self-play. Its moves are checked."""

    def __init__(self, policy: ObservationPolicy, name: str = "policy") -> None:
        self.policy = policy
        self.name = name

    def actions(self, game: BatchGame, rolls: Indices, rows: Bools, rng: np.random.Generator) -> Indices:
        games = np.flatnonzero(rows)
        observation = batch_observe(game, rolls, game.turn, games)
        mask = game.action_mask(rolls)[games]
        chosen = np.asarray(self.policy(observation, mask)).astype(np.intp).reshape(-1)
        if chosen.shape != (len(games),):
            raise ValueError(f"opponent {self.name} returned {chosen.shape[0]} actions for {len(games)} games")
        legal = (chosen >= 0) & (chosen < ACTIONS)
        legal[legal] = mask[np.flatnonzero(legal), chosen[legal]]
        if not legal.all():  # the learner's move is made already: the games need a reset()
            bad = int(np.argmin(legal))
            raise ValueError(
                f"opponent {self.name} chose illegal action {int(chosen[bad])}"
                f" (legal: {[int(a) for a in np.flatnonzero(mask[bad])]}); reset() the games"
            )
        return chosen


BATCHED: Final[dict[str, Callable[[], Opponent]]] = {"heuristic": Heuristic, "greedy": Greedy, "random": Random}
"""Bots with a batched twin that picks exactly their move (tests/test_vector.py); any other
registered bot plays through the engine, game by game."""

OpponentSpec = str | ObservationPolicy | Opponent


def as_opponent(spec: OpponentSpec, seed: int | None = None) -> Opponent:
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        return BATCHED[spec]() if spec in BATCHED else EngineBot(spec, seed)
    if callable(spec):
        return Policy(spec, getattr(spec, "__name__", "policy"))
    raise TypeError(f"an opponent is a bot name or a batched policy, not {type(spec).__name__}")


# --------------------------------------------------------------------------- the games

MIN_ROLLS: Final = 100
SKIP_ROUNDS: Final = 32
"""With skip_forced, a step plays forced moves for at most this many rolls of its slowest
game; a learner still without a real choice then is asked about its forced move (about
one decision in twelve, marked in `info["forced"]`), so games stuck in their hangars
never hold up the whole batch."""


@dataclass(frozen=True)
class Step:
    observation: Floats
    action_mask: Bools
    reward: Floats
    terminated: Bools
    truncated: Bools
    info: dict[str, Any]

    def __iter__(self) -> Any:
        return iter((self.observation, self.action_mask, self.reward, self.terminated, self.truncated, self.info))


class VectorGames:
    """`num_games` games, each with one learner seat (fixed, or random per episode); the
    other seats are `opponents`: one spec for all, or one per seat clockwise after the
    learner's (a bot name; a batched policy `(observations, masks) -> actions`; an
    `Opponent`). With `skip_forced` the learner is asked only when it has at least two
    different moves (a pass or a single move plays itself)."""

    def __init__(
        self,
        num_games: int,
        players: int | Sequence[str] = 4,
        rules: str | Rules | dict[str, Any] = "classic",
        opponents: OpponentSpec | Sequence[OpponentSpec] = "heuristic",
        seat: int | None = None,
        skip_forced: bool = False,
        max_rolls: int = EPISODE_MAX_ROLLS,
        seed: int | None = None,
    ) -> None:
        if num_games < 1:
            raise ValueError("num_games must be at least 1")
        if max_rolls < MIN_ROLLS:
            raise ValueError(f"max_rolls must be at least {MIN_ROLLS} (a learner must get its turn), not {max_rolls}")
        self.rules = parse_rules(rules)
        self.game = BatchGame(self.rules, players if isinstance(players, int) else tuple(players), num_games)
        self.players = self.game.players
        count = len(self.players)
        if seat is not None and not 0 <= seat < count:
            raise ValueError(f"seat must be 0..{count - 1} or None (a random seat each episode)")
        self.fixed_seat = seat
        self.skip_forced = skip_forced
        self.skip_rounds = SKIP_ROUNDS
        self._rounds = 0
        self.max_rolls = max_rolls
        self.rng = np.random.default_rng(seed)
        self.set_opponents(opponents)
        self.seat: Indices = np.zeros(num_games, np.intp)
        self.rolls: Indices = np.zeros(num_games, np.intp)
        """The die each learner decides with (0 where none is pending)."""
        self.waiting: Bools = np.zeros(num_games, np.bool_)
        """Games where the learner has rolled and must choose."""
        self.episode_rolls: npt.NDArray[np.int32] = np.zeros(num_games, np.int32)

    @property
    def num_games(self) -> int:
        return self.game.batch

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """New opponents from the next move on (self-play: a fresh frozen copy)."""
        count = len(self.players) - 1
        if isinstance(opponents, (str, Opponent)) or callable(opponents):
            shared = as_opponent(opponents, int(self.rng.integers(2**31)))
            self.opponents: list[Opponent] = [shared] * count
        else:
            specs = list(opponents)
            if len(specs) != count:
                raise ValueError(f"{len(specs)} opponents given for {count} other seats")
            self.opponents = [as_opponent(spec, int(self.rng.integers(2**31))) for spec in specs]

    # ----------------------------------------------------------------- the API

    def reset(self, seed: int | None = None) -> tuple[Floats, Bools]:
        """Every game from the start; returns the learners' first observations and masks."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._new_episodes(np.arange(self.num_games))
        return self.observe(), self.action_masks()

    def observe(self) -> Floats:
        """The learners' observations now (each from its own seat)."""
        return batch_observe(self.game, np.where(self.waiting, self.rolls, 0), self.seat)

    def action_masks(self) -> Bools:
        """bool [N, 5]: the learners' legal actions (never all false)."""
        mask = self.game.action_mask(np.where(self.waiting, self.rolls, 1))
        mask[~self.waiting] = False
        mask[~self.waiting, PASS_ACTION] = True
        return mask

    def step(self, actions: npt.ArrayLike) -> Step:
        """Play the learners' `actions` (one per game, 0..4), then the opponents until each
        learner must choose again. Finished games (terminated: the game ended; truncated:
        `max_rolls` reached) are reset at once: `info["final_observation"]`,
        `info["final_action_mask"]`, `info["final_rank"]` (0 = first) and
        `info["final_seat"]` hold their last view where `info["done"]` is true;
        `info["seat"]` is each learner's seat now. ValueError for an illegal action,
        and nothing changes."""
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_games,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_games} integers 0..4, one per game")
        chosen = chosen.astype(np.intp)
        mask = self.action_masks()
        legal = (chosen >= 0) & (chosen < ACTIONS)
        legal[legal] = mask[np.flatnonzero(legal), chosen[legal]]
        if not legal.all():
            game = int(np.argmin(legal))
            raise ValueError(
                f"game {game}: action {int(chosen[game])} is illegal"
                f" (legal: {[int(a) for a in np.flatnonzero(mask[game])]})"
            )
        self.game.step_unchecked(np.where(self.waiting, self.rolls, 1), chosen, idle=~self.waiting)
        self.waiting[:] = False
        self._run()
        terminated = self.game.over.copy()
        truncated = ~terminated & (self.game.rolls >= self.max_rolls)
        done = terminated | truncated
        reward = np.where(terminated, self._rewards(), 0).astype(np.float32)
        info: dict[str, Any] = {"done": done}
        if done.any():
            finished = np.flatnonzero(done)
            info["final_observation"] = np.zeros((self.num_games, OBSERVATION_SIZE), np.float32)
            info["final_observation"][finished] = batch_observe(
                self.game, np.where(self.waiting, self.rolls, 0), self.seat, finished
            )
            info["final_action_mask"] = self.action_masks()
            info["final_rank"] = self._places()
            info["final_seat"] = self.seat.copy()
            self._new_episodes(finished)
        info["seat"] = self.seat.copy()
        if self.skip_forced:  # the learners asked about a forced move after all
            info["forced"] = self.waiting & (real_options(self.game, np.where(self.waiting, self.rolls, 1)) <= 1)
        return Step(self.observe(), self.action_masks(), reward, terminated, truncated, info)

    # ----------------------------------------------------------------- inside

    def _new_episodes(self, games: Indices) -> None:
        """Fresh games at these indices, each played up to its learner's first decision.
        With skip_forced a game can end before its learner has a real choice: it is
        dealt again, so a new episode always starts with a decision."""
        count = len(self.players)
        while len(games):
            self.game.reset_games(games)
            if self.fixed_seat is None:
                self.seat[games] = self.rng.integers(0, count, size=len(games))
            else:
                self.seat[games] = self.fixed_seat
            self.waiting[games] = False
            self._run()
            games = games[~self.waiting[games]]

    def _run(self) -> None:
        """Roll and play for every game until its learner must choose (or it ends)."""
        self._rounds = 0
        self._play(self.game, self.seat, self.rolls, self.waiting)

    def _play(self, game: BatchGame, seat: Indices, rolls: Indices, waiting: Bools) -> None:
        """`_run` over `game` (the arrays are its games', changed in place). Games reach
        their learner after different numbers of rolls; once few are left they are taken
        out into a small batch, so the last stragglers do not cost a whole batch's work
        each (with skip_forced a learner may wait dozens of rolls for a real choice)."""
        count = len(self.players)
        while True:
            todo = ~waiting & ~game.over & (game.rolls < self.max_rolls)
            left = int(todo.sum())
            if left == 0:
                return
            if game.batch >= 64 and left <= game.batch // 4:
                games = np.flatnonzero(todo)
                part = game.take(games)
                part_rolls, part_waiting = rolls[games], waiting[games]
                self._play(part, seat[games], part_rolls, part_waiting)
                game.put(games, part)
                rolls[games], waiting[games] = part_rolls, part_waiting
                return
            dice = game.roll(self.rng).astype(np.intp)
            rolls[todo] = dice[todo]
            mine = todo & (game.turn == seat)
            forced = np.zeros_like(mine)
            self._rounds += 1
            if self.skip_forced and mine.any() and self._rounds <= self.skip_rounds:
                forced = mine & (real_options(game, rolls) <= 1)
            waiting |= mine & ~forced
            moving = todo & ~(mine & ~forced)
            if not moving.any():
                continue
            actions = np.full(game.batch, PASS_ACTION, np.intp)
            if forced.any():
                actions[forced] = first_legal(game.action_mask(rolls))[forced]
            theirs = moving & ~mine
            offset = (game.turn.astype(np.intp) - seat) % count
            for opponent in dict.fromkeys(self.opponents):  # each distinct opponent once
                plays = np.array([False] + [o is opponent for o in self.opponents])  # by seat offset
                rows = theirs & plays[offset]
                if rows.any():
                    actions[rows] = opponent.actions(game, rolls, rows, self.rng)
            game.step_unchecked(rolls, actions, idle=~moving)

    def _places(self) -> Indices:
        """Each learner's place in its game's ranking (0 first; -1 unranked)."""
        hits = self.game.ranking == self.seat[:, None]
        places: Indices = np.where(hits.any(axis=1), np.argmax(hits, axis=1), -1)
        return places

    def _rewards(self) -> Floats:
        """The learners' end rewards, as the single environments give them."""
        game = self.game
        won = game.winner == self.seat
        rewards: Floats = end_rewards(len(self.players), game.arrays.end_first, won, self._places()).astype(np.float32)
        return rewards


# --------------------------------------------------------------------------- Gymnasium


def single_spaces() -> tuple[spaces.Dict, spaces.Discrete]:
    observation = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
        }
    )
    return observation, spaces.Discrete(ACTIONS)


class FlyingChessVectorEnv(gymnasium.vector.VectorEnv):
    """`VectorGames` as a Gymnasium vector environment (same-step autoreset: the last
    observation of a finished episode is in `info["final_obs"]`, where `info["_final_obs"]`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(self, num_envs: int = 64, **options: Any) -> None:
        self.games = VectorGames(num_envs, **options)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = single_spaces()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    def _view(self, observation: Floats, mask: Bools) -> dict[str, np.ndarray]:
        return {"observation": observation, "action_mask": mask.astype(np.int8)}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        observation, mask = self.games.reset(seed)
        self._np_random = self.games.rng
        everywhere = np.ones(self.num_envs, np.bool_)
        return self._view(observation, mask), {"seat": self.games.seat.copy(), "_seat": everywhere}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        result = self.games.step(actions)
        everywhere = np.ones(self.num_envs, np.bool_)
        info: dict[str, Any] = {}
        for key in ("seat", "forced"):  # Gymnasium's convention: each key with its mask
            if key in result.info:
                info[key], info[f"_{key}"] = result.info[key], everywhere
        if "final_observation" in result.info:
            done = result.info["done"]
            info["final_obs"] = self._view(result.info["final_observation"], result.info["final_action_mask"])
            info["_final_obs"] = done
            info["final_info"] = {
                "rank": result.info["final_rank"],
                "_rank": done,
                "seat": result.info["final_seat"],
                "_seat": done,
            }
            info["_final_info"] = done
        return (
            self._view(result.observation, result.action_mask),
            result.reward,
            result.terminated,
            result.truncated,
            info,
        )

    def action_masks(self) -> Bools:
        """bool [num_envs, 5] (sb3-contrib's name for it)."""
        return self.games.action_masks()

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        self.games.set_opponents(opponents)


__all__ = [
    "BATCHED",
    "EngineBot",
    "FlyingChessVectorEnv",
    "ObservationPolicy",
    "Opponent",
    "Policy",
    "Step",
    "VectorGames",
    "batch_observe",
    "first_legal",
    "observation_tables",
    "real_options",
]
