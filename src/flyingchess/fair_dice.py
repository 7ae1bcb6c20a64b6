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

SCHEME: Final = "hmac-sha256-v1"
SEED_BYTES: Final = 32
ACCEPT_BELOW: Final = 252
"""42 byte values for each face; larger bytes are skipped."""
CONTRIBUTION: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""What a page may contribute: 8 to 64 letters, digits, '-' or '_' (base64url)."""
MAX_CONTRIBUTIONS: Final = 16
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
    """Who sent each contribution ("host" or a colour): one each, so the server cannot
    slip in contributions of its own to choose among nonces unseen."""
    revealed: bool = False
    """The seed was revealed before the game ended (a rematch began): no more rolls."""

    @classmethod
    def new(cls, first: int = 0) -> DiceProof:
        seed = new_seed()
        return cls(commitment_of(seed), seed, first)

    def with_contribution(self, by: str, text: str) -> DiceProof:
        return replace(self, contributions=(*self.contributions, text), contributors=(*self.contributors, by))

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
        proof = parse_proof(data)
        if proof.seed is None:
            raise ProofError("dice.seed: missing from the stored game")
        return replace(proof, revealed=data.get("revealed") is True)


def parse_proof(data: Any) -> DiceProof:
    """A record's `dice` field, checked field by field (the seed may be absent: a record
    saved before the game ended). ProofError names the first field that is wrong."""
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
    contributions = data.get("contributions")
    if not isinstance(contributions, list):
        raise ProofError("dice.contributions: must be a list of strings")
    if len(contributions) > MAX_CONTRIBUTIONS:
        raise ProofError(f"dice.contributions: at most {MAX_CONTRIBUTIONS}")
    for index, text in enumerate(contributions):
        if not valid_contribution(text):
            raise ProofError(f"dice.contributions[{index}]: must be 8 to 64 letters, digits, '-' or '_'")
    contributors = data.get("contributors", [])
    if (
        not isinstance(contributors, list)
        or len(contributors) != len(contributions)
        or not all(isinstance(who, str) and 0 < len(who) <= 16 for who in contributors)
        or len(set(contributors)) != len(contributors)
    ):
        raise ProofError("dice.contributors: must name who sent each contribution, each once")
    seed_text = data.get("seed")
    seed = None
    if seed_text is not None:
        if not isinstance(seed_text, str) or HEX64.fullmatch(seed_text) is None:
            raise ProofError("dice.seed: must be 64 lowercase hexadecimal digits (32 bytes)")
        seed = bytes.fromhex(seed_text)
        if commitment_of(seed) != commitment:
            raise ProofError("dice.seed: does not match dice.commitment (its SHA-256 differs)")
    return DiceProof(commitment, seed, first, tuple(contributions), tuple(contributors))


@dataclass(frozen=True)
class Verified:
    rolls: int
    """How many rolls the proof covers (all of them matched)."""
    first: int
    """The first roll covered: rolls before it were made before the commitment."""

    def summary(self) -> str:
        if self.first == 0:
            return f"all {self.rolls} rolls match the commitment"
        return (
            f"all {self.rolls} rolls from action {self.first} on match the commitment"
            f" (the {self.first} before it were rolled before the game was committed)"
        )


def verify_rolls(proof_data: Any, rolls: Sequence[int], expected_commitment: str | None = None) -> Verified:
    """Check a record's rolls (in order, one per action) against its `dice` field, and
    its commitment against the one a player was shown (the whole SHA-256, or at least
    its first 16 digits), if given. ProofError names the field, or the first action
    whose roll differs."""
    if proof_data is None:
        raise ProofError("dice: this record carries no dice proof (a local game, or a record from another tool)")
    proof = parse_proof(proof_data)
    if proof.seed is None:
        raise ProofError("dice.seed: missing (the seed is revealed when the game ends)")
    if proof.first > len(rolls):
        raise ProofError(f"dice.from: {proof.first} is past the record's {len(rolls)} actions")
    if proof.first == len(rolls) and rolls:
        raise ProofError(f"dice.from: the commitment covers none of the record's {len(rolls)} rolls")
    if expected_commitment is not None and not proof.commitment.startswith(expected_commitment.lower()):
        raise ProofError(
            f"dice.commitment: {proof.commitment[:16]}... is not the commitment you were shown ({expected_commitment[:16]}...)"
        )
    derived = proof.rolls(proof.first, len(rolls) - proof.first)
    for offset, (recorded, expected) in enumerate(zip(rolls[proof.first :], derived)):
        if recorded != expected:
            index = proof.first + offset
            raise ProofError(f"action {index}: rolled {recorded}, but the committed dice give {expected}")
    return Verified(len(derived), proof.first)
