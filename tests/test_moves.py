"""What a legal move does (flyingchess.engine.moves): one reading of the engine's own events
that the server's previews, the observation, the heuristic bot and the review share.
(Its twin in the batch simulator is held equal in test_batch.py, check_move_facts.)"""

from __future__ import annotations

import random

import pytest

from flyingchess import Rules, apply, legal_moves, new_game, roll
from flyingchess.engine.board import CENTRE, HANGAR
from flyingchess.engine.events import Bounced, Captured, Flew, Jumped
from flyingchess.engine.game import apply_unchecked, setup_position
from flyingchess.engine.moves import choices, move_info, move_infos
from flyingchess.engine.rules import PRESETS


def test_each_move_says_what_the_engine_does_with_it() -> None:
    """Over seeded random games of every preset, each legal move's facts and its JSON
    (docs/protocol.md, the snapshot's `moves`) are what `apply` reports, and every kind
    of move turns up."""
    seen: set[str] = set()
    for preset in PRESETS:
        rng = random.Random(preset)
        state = new_game(4, Rules.preset(preset))
        while not state.over:
            rolled, _ = roll(state, rng.randint(1, 6))
            for move in move_infos(rolled):
                after, events = apply(rolled, move.plane)
                data = move.to_json()
                assert (move.after, list(move.events)) == (after, events)
                assert data["from"] == rolled.planes[rolled.turn][move.plane]
                assert data["to"] == after.planes[rolled.turn][move.plane]
                assert data["launch"] == (data["from"] == HANGAR)
                assert data["jump"] == any(isinstance(e, Jumped) for e in events)
                assert data["flight"] == any(isinstance(e, Flew) for e in events)
                assert data["bounce"] == any(isinstance(e, Bounced) for e in events)
                assert [(c["colour"], tuple(c["planes"]), c["progress"], c["cause"]) for c in data["captures"]] == [
                    (e.colour, e.planes, e.progress, e.cause) for e in events if isinstance(e, Captured)
                ]
                assert move.finish == (data["to"] == CENTRE)
                seen.update(kind for kind in ("launch", "jump", "flight", "bounce") if data[kind])
                seen.update(["capture"] if move.captures else [])
                seen.update(["finish"] if move.finish else [])
            moves = legal_moves(rolled)
            state = apply_unchecked(rolled, rng.choice(moves) if moves else None)
    assert seen == {"launch", "jump", "flight", "bounce", "capture", "finish"}


def test_planes_at_the_same_place_are_one_choice() -> None:
    """Four planes in the hangar on a 6 are one launch; a plane on the ring beside them
    is a second choice. The page offers moves of one `choice` as one."""
    hangar = setup_position({"red": [HANGAR] * 4, "blue": [HANGAR] * 4}, roll=6)
    assert len(legal_moves(hangar)) == 4 and choices(hangar) == 1
    assert {move.to_json()["choice"] for move in move_infos(hangar)} == {HANGAR}
    one_out = setup_position({"red": [HANGAR, HANGAR, HANGAR, 3], "blue": [HANGAR] * 4}, roll=6)
    assert choices(one_out) == 2
    assert len({move.alike for move in move_infos(one_out)}) == 2


def test_a_move_that_cannot_be_made_is_refused() -> None:
    from flyingchess.engine.game import IllegalMoveError

    state = setup_position({"red": [HANGAR] * 4, "blue": [HANGAR] * 4}, roll=3)
    with pytest.raises(IllegalMoveError, match="hangar"):
        move_info(state, 0)
    assert move_infos(state) == () and choices(state) == 0


def test_the_review_asks_no_decision_of_moves_that_are_alike() -> None:
    """A 6 with every plane in the hangar launches one of four alike planes: the review
    lists no decision there (it did, at no cost, when it told moves apart by the plane
    that moved)."""
    pytest.importorskip("numpy")
    from flyingchess.bots.analysis import analyse
    from flyingchess.records.record import Record

    record = Record.for_game(Rules.preset("classic"), ("red", "blue"))
    record.add(6, 2)  # red launches one of four alike planes (and rolls again)
    assert [decision.index for decision in analyse(record).decisions] == []
