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

LANGUAGES: Final = ("en", "vi", "zh")
LANGUAGE_NAMES: Final = {"en": "English", "vi": "Tiếng Việt", "zh": "中文"}
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
        text = self.messages.get(key) or self.fallback.get(key) or key
        return _PLACEHOLDER.sub(lambda found: str(values.get(found[1], found[0])), text)

    def colour(self, colour: str) -> str:
        return self(f"colour.{colour}")

    def next_language(self) -> Words:
        return Words(LANGUAGES[(LANGUAGES.index(self.language) + 1) % len(LANGUAGES)])
