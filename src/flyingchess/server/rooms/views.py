"""What a room tells its pages (docs/protocol.md): the whole game as a snapshot, and what
one page may do in it (`you`, `welcome`), so that a page draws and never works out a
rule or who may act. Read from the room; nothing here changes it."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ...engine.moves import move_infos
from ...engine.rules import Rules
from ...records.record import canonical_state
from ..protocol import iso_time
from .seats import Control

if TYPE_CHECKING:
    from .room import Room


@functools.lru_cache(maxsize=256)
def rules_summary(rules: Rules) -> tuple[dict[str, Any], str | None]:
    """A game's rules as pages see them, and their preset's name: the same for every
    update of a game, so worked out once (read-only: shared by every snapshot)."""
    return rules.to_json(), rules.preset_name()


def snapshot(room: Room) -> dict[str, Any]:
    """The game as every page sees it (docs/protocol.md, Game snapshot): sent with every
    update, so a page can always redraw from the last one it got."""
    session, state = room.session, room.session.state
    rules, rules_name = rules_summary(session.rules)
    infos = move_infos(state) if state.phase == "move" else []
    return {
        "id": room.id,
        "created": iso_time(session.created),
        "updated": iso_time(session.updated),
        "rules": rules,
        "rules_name": rules_name,
        "players": list(session.players),
        "seats": room.public_seats(),
        "state": canonical_state(state),
        "phase": state.phase,
        "roll": state.roll,
        "last_moved": list(state.last_moved),
        "six_moved": list(state.six_moved),
        "moves": [move.to_json() for move in infos],
        "choices": len({move.alike for move in infos}),
        "actions": len(session.actions),
        "speed": session.speed,
        "hints": session.extra.get("hints") is True,
        "dice": dice_view(room),
        "started": session.started,
        "timer": room.presence.timer,
        "turn_left": room.presence.turn_left(room.seats, state.colour),
        "grace": room.presence.grace,
        "chat": room.chat.recent,
    }


def dice_view(room: Room) -> dict[str, Any] | None:
    """What every page may know of the dice commitment (None: local dice)."""
    proof = room.session.proof
    if proof is None:
        return None
    view = proof.public(reveal=room.session.dice_revealed)
    return dict(view, seed=view.get("seed"))


def authority(room: Room, control: Control) -> dict[str, Any]:
    """What a page with this control may do here, in the server's words (`you`,
    `welcome`): its role, the seat its token names, `controls` (the seats it rolls and
    moves for now) and `dice_share` (who it adds a share to committed dice as: "host",
    its colour, or None)."""
    return {
        "role": control.role,
        "colours": sorted(control.colours),
        "controls": sorted(room.seats.controlled_by(control)),
        "dice_share": room.gathering.contributor(control) if room.session.proof is not None else None,
    }
