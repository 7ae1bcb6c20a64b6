"""Who may act for which seat (`Seats`) and who is here (`Presence`), without a server:
the rules the rooms apply to every request and every update, one case at a time."""

from __future__ import annotations

import time

import pytest

from flyingchess.server.protocol import ProtocolError
from flyingchess.server.rooms.presence import Presence
from flyingchess.server.rooms.seats import HOST, SPECTATOR, Control, Seat, Seats, token_hash, without_secrets


def table() -> Seats:
    """Red played on the host's device, yellow by a player from their own, blue open, green a bot."""
    return Seats.from_json(
        {
            "red": {"kind": "human"},
            "yellow": {"kind": "player", "name": "Yu", "token": token_hash("yellow-secret")},
            "blue": {"kind": "open"},
            "green": {"kind": "bot", "bot": "heuristic"},
        }
    )


class Page:
    """A stand-in connection: Presence only keeps it as a key."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def test_a_token_opens_its_own_seat_and_the_host_token_the_host() -> None:
    seats = table()
    yellow = seats.authenticate("yellow-secret", host_token=token_hash("host-secret"))
    assert yellow == Control(colours=frozenset({"yellow"}), token=token_hash("yellow-secret"))
    assert seats.authenticate("host-secret", host_token=token_hash("host-secret")) == HOST
    with pytest.raises(ProtocolError, match="opens no seat") as refused:
        seats.authenticate("guess", host_token=token_hash("host-secret"))
    assert refused.value.code == "bad-token"


def test_the_host_plays_the_human_seats_and_a_player_only_the_seat_its_token_holds() -> None:
    seats = table()
    yellow = seats.authenticate("yellow-secret", None)
    assert {colour for colour in seats if seats.controls(HOST, colour)} == {"red"}
    assert {colour for colour in seats if seats.controls(yellow, colour)} == {"yellow"}
    assert not any(seats.controls(SPECTATOR, colour) for colour in seats)
    assert seats.controlled_by(HOST) == {"red"} and seats.controlled_by(yellow) == {"yellow"}
    # the seat given to someone else: the old token's rights end at once
    given_away = seats.with_seat("yellow", Seat("player", name="Zo", token=token_hash("zo-secret")))
    assert not given_away.controls(yellow, "yellow") and given_away.controlled_by(yellow) == set()
    with pytest.raises(ProtocolError):
        seats.with_seat("purple", Seat("open"))


def test_who_may_speak_and_under_which_name() -> None:
    seats = table()
    assert seats.speaker(HOST) == (None, "host")
    assert seats.speaker(seats.authenticate("yellow-secret", None)) == ("yellow", "Yu")
    with pytest.raises(ProtocolError) as refused:
        seats.speaker(SPECTATOR)
    assert refused.value.code == "not-your-seat"


def test_starting_gives_open_seats_to_the_autopilot_and_a_rematch_opens_the_players_seats() -> None:
    started = table().started()
    assert started["blue"].kind == "bot" and started["red"].kind == "human" and started["yellow"].kind == "player"
    again = table().for_rematch()
    assert again["yellow"] == Seat("open") and again["red"].kind == "human" and again["green"].kind == "bot"
    assert table().held_by_players() == ("yellow",) and table().any_open and not started.any_open


def test_seats_round_trip_and_never_show_a_token() -> None:
    seats = table()
    assert Seats.from_json(seats.to_json()) == seats
    shown = without_secrets(seats.to_json())
    assert "token" not in shown["yellow"] and shown["yellow"]["name"] == "Yu"
    assert all("token" not in seat.public() for seat in seats.values())
    for bad in ({"kind": "wizard"}, {"kind": "player", "name": 3}, "player"):
        with pytest.raises(ValueError):
            Seat.from_json(bad)


def test_a_seat_is_connected_while_a_page_that_controls_it_watches() -> None:
    seats = table()
    presence = Presence(timer=0, grace=30)
    assert presence.connected(seats) == {"green"}  # bots are always here
    host, player, watcher = Page(), Page(), Page()
    presence.attach(host, HOST)
    presence.attach(player, seats.authenticate("yellow-secret", None))
    presence.attach(watcher, SPECTATOR)
    assert presence.connected(seats) == {"red", "yellow", "green"}
    public = presence.public_seats(seats)
    assert public["yellow"]["connected"] and not public["blue"]["connected"]
    assert "token" not in public["yellow"]
    presence.detach(player, seats)
    assert presence.connected(seats) == {"red", "green"}
    assert set(presence.absent_since) == {"yellow"}  # its grace period starts


def test_an_absent_seat_goes_to_the_autopilot_after_its_grace_and_comes_back_with_its_page() -> None:
    seats = table()
    presence = Presence(timer=0, grace=30)
    player = Page()
    yellow = seats.authenticate("yellow-secret", None)
    presence.attach(Page(), HOST)  # red's page stays
    presence.attach(player, yellow)
    presence.detach(player, seats)
    left = presence.absent_since["yellow"]
    assert presence.autopilot_due(left + 29, seats, to_move="yellow") == set()
    assert presence.autopilot_due(left + 30, seats, to_move="red") == {"yellow"}
    presence.autopilot.add("yellow")
    assert presence.autopilot_due(left + 60, seats, to_move="yellow") == set()  # already on it
    assert presence.heard_from(yellow, seats)  # back: it leaves the autopilot, the pages hear of it
    assert presence.autopilot == set() and "yellow" not in presence.absent_since
    assert not presence.heard_from(yellow, seats)  # nothing new the second time


def test_a_turn_timer_hands_the_seat_to_move_to_the_autopilot() -> None:
    seats = table()
    presence = Presence(timer=20, grace=30)
    presence.new_turn()
    started = presence.turn_started
    assert presence.autopilot_due(started + 19, seats, to_move="red") == set()
    assert presence.autopilot_due(started + 20, seats, to_move="red") == {"red"}
    assert presence.autopilot_due(started + 20, seats, to_move="green") == set()  # a bot has no clock
    left = presence.turn_left(seats, "red")
    assert left is not None and 0 < left <= 20
    assert presence.turn_left(seats, "green") is None and Presence(0, 30).turn_left(seats, "red") is None


def test_the_clock_knows_how_long_it_may_sleep_before_the_autopilot_is_due() -> None:
    seats = table()
    presence = Presence(timer=20, grace=30)
    presence.new_turn()
    started = presence.turn_started
    assert presence.next_due(started + 5, seats, to_move="red") == 15  # the turn timer
    assert presence.next_due(started + 5, seats, to_move="green") is None  # a bot has no clock
    assert Presence(timer=0, grace=30).next_due(started, seats, to_move="red") is None
    player = Page()
    presence.attach(player, seats.authenticate("yellow-secret", None))
    presence.detach(player, seats)
    left = presence.absent_since["yellow"]
    assert presence.next_due(left + 10, seats, to_move="green") == 20  # yellow's grace
    assert presence.next_due(started + 25, seats, to_move="red") == 0  # overdue: look now
    presence.autopilot |= {"yellow", "red"}  # already on the autopilot: no deadline of theirs
    assert presence.next_due(left + 10, seats, to_move="red") is None
    # whenever next_due says a seat is due, autopilot_due names it (the clock never
    # wakes to find nothing, then sleeps past a deadline)
    presence.autopilot.clear()
    for now in (started, started + 7, left + 29.5):
        wait = presence.next_due(now, seats, to_move="red")
        assert wait is not None and presence.autopilot_due(now + wait, seats, to_move="red")


def test_a_page_whose_seat_was_given_away_becomes_a_spectator() -> None:
    seats = table()
    presence = Presence(timer=0, grace=30)
    player, host = Page(), Page()
    yellow = seats.authenticate("yellow-secret", None)
    presence.attach(player, yellow)
    presence.attach(host, HOST)
    given_away = seats.with_seat("yellow", Seat("open"))
    assert presence.revoked(given_away) == [(player, yellow)]
    assert presence.control_of(player) == SPECTATOR and presence.control_of(host) == HOST
    assert presence.revoked(given_away) == []
    presence.seat_changed("yellow")
    assert "yellow" not in presence.absent_since and "yellow" not in presence.autopilot


def test_presence_notes_when_a_page_last_watched() -> None:
    presence = Presence(timer=0, grace=30)
    before = time.monotonic()
    presence.attach(Page(), SPECTATOR)
    assert presence.last_seen >= before
