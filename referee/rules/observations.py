"""What the referee observes at the table: typed observations and their scenario/journal mapping form.

A journal stores each observation as the same small mapping a scenario step uses, so that a game can
be replayed after a crash; :func:`observation_from_dict` reads both.

>>> obs = observation_from_dict({"play": "red-7", "by": "Ben"})
>>> obs
Play(card=Card('red-7'), by='Ben')
>>> obs.to_dict()
{'play': 'red-7', 'by': 'Ben'}
>>> observation_from_dict({"play": "red-7", "draw": 1})
Traceback (most recent call last):
...
referee.rules.observations.ObservationError: a step has exactly one observation key, found draw, play
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.errors import UserError
from referee.rules.cards import Card, Colour, parse_card, parse_cards, parse_colour


class ObservationError(UserError):
    """A step that cannot be read as an observation (wrong key, wrong value type)."""


class Observation(abc.ABC):
    """Base class of everything the referee can observe."""

    __slots__ = ()
    #: The scenario key of the observation (``play``, ``draw`` …).
    key: ClassVar[str] = ""

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The scenario/journal mapping form."""

    @staticmethod
    def from_dict(mapping: Mapping[str, Any]) -> Observation:
        """Read the scenario/journal mapping form; see :func:`observation_from_dict`."""
        return observation_from_dict(mapping)


def _with_by(mapping: dict[str, Any], by: str | None) -> dict[str, Any]:
    if by is not None:
        mapping["by"] = by
    return mapping


@dataclass(frozen=True, slots=True)
class Flip(Observation):
    """The dealer turned ``card`` up onto the discard pile (first card, or a re-flip the referee asks for)."""

    card: Card
    key: ClassVar[str] = "flip"

    def to_dict(self) -> dict[str, Any]:
        return {"flip": self.card.name}


@dataclass(frozen=True, slots=True)
class Play(Observation):
    """``card`` landed on the discard pile, played by ``by`` (default: the player on turn)."""

    card: Card
    by: str | None = None
    key: ClassVar[str] = "play"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"play": self.card.name}, self.by)


@dataclass(frozen=True, slots=True)
class ChooseColour(Observation):
    """``by`` (default: who owes it) declared ``colour`` for the wild on top."""

    colour: Colour
    by: str | None = None
    key: ClassVar[str] = "colour"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"colour": self.colour.label}, self.by)


@dataclass(frozen=True, slots=True)
class Target(Observation):
    """``by`` chose ``player`` to swap hands with (Wild Swap Hands, Seven-O 7)."""

    player: str
    by: str | None = None
    key: ClassVar[str] = "target"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"target": self.player}, self.by)


@dataclass(frozen=True, slots=True)
class Draw(Observation):
    """``by`` took ``cards`` cards from the draw pile on their own (1 for a normal draw)."""

    cards: int = 1
    by: str | None = None
    key: ClassVar[str] = "draw"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"draw": self.cards}, self.by)


@dataclass(frozen=True, slots=True)
class Pass(Observation):
    """``by`` keeps the card just drawn and ends the turn."""

    by: str | None = None
    key: ClassVar[str] = "pass"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"pass": True}, self.by)


@dataclass(frozen=True, slots=True)
class Uno(Observation):
    """``by`` (default: who played the last card) called "UNO"."""

    by: str | None = None
    key: ClassVar[str] = "uno"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"uno": True}, self.by)


@dataclass(frozen=True, slots=True)
class Catch(Observation):
    """``by`` caught ``player`` holding one card without having called UNO."""

    player: str
    by: str | None = None
    key: ClassVar[str] = "catch"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"catch": self.player}, self.by)


@dataclass(frozen=True, slots=True)
class Challenge(Observation):
    """``by`` (default: the player who must draw) challenges the Wild Draw Four on top."""

    by: str | None = None
    key: ClassVar[str] = "challenge"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"challenge": True}, self.by)


@dataclass(frozen=True, slots=True)
class Accept(Observation):
    """``by`` (default: the player on turn) takes the pending draw instead of challenging or stacking."""

    by: str | None = None
    key: ClassVar[str] = "accept"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"accept": True}, self.by)


@dataclass(frozen=True, slots=True)
class Reveal(Observation):
    """``by`` showed the whole hand ``cards`` to the camera (a challenge, or counting points)."""

    cards: tuple[Card, ...]
    by: str | None = None
    key: ClassVar[str] = "reveal"

    def to_dict(self) -> dict[str, Any]:
        return _with_by({"reveal": [card.name for card in self.cards]}, self.by)


@dataclass(frozen=True, slots=True)
class Undo(Observation):
    """Take back the last accepted observation."""

    key: ClassVar[str] = "undo"

    def to_dict(self) -> dict[str, Any]:
        return {"undo": True}


OBSERVATION_TYPES: tuple[type[Observation], ...] = (
    Flip,
    Play,
    ChooseColour,
    Target,
    Draw,
    Pass,
    Uno,
    Catch,
    Challenge,
    Accept,
    Reveal,
    Undo,
)
OBSERVATION_KEYS: tuple[str, ...] = tuple(cls.key for cls in OBSERVATION_TYPES)


def _text(key: str, value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ObservationError(f"{key}: expected {what}, got {value!r}")
    return value.strip()


def _true(key: str, value: object) -> None:
    if value is not True:
        raise ObservationError(f"{key}: write '{key}: true', got {value!r}")


def observation_from_dict(mapping: Mapping[str, Any]) -> Observation:
    """Read one observation from its mapping form; keys other than the observation and ``by`` are errors.

    >>> observation_from_dict({"reveal": ["red-3", "wild"], "by": "Anna"}).cards
    (Card('red-3'), Card('wild'))
    >>> observation_from_dict({"draw": 0})
    Traceback (most recent call last):
    ...
    referee.rules.observations.ObservationError: draw: expected a whole number ≥ 1, got 0
    """
    if not isinstance(mapping, Mapping):
        raise ObservationError(f"an observation must be a mapping like {{play: red-7}}, not {mapping!r}")
    keys = [key for key in mapping if key in OBSERVATION_KEYS]
    if len(keys) != 1:
        found = ", ".join(sorted(map(str, keys))) or "none"
        raise ObservationError(
            f"a step has exactly one observation key, found {found}"
            + ("" if keys else f" (use one of {', '.join(OBSERVATION_KEYS)})")
        )
    others = [str(key) for key in mapping if key not in OBSERVATION_KEYS and key != "by"]
    if others:
        raise ObservationError(
            f"unknown key {others[0]!r} in a step; allowed: {', '.join(OBSERVATION_KEYS)}, by"
        )
    key = keys[0]
    value = mapping[key]
    by = mapping.get("by")
    if by is not None:
        by = _text("by", by, "a player name")
    if key == "flip":
        return Flip(parse_card(value))
    if key == "play":
        return Play(parse_card(value), by)
    if key == "colour":
        return ChooseColour(parse_colour(value), by)
    if key == "target":
        return Target(_text(key, value, "a player name"), by)
    if key == "draw":
        if type(value) is not int or value < 1:
            raise ObservationError(f"draw: expected a whole number ≥ 1, got {value!r}")
        return Draw(value, by)
    if key == "catch":
        return Catch(_text(key, value, "a player name"), by)
    if key == "reveal":
        return Reveal(parse_cards(value), by)
    _true(key, value)
    if key == "pass":
        return Pass(by)
    if key == "uno":
        return Uno(by)
    if key == "challenge":
        return Challenge(by)
    if key == "accept":
        return Accept(by)
    if by is not None:
        raise ObservationError("undo takes no 'by'")
    return Undo()
