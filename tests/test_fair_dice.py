"""Dice a player can check (docs/records.md §6): the construction, the proof in a record,
`flyingchess verify`, and a network server that commits before the game and reveals after."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from flyingchess.cli import main
from flyingchess.engine.game import apply, legal_moves, new_game
from flyingchess.engine.game import roll as roll_die
from flyingchess.records.fair_dice import (
    DiceProof,
    ProofError,
    Shown,
    commitment_of,
    derive_roll,
    nonce_of,
    parse_proof,
    verify_rolls,
)
from flyingchess.records.record import loads_record
from flyingchess.server.storage.store import SqliteStore

from asgi import app_client, error, expect, latest

SEED = bytes(range(32))
CONTRIBUTIONS = ["host-share-0001", "guest_share_0002"]


def spelled_out_roll(seed: bytes, contributions: list[str], index: int) -> int:
    """The construction of docs/records.md §6 written out from the definition of HMAC
    (RFC 2104) with SHA-256, independently of flyingchess.records.fair_dice."""
    nonce = hashlib.sha256("\n".join(sorted(contributions)).encode("utf-8")).digest()
    key = seed.ljust(64, b"\0")
    inner_pad = bytes(b ^ 0x36 for b in key)
    outer_pad = bytes(b ^ 0x5C for b in key)
    for attempt in range(1000):
        message = nonce + index.to_bytes(8, "big") + attempt.to_bytes(4, "big")
        block = hashlib.sha256(outer_pad + hashlib.sha256(inner_pad + message).digest()).digest()
        accepted = [b for b in block if b < 252]
        if accepted:
            return accepted[0] % 6 + 1
    raise AssertionError("no accepted byte in 1000 blocks")


def test_rolls_follow_the_documented_construction() -> None:
    nonce = nonce_of(CONTRIBUTIONS)
    for index in range(300):
        assert derive_roll(SEED, nonce, index) == spelled_out_roll(SEED, CONTRIBUTIONS, index)


def test_bytes_of_252_and_more_are_skipped_not_folded() -> None:
    """A block whose first byte is 252..255 takes the next byte (folding it with % 6
    would make 1..4 more likely than 5 and 6)."""
    nonce = nonce_of([])
    skipped = 0
    for index in range(2000):
        block = hmac.digest(SEED, nonce + index.to_bytes(8, "big") + bytes(4), "sha256")
        if block[0] >= 252:
            skipped += 1
            second = next(b for b in block if b < 252)
            assert derive_roll(SEED, nonce, index) == second % 6 + 1
    assert skipped > 10  # about 2000 * 4/256 = 31 such blocks: the case was exercised


def test_every_input_but_the_order_of_contributions_changes_the_sequence() -> None:
    base = [derive_roll(SEED, nonce_of(CONTRIBUTIONS), i) for i in range(40)]
    assert [derive_roll(bytes(32), nonce_of(CONTRIBUTIONS), i) for i in range(40)] != base
    assert [derive_roll(SEED, nonce_of(CONTRIBUTIONS[:1]), i) for i in range(40)] != base
    # the order the server received them in is its own choice: it changes nothing
    assert [derive_roll(SEED, nonce_of(CONTRIBUTIONS[::-1]), i) for i in range(40)] == base
    assert sorted(Counter(base)) == [1, 2, 3, 4, 5, 6]


def test_faces_are_even_over_many_rolls() -> None:
    """60,000 rolls of a fixed seed: chi-square with 5 degrees of freedom below 20.5
    (p = 0.001). Deterministic: the same rolls on every run."""
    rolls = DiceProof(commitment_of(SEED), SEED).rolls(0, 60_000)
    counts = Counter(rolls)
    expected = len(rolls) / 6
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi_square < 20.5, counts


WHO = ("host", "blue")
PLAYERS = ("red", "blue")
SEATS = {"red": {"kind": "human"}, "blue": {"kind": "player", "name": "Bao"}}
"""The seats a record of this proof shows: blue was a player's, as dice.seated says."""


