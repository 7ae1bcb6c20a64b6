"""Dice that can be checked afterwards: committed before the game, revealed after it.

A network game's server draws a secret 32-byte seed and publishes only its SHA-256 (the
commitment) before anyone joins. The pages contribute random strings of their own
before the game starts; every roll is then fixed by the seed, those strings and the
roll's place in the game, and nobody alone (neither the server nor a player) chooses
the sequence. When the game ends the seed is revealed, and anyone can recompute every
roll from the record (docs/records.md §6 gives the construction):

    nonce  = SHA-256(the contributions, sorted, joined by "\\n", UTF-8)
    block  = HMAC-SHA-256(key=seed, nonce || index as 8 bytes || attempt as 4 bytes)
    roll   = 1 + b mod 6 for the first byte b of the block below 252

252 is the largest multiple of 6 under 256, so each face has exactly 42 of the 252
accepted byte values: no modulo bias. A block with no byte under 252 (a chance of
(4/256)^32) moves on to the next attempt. Standard library only, so the engine and the
`verify` command need nothing installed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from ..engine.board import COLOURS
from ..engine.text import counted

SCHEME: Final = "hmac-sha256-v1"
SEED_BYTES: Final = 32
ACCEPT_BELOW: Final = 252
"""42 byte values for each face; larger bytes are skipped."""
CONTRIBUTION: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""What a page may contribute: 8 to 64 letters, digits, '-' or '_' (base64url)."""
MAX_CONTRIBUTIONS: Final = 16
HOST: Final = "host"
"""The contributor name of the page that created the game (it plays the seats on its own device)."""
HEX64: Final = re.compile(r"[0-9a-f]{64}")


class ProofError(ValueError):
    """A dice proof that is malformed or does not hold; the message names the field or
    the roll (and is one line, for the command line)."""


def new_seed() -> bytes:
    return os.urandom(SEED_BYTES)


