"""The commands that read a game record: `replay` and `verify` check it, `choose` asks a bot
for the next move after it, `analyse` reviews every decision in it."""

from __future__ import annotations

import argparse
import sys

from ..bots import BOTS, make_bot
from ..engine.board import COLOURS
from ..engine.game import roll
from ..engine.rules import DIE_FACES
from ..engine.text import counted
from ..records.record import ActionError, canonical_state
from .common import EXIT_PARTIAL, CommandError, check_bots, print_json, read_record


def command_replay(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    state = record.start()
    try:
        for state in record.replay():
            if args.trace:
                print_json(canonical_state(state), sys.stdout)
    except ActionError as error:
        sys.stdout.flush()
        raise CommandError(str(error)) from None
    if not args.trace:
        print_json(canonical_state(state), sys.stdout)
    return 0


def command_verify(args: argparse.Namespace) -> int:
    """Recompute every committed roll of a network game's record (docs/records.md §6).
    Exit 0: every roll is covered and matches; 2: refused; 3: the rolls covered match,
    but part of the record is only its own word (a warning line says what)."""
    from ..records.fair_dice import HOST, ProofError, Shown, valid_contribution, verify_rolls

    shown = args.commitment
    if shown is not None and not (16 <= len(shown) <= 64 and all(c in "0123456789abcdefABCDEF" for c in shown)):
        raise CommandError("--commitment: give the commitment's 64 hexadecimal digits (or at least the first 16)")
    if args.share is not None and not valid_contribution(args.share):
        raise CommandError("--share: give your page's share as it showed it (8 to 64 letters, digits, '-' or '_')")
    if args.share_by is not None and (args.share is None or args.share_by not in (HOST, *COLOURS)):
        raise CommandError("--as: give host or your colour (red, yellow, blue, green), with --share")
    seated = None
    if args.seated is not None:
        seated = tuple(colour.strip() for colour in args.seated.split(",") if colour.strip())
        if any(colour not in COLOURS for colour in seated):
            raise CommandError("--seated: give the colours you saw held by players, comma-separated (blue,green)")
    record = read_record(args.record)
    try:
        rolls = [step.roll for step in record.steps()]
    except ActionError as error:
        raise CommandError(str(error)) from None
    try:
        verified = verify_rolls(
            record.extra.get("dice"),
            rolls,
            record.players,
            seats=record.extra.get("seats"),
            shown=Shown(shown, args.first, args.share, args.share_by, seated),
        )
    except ProofError as error:
        raise CommandError(str(error)) from None
    print(verified.summary())
    for line in verified.details():
        print(line)
    if verified.complete:
        return 0
    sys.stdout.flush()
    for warning in verified.warnings():
        sys.stderr.write(f"warning: {warning}\n")
    return EXIT_PARTIAL


def _die_value(text: str) -> int:
    if text.strip() not in {str(face) for face in DIE_FACES}:
        raise CommandError(f"roll {text!r} is not a die value 1..6")
    return int(text)


def command_choose(args: argparse.Namespace) -> int:
    value = _die_value(args.roll)
    check_bots([args.bot])
    record = read_record(args.record)
    try:
        state = record.final_state()
    except ActionError as error:
        raise CommandError(str(error)) from None
    if state.over:
        raise CommandError("the game is over: there is no move to choose")
    rolled, _ = roll(state, value)
    plane = make_bot(args.bot, args.seed).choose(rolled)
    print("pass" if plane is None else plane)
    return 0


def command_analyse(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    missing = BOTS["ace"].missing()
    if missing is not None:
        raise CommandError(f"analyse uses the ace bot's network: {missing}")
    from ..bots.analysis import analyse

    try:
        review = analyse(record)
    except ActionError as error:
        raise CommandError(str(error)) from None
    if args.json:
        print_json(review.to_json(), sys.stdout)
        return 0
    final = review.chances[-1]
    start = review.chances[0]
    print(f"{counted(len(record.actions), 'action')}, {counted(len(review.decisions), 'decision')} with a real choice")
    for colour in record.players:
        made = [d for d in review.decisions if d.colour == colour]
        lost = sum(d.cost for d in made)
        print(
            f"  {colour:<7} chance to finish first {start[colour]:6.1%} at the start, {final[colour]:6.1%} at the end;"
            f" {counted(len(made), 'decision')}, {sum(d.cost == 0 for d in made)} best, chance given away {lost:.1%}"
        )
    mistakes = review.mistakes()
    print("worst mistakes:" if mistakes else "no mistake costs 2% or more")
    for d in mistakes:
        played = "pass" if d.played is None else f"plane {d.played}"
        print(
            f"  action {d.index:>4}  {d.colour:<7} rolled {d.roll}: played {played}, best plane {d.best}"
            f" ({', '.join(d.reasons)}): {d.chance_played:.1%} instead of {d.chance_best:.1%}, cost {d.cost:.1%}"
        )
    if review.swings:
        print("big swings:")
    for swing in review.swings:
        changes = ", ".join(f"{colour} {delta:+.1%}" for colour, delta in swing.change.items() if abs(delta) >= 0.005)
        print(f"  action {swing.index:>4}  {swing.colour:<7} {'+'.join(swing.kinds)}: {changes}")
    return 0
