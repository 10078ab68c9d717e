"""The phrase book: the rules core's events, and the table's own messages, as short spoken sentences.

The sentences live in ``phrases.toml`` beside this module (one file a translator can read
whole); this module only fills them in: player names as given, small numbers as words, cards
with their article, colours, reasons. Every event class of :mod:`referee.rules.events` has a
sentence in German, Dutch and English (the tests check all of them, variant by variant).

>>> from referee.rules.events import NextTurn, PenaltyDrawn
>>> PhraseBook("de").event(PenaltyDrawn("Ben", 2, "draw2"))
'Ben muss zwei Karten ziehen.'
>>> PhraseBook("nl").event(NextTurn("Ben"))
'Ben is aan de beurt.'
>>> PhraseBook("en").message("camera_back")
'The camera is back. Carry on.'
"""

from __future__ import annotations

import functools
import string
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.rules.events import (
    CardPlayed,
    ChallengeSettled,
    DrawnCardPrompt,
    Event,
    FlipNeeded,
    HandsSwapped,
    PenaltyDrawn,
    Rejected,
    ReshuffleNeeded,
    RevealNeeded,
    Undone,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LANGUAGES: tuple[str, ...] = ("de", "nl", "en")
PHRASES_FILE = Path(__file__).with_name("phrases.toml")

#: Events whose sentence depends on a field's value: which sub-table of ``phrases.toml`` to use.
VARIANTS: dict[type[Event], Callable[[Any], str]] = {
    FlipNeeded: lambda e: e.reason,
    CardPlayed: lambda e: "jump_in" if e.jump_in else "normal",
    DrawnCardPrompt: lambda e: "must" if e.must_play_if_fits else "may",
    PenaltyDrawn: lambda e: e.reason,
    HandsSwapped: lambda e: "kept" if e.player == e.target else "swapped",
    RevealNeeded: lambda e: e.purpose,
    ChallengeSettled: lambda e: "guilty" if e.guilty else "not_guilty",
    ReshuffleNeeded: lambda e: "keep_top" if e.keep_top else "all",
    Rejected: lambda e: "addressed" if e.player else "anonymous",
    Undone: lambda e: "card" if hasattr(e.observation, "card") else "other",
}


@functools.cache
def load_phrases(path: Path = PHRASES_FILE) -> dict[str, Any]:
    """The parsed phrase file (read once per process)."""
    with path.open("rb") as file:
        return tomllib.load(file)


class _Speaking(string.Formatter):
    """``str.format`` with the spoken formats of ``phrases.toml`` (``{cards:cards}`` and friends)."""

    def __init__(
        self, words: Mapping[str, Any], reasons: Mapping[str, Mapping[str, str]], language: str
    ) -> None:
        self.words = words
        self.reasons = reasons
        self.language = language

    def format_field(self, value: Any, format_spec: str) -> str:
        speak = getattr(self, f"spoken_{format_spec}", None)
        return speak(value) if speak and format_spec else super().format_field(value, format_spec)

    def number(self, count: int) -> str:
        """Small numbers as words (they sound natural and TTS reads them right), larger ones as digits."""
        numbers = self.words["numbers"]
        return numbers[count] if 0 <= count < len(numbers) else str(count)

    def spoken_cards(self, count: int) -> str:
        return (
            self.words["one_card"]
            if count == 1
            else self.words["many_cards"].format(count=self.number(count))
        )

    def spoken_points(self, count: int) -> str:
        return self.words["one_point" if count == 1 else "many_points"].format(count=count)

    def spoken_card(self, card: Any) -> str:
        name = str(card)  # a rules Card prints as its name: "red-7", "wild-draw4"
        colour, _, symbol = name.partition("-")
        if colour in self.words["adjectives"]:
            return self.words["cards"][symbol].format(colour=self.words["adjectives"][colour])
        return self.words["cards"][name]

    def spoken_colour(self, colour: Any) -> str:
        return self.words["colours"][getattr(colour, "label", colour)]

    def spoken_adjective(self, colour: Any) -> str:
        return self.words["adjectives"][getattr(colour, "label", colour)]

    def spoken_direction(self, direction: str) -> str:
        return self.words["directions"][direction]

    def spoken_names(self, names: Iterable[str]) -> str:
        names = list(names)
        if len(names) <= 1:
            return "".join(names)
        return f"{', '.join(names[:-1])} {self.words['and']} {names[-1]}"

    def spoken_scores(self, scores: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
        pairs = scores.items() if isinstance(scores, Mapping) else scores
        ranked = sorted(pairs, key=lambda pair: -pair[1])
        return self.spoken_names(f"{name} {total}" for name, total in ranked)

    def spoken_why(self, reason: str) -> str:
        return self.reasons[reason][self.language]

    def spoken_why_lower(self, reason: str) -> str:
        why = self.spoken_why(reason)
        return why[:1].lower() + why[1:]


class PhraseBook:
    """Sentences in one language: :meth:`event` for the rules core's events, :meth:`message` for the rest."""

    def __init__(self, language: str, phrases: Mapping[str, Any] | None = None) -> None:
        if language not in LANGUAGES:
            raise UserError(f"no phrases for language {language!r}: use one of {', '.join(LANGUAGES)}")
        self.language = language
        self._phrases = phrases if phrases is not None else load_phrases()
        self._speaking = _Speaking(self._phrases["vocabulary"][language], self._phrases["reasons"], language)

    def event(self, event: Event) -> str:
        """The sentence announcing ``event`` (any event of :mod:`referee.rules.events`)."""
        entry = self._phrases["events"][type(event).__name__]
        variant = VARIANTS.get(type(event))
        if variant is not None:
            entry = entry[variant(event)]
        values = (
            {item.name: getattr(event, item.name) for item in fields(event)} if is_dataclass(event) else {}
        )
        return self._speaking.format(entry[self.language], **values)

    def events(self, events: Iterable[Event]) -> list[str]:
        """One sentence per event, in order (a verdict's ``events``)."""
        return [self.event(event) for event in events]

    def message(self, key: str, **values: Any) -> str:
        """One of the table's own sentences (``camera_lost``, ``straighten_card``, ``ask_uno_caller`` …)."""
        return self._speaking.format(self._phrases["messages"][key][self.language], **values)

    def cards(self, count: int) -> str:
        """ "zwei Karten", "één kaart", "three cards": for the app's own sentences."""
        return self._speaking.spoken_cards(count)

    def card(self, card: Any) -> str:
        """A card with its article: "die rote Sieben"."""
        return self._speaking.spoken_card(card)
