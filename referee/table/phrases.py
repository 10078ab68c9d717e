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
    ChallengePrompt,
    ChallengeSettled,
    ColourOwed,
    DirectionChanged,
    DrawnCardPrompt,
    DrawPending,
    Event,
    FlipNeeded,
    HandsSwapped,
    NextTurn,
    PenaltyDrawn,
    Rejected,
    ReshuffleNeeded,
    RevealNeeded,
    RoundWon,
    Skipped,
    TargetOwed,
    Undone,
)
from referee.rules.options import Rules

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

#: The ``RoundWon`` sentence for each ``match_mode``: only in ``first_to_target`` does the winner
#: score the others' hands; otherwise each hand counts against its own player and the lowest leads.
ROUND_WON_VARIANTS: dict[str, str] = {
    "first_to_target": "winner_scores",
    "lowest_total": "losers_score",
    "elimination": "losers_score",
}

#: Events that ask one player a question: a "… is on turn" for the same player right after it
#: would cut the question off, so it is not said.
QUESTIONS: tuple[type[Event], ...] = (
    ChallengePrompt,
    DrawPending,
    ColourOwed,
    TargetOwed,
    DrawnCardPrompt,
    RevealNeeded,
)


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
        return self._ranked(scores, highest_first=True)

    def spoken_lowest_first(self, scores: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
        return self._ranked(scores, highest_first=False)

    def _ranked(self, scores: Mapping[str, int] | Iterable[tuple[str, int]], highest_first: bool) -> str:
        """The leader first: the standings are heard in the order people care about."""
        pairs = scores.items() if isinstance(scores, Mapping) else scores
        ranked = sorted(pairs, key=lambda pair: -pair[1] if highest_first else pair[1])
        return self.spoken_names(f"{name} {total}" for name, total in ranked)

    def spoken_why(self, reason: str) -> str:
        return self.reasons[reason][self.language]

    def spoken_why_lower(self, reason: str) -> str:
        why = self.spoken_why(reason)
        return why[:1].lower() + why[1:]


class PhraseBook:
    """Sentences in one language: :meth:`event` for the rules core's events, :meth:`message` for the rest."""

    def __init__(
        self, language: str, phrases: Mapping[str, Any] | None = None, *, match_mode: str = "first_to_target"
    ) -> None:
        if language not in LANGUAGES:
            raise UserError(f"no phrases for language {language!r}: use one of {', '.join(LANGUAGES)}")
        self.language = language
        self.match_mode = match_mode
        self._phrases = phrases if phrases is not None else load_phrases()
        self._speaking = _Speaking(self._phrases["vocabulary"][language], self._phrases["reasons"], language)

    def for_rules(self, rules: Rules) -> PhraseBook:
        """This book for a game under ``rules`` (how a round's result is said depends on the scoring)."""
        return PhraseBook(self.language, self._phrases, match_mode=rules.match_mode)

    def event(self, event: Event) -> str:
        """The sentence announcing ``event`` (any event of :mod:`referee.rules.events`)."""
        entry = self._phrases["events"][type(event).__name__]
        variant = VARIANTS.get(type(event))
        if variant is not None:
            entry = entry[variant(event)]
        elif isinstance(event, RoundWon):
            entry = entry[ROUND_WON_VARIANTS[self.match_mode]]
        values = (
            {item.name: getattr(event, item.name) for item in fields(event)} if is_dataclass(event) else {}
        )
        return self._speaking.format(entry[self.language], **values)

    def events(self, events: Iterable[Event]) -> list[str]:
        """The sentences of a verdict's ``events``, in order, less those that only repeat what the
        table already hears (:func:`worth_saying`)."""
        return [sentence for _, sentence in self.sentences(events)]

    def sentences(self, events: Iterable[Event]) -> list[tuple[Event, str]]:
        """:meth:`events` with the event each sentence says."""
        return [(event, self.event(event)) for event in worth_saying(list(events))]

    def message(self, key: str, **values: Any) -> str:
        """One of the table's own sentences (``camera_lost``, ``straighten_card``, ``ask_uno_caller`` …)."""
        return self._speaking.format(self._phrases["messages"][key][self.language], **values)

    def cards(self, count: int) -> str:
        """ "zwei Karten", "één kaart", "three cards": for the app's own sentences."""
        return self._speaking.spoken_cards(count)

    def card(self, card: Any) -> str:
        """A card with its article: "die rote Sieben"."""
        return self._speaking.spoken_card(card)


def worth_saying(events: list[Event]) -> list[Event]:
    """The events of one verdict that add something when spoken.

    * "Ben, draw four or challenge Anna?" is not followed by "Ben's turn": the question names him
      and the turn would cut it off.
    * A Reverse between two players is a Skip ("Anna plays the reverse. Ben is skipped."): the new
      direction means nothing then and is not said.
    """
    kept = []
    asked = set()
    for index, event in enumerate(events):
        if isinstance(event, NextTurn) and event.player in asked:
            continue
        following = events[index + 1] if index + 1 < len(events) else None
        if isinstance(event, DirectionChanged) and isinstance(following, Skipped):
            continue
        if isinstance(event, QUESTIONS):
            asked.add(event.player)
        kept.append(event)
    return kept
