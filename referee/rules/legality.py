"""Pure predicates of the rules: what may be played, stacked, declared; whether a Wild Draw Four was legal.

The table referee and the simulator both decide with these functions, so that a rule is written once.

>>> from referee.rules.cards import parse_card as card
>>> from referee.rules.options import Rules
>>> official = Rules()
>>> can_play(card("green-skip"), card("red-skip"), Colour.RED, official)
True
>>> can_play(card("green-skip"), card("red-skip"), Colour.RED, Rules.preset("spielhilfe"))
False
>>> can_stack(card("wild-draw4"), card("blue-draw2"), Rules.preset("langfassung"))
True
>>> can_stack(card("blue-draw2"), card("wild-draw4"), Rules.preset("langfassung"))
False
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.rules.cards import Card, Colour, Rank
from referee.rules.options import Rules

ALL_COLOURS: tuple[Colour, ...] = tuple(Colour)


def can_play(card: Card, top: Card | None, active_colour: Colour | None, rules: Rules) -> bool:
    """Whether ``card`` may be played on ``top`` while ``active_colour`` is active (R12, R13, R36).

    Colour always matches; numbers match numbers; actions match the same action unless
    ``match_by`` is ``colour_number`` (S1). Every wild may be played at any time; a Wild Customizable
    under ``custom_wild_playable=colour_or_custom`` is restricted by the colour it may take instead
    (see :func:`declarable_colours`).

    >>> from referee.rules.cards import parse_card as card
    >>> can_play(card("blue-9"), card("wild"), Colour.BLUE, Rules())
    True
    >>> can_play(card("green-9"), card("wild"), Colour.BLUE, Rules())
    False
    """
    if card.is_wild or top is None:
        return True
    if card.colour is active_colour:
        return True
    if top.is_wild:
        return False
    if card.rank is top.rank:
        return card.is_number or rules.match_by == "colour_number_symbol"
    return False


def declarable_colours(
    card: Card, top: Card | None, active_colour: Colour | None, rules: Rules
) -> tuple[Colour, ...]:
    """The colours a player may declare for the wild ``card`` just played on ``top`` (R21, R36).

    Any colour, the current one included, except a Wild Customizable under ``colour_or_custom`` (S3):
    it goes only on its colour, so it keeps the active colour unless it lies on another customizable.

    >>> from referee.rules.cards import parse_card as card
    >>> declarable_colours(card("wild-custom"), card("red-4"), Colour.RED, Rules.preset("officieel"))
    (<Colour.RED: 0>,)
    >>> len(declarable_colours(card("wild-custom"), card("red-4"), Colour.RED, Rules()))
    4
    """
    if (
        card.rank is Rank.WILD_CUSTOM
        and rules.custom_wild_playable == "colour_or_custom"
        and active_colour is not None
        and top is not None
        and top.rank is not Rank.WILD_CUSTOM
    ):
        return (active_colour,)
    return ALL_COLOURS


def can_stack(card: Card, top: Card | None, rules: Rules) -> bool:
    """Whether ``card`` may answer the draw card ``top`` so that the next player draws the sum (R37).

    With no top card (the whole pile went into a reshuffle, R33) there is nothing to stack on.

    ``same_type`` (S1): +2 on +2, +4 on +4. ``s2_combos`` (S2 §7): +2 on +2, +4 on +2, +4 on +4, not +2 on +4.

    >>> from referee.rules.cards import parse_card as card
    >>> can_stack(card("red-draw2"), card("blue-draw2"), Rules.preset("spielhilfe"))
    True
    >>> can_stack(card("wild-draw4"), card("blue-draw2"), Rules.preset("spielhilfe"))
    False
    >>> can_stack(card("red-draw2"), card("blue-draw2"), Rules())
    False
    """
    stacking = rules.stacking
    if stacking == "off" or not card.draw_amount or top is None or not top.draw_amount:
        return False
    if stacking == "same_type":
        return card.rank is top.rank
    return card.rank is Rank.WILD_DRAW4 or top.rank is Rank.DRAW2


def wd4_is_legal(hand: Iterable[Card], top: Card | None, active_colour: Colour | None, rules: Rules) -> bool:
    """Whether a Wild Draw Four was legal, given the rest of the hand its player held (R23).

    ``top`` and ``active_colour`` are the top card and colour *before* the Wild Draw Four was played.
    ``no_active_colour``: no card of the active colour (number or action matches in other colours do
    not count); ``no_playable_card``: no card that could have been played; ``always``: no condition.
    With ``wd4_wild_in_hand_counts`` a playable Wild (other than a Wild Draw Four) makes it illegal too.

    >>> from referee.rules.cards import parse_card, parse_cards
    >>> hand = parse_cards(["blue-3", "yellow-skip", "green-2", "green-7"])
    >>> wd4_is_legal(hand, parse_card("red-3"), Colour.RED, Rules())
    True
    >>> wd4_is_legal(hand, parse_card("red-3"), Colour.RED, Rules.preset("spielhilfe"))
    False
    """
    condition = rules.wd4_legal_if
    wild_counts = rules.wd4_wild_in_hand_counts
    for card in hand:
        if card.is_wild:
            if wild_counts and card.rank is not Rank.WILD_DRAW4 and can_play(card, top, active_colour, rules):
                return False
        elif condition == "no_active_colour":
            if card.colour is active_colour:
                return False
        elif condition == "no_playable_card" and can_play(card, top, active_colour, rules):
            return False
    return True


def playable_cards(
    hand: Iterable[Card], top: Card | None, active_colour: Colour | None, rules: Rules
) -> list[Card]:
    """The cards of ``hand`` that may be played now (no draw pending).

    >>> from referee.rules.cards import parse_card, parse_cards
    >>> hand = parse_cards(["red-1", "blue-2", "wild"])
    >>> [card.name for card in playable_cards(hand, parse_card("red-9"), Colour.RED, Rules())]
    ['red-1', 'wild']
    """
    return [card for card in hand if can_play(card, top, active_colour, rules)]
