"""The cards of UNO (RULES.md R1–R3, R30): a small typed model, the project's card names, decks, points.

Every card is *interned*: :func:`parse_card` returns the same :class:`Card` object for the same name,
so the referee compares cards with ``is`` and hashes them cheaply on its hot path.

>>> card = parse_card("red-7")
>>> card.colour, card.rank, card.name
(<Colour.RED: 0>, <Rank.SEVEN: 7>, 'red-7')
>>> parse_card("red-7") is card
True
>>> parse_card("wild-draw4").is_wild, parse_card("wild-draw4").draw_amount
(True, 4)
>>> parse_card("red-draw-2")
Traceback (most recent call last):
...
referee.rules.cards.CardError: unknown card 'red-draw-2': did you mean 'red-draw2'? Cards are named ...
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.errors import UserError

if TYPE_CHECKING:
    from referee.rules.options import Rules


class CardError(UserError):
    """An unknown card or colour name (a typo in a scenario, a detector label that is not a card)."""


class Colour(enum.IntEnum):
    """The four suits; the value is the index used in compact internal state."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def label(self) -> str:
        """The lower-case name used in scenarios and logs (``red``)."""
        return _COLOUR_LABELS[self]

    @property
    def symbol(self) -> str:
        """The colour-blind symbol printed on the cards in S3 (R3)."""
        return _COLOUR_SYMBOLS[self]


_COLOUR_LABELS = ("red", "yellow", "green", "blue")
_COLOUR_SYMBOLS = ("●", "★", "▲", "■")


class Rank(enum.IntEnum):
    """What is printed on a card besides its colour: 0–9, an action, or a kind of wild."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    SKIP = 10
    REVERSE = 11
    DRAW2 = 12
    WILD = 13
    WILD_DRAW4 = 14
    WILD_SWAP = 15
    WILD_SHUFFLE = 16
    WILD_CUSTOM = 17

    @property
    def label(self) -> str:
        """The rank part of a card name (``7``, ``skip``, ``draw2``; the full name for wilds)."""
        return _RANK_LABELS[self]


_RANK_LABELS = (
    *(str(number) for number in range(10)),
    "skip",
    "reverse",
    "draw2",
    "wild",
    "wild-draw4",
    "wild-swap",
    "wild-shuffle",
    "wild-custom",
)

#: Ranks that carry an action (R18–R20); they match each other by symbol (R12).
ACTION_RANKS = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW2})
#: Ranks without a printed colour; the player declares one (R21, R22, R34–R36).
WILD_RANKS = frozenset({Rank.WILD, Rank.WILD_DRAW4, Rank.WILD_SWAP, Rank.WILD_SHUFFLE, Rank.WILD_CUSTOM})
#: The wilds of the 112-card deck that R30 scores with ``points_special_wild``.
SPECIAL_WILD_RANKS = frozenset({Rank.WILD_SWAP, Rank.WILD_SHUFFLE, Rank.WILD_CUSTOM})


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card face. Instances are interned (identity is equality); build them with :func:`parse_card`."""

    colour: Colour | None
    rank: Rank
    name: str
    is_wild: bool
    is_number: bool
    is_action: bool
    #: Cards the next player draws for this card (2 for Draw Two, 4 for Wild Draw Four, else 0).
    draw_amount: int

    def __repr__(self) -> str:
        return f"Card({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Keep interning across pickling (multiprocessing in the simulator): unpickle through parse_card.
        return parse_card, (self.name,)


def _make_card(colour: Colour | None, rank: Rank) -> Card:
    name = rank.label if colour is None else f"{colour.label}-{rank.label}"
    return Card(
        colour=colour,
        rank=rank,
        name=name,
        is_wild=rank in WILD_RANKS,
        is_number=rank <= Rank.NINE,
        is_action=rank in ACTION_RANKS,
        draw_amount=4 if rank is Rank.WILD_DRAW4 else 2 if rank is Rank.DRAW2 else 0,
    )


#: Every distinct card face, in a stable order (colours × ranks, then the wilds).
ALL_CARDS: tuple[Card, ...] = (
    *(_make_card(colour, rank) for colour in Colour for rank in Rank if rank not in WILD_RANKS),
    *(_make_card(None, rank) for rank in Rank if rank in WILD_RANKS),
)
CARDS_BY_NAME: dict[str, Card] = {card.name: card for card in ALL_CARDS}
COLOURS_BY_NAME: dict[str, Colour] = {colour.label: colour for colour in Colour}

_NAME_HINT = (
    "Cards are named like red-7, blue-skip, green-reverse, yellow-draw2, wild, wild-draw4, "
    "wild-swap, wild-shuffle, wild-custom"
)