def proof_json(**changes: Any) -> dict[str, Any]:
    proof = DiceProof(commitment_of(SEED), SEED, 0, tuple(CONTRIBUTIONS), WHO, seated=("blue",))
    data = proof.public(reveal=True)
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def rolls_of(count: int, first: int = 0) -> list[int]:
    proof = DiceProof(commitment_of(SEED), SEED, first, tuple(CONTRIBUTIONS), WHO)
    return [random.Random(i).randint(1, 6) for i in range(first)] + proof.rolls(first, count - first)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"scheme": "md5"}, "dice.scheme: unknown scheme 'md5'"),
        ({"scheme": None}, "dice.scheme: missing"),
        ({"commitment": "ab" * 31}, "dice.commitment: must be 64"),
        ({"commitment": commitment_of(b"x")}, "dice.seed: does not match dice.commitment"),
        ({"seed": "00" * 32}, "dice.seed: does not match dice.commitment"),
        ({"seed": "zz" * 32}, "dice.seed: must be 64"),
        ({"seed": SEED.hex().upper()}, "dice.seed: must be 64 lowercase"),
        ({"from": -1}, "dice.from: must be a whole number"),
        ({"from": True}, "dice.from: must be a whole number"),
        ({"contributions": "abc"}, "dice.contributions: must be a list"),
        ({"contributions": ["short", "long-enough"]}, "dice.contributions[0]: must be 8 to 64"),
        ({"contributions": ["ok-contribution", "bad contribution!"]}, "dice.contributions[1]: must be 8 to 64"),
        ({"contributions": ["a" * 65, "long-enough"]}, "dice.contributions[0]: must be 8 to 64"),
        ({"contributions": [*CONTRIBUTIONS, "slipped-in-by-server"]}, "dice.contributors: must name who sent each"),
        ({"contributors": ["host", "host"]}, "dice.contributors[1]: 'host' contributed twice"),
        ({"contributors": ["host", 7]}, 'dice.contributors[1]: must be "host" or a colour'),
        # only the host and the seats players held contribute: no name of the server's own
        ({"contributors": ["host", "mallory"]}, "dice.contributors[1]: 'mallory' is neither the host nor a seat"),
        ({"contributors": ["host", "yellow"]}, "dice.contributors[1]: 'yellow' is neither the host nor a seat"),
        ({"contributors": ["host", "red"]}, "dice.contributors[1]: 'red' is neither the host nor a seat"),
        ({"seated": []}, "dice.contributors[1]: 'blue' is neither the host nor a seat held by a player"),
        ({"seated": None}, "dice.contributors[1]: 'blue' is neither the host nor a seat held by a player"),
        ({"seated": ["blue", "yellow"], "contributors": ["host", "yellow"]}, "dice.seated[1]: 'yellow' does not play"),
        ({"seated": ["mallory"], "contributors": ["host", "mallory"]}, "dice.seated[0]: 'mallory' does not play"),
        ({"seated": ["blue", "blue"]}, "dice.seated[1]: 'blue' is listed twice"),
        ({"seated": "blue"}, "dice.seated: must list the colours"),
        ({"seated": [3]}, "dice.seated: must list the colours"),
    ],
)
def test_malformed_proofs_name_the_field(changes: dict[str, Any], words: str) -> None:
    with pytest.raises(ProofError, match=re.escape(words)):
        verify_rolls(proof_json(**changes), rolls_of(50), PLAYERS)


def test_verification_names_the_first_roll_that_differs() -> None:
    rolls = rolls_of(120)
    assert verify_rolls(proof_json(), rolls, PLAYERS).summary() == "all 120 rolls match the commitment"
    tampered = list(rolls)
    tampered[37] = tampered[37] % 6 + 1
    tampered[90] = tampered[90] % 6 + 1
    with pytest.raises(
        ProofError, match=rf"^action 37: rolled {tampered[37]}, but the committed dice give {rolls[37]}$"
    ):
        verify_rolls(proof_json(), tampered, PLAYERS)
    with pytest.raises(ProofError, match="no dice proof"):
        verify_rolls(None, rolls, PLAYERS)
    with pytest.raises(ProofError, match=re.escape("dice.seed: missing")):
        verify_rolls(proof_json(seed=None) | {"seed": None}, rolls, PLAYERS)
    with pytest.raises(ProofError, match=re.escape("dice.from: 200 is past")):
        verify_rolls(proof_json(**{"from": 200}), rolls, PLAYERS)


