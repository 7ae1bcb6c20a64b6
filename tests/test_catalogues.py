"""The page's message catalogues (web/i18n/*.json): every language has every message, and a
label for every rule option and every value of it, every bot and every error code the
server can send, so nothing shows up as a raw key in any language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flyingchess.bots import bot_names
from flyingchess.engine.rules import OPTIONS, PRESETS

CATALOGUES = Path(__file__).resolve().parents[1] / "src" / "flyingchess" / "web" / "i18n"
LANGUAGES = sorted(path.stem for path in CATALOGUES.glob("*.json"))
SERVER = Path(__file__).resolve().parents[1] / "src" / "flyingchess" / "server"


def catalogue(language: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))
    return data


PLURAL_CATEGORIES = {
    "en": {"one"},
    "es": {"one", "many"},
    "pt": {"one", "many"},
    "hi": {"one"},
    "ar": {"zero", "one", "two", "few", "many"},
}
"""The CLDR plural categories besides `other` each language has (a message `KEY#CATEGORY`
is chosen over `KEY`, the `other` form, by the number in {n} or {count})."""
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def base_keys(messages: dict[str, str]) -> list[str]:
    return [key for key in messages if "#" not in key]


def test_every_language_the_page_offers_has_a_catalogue() -> None:
    from flyingchess.clients.terminal.words import LANGUAGES as OFFERED

    assert set(OFFERED) == set(LANGUAGES)
    page = (CATALOGUES.parent / "i18n.js").read_text(encoding="utf-8")
    assert set(re.findall(r'code: "([a-z]+)"', page)) == set(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_message_and_only_its_own_plural_forms(language: str) -> None:
    english = catalogue("en")
    messages = catalogue(language)
    assert base_keys(messages) == base_keys(english)  # the same messages, in the same order
    for key, text in messages.items():
        assert text.strip(), key
        base, _, category = key.partition("#")
        if category:
            assert category in PLURAL_CATEGORIES.get(language, set()), key
            assert PLACEHOLDER.search(english[base]) and {"n", "count"} & set(PLACEHOLDER.findall(english[base])), key
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[base])), (language, key, text)


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