def _closest(word: str, candidates: list[str]) -> str:
    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=0.5)
    return f": did you mean {matches[0]!r}?" if matches else ""


def parse_card(name: str) -> Card:
    """The card called ``name`` (``red-7``, ``wild-draw4``); a one-line :class:`CardError` otherwise.

    >>> parse_card(" Blue-Skip ").name
    'blue-skip'
    >>> parse_card("grean-3")
    Traceback (most recent call last):
    ...
    referee.rules.cards.CardError: unknown card 'grean-3': did you mean 'green-3'? Cards are named like ...
    """
    card = CARDS_BY_NAME.get(name) if type(name) is str else None
    if card is not None:
        return card
    if not isinstance(name, str):
        raise CardError(f"a card must be a name like 'red-7', not {name!r}; {_NAME_HINT}")
    normalised = name.strip().lower()
    card = CARDS_BY_NAME.get(normalised)
    if card is not None:
        return card
    raise CardError(f"unknown card {name!r}{_closest(normalised, list(CARDS_BY_NAME))} {_NAME_HINT}")


def parse_colour(name: str) -> Colour:
    """The colour called ``name`` (``red``, ``yellow``, ``green``, ``blue``).

    >>> parse_colour("green")
    <Colour.GREEN: 2>
    >>> parse_colour("gren")
    Traceback (most recent call last):
    ...
    referee.rules.cards.CardError: unknown colour 'gren': did you mean 'green'? Colours are red, ...
    """
    colour = COLOURS_BY_NAME.get(name.strip().lower()) if isinstance(name, str) else None
    if colour is None:
        hint = _closest(name.strip().lower(), list(COLOURS_BY_NAME)) if isinstance(name, str) else ""
        raise CardError(f"unknown colour {name!r}{hint} Colours are red, yellow, green, blue")
    return colour


def parse_cards(names: object) -> tuple[Card, ...]:
    """A list of card names (a revealed hand) as cards; one bad name fails the whole list.

    >>> [card.name for card in parse_cards(["red-3", "wild"])]
    ['red-3', 'wild']
    """
    if not isinstance(names, (list, tuple)):
        raise CardError(f"expected a list of card names like [red-3, wild], not {names!r}")
    return tuple(parse_card(name) for name in names)


def _classic_deck() -> tuple[Card, ...]:
    cards: list[Card] = []
    for colour in Colour:
        cards.append(CARDS_BY_NAME[f"{colour.label}-0"])
        for rank in Rank:
            if Rank.ONE <= rank <= Rank.DRAW2:
                cards += [CARDS_BY_NAME[f"{colour.label}-{rank.label}"]] * 2
    return (*cards, *[CARDS_BY_NAME["wild"]] * 4, *[CARDS_BY_NAME["wild-draw4"]] * 4)


_CLASSIC_DECK = _classic_deck()


def deck(rules: Rules) -> list[Card]:
    """A full deck for ``rules``: 108 cards (R1) or 112 (R2: + 3 wild-custom and the ``extra_wild``).

    >>> from referee.rules.options import Rules
    >>> len(deck(Rules())), len(deck(Rules(deck="deck112")))
    (108, 112)
    >>> sorted({card.name for card in deck(Rules(deck="deck112", extra_wild="shuffle")) if card.is_wild})
    ['wild', 'wild-custom', 'wild-draw4', 'wild-shuffle']
    """
    cards = list(_CLASSIC_DECK)
    if rules.deck == "deck112":
        cards += [CARDS_BY_NAME["wild-custom"]] * 3 + [CARDS_BY_NAME[f"wild-{rules.extra_wild}"]]
    return cards


def card_points(card: Card, rules: Rules) -> int:
    """What ``card`` left in an opponent's hand scores (R30).

    >>> from referee.rules.options import Rules
    >>> [card_points(parse_card(name), Rules()) for name in ("red-7", "blue-skip", "wild", "wild-swap")]
    [7, 20, 50, 40]
    >>> card_points(parse_card("wild"), Rules.preset("spielhilfe"))
    30
    """
    rank = card.rank
    if rank <= Rank.NINE:
        return int(rank)
    if rank in ACTION_RANKS:
        return 20
    if rank is Rank.WILD:
        return rules.points_wild
    if rank is Rank.WILD_DRAW4:
        return 50
    return rules.points_special_wild


def hand_points(cards: Iterable[Card], rules: Rules) -> int:
    """The points of a revealed hand (R30).

    >>> from referee.rules.options import Rules
    >>> hand_points(parse_cards(["blue-5", "green-skip", "yellow-9", "wild"]), Rules())
    84
    """
    return sum(card_points(card, rules) for card in cards)