def test_a_commitment_from_a_later_roll_covers_only_the_rolls_after_it() -> None:
    rolls = rolls_of(90, first=30)
    verified = verify_rolls(proof_json(**{"from": 30}), rolls, PLAYERS)
    assert (verified.rolls, verified.first) == (60, 30)
    assert "from action 30 on" in verified.summary()
    # nobody said the commitment should start late: the early rolls are flagged unchecked
    assert not verified.complete and "dice.from is 30" in verified.warnings()[0]
    assert verify_rolls(proof_json(**{"from": 30}), rolls, PLAYERS, seats=SEATS, shown=Shown(first=30)).complete
    # with the commitment a page showed, the commitment covers the whole game unless told otherwise
    with pytest.raises(
        ProofError, match=re.escape("dice.from: the record's commitment covers only the rolls from action 30")
    ):
        verify_rolls(proof_json(**{"from": 30}), rolls, PLAYERS, shown=Shown(commitment_of(SEED)))
    assert verify_rolls(
        proof_json(**{"from": 30}), rolls, PLAYERS, seats=SEATS, shown=Shown(commitment_of(SEED), 30)
    ).complete
    with pytest.raises(ProofError, match=re.escape("starts at action 0, the one you were shown at action 5")):
        verify_rolls(proof_json(), rolls_of(90), PLAYERS, shown=Shown(first=5))


def test_a_raised_from_cannot_hide_a_changed_early_roll() -> None:
    """The attack: change the first roll, then move `from` past it. The rolls still
    covered match, so only the missing coverage can give it away."""
    rolls = rolls_of(90)
    rolls[0] = rolls[0] % 6 + 1
    forged = proof_json(**{"from": 89})
    assert not verify_rolls(forged, rolls, PLAYERS).complete
    with pytest.raises(ProofError, match=re.escape("dice.from:")):
        verify_rolls(forged, rolls, PLAYERS, shown=Shown(commitment_of(SEED)))
    with pytest.raises(ProofError, match=re.escape("action 0: rolled")):
        verify_rolls(proof_json(), rolls, PLAYERS, shown=Shown(commitment_of(SEED)))


def test_a_player_finds_their_own_share_and_the_seats_that_contributed() -> None:
    rolls = rolls_of(40)
    seats = {"red": {"kind": "human"}, "blue": {"kind": "player", "name": "Bao"}}
    verified = verify_rolls(proof_json(), rolls, PLAYERS, seats=seats, shown=Shown(share=CONTRIBUTIONS[1]))
    assert verified.details() == ["shares from: host, blue", "your share is in the record (sent as blue)"]
    assert verified.complete
    with pytest.raises(ProofError, match=re.escape("dice.contributions: your share not-my-share... is not in")):
        verify_rolls(proof_json(), rolls, PLAYERS, shown=Shown(share="not-my-share-at-all"))
    # filed under the name it was sent as, when the player says which
    assert verify_rolls(proof_json(), rolls, PLAYERS, seats=seats, shown=Shown(share=CONTRIBUTIONS[1], share_by="blue"))
    swapped = proof_json(contributors=["blue", "host"])
    with pytest.raises(ProofError, match=re.escape("your share is filed under 'host', not under 'blue'")):
        verify_rolls(swapped, rolls, PLAYERS, shown=Shown(share=CONTRIBUTIONS[1], share_by="blue"))
    # the record's own seats say who played blue: a bot there, or no seats at all, is worth a warning
    botted = verify_rolls(proof_json(), rolls, PLAYERS, seats=seats | {"blue": {"kind": "bot", "bot": "heuristic"}})
    assert botted.warnings() == [
        "blue contributed as a player's seat, but the record's seats show it played by a bot:"
        " if you saw a player there when the game started, say so with --seated"
    ]
    assert not verify_rolls(proof_json(), rolls, PLAYERS, seats=None).complete
    # what the player saw settles it: blue seen seated is a plain success, blue not seen a refusal
    assert verify_rolls(proof_json(), rolls, PLAYERS, seats=None, shown=Shown(seated=("blue",))).complete
    with pytest.raises(
        ProofError,
        match=re.escape("dice.contributors[1]: 'blue' contributed as a player's seat, but you saw no player there"),
    ):
        verify_rolls(proof_json(), rolls, PLAYERS, seats=seats, shown=Shown(seated=()))


def test_one_roll_is_one_roll() -> None:
    proof = DiceProof(commitment_of(SEED), SEED)
    assert verify_rolls(proof.public(reveal=True), proof.rolls(0, 1), PLAYERS).summary() == (
        "the 1 roll matches the commitment"
    )
    first = verify_rolls(replace_from(proof.public(reveal=True), 1), [4, *proof.rolls(1, 2)], PLAYERS)
    assert first.summary() == (
        "all 2 rolls from action 1 on match the commitment (the one before it was rolled before the game was committed)"
    )


def replace_from(data: dict[str, Any], first: int) -> dict[str, Any]:
    return data | {"from": first}


