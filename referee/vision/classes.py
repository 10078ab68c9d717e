"""The detector's classes: one per printed corner-index symbol, plus the colour-blind symbols.

The detector never predicts colour: colour is read from the card's pixels (see the card reader),
which keeps the class count small and lets calibration adapt colour to the room's light. The
colour-blind symbols (● red, ★ yellow, ▲ green, ■ blue; RULES.md R3) are detected as classes of
their own so that the reader can fall back on them when the hue is ambiguous.

What is labelled, in rendered scenes and in the shared real-photo set alike:

* each **corner index** of a card (the small symbol in the top-left and, rotated by 180°, the
  bottom-right corner) that is at least about 60 % visible: box = the index glyph, class = symbol;
* each visible **colour-blind symbol** printed on a card: class ``cb-*``.

The big centre picture of a card is *not* labelled (the shared set does not label it either).

>>> SYMBOL_CLASSES.index("draw2"), CLASS_NAMES[SYMBOL_COUNT]
(12, 'cb-circle')
>>> card_name("7", "red"), card_name("wild-draw4", None)
('red-7', 'wild-draw4')
>>> ROBOFLOW_TO_CLASS[2] == CLASS_NAMES.index("wild-draw4")
True
>>> from referee.rules.options import Rules
>>> sorted(WILD_SYMBOLS - symbols_in_play(Rules.preset("official")))  # the 108-card deck
['wild-custom', 'wild-shuffle', 'wild-swap']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.rules.options import Rules

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")

#: Corner-index symbols: digits, coloured actions, then the black wilds.
SYMBOL_CLASSES: tuple[str, ...] = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
    "skip", "reverse", "draw2",
    "wild", "wild-draw4", "wild-swap", "wild-shuffle", "wild-custom",
)  # fmt: skip
SYMBOL_COUNT = len(SYMBOL_CLASSES)

#: Colour-blind symbols, in the order of COLOURS (● red, ★ yellow, ▲ green, ■ blue).
COLOURBLIND_CLASSES: tuple[str, ...] = ("cb-circle", "cb-star", "cb-triangle", "cb-square")
COLOURBLIND_TO_COLOUR: dict[str, str] = dict(zip(COLOURBLIND_CLASSES, COLOURS, strict=True))

CLASS_NAMES: tuple[str, ...] = SYMBOL_CLASSES + COLOURBLIND_CLASSES

#: Symbols printed on black wild cards: they have no colour of their own.
WILD_SYMBOLS: frozenset[str] = frozenset(s for s in SYMBOL_CLASSES if s.startswith("wild"))

#: Indices printed as two characters ("+2", "+4"): a detector often boxes only one of them.
TWO_CHARACTER_SYMBOLS: frozenset[str] = frozenset(("draw2", "wild-draw4"))

#: The shared Roboflow set's class ids (alphabetical original names; see its README) → ours.
ROBOFLOW_TO_CLASS: dict[int, int] = {
    0: SYMBOL_CLASSES.index("0"),
    1: SYMBOL_CLASSES.index("1"),
    2: SYMBOL_CLASSES.index("wild-draw4"),
    3: SYMBOL_CLASSES.index("draw2"),
    4: SYMBOL_CLASSES.index("reverse"),
    5: SYMBOL_CLASSES.index("skip"),
    6: SYMBOL_CLASSES.index("wild"),
    **{7 + i: SYMBOL_CLASSES.index(str(2 + i)) for i in range(8)},
}


def card_name(symbol: str, colour: str | None) -> str:
    """The project-wide card name (RULES.md §1) for a symbol and a colour (None for wilds)."""
    if symbol in WILD_SYMBOLS:
        return symbol
    if colour not in COLOURS:
        raise ValueError(f"a {symbol!r} card needs one of the colours {', '.join(COLOURS)}")
    return f"{colour}-{symbol}"


def symbol_of(name: str) -> str:
    """The corner-index symbol of a card name (``red-7`` → ``7``, ``wild-draw4`` → itself)."""
    colour, _, symbol = name.partition("-")
    return symbol if colour in COLOURS else name


def symbols_in_play(rules: Rules) -> frozenset[str]:
    """The corner-index symbols the deck of ``rules`` prints (R1, R2): the card reader reads no
    other, so a glyph the network half-takes for a wild-swap on a 108-card deck is still read as
    one of that deck's cards."""
    from referee.rules.cards import deck

    return frozenset(symbol_of(card.name) for card in deck(rules))
