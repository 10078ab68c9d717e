"""What the referee tells the table: small immutable events that the announcer turns into speech.

Each :class:`~referee.rules.table.Verdict` carries the events its observation caused, in the order
they happen at the table. Players are named by their seat names; cards and colours are the typed
values of :mod:`referee.rules.cards`. Every event class is listed in :data:`EVENT_TYPES` so that a
phrase book can check that it has a sentence for each.

>>> NextTurn("Ben")
NextTurn(player='Ben')
>>> sorted(cls.__name__ for cls in EVENT_TYPES)[:3]
['CardPlayed', 'ChallengePrompt', 'ChallengeSettled']
>>> from referee.rules.cards import parse_card
>>> event_to_dict(CardPlayed("Anna", parse_card("red-7")))
{'type': 'CardPlayed', 'player': 'Anna', 'card': 'red-7', 'jump_in': False}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from referee.rules.cards import Card, Colour
from referee.rules.observations import Observation


class Event:
    """Base class of everything the referee announces."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A new round was dealt (multi-round matches); ``dealer`` turned up the first card."""

    round_number: int
    dealer: str


@dataclass(frozen=True, slots=True)
class FlipNeeded(Event):
    """The dealer must turn up a(nother) card onto the discard pile.

    ``reason``: ``first_card_ignored`` (R10), ``first_card_reshuffled`` (R9, the card went back into the
    draw pile), ``first_card_set_aside`` (R9, S2), ``discard_reshuffled`` (R33 with
    ``reshuffle_keep_top=false``: the top card went into the new draw pile).
    """

    reason: str


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``player`` put ``card`` on the discard pile; ``jump_in`` when out of turn under R39."""

    player: str
    card: Card
    jump_in: bool = False


@dataclass(frozen=True, slots=True)
class NextTurn(Event):
    """It is ``player``'s turn now."""

    player: str


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """``player`` loses the turn (Skip, Draw Two, Wild Draw Four, a Reverse between two players)."""

    player: str


@dataclass(frozen=True, slots=True)
class DirectionChanged(Event):
    """Play now runs ``clockwise`` or ``counterclockwise``."""

    direction: str


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """``player`` took ``cards`` from the draw pile on their own (not a penalty)."""

    player: str
    cards: int


@dataclass(frozen=True, slots=True)
class DrawnCardPrompt(Event):
    """After drawing, ``player`` may (``must_play_if_fits=False``) or must play the drawn card, or pass."""

    player: str
    must_play_if_fits: bool


@dataclass(frozen=True, slots=True)
class PenaltyDrawn(Event):
    """``player`` must take ``cards`` cards; ``reason`` is a penalty reason of SCENARIOS.md."""

    player: str
    cards: int
    reason: str


@dataclass(frozen=True, slots=True)
class DrawPending(Event):
    """With stacking, ``player`` must add a draw card or take ``cards`` cards."""

    player: str
    cards: int


@dataclass(frozen=True, slots=True)
class ColourOwed(Event):
    """``player`` must declare the colour of the wild on top."""

    player: str


@dataclass(frozen=True, slots=True)
class ColourChosen(Event):
    """``player`` declared ``colour``; it is the active colour now."""

    player: str
    colour: Colour


@dataclass(frozen=True, slots=True)
class TargetOwed(Event):
    """``player`` must name whom to swap hands with (Wild Swap Hands, a Seven-O 7)."""

    player: str


@dataclass(frozen=True, slots=True)
class HandsSwapped(Event):
    """``player`` and ``target`` exchanged their hands (R34, R38); ``player == target`` means no swap."""

    player: str
    target: str


@dataclass(frozen=True, slots=True)
class HandsPassed(Event):
    """A Seven-O 0: every player passes the hand on, ``direction`` of play (R38)."""

    direction: str


@dataclass(frozen=True, slots=True)
class HandsShuffled(Event):
    """Wild Shuffle Hands: all hands collected, shuffled and dealt one at a time from ``first`` (R35)."""

    first: str


@dataclass(frozen=True, slots=True)
class ChallengePrompt(Event):
    """``player`` may challenge ``against``'s Wild Draw Four or take ``cards`` cards (R24)."""

    player: str
    against: str
    cards: int


@dataclass(frozen=True, slots=True)
class RevealNeeded(Event):
    """``player`` must show the whole hand to the camera; ``purpose`` is ``challenge`` or ``scores``."""

    player: str
    purpose: str


@dataclass(frozen=True, slots=True)
class ChallengeSettled(Event):
    """The revealed hand settled the challenge: ``guilty`` when the Wild Draw Four was illegal (R25)."""

    challenger: str
    challenged: str
    guilty: bool


@dataclass(frozen=True, slots=True)
class UnoCalled(Event):
    """``player`` called UNO in time (or, not holding one card, called it at a forgetful player)."""

    player: str


@dataclass(frozen=True, slots=True)
class UnoCaught(Event):
    """``by`` caught ``player`` without an UNO call; the penalty follows as :class:`PenaltyDrawn`."""

    player: str
    by: str


@dataclass(frozen=True, slots=True)
class UnoMissed(Event):
    """``player`` did not call UNO in time and draws automatically (``uno_penalty_trigger=automatic``)."""

    player: str


@dataclass(frozen=True, slots=True)
class ReshuffleNeeded(Event):
    """The draw pile is empty: shuffle the discard pile (except its top card when ``keep_top``) into a
    new draw pile of ``cards`` cards (R33). Wilds going back lose their declared colour."""

    cards: int
    keep_top: bool


@dataclass(frozen=True, slots=True)
class NoCardsLeft(Event):
    """Draw and discard pile together hold fewer cards than ``player`` had to take; ``missing`` stay owed."""

    player: str
    missing: int


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    """``player`` played the last card (R29)."""

    player: str


@dataclass(frozen=True, slots=True)
class ScoresNeeded(Event):
    """The round is over: ``players`` must show their hands so that the points can be counted (R30)."""

    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundWon(Event):
    """``player`` (or the team) won the round and scored ``points``; ``scores`` are the match totals."""

    player: str
    points: int
    scores: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """``player`` reached the target and drops out (``match_mode=elimination``)."""

    player: str


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    """``player`` (or the team) won the match."""

    player: str


@dataclass(frozen=True, slots=True)
class IllegalPlay(Event):
    """``player``'s ``card`` was refused; it goes back to the hand. ``reason`` is a rejection code."""

    player: str
    card: Card
    reason: str


@dataclass(frozen=True, slots=True)
class Rejected(Event):
    """Any other observation was refused; ``player`` (may be empty) is told ``reason`` (a rejection code)."""

    player: str
    reason: str


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """``observation``, the last one that changed the state, was taken back."""

    observation: Observation


#: Every event type, for phrase books and tests that must cover them all.
EVENT_TYPES: tuple[type[Event], ...] = tuple(
    value
    for value in dict(globals()).values()
    if isinstance(value, type) and issubclass(value, Event) and value is not Event
)


def _plain(value: object) -> object:
    if isinstance(value, Card):
        return value.name
    if isinstance(value, Colour):
        return value.label
    if isinstance(value, Observation):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON-ready form a journal stores: ``type`` plus the fields, cards and colours by name."""
    data: dict[str, Any] = {"type": type(event).__name__}
    for field in dataclasses.fields(event):  # type: ignore[arg-type]
        data[field.name] = _plain(getattr(event, field.name))
    return data