def test_a_proof_takes_shares_only_from_the_host_and_seated_players() -> None:
    proof = DiceProof.new(seated=("blue",))
    proof = proof.with_contribution("host", "host-share-1").with_contribution("blue", "blue-share-1")
    for who, text, words in [
        ("green", "green-share", "'green' is neither the host nor a seat held by a player"),
        ("blue", "second-share", "'blue' has contributed already"),
    ]:
        with pytest.raises(ProofError, match=re.escape(words)):
            proof.with_contribution(who, text)
    # a seat given away before the start takes its share with it; the host's stays
    reseated = proof.with_seated(("green",))
    assert (reseated.contributors, reseated.contributions, reseated.seated) == (
        ("host",),
        ("host-share-1",),
        ("green",),
    )
    assert reseated.with_contribution("green", "green-share").contributors == ("host", "green")
    with pytest.raises(ProofError, match="must be 8 to 64"):
        reseated.with_contribution("green", "x")
    # without the record's players, `seated` still names board colours only
    with pytest.raises(ProofError, match=re.escape("dice.seated[0]: '" + "x" * 16 + "' does not play in this game")):
        parse_proof(proof.public(reveal=True) | {"seated": ["x" * 10_000], "contributors": ["host", "blue"]})


def test_the_public_form_hides_the_seed_and_the_stored_form_round_trips() -> None:
    proof = DiceProof.new(first=4, seated=("red",)).with_contribution("red", "abcdefgh-123")
    assert "seed" not in proof.public(reveal=False)
    assert proof.public(reveal=True)["contributors"] == ["red"]
    assert proof.public(reveal=True)["seated"] == ["red"]
    assert parse_proof(proof.public(reveal=True)).seed == proof.seed
    assert DiceProof.from_stored(json.loads(json.dumps(proof.stored()))) == proof


# ---------------------------------------------------------------- a network server


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


def network_client(path: Path) -> TestClient:
    return app_client(path, seed=5, local=False)


@pytest.fixture()
def client(store_path: Path) -> Iterator[TestClient]:
    with network_client(store_path) as test_client:
        yield test_client


def create(client: TestClient, blue: str = "open") -> dict[str, Any]:
    body = {"players": ["red", "blue"], "seats": {"red": {"kind": "human"}, "blue": {"kind": blue}}}
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def play(sockets: dict[str, Any], watcher: Any, actions: int) -> dict[str, Any]:
    """The seat to move rolls and moves its first plane, `actions` times or to the end
    (a sync on the acting socket answers after its action: messages stay in order)."""
    game = latest(watcher)
    for _ in range(actions):
        if game["state"]["over"]:
            break
        socket = sockets[game["state"]["turn"]]
        if game["phase"] == "move":
            socket.send_json({"type": "move", "plane": game["moves"][0]["plane"]})
        else:
            socket.send_json({"type": "roll"})
        game = latest(socket)
    return game


