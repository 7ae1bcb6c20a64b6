"""The ace bot: a search over the next two rolls, with the value network at the leaves.

For each distinct position its legal moves lead to, every face of the next roll is
considered; the player who rolls it (an opponent, or the bot itself after an extra
roll) plays the reply that the value network says is best *for that player*; then
every face of the roll after that, answered the same way; the bot's own chance to
finish first is averaged over the faces (depth 3, the default; depth 2 stops after one
roll, depth 1 values each move's position as it stands). Each opponent is thus modelled
as playing for itself (max-n with a value that knows all players), not as one
adversary minimising the bot's chances. The leaves of one level are valued in one
batch (bots/value.py), which keeps a decision to a few milliseconds.

Once a player has finished first the network has nothing left to predict (it values
finishing first); in games that play on for places the bot then plays as `greedy`,
whose evaluation values places.

Told who sits at the table (`meet`), the bot plays a best response where it can: when
every other seat is one bot it can model (`MODELLED`), the opponents' replies in the
search are that bot's own choices; with one bot of any kind in every other seat, the
leaves are valued by the network that answers it where one ships (bots/value.py,
`response_net`: trained against it, or against a bot that plays like it), else by the
self-play network. Otherwise (humans, unknown clients, mixed tables) it searches as
above.
Against a modelled table, a close call (moves within `CLOSE_CALL` of the best) is
searched a roll deeper: where the choice matters least the depth-3 values are noisiest,
and the modelled replies make a fourth roll cheap enough for those moves alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Final

from ..engine.compiled import FACES
from ..engine.game import State, apply_unchecked, legal_moves, moves_unchecked, play_unchecked
from .base import Bot, make_bot
from .greedy import GreedyBot
from .levels import resolve
from .value import ValueNet, response_net, shipped_net, win_chances

MODELLED: Final = frozenset({"heuristic"})
"""The bots whose replies the search plays out as they play them when every other seat is
one of them: deterministic, and cheap enough to ask at every opponent's roll of the
search (`heuristic` decides in about 16 us; `greedy` would take most of the time budget)."""

CLOSE_CALL: Final = 0.01
"""Against a modelled table, the moves whose value is within this of the best are
searched a roll deeper. Paired on common dice against the bot without it, 3,000 games
of each preset on seeds of their own: +0.8 to +1.6 points of win rate, none alone clear
of zero, the four together +1.1 (+0.0 .. +2.1); wider margins (0.02, 0.03) gain no
more. It costs time (a real choice's median 2.8 ms becomes 9.9 ms), inside what a
decision may take (docs/bots.md, "`ace`", has both)."""

DEPTHS: Final = (1, 2, 3, 4)
"""1: each move's position valued as it stands; 2: over the next roll and its reply;
3: over the next two rolls, each roller replying with its best move by the network
(the default); 4: three rolls (affordable only against a modelled opponent)."""


class AceBot:
    name: ClassVar[str] = "ace"

    def __init__(
        self,
        seed: int | None = None,
        depth: int = 3,
        net: ValueNet | None = None,
        respond: bool = True,
        responses: Callable[[str], ValueNet | None] = response_net,
        close: float = CLOSE_CALL,
    ) -> None:
        """`respond=False`: never a best response, whatever the table (the bot as it was
        before, for comparisons); `responses`: the response network for a bot's name;
        `close`: how near the best a move must be to be searched a roll deeper against a
        modelled table (0: never)."""
        del seed  # deterministic: nothing to seed
        if depth not in DEPTHS:
            raise ValueError(f"depth must be one of {DEPTHS}")
        self.depth = depth
        self.self_play = net or shipped_net()
        self.net = self.self_play
        self.opponent: Bot | None = None
        """The bot every other seat plays, when the bot responds to it (`meet`)."""
        self.places = GreedyBot()
        self.respond = respond
        self.responses = responses
        self.close = close

    def meet(self, colour: str, table: Mapping[str, str | None]) -> None:
        """Be told the table: each seat's bot by registry or level name, None for a player
        the bot cannot know (a person, a client). With one bot in every other seat, value
        the leaves by the network that answers it where one ships (else the self-play
        network); when that bot is modelled, search as its best response too: its replies
        as it plays them."""
        names = [name for seat, name in table.items() if seat != colour]
        self.net, self.opponent = self.self_play, None
        if not self.respond or not names or not all(names):
            return
        bots = {resolve(name) for name in names if name}
        if len(bots) > 1:
            return
        name = bots.pop()
        self.net = self.responses(name) or self.self_play
        if name in MODELLED:
            self.opponent = make_bot(name)

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if len(moves) <= 1:
            return moves[0] if moves else None
        if state.ranking:
            return self.places.choose(state)
        return moves[best_index(self.move_values(state, moves))]

    def move_values(self, state: State, moves: tuple[int, ...]) -> list[float]:
        """The bot's chance to finish first after each of `moves` (state waits for a move)."""
        me = state.turn
        learner = me if self.net.responds else None
        afters = [apply_unchecked(state, plane) for plane in moves]
        distinct = list(dict.fromkeys(afters))
        values = self._lookahead(distinct, self.depth - 1, me, learner)
        if self.close and self.opponent is not None and len(distinct) > 1 and self.depth < DEPTHS[-1]:
            # a close call against a modelled table: the moves near the best, a roll deeper
            best = max(values)
            near = [k for k, value in enumerate(values) if value >= best - self.close]
            if len(near) > 1:
                deeper = self._lookahead([distinct[k] for k in near], self.depth, me, learner)
                floor = min(deeper) - 1.0  # the others stay behind every move looked at again
                values = [floor + value - best for value in values]
                for k, value in zip(near, deeper):
                    values[k] = value
        value_of = dict(zip(distinct, values))
        return [value_of[after] for after in afters]

    def _lookahead(self, states: list[State], rolls: int, me: int, learner: int | None) -> list[float]:
        """`me`'s chance after each of `states` (waiting for the die), averaged over every
        face of the next `rolls` rolls, each roller answering with the move it picks at
        that roll (by the network, or as the modelled opponent plays); the network values
        what stands after the last roll (or the states themselves when `rolls` is 0)."""
        if rolls == 0:
            chances = win_chances(states, self.net, learner)
            return [float(chances[k, me]) for k in range(len(states))]
        levels: list[list[list[tuple[int, list[State]]]]] = []
        frontier = states
        while True:
            plan = self._expand(frontier, me)
            chances = win_chances(_leaves(plan), self.net, learner)
            if len(levels) == rolls - 1:
                values = self._average(plan, chances, me)
                break
            levels.append(plan)
            frontier = self._chosen(plan, chances)  # the reply each roller picks, one more roll over those
        for plan in reversed(levels):  # back up: each state's mean over its faces
            means, k = [], 0
            for faces in plan:
                means.append(sum(values[k : k + len(faces)]) / len(faces))
                k += len(faces)
            values = means
        return values

    def _expand(self, states: list[State], me: int) -> list[list[tuple[int, list[State]]]]:
        """For each state waiting for the die: per face, (roller, the distinct positions its
        legal replies lead to); a decided game is one leaf with roller -1. When the bot
        responds to a known opponent, an opponent's roll leads only where that bot plays."""
        opponent = self.opponent
        plan = []
        for state in states:
            if state.ranking or state.over:
                plan.append([(-1, [state])])
                continue
            faces = []
            for face in FACES:
                replies = moves_unchecked(state, face)
                if opponent is not None and state.turn != me and len(replies) > 1:
                    played = opponent.choose(state._replace(roll=face))
                    replies = replies if played is None else (played,)
                children = [play_unchecked(state, face, reply) for reply in replies]
                children = children or [play_unchecked(state, face, None)]  # a pass
                faces.append((state.turn, list(dict.fromkeys(children))))
            plan.append(faces)
        return plan

    @staticmethod
    def _picks(plan: list[list[tuple[int, list[State]]]], chances: Any) -> Iterator[tuple[int, int]]:
        """(row of the face's first leaf, row of the leaf its roller picks) per face, in order."""
        row = 0
        for faces in plan:
            for roller, leaves in faces:
                block = chances[row : row + len(leaves)]
                yield row, row + (0 if roller < 0 else int(block[:, roller].argmax()))
                row += len(leaves)

    def _average(self, plan: list[list[tuple[int, list[State]]]], chances: Any, me: int) -> list[float]:
        """Per planned state: `me`'s chance averaged over the faces, each roller picking its best."""
        picks = iter(self._picks(plan, chances))
        means = []
        for faces in plan:
            total = sum(float(chances[next(picks)[1], me]) for _ in faces)
            means.append(total / len(faces))
        return means

    def _chosen(self, plan: list[list[tuple[int, list[State]]]], chances: Any) -> list[State]:
        """The position each face's roller picks, in plan order."""
        leaves = _leaves(plan)
        return [leaves[pick] for _, pick in self._picks(plan, chances)]


def best_index(values: list[float]) -> int:
    """The index of the highest value; ties go to the first (the lowest plane)."""
    return max(range(len(values)), key=lambda k: (values[k], -k))


def _leaves(plan: list[list[tuple[int, list[State]]]]) -> list[State]:
    """Every leaf of a plan, in order (one batch for the network)."""
    return [leaf for faces in plan for _, found in faces for leaf in found]
