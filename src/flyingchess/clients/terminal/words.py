"""The page's message catalogues (web/i18n/*.json) for the terminal: one set of words in
each language for both front ends, so a message is translated once."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Final

LANGUAGE_NAMES: Final = {
    "en": "English",
    "zh": "简体中文",
    "vi": "Tiếng Việt",
    "hi": "हिन्दी",
    "es": "Español",
    "pt": "Português (Brasil)",
    "id": "Bahasa Indonesia",
    "ar": "العربية",
}
"""Every language the page and the terminal speak (web/i18n/CODE.json), in the page's order."""
LANGUAGES: Final = tuple(LANGUAGE_NAMES)


def plural_category(language: str, count: int) -> str:
    """CLDR's plural category of a whole number in the language (what the page asks
    `Intl.PluralRules`): a message `KEY#CATEGORY` is chosen over `KEY` when the
    catalogue has it."""
    count = abs(count)
    if language == "ar":
        tail = count % 100
        return {0: "zero", 1: "one", 2: "two"}.get(count) or (
            "few" if 3 <= tail <= 10 else "many" if 11 <= tail <= 99 else "other"
        )
    if language in ("hi", "pt"):
        return (
            "one" if count in (0, 1) else "many" if language == "pt" and count and count % 1_000_000 == 0 else "other"
        )
    if language in ("en", "es"):
        return "one" if count == 1 else "many" if language == "es" and count and count % 1_000_000 == 0 else "other"
    return "other"  # zh, vi, id: one form


LETTERS: Final = {"red": "R", "yellow": "Y", "blue": "B", "green": "G"}
"""The colour's letter on the board: planes are told apart by letter, so the board reads
the same without colour (monochrome terminals, colour-blind players)."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def catalogue(language: str) -> Mapping[str, str]:
    text = resources.files("flyingchess").joinpath("web", "i18n", f"{language}.json").read_text(encoding="utf-8")
    messages: dict[str, str] = json.loads(text)
    return messages


def language_from_environment(environment: Mapping[str, str] = os.environ) -> str:
    """The user's language as the terminal's locale says (LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG, as gettext reads them), if it is one of ours; else English."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for part in environment.get(name, "").split(":"):
            code = part[:2].lower()
            if code in LANGUAGES:
                return code
    return "en"


class Words:
    """`words("log.roll", player="Red", value=5)`: the message in this language (the
    English one where a catalogue lacks it), its {placeholders} filled."""

    def __init__(self, language: str = "en") -> None:
        if language not in LANGUAGES:
            raise ValueError(f"no language {language!r}: choose one of {', '.join(LANGUAGES)}")
        self.language = language
        self.messages = catalogue(language)
        self.fallback = catalogue("en")

    def __call__(self, key: str, **values: object) -> str:
        count = values.get("n", values.get("count"))
        if isinstance(count, int):
            variant = f"{key}#{plural_category(self.language, count)}"
            if variant in self.messages:
                key = variant
            elif self.language == "en" or key not in self.messages:
                key = variant if variant in self.fallback else key
        text = self.messages.get(key) or self.fallback.get(key.split("#")[0]) or key
        return _PLACEHOLDER.sub(lambda found: str(values.get(found[1], found[0])), text)

    def colour(self, colour: str) -> str:
        return self(f"colour.{colour}")

    def next_language(self) -> Words:
        return Words(LANGUAGES[(LANGUAGES.index(self.language) + 1) % len(LANGUAGES)])
