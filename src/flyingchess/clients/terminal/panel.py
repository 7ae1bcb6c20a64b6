"""The text beside the board: the players, what to do now, the moves with their previews,
the win chances and the rules, each from a snapshot and the player's language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.style import Style
from rich.text import Text

from ...engine.board import CENTRE
from ...engine.rules import OPTIONS, SET_OPTIONS, Rules
from ..game_client import Game, You
from .narrate import Line, preview_text
from .picture import STRONG
from .words import LETTERS, Words

DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def _colour_style(colour: str | None, mono: bool, bold: bool = False) -> Style:
    if colour is None or mono:
        return Style(bold=bold)
    return Style(color=STRONG[colour], bold=bold)


def seat_label(words: Words, seat: Mapping[str, Any], mine: bool) -> str:
    """Who plays a seat: you, a named player, a bot, an open seat."""
    kind = seat.get("kind")
    if mine:
        label = words("seat.you")
    elif kind == "bot":
        label = words("seat.bot", name=words(f"bot.{seat.get('bot')}"))
    elif kind == "open":
        label = words("seat.open-short")
    else:
        label = str(seat.get("name") or words("seat.player" if kind == "player" else "seat.human"))
    if seat.get("autopilot"):
        label += f" ({words('seat.autopilot')})"
    elif kind in ("player",) and seat.get("connected") is False:
        label += f" ({words('seat.away')})"
    return label


def players_text(words: Words, game: Game, you: You, mono: bool) -> Text:
    """One line a player: whose turn (▶), letter, colour, who plays it, planes home or place."""
    text = Text()
    state = game.state
    for colour, planes in zip(state.players, state.planes, strict=True):
        turn = colour == game.to_move
        seat = game.seats.get(colour, {})
        home = sum(1 for progress in planes if progress == CENTRE)
        place = state.ranking.index(colour) + 1 if colour in state.ranking else None
        status = words("end.place", n=place) if place else words("game.home-count", n=home)
        text.append("▶ " if turn and game.started else "  ", Style(bold=True))
        text.append(f"{LETTERS[colour]} {words.colour(colour)}", _colour_style(colour, mono, bold=True))
        text.append(f"  {seat_label(words, seat, colour in you.controls)}", Style(bold=turn))
        text.append(f"  · {status}\n", Style(dim=True))
    return text


def status_text(words: Words, game: Game, you: You) -> Text:
    """The die and what to do now (the page's hints, with the terminal's keys)."""
    state = game.state
    text = Text()
    if state.roll is not None:
        text.append(f"{DIE_FACES[state.roll - 1]} {state.roll}  ", Style(bold=True))
    mover = game.to_move
    if game.phase == "over":
        winner = state.ranking[0] if state.ranking else None
        text.append(words("end.wins", player=words.colour(winner)) if winner else words("hint.over"), Style(bold=True))
    elif not game.started:
        text.append(words("term.start-hint") if you.role == "host" else words("hint.not-started"))
    elif mover in you.controls:
        key = "term.hint-move" if game.phase == "move" else "term.hint-roll"
        text.append(words(key, player=words.colour(mover), value=state.roll or ""), Style(bold=True))
    elif mover is not None:
        seat = game.seats.get(mover, {})
        name = seat_label(words, seat, False)
        text.append(words("hint.bot" if seat.get("kind") == "bot" else "hint.waiting-for", name=name))
    return text


def moves_text(words: Words, game: Game, options: Sequence[Any], chosen: int, mono: bool) -> Text:
    """The player's choices, a line each with its keys (1-4: any plane that makes that
    move), the chosen one marked."""
    text = Text()
    colour = game.to_move
    if colour is None or game.phase != "move":
        return text
    for index, move in enumerate(options):
        selected = index == chosen
        style = Style(reverse=True, bold=True) if selected else Style()
        keys = "/".join(str(m.plane + 1) for m in game.moves if m.choice == move.choice)
        text.append(f"{'›' if selected else ' '} {keys}  ", style)
        text.append(preview_text(words, colour, move), style + _colour_style(None if selected else colour, mono))
        text.append("\n")
    return text


def chances_text(words: Words, chances: Mapping[str, float] | None, mono: bool) -> Text:
    text = Text(words("term.chances"), Style(bold=True))
    for colour, chance in (chances or {}).items():
        text.append(f"  {LETTERS[colour]} {round(chance * 100)}%", _colour_style(colour, mono))
    return text


def _value_label(words: Words, name: str, value: Any) -> str:
    if name in SET_OPTIONS:
        return ", ".join(str(face) for face in sorted(value)) or words("opt.none")
    if isinstance(value, bool):
        return words("opt.on" if value else "opt.off")
    return words(f"opt.{name}.{value}")


def rules_text(words: Words, rules: Rules, name: str | None) -> Text:
    """The game's rules: its preset's name, then every option and its value."""
    title = words(f"preset.{name}") if name else words("preset.custom")
    text = Text(words("term.rules-title", name=title) + "\n", Style(bold=True))
    for spec in OPTIONS:
        text.append(f"  {words(f'opt.{spec.name}')}: ", Style(dim=True))
        text.append(_value_label(words, spec.name, getattr(rules, spec.name)) + "\n")
    return text


def log_line_text(line: Line, mono: bool) -> Text:
    """One line of the move log, in its player's colour (strong lines bold)."""
    return Text(line.text, _colour_style(line.colour, mono, bold=line.strong))