def test_a_network_game_commits_before_it_starts_and_reveals_at_the_end(client: TestClient, tmp_path: Path) -> None:
    created = create(client)
    game_id = created["id"]
    dice = created["game"]["dice"]
    assert dice["scheme"] == "hmac-sha256-v1" and dice["seed"] is None and dice["from"] == 0
    commitment = dice["commitment"]
    url = f"/ws/{game_id}"
    with (
        client.websocket_connect(url) as host,
        client.websocket_connect(url) as guest,
        client.websocket_connect(url) as stranger,
    ):
        for socket in (host, guest, stranger):
            expect(socket, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        expect(guest, "joined")
        # bad contributions are typed errors and change nothing
        for bad in ("short", "x" * 65, "with space 123", 12345678, None):
            assert error(guest, {"type": "contribute", "value": bad}) == "bad-contribution"
        assert error(guest, {"type": "contribute", "value": "a" * 8, "extra": 1}) == "bad-message"
        assert error(stranger, {"type": "contribute", "value": "stranger-share"}) == "not-your-seat"
        assert latest(host)["dice"]["contributors"] == []
        host.send_json({"type": "contribute", "value": CONTRIBUTIONS[0]})
        guest.send_json({"type": "contribute", "value": CONTRIBUTIONS[1]})
        game = latest(host)
        while len(game["dice"]["contributors"]) < 2:
            game = latest(host)
        assert sorted(game["dice"]["contributors"]) == ["blue", "host"]
        assert game["dice"]["commitment"] == commitment and game["dice"]["seed"] is None
        assert error(guest, {"type": "contribute", "value": "second-share"}) == "already-contributed"
        # a record saved mid-game carries the commitment, not the seed
        host.send_json({"type": "start"})
        while not latest(host)["started"]:
            pass
        assert error(host, {"type": "contribute", "value": "late-share-01"}) == "wrong-phase"
        game = play({"red": host, "blue": guest}, stranger, 30)
        record = loads_record(client.get(f"/api/games/{game_id}/record").text)
        assert "seed" not in record.extra["dice"] and record.extra["dice"]["commitment"] == commitment
        assert sorted(record.extra["dice"]["contributors"]) == ["blue", "host"]
        game = play({"red": host, "blue": guest}, stranger, 5000)
        assert game["state"]["over"]
        assert game["dice"]["seed"] is not None
    text = client.get(f"/api/games/{game_id}/record").text
    record = loads_record(text)
    proof = record.extra["dice"]
    assert hashlib.sha256(bytes.fromhex(proof["seed"])).hexdigest() == commitment
    assert sorted(proof["contributions"]) == sorted(CONTRIBUTIONS)
    rolls = [action["roll"] for action in record.actions]
    assert rolls == [
        spelled_out_roll(bytes.fromhex(proof["seed"]), proof["contributions"], i) for i in range(len(rolls))
    ]
    assert verify_rolls(proof, rolls, record.players).rolls == len(rolls)


HOST_SHARE, GUEST_SHARE = "host-share-from-the-page", "guest-share-from-the-page"


def played_network_game(client: TestClient) -> dict[str, Any]:
    """A whole game over the WebSocket between the host (red) and a guest who joined
    blue, both pages adding their share before the start: its record, as downloaded."""
    created = create(client)
    url = f"/ws/{created['id']}"
    with client.websocket_connect(url) as host, client.websocket_connect(url) as guest:
        expect(host, "snapshot")
        expect(guest, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        expect(guest, "joined")
        host.send_json({"type": "contribute", "value": HOST_SHARE})
        guest.send_json({"type": "contribute", "value": GUEST_SHARE})
        while len(latest(host)["dice"]["contributors"]) < 2:
            pass
        host.send_json({"type": "start"})
        while not latest(host)["started"]:
            pass
        assert play({"red": host, "blue": guest}, host, 5000)["state"]["over"]
    data: dict[str, Any] = client.get(f"/api/games/{created['id']}/record").json()
    return data


def replayed_on(data: dict[str, Any], dice: dict[str, Any]) -> dict[str, Any]:
    """The record a dishonest server could write with `dice` in place of the game's: the
    whole game played again on the rolls those dice give, so every roll matches them."""
    seed, nonce = bytes.fromhex(dice["seed"]), nonce_of(dice["contributions"])
    state = new_game(data["players"], loads_record(json.dumps(data)).rules)
    actions: list[dict[str, Any]] = []
    while not state.over:
        value = derive_roll(seed, nonce, len(actions))
        state, _ = roll_die(state, value)
        moves = legal_moves(state)
        plane = moves[0] if moves else None
        state, _ = apply(state, plane)
        actions.append({"roll": value, "plane": plane})
    return data | {"dice": dice, "actions": actions}


def test_the_verify_command(client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = played_network_game(client)
    assert data["dice"]["seated"] == ["blue"] and sorted(data["dice"]["contributors"]) == ["blue", "host"]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data))
    assert main(["verify", str(good)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"all {len(data['actions'])} rolls match the commitment",
        f"shares from: {', '.join(data['dice']['contributors'])}",
    ]

    def refused(record: dict[str, Any], *options: str) -> str:
        path = tmp_path / "tampered.json"
        path.write_text(json.dumps(record))
        assert main(["verify", *options, str(path)]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1
        return lines[0]

    index, roll, changed = still_legal_tampering(data)
    assert (
        refused(changed)
        == f"action {index}: rolled {changed['actions'][index]['roll']}, but the committed dice give {roll}"
    )
    assert "does not match dice.commitment" in refused(data | {"dice": data["dice"] | {"seed": "11" * 32}})
    assert "does not match dice.commitment" in refused(data | {"dice": data["dice"] | {"commitment": "22" * 32}})
    assert "dice.contributions" in refused(data | {"dice": data["dice"] | {"contributions": 5}})
    assert "dice.seed: missing" in refused(data | {"dice": {k: v for k, v in data["dice"].items() if k != "seed"}})
    assert "no dice proof" in refused({k: v for k, v in data.items() if k != "dice"})
    # a commitment moved past every roll covers nothing: that is no proof
    assert "covers none of the record's" in refused(data | {"dice": data["dice"] | {"from": len(data["actions"])}})
    # held to the commitment the page showed (its first 16 digits are enough) and to a player's own share
    shown = data["dice"]["commitment"]
    assert main(["verify", "--commitment", shown[:16], "--share", GUEST_SHARE, str(good)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "your share is in the record (sent as blue)"
    assert "is not the commitment you were shown" in refused(data, "--commitment", "0" * 64)
    assert "your share not-my-share... is not in the record" in refused(data, "--share", "not-my-share-at-all")
    # filed under the name it was sent as: a swap of the two names is caught by the player who says which
    assert main(["verify", "--share", GUEST_SHARE, "--as", "blue", str(good)]) == 0
    capsys.readouterr()
    swapped = data | {"dice": data["dice"] | {"contributors": data["dice"]["contributors"][::-1]}}
    assert "your share is filed under 'host', not under 'blue'" in refused(
        swapped, "--share", GUEST_SHARE, "--as", "blue"
    )
    assert "--as: give host or your colour" in refused(data, "--as", "blue")
    assert "--seated: give the colours you saw" in refused(data, "--seated", "purple")
    assert "--share: give your page's share" in refused(data, "--share", "short")
    assert "--commitment: give the commitment's 64 hexadecimal digits" in refused(data, "--commitment", "xyz")
    with pytest.raises(SystemExit) as exit_status:  # argparse's own refusal, one line too
        main(["verify", "--from", "-3", str(good)])
    assert exit_status.value.code == 2
    assert captured_line(capsys) == "flyingchess verify: argument --from: must be a whole number 0 or more, not '-3'"
    assert "record: not valid JSON" in refused_text(tmp_path, capsys, "{")


@pytest.mark.parametrize("name", ["mallory", "yellow", "red", "host"])
def test_a_share_slipped_in_by_the_server_is_refused(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The forgery: a share of the server's own under a name nobody sent it from (a
    colour not in the game, a made-up name, the host's own seat, a second host share),
    with the whole game played again on the dice it gives, so that every roll matches."""
    data = played_network_game(client)
    dice = data["dice"]
    forged = replayed_on(
        data,
        dice
        | {
            "contributions": [*dice["contributions"], "chosen-by-the-server"],
            "contributors": [*dice["contributors"], name],
        },
    )
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    for options in ([], ["--commitment", dice["commitment"]]):
        assert main(["verify", *options, str(path)]) == 2
        assert "dice.contributors[2]:" in capsys.readouterr().err


def test_a_seat_the_record_names_as_seated_against_its_own_seats_is_not_a_plain_success(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same forgery with the host's seat (red) added to `seated`: the rolls all
    match and only the record's seats show red was never a player's. A host may give a
    seat away during play, so this is a warning and exit status 3, not a success."""
    data = played_network_game(client)
    dice = data["dice"]
    forged = replayed_on(
        data,
        dice
        | {
            "seated": ["red", "blue"],
            "contributions": [*dice["contributions"], "chosen-by-the-server"],
            "contributors": [*dice["contributors"], "red"],
        },
    )
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    for options in ([], ["--commitment", dice["commitment"]]):
        assert main(["verify", *options, str(path)]) == 3
        captured = capsys.readouterr()
        assert captured.out.startswith(f"all {len(forged['actions'])} rolls match the commitment")
        assert captured.err.strip() == (
            "warning: red contributed as a player's seat, but the record's seats show it played by the host's device:"
            " if you saw a player there when the game started, say so with --seated"
        )
    # the forger's next step, seats deleted or edited to match, is no plain success either: without
    # seats only dice.seated speaks; and whoever played says which seats players held
    no_seats = {key: value for key, value in forged.items() if key != "seats"}
    path.write_text(json.dumps(no_seats))
    assert main(["verify", str(path)]) == 3
    assert "red contributed as a player's seat" in capsys.readouterr().err
    edited = forged | {"seats": forged["seats"] | {"red": {"kind": "player", "name": "Nobody"}}}
    path.write_text(json.dumps(edited))
    assert main(["verify", "--seated", "blue", str(path)]) == 2
    assert captured_line(capsys) == (
        "dice.contributors[2]: 'red' contributed as a player's seat, but you saw no player there"
    )
    honest = tmp_path / "honest.json"
    honest.write_text(json.dumps({key: value for key, value in data.items() if key != "seats"}))
    assert main(["verify", "--seated", "blue", str(honest)]) == 0
    capsys.readouterr()


def test_a_raised_from_over_a_changed_early_roll_is_never_a_plain_success(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = played_network_game(client)
    index, _, changed = still_legal_tampering(data)
    last = len(changed["actions"]) - 1
    changed["dice"] = changed["dice"] | {"from": last}
    path = tmp_path / "raised.json"
    path.write_text(json.dumps(changed))
    assert main(["verify", str(path)]) == 3
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].startswith(f"the 1 roll from action {last} on matches the commitment")
    assert captured.err.splitlines()[0].startswith(
        f"warning: dice.from is {last}: the record's rolls before action {last} are not"
    )
    assert main(["verify", "--commitment", data["dice"]["commitment"], str(path)]) == 2
    assert captured_line(capsys).startswith(
        f"dice.from: the record's commitment covers only the rolls from action {last} on"
    )
    # said explicitly, the late start is what the user expects: the rolls covered are checked
    assert main(["verify", "--commitment", data["dice"]["commitment"], "--from", str(last), str(path)]) == 0
    capsys.readouterr()
    assert main(["verify", "--from", "0", str(path)]) == 2
    assert captured_line(capsys).startswith(f"dice.from: the record's commitment starts at action {last}")
    assert index < last


def captured_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def refused_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    path = tmp_path / "broken.json"
    path.write_text(text)
    assert main(["verify", str(path)]) == 2
    return capsys.readouterr().err.strip()


def still_legal_tampering(data: dict[str, Any]) -> tuple[int, int, dict[str, Any]]:
    """(action, its true roll, the record with that roll changed) for the first change
    that leaves the game legal: only the dice proof can catch it."""
    for index, action in enumerate(data["actions"]):
        for other in range(1, 7):
            if other == action["roll"]:
                continue
            changed = json.loads(json.dumps(data))
            changed["actions"][index]["roll"] = other
            try:
                loads_record(json.dumps(changed)).final_state()
            except ValueError:
                continue
            return index, action["roll"], changed
    raise AssertionError("no roll can be changed legally")


def test_a_game_on_one_device_keeps_plain_dice(client: TestClient) -> None:
    created = create(client, blue="human")
    assert created["game"]["dice"] is None
    with client.websocket_connect(f"/ws/{created['id']}") as host:
        expect(host, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        assert error(host, {"type": "contribute", "value": "host-share-01"}) == "no-commitment"
        play({"red": host, "blue": host}, host, 10)
    record = client.get(f"/api/games/{created['id']}/record").json()
    assert "dice" not in record


def test_a_rematch_reveals_the_dice_of_the_game_it_replaces(client: TestClient) -> None:
    created = create(client)
    old_id = created["id"]
    url = f"/ws/{old_id}"
    with client.websocket_connect(url) as host, client.websocket_connect(url) as guest:
        expect(host, "snapshot")
        expect(guest, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        expect(guest, "joined")
        host.send_json({"type": "start"})
        while not latest(host)["started"]:
            pass
        game = play({"red": host, "blue": guest}, host, 20)
        assert not game["state"]["over"] and game["dice"]["seed"] is None
        response = client.post(f"/api/games/{old_id}/rematch", json={}, headers={"X-Host-Token": created["host_token"]})
        assert response.status_code == 200, response.text
        expect(guest, "rematch")
        expect(host, "rematch")
        game = latest(guest)
        assert game["dice"]["seed"] is not None
        assert error(guest, {"type": "roll"}) == error(host, {"type": "roll"}) == "dice-revealed"
    record = client.get(f"/api/games/{old_id}/record").json()
    assert main_verifies(record)
    assert len(record["actions"]) == game["actions"]  # nothing was rolled after the reveal
    new = response.json()["game"]
    assert new["dice"]["commitment"] != record["dice"]["commitment"] and new["dice"]["seed"] is None


def main_verifies(record: dict[str, Any]) -> bool:
    return verify_rolls(
        record["dice"], [action["roll"] for action in record["actions"]], record["players"]
    ).rolls == len(record["actions"])


def test_a_restarted_server_rolls_on_from_the_same_commitment(store_path: Path) -> None:
    with network_client(store_path) as client:
        created = create(client)
        with client.websocket_connect(f"/ws/{created['id']}") as host:
            expect(host, "snapshot")
            host.send_json({"type": "hello", "token": created["host_token"]})
            expect(host, "welcome")
            host.send_json({"type": "contribute", "value": "before-restart"})
            host.send_json({"type": "seat", "colour": "blue", "kind": "human"})
            host.send_json({"type": "start"})
            while not latest(host)["started"]:
                pass
            play({"red": host, "blue": host}, host, 25)
    with network_client(store_path) as client:
        with client.websocket_connect(f"/ws/{created['id']}") as host:
            expect(host, "snapshot")
            host.send_json({"type": "hello", "token": created["host_token"]})
            expect(host, "welcome")
            game = play({"red": host, "blue": host}, host, 5000)
            assert game["state"]["over"]
        record = client.get(f"/api/games/{created['id']}/record").json()
    assert record["dice"]["contributions"] == ["before-restart"]
    assert main_verifies(record)


def test_an_imported_record_starts_a_new_commitment_for_the_rolls_to_come(client: TestClient) -> None:
    old = loads_record(
        json.dumps(
            {
                "format": "flyingchess/1",
                "players": ["red", "blue"],
                "actions": [{"roll": 2, "plane": None}, {"roll": 3, "plane": None}],
                "dice": proof_json(),
                "seats": {"red": {"kind": "human"}, "blue": {"kind": "open"}},
            }
        )
    )
    response = client.post("/api/records", content=old.dumps(), headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text
    dice = response.json()["game"]["dice"]
    assert dice["from"] == 2 and dice["commitment"] != proof_json()["commitment"] and dice["seed"] is None


def test_a_game_given_up_before_it_started_takes_no_more_shares_and_never_starts(client: TestClient) -> None:
    created = create(client)
    with client.websocket_connect(f"/ws/{created['id']}") as host:
        expect(host, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        response = client.post(
            f"/api/games/{created['id']}/rematch", json={}, headers={"X-Host-Token": created["host_token"]}
        )
        assert response.status_code == 200, response.text
        expect(host, "rematch")
        assert latest(host)["dice"]["seed"] is not None
        assert error(host, {"type": "contribute", "value": "after-the-reveal"}) == "dice-revealed"
        assert error(host, {"type": "start"}) == "dice-revealed"
        assert not latest(host)["started"]


def test_a_seat_given_away_before_the_start_takes_its_share_with_it(client: TestClient) -> None:
    """Only the host and the seats players hold at the start contribute: a kicked
    player's share leaves with them, the next player in that seat adds their own, and
    seats changed after the start change nothing in the proof."""
    created = create(client)
    url = f"/ws/{created['id']}"
    with (
        client.websocket_connect(url) as host,
        client.websocket_connect(url) as first,
        client.websocket_connect(url) as second,
    ):
        for socket in (host, first, second):
            expect(socket, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        first.send_json({"type": "join", "colour": "blue", "name": "Ann"})
        expect(first, "joined")
        first.send_json({"type": "contribute", "value": "first-players-share"})
        while latest(host)["dice"]["contributors"] != ["blue"]:
            pass
        assert latest(host)["dice"]["seated"] == ["blue"]
        host.send_json({"type": "kick", "colour": "blue"})
        game = latest(host)
        while game["dice"]["seated"]:
            game = latest(host)
        assert game["dice"]["contributors"] == [] and game["dice"]["contributions"] == []
        second.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        expect(second, "joined")
        second.send_json({"type": "contribute", "value": "second-players-share"})
        while latest(host)["dice"]["contributors"] != ["blue"]:
            pass
        host.send_json({"type": "start"})
        while not latest(host)["started"]:
            pass
        host.send_json({"type": "seat", "colour": "blue", "kind": "bot", "bot": "heuristic"})
        game = latest(host)
        while game["seats"]["blue"]["kind"] != "bot":
            game = latest(host)
        assert game["dice"]["seated"] == ["blue"] and game["dice"]["contributions"] == ["second-players-share"]


def test_a_game_stored_before_seats_were_named_loads_and_takes_shares(store_path: Path) -> None:
    """A proof stored without `seated` (before it existed) is read with the contributing
    colours as its seats, and the players seated now can still add their share."""
    with network_client(store_path) as client:
        created = create(client)
        with client.websocket_connect(f"/ws/{created['id']}") as guest:
            expect(guest, "snapshot")
            guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
            token = expect(guest, "joined")["token"]
    store = SqliteStore(store_path)
    stored = store.load(created["id"])
    assert stored is not None
    old = {key: value for key, value in stored.extra["dice"].items() if key != "seated"}
    store.set_extra(created["id"], dict(stored.extra, dice=old))
    store.close()
    with network_client(store_path) as client, client.websocket_connect(f"/ws/{created['id']}") as guest:
        expect(guest, "snapshot")
        guest.send_json({"type": "hello", "token": token})
        expect(guest, "welcome")
        guest.send_json({"type": "contribute", "value": "share-after-upgrade"})
        while latest(guest)["dice"]["contributors"] != ["blue"]:
            pass
