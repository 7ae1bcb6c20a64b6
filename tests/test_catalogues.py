"""The page's message catalogues (web/i18n/*.json): every language has every message, and a
label for every rule option and every value of it, every bot and every error code the
server can send, so nothing shows up as a raw key in any language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flyingchess.bots import bot_names
from flyingchess.rules import OPTIONS, PRESETS

CATALOGUES = Path(__file__).resolve().parents[1] / "src" / "flyingchess" / "web" / "i18n"
LANGUAGES = sorted(path.stem for path in CATALOGUES.glob("*.json"))
SERVER = Path(__file__).resolve().parents[1] / "src" / "flyingchess" / "server"


def catalogue(language: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))
    return data


def test_three_languages_with_the_same_messages() -> None:
    assert {"en", "vi", "zh"} <= set(LANGUAGES)
    english = set(catalogue("en"))
    for language in LANGUAGES:
        assert set(catalogue(language)) == english, language


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_option_value_preset_and_bot_has_a_label(language: str) -> None:
    messages = catalogue(language)
    wanted = [f"opt.{spec.name}" for spec in OPTIONS]
    wanted += [f"opt.{spec.name}.{value}" for spec in OPTIONS if spec.kind == "choice" for value in spec.values]
    wanted += [f"preset.{name}" for name in PRESETS] + [f"bot.{name}" for name in bot_names()]
    missing = [key for key in wanted if not messages.get(key)]
    assert missing == [], missing


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_error_code_the_server_sends_has_a_message(language: str) -> None:
    codes: set[str] = set()
    for path in SERVER.rglob("*.py"):
        codes |= set(re.findall(r'ProtocolError\(\s*"([a-z-]+)"', path.read_text()))
    assert {"unknown-game", "rate-limited", "storage-unavailable"} <= codes  # the search finds them
    messages = catalogue(language)
    missing = sorted(code for code in codes if f"error.{code}" not in messages)
    assert missing == [], missing