def commitment_of(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def nonce_of(contributions: Sequence[str]) -> bytes:
    """Sorted first: the order they arrived in is the server's to choose, so it must not
    matter (else reordering them would give the server a few sequences to pick from)."""
    return hashlib.sha256("\n".join(sorted(contributions)).encode()).digest()


def derive_roll(seed: bytes, nonce: bytes, index: int) -> int:
    """The die of the game's roll number `index` (0 for the first roll of the game)."""
    attempt = 0
    while True:
        block = hmac.digest(seed, nonce + index.to_bytes(8, "big") + attempt.to_bytes(4, "big"), "sha256")
        for byte in block:
            if byte < ACCEPT_BELOW:
                return 1 + byte % 6
        attempt += 1


def valid_contribution(text: object) -> bool:
    return isinstance(text, str) and CONTRIBUTION.fullmatch(text) is not None


@dataclass(frozen=True)
class DiceProof:
    """The commitment to one game's dice from roll `first` on, with what the pages
    contributed and (kept secret until revealed) the seed."""

    commitment: str
    seed: bytes | None
    first: int = 0
    """The game's first roll under this commitment: a record loaded to continue a game
    starts a new commitment for the rolls still to come."""
    contributions: tuple[str, ...] = ()
    contributors: tuple[str, ...] = ()
    """Who sent each contribution: "host" or a colour of `seated`, each once, so the
    server cannot slip in contributions of its own to choose among nonces unseen."""
    seated: tuple[str, ...] = ()
    """The colours whose seats players held from their own devices when the game
    started (until then: as they are now). Only they, and the host, contribute."""
    revealed: bool = False
    """The seed was revealed before the game ended (a rematch began): no more rolls."""

    @classmethod
    def new(cls, first: int = 0, seated: Sequence[str] = ()) -> DiceProof:
        seed = new_seed()
        return cls(commitment_of(seed), seed, first, seated=tuple(seated))

    def with_contribution(self, by: str, text: str) -> DiceProof:
        """The proof with one more page's share; ProofError for a share the rules of
        docs/records.md §6 refuse (the server checks with its own words first)."""
        if by != HOST and by not in self.seated:
            raise ProofError(f"dice.contributors: {by!r} is neither the host nor a seat held by a player")
        if by in self.contributors:
            raise ProofError(f"dice.contributors: {by!r} has contributed already")
        if len(self.contributions) >= MAX_CONTRIBUTIONS:
            raise ProofError(f"dice.contributions: at most {MAX_CONTRIBUTIONS}")
        if not valid_contribution(text):
            raise ProofError("dice.contributions: must be 8 to 64 letters, digits, '-' or '_'")
        return replace(self, contributions=(*self.contributions, text), contributors=(*self.contributors, by))

    def with_seated(self, seated: Sequence[str]) -> DiceProof:
        """Before the start, the seats players hold now: a seat given away takes its
        share with it (the next player to sit there sends one of their own)."""
        kept = [(text, by) for text, by in zip(self.contributions, self.contributors) if by == HOST or by in seated]
        return replace(
            self,
            seated=tuple(seated),
            contributions=tuple(text for text, _ in kept),
            contributors=tuple(by for _, by in kept),
        )

    def roll(self, index: int) -> int:
        """The die of the game's roll number `index` (needs the seed)."""
        if self.seed is None:
            raise ProofError("dice.seed: missing (the seed is revealed when the game ends)")
        return derive_roll(self.seed, nonce_of(self.contributions), index)

    def rolls(self, start: int, count: int) -> list[int]:
        """`count` rolls from roll number `start`, the nonce computed once."""
        if self.seed is None:
            raise ProofError("dice.seed: missing (the seed is revealed when the game ends)")
        seed, nonce = self.seed, nonce_of(self.contributions)
        return [derive_roll(seed, nonce, index) for index in range(start, start + count)]

    # ---------------------------------------------------------------- forms

    def public(self, reveal: bool) -> dict[str, Any]:
        """The proof as a record carries it (docs/records.md §6): the seed only when
        `reveal`."""
        out: dict[str, Any] = {
            "scheme": SCHEME,
            "commitment": self.commitment,
            "from": self.first,
            "seated": list(self.seated),
            "contributions": list(self.contributions),
            "contributors": list(self.contributors),
        }
        if reveal and self.seed is not None:
            out["seed"] = self.seed.hex()
        return out

    def stored(self) -> dict[str, Any]:
        """Everything, the secret seed included: only the server's database holds this."""
        return dict(self.public(reveal=True), revealed=self.revealed)

    @classmethod
    def from_stored(cls, data: Any) -> DiceProof:
        if isinstance(data, dict) and "seated" not in data:  # stored before seats were named
            data = dict(data, seated=[by for by in data.get("contributors", []) if by != HOST])
        proof = parse_proof(data)
        if proof.seed is None:
            raise ProofError("dice.seed: missing from the stored game")
        return replace(proof, revealed=data.get("revealed") is True)


def parse_proof(data: Any, players: Sequence[str] | None = None) -> DiceProof:
    """A record's `dice` field, checked field by field (the seed may be absent: a record
    saved before the game ended); with `players`, the seats it names must be theirs.
    ProofError names the first field that is wrong."""
    if not isinstance(data, dict):
        raise ProofError("dice: must be an object")
    if data.get("scheme") != SCHEME:
        scheme = data.get("scheme")
        shown = "missing" if scheme is None else f"unknown scheme {str(scheme)[:40]!r}"
        raise ProofError(f"dice.scheme: {shown} (expected {SCHEME!r})")
    commitment = data.get("commitment")
    if not isinstance(commitment, str) or HEX64.fullmatch(commitment) is None:
        raise ProofError("dice.commitment: must be 64 lowercase hexadecimal digits (a SHA-256)")
    first = data.get("from", 0)
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ProofError("dice.from: must be a whole number 0 or more (the first roll committed)")
    seated = _parse_seated(data.get("seated", []), players)
    contributions = data.get("contributions")
    if not isinstance(contributions, list):
        raise ProofError("dice.contributions: must be a list of strings")
    if len(contributions) > MAX_CONTRIBUTIONS:
        raise ProofError(f"dice.contributions: at most {MAX_CONTRIBUTIONS}")
    for index, text in enumerate(contributions):
        if not valid_contribution(text):
            raise ProofError(f"dice.contributions[{index}]: must be 8 to 64 letters, digits, '-' or '_'")
    contributors = _parse_contributors(data.get("contributors", []), len(contributions), seated)
    seed_text = data.get("seed")
    seed = None
    if seed_text is not None:
        if not isinstance(seed_text, str) or HEX64.fullmatch(seed_text) is None:
            raise ProofError("dice.seed: must be 64 lowercase hexadecimal digits (32 bytes)")
        seed = bytes.fromhex(seed_text)
        if commitment_of(seed) != commitment:
            raise ProofError("dice.seed: does not match dice.commitment (its SHA-256 differs)")
    return DiceProof(commitment, seed, first, tuple(contributions), contributors, seated)


def _parse_seated(seated: Any, players: Sequence[str] | None) -> tuple[str, ...]:
    if not isinstance(seated, list) or not all(isinstance(colour, str) and colour for colour in seated):
        raise ProofError("dice.seated: must list the colours of the seats players held")
    for index, colour in enumerate(seated):
        if colour not in (COLOURS if players is None else players):
            raise ProofError(f"dice.seated[{index}]: {colour[:16]!r} does not play in this game")
        if colour in seated[:index]:
            raise ProofError(f"dice.seated[{index}]: {colour[:16]!r} is listed twice")
    return tuple(seated)


def _parse_contributors(contributors: Any, count: int, seated: tuple[str, ...]) -> tuple[str, ...]:
    """One name for each contribution: the host, or a seat a player held, each once."""
    if not isinstance(contributors, list) or len(contributors) != count:
        raise ProofError("dice.contributors: must name who sent each contribution, one name each")
    for index, who in enumerate(contributors):
        if not isinstance(who, str):
            raise ProofError(f'dice.contributors[{index}]: must be "host" or a colour')
        if who != HOST and who not in seated:
            raise ProofError(
                f"dice.contributors[{index}]: {who[:16]!r} is neither the host nor a seat held by a player (dice.seated)"
            )
        if who in contributors[:index]:
            raise ProofError(f"dice.contributors[{index}]: {who[:16]!r} contributed twice (one share each)")
    return tuple(contributors)


@dataclass(frozen=True)
class Verified:
    """What a proof was found to cover (every roll it covers matched)."""

    rolls: int
    """How many rolls the proof covers."""
    first: int
    """The first roll covered: rolls before it were made before the commitment."""
    contributors: tuple[str, ...] = ()
    share_by: str | None = None
    """Who sent the share the caller asked about (when it asked)."""
    unchecked_start: bool = False
    """The rolls before `first` are not covered, and the caller did not say it expected
    that: a record whose early rolls were changed could hide behind a raised `from`."""
    not_players: tuple[tuple[str, str], ...] = ()
    """(colour, kind) for each contributing seat the record's `seats` show played by
    someone other than a player (a bot, the host's device): only the record's word
    says a player held it when the game started."""

    @property
    def complete(self) -> bool:
        """Nothing the record claims was left unchecked (else see `warnings`)."""
        return not self.warnings()

    def summary(self) -> str:
        covered, verb = ("the 1 roll", "matches") if self.rolls == 1 else (f"all {self.rolls} rolls", "match")
        if self.first == 0:
            return f"{covered} {verb} the commitment"
        before = "the one before it was" if self.first == 1 else f"the {self.first} before it were"
        return f"{covered} from action {self.first} on {verb} the commitment ({before} rolled before the game was committed)"

    def details(self) -> list[str]:
        """Who contributed, and where the caller's own share was found."""
        lines = [f"shares from: {', '.join(self.contributors) if self.contributors else 'nobody'}"]
        if self.share_by is not None:
            lines.append(f"your share is in the record (sent as {self.share_by})")
        return lines

    def warnings(self) -> list[str]:
        """What the record asks to be taken on its word, one line each."""
        lines = []
        if self.unchecked_start:
            lines.append(
                f"dice.from is {self.first}: the record's rolls before action {self.first} are not covered by this"
                " commitment and were not checked (a game played on the network from its start is committed from"
                f" action 0; if your page said it starts at action {self.first}: --from {self.first})"
            )
        for colour, kind in self.not_players:
            lines.append(
                f"{colour} contributed as a player's seat, but the record's seats show it played by {kind}:"
                f" if you saw a player there when the game started, say so with --seated"
            )
        return lines


@dataclass(frozen=True)
class Shown:
    """What a player knows of a game's dice apart from its record: what the page showed
    and sent. Each given field holds the record to it; None leaves it to the record."""

    commitment: str | None = None
    """The commitment the page showed (the whole SHA-256, or at least its first 16 digits)."""
    first: int | None = None
    """The action that commitment starts at; with a commitment and no `first`, 0 (a game
    played on the network from its start commits from its first roll)."""
    share: str | None = None
    """The player's own share: it must be one of the contributions ..."""
    share_by: str | None = None
    """... filed under this name ("host" or the player's colour)."""
    seated: tuple[str, ...] | None = None
    """The colours the player saw held by players: no other colour may have contributed."""


def verify_rolls(
    proof_data: Any, rolls: Sequence[int], players: Sequence[str], *, seats: Any = None, shown: Shown = Shown()
) -> Verified:
    """Check a record's rolls (in order, one per action) against its `dice` field, and
    the record against what the player was `shown` apart from it. `seats` (the record's)
    are compared with the seats the proof says players held when nobody says otherwise.
    ProofError names the field, or the first action whose roll differs; what only the
    record vouches for comes back as the result's `warnings()`."""
    if proof_data is None:
        raise ProofError("dice: this record carries no dice proof (a local game, or a record from another tool)")
    proof = parse_proof(proof_data, players)
    if proof.seed is None:
        raise ProofError("dice.seed: missing (the seed is revealed when the game ends)")
    if proof.first > len(rolls):
        raise ProofError(f"dice.from: {proof.first} is past the record's {counted(len(rolls), 'action')}")
    if proof.first == len(rolls) and rolls:
        raise ProofError(f"dice.from: the commitment covers none of the record's {counted(len(rolls), 'roll')}")
    _hold_to(proof, shown)
    derived = proof.rolls(proof.first, len(rolls) - proof.first)
    for offset, (recorded, expected) in enumerate(zip(rolls[proof.first :], derived)):
        if recorded != expected:
            index = proof.first + offset
            raise ProofError(f"action {index}: rolled {recorded}, but the committed dice give {expected}")
    share_by = None if shown.share is None else proof.contributors[proof.contributions.index(shown.share)]
    return Verified(
        len(derived),
        proof.first,
        proof.contributors,
        share_by,
        unchecked_start=proof.first > 0 and shown.first is None and shown.commitment is None,
        not_players=() if shown.seated is not None else _not_players(proof, seats),
    )


def _hold_to(proof: DiceProof, shown: Shown) -> None:
    """ProofError where the record disagrees with what the player was shown."""
    if shown.commitment is not None and not proof.commitment.startswith(shown.commitment.lower()):
        raise ProofError(
            f"dice.commitment: {proof.commitment[:16]}... is not the commitment you were shown"
            f" ({shown.commitment[:16]}...)"
        )
    if shown.first is not None and proof.first != shown.first:
        raise ProofError(
            f"dice.from: the record's commitment starts at action {proof.first}, the one you were shown at action"
            f" {shown.first}"
        )
    if shown.first is None and shown.commitment is not None and proof.first != 0:
        raise ProofError(
            f"dice.from: the record's commitment covers only the rolls from action {proof.first} on, but a game"
            f" played on the network from its start is committed from action 0 (if your page said the commitment"
            f" starts at action {proof.first}, say so with --from {proof.first})"
        )
    if shown.share is not None:
        if shown.share not in proof.contributions:
            raise ProofError(f"dice.contributions: your share {shown.share[:12]}... is not in the record")
        filed = proof.contributors[proof.contributions.index(shown.share)]
        if shown.share_by is not None and filed != shown.share_by:
            raise ProofError(
                f"dice.contributors: your share is filed under {filed!r}, not under {shown.share_by!r} as you sent it"
            )
    if shown.seated is not None:
        for index, who in enumerate(proof.contributors):
            if who != HOST and who not in shown.seated:
                raise ProofError(
                    f"dice.contributors[{index}]: {who!r} contributed as a player's seat, but you saw no player there"
                )


def _not_players(proof: DiceProof, seats: Any) -> tuple[tuple[str, str], ...]:
    """Contributing seats that the record's `seats` show played by someone other than a
    player, or all of them when the record has no seats to show. A host may give a seat
    away during play, so this is a warning, not a refusal."""
    out = []
    for colour in proof.contributors:
        if colour == HOST:
            continue
        seat = seats.get(colour) if isinstance(seats, dict) else None
        kind = seat.get("kind") if isinstance(seat, dict) else None
        if kind != "player":
            shown = {"bot": "a bot", "human": "the host's device", "open": "nobody"}.get(str(kind), "nobody it names")
            out.append((colour, shown))
    return tuple(out)
