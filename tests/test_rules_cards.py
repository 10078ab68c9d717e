"""Cards, decks, points and the pure predicates of the rules core."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.errors import UserError
from referee.rules import (
    ALL_CARDS,
    Colour,
    Rank,
    Rules,
    can_play,
    can_stack,
    card_points,
    deck,
    declarable_colours,
    parse_card,
    parse_cards,
    parse_colour,
    wd4_is_legal,
)


def test_every_card_name_round_trips_and_is_interned() -> None:
    assert len(ALL_CARDS) == 4 * 13 + 5
    for card in ALL_CARDS:
        assert parse_card(card.name) is card
        assert parse_card(card.name.upper()) is card


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("red-draw-2", "did you mean 'red-draw2'?"),
        ("wild-draw-4", "did you mean 'wild-draw4'?"),
        ("blu-7", "did you mean 'blue-7'?"),
        ("", "unknown card ''"),
        (7, "a card must be a name"),
    ],
)
def test_unknown_card_names_say_what_to_write(name: object, hint: str) -> None:
    with pytest.raises(UserError) as error:
        parse_card(name)  # type: ignore[arg-type]
    message = str(error.value)
    assert hint in message and "\n" not in message


def test_colours_and_their_colour_blind_symbols() -> None:
    assert [colour.label for colour in Colour] == ["red", "yellow", "green", "blue"]
    assert [colour.symbol for colour in Colour] == ["●", "★", "▲", "■"]  # R3
    assert parse_colour("Blue") is Colour.BLUE
    with pytest.raises(UserError, match="did you mean 'yellow'"):
        parse_colour("yelow")


def test_parse_cards_needs_a_list() -> None:
    assert parse_cards(("red-1", "wild")) == (parse_card("red-1"), parse_card("wild"))
    with pytest.raises(UserError, match="list of card names"):
        parse_cards("red-1")


def test_classic_deck_composition() -> None:
    cards = Counter(card.name for card in deck(Rules()))
    assert sum(cards.values()) == 108
    assert cards["red-0"] == 1 and cards["red-7"] == 2 and cards["blue-skip"] == 2
    assert cards["wild"] == 4 and cards["wild-draw4"] == 4
    assert "wild-custom" not in cards


@pytest.mark.parametrize(("extra", "absent"), [("swap", "wild-shuffle"), ("shuffle", "wild-swap")])
def test_112_card_deck_has_customs_and_one_extra_wild(extra: str, absent: str) -> None:
    cards = Counter(card.name for card in deck(Rules(deck="deck112", extra_wild=extra)))
    assert sum(cards.values()) == 112
    assert cards["wild-custom"] == 3 and cards[f"wild-{extra}"] == 1 and absent not in cards


def test_points_follow_the_options() -> None:
    official, s1, s3 = Rules(), Rules.preset("spielhilfe"), Rules.preset("officieel")
    points = {
        name: card_points(parse_card(name), official) for name in ("green-0", "red-9", "yellow-reverse")
    }
    assert points == {"green-0": 0, "red-9": 9, "yellow-reverse": 20}
    assert card_points(parse_card("wild"), s1) == 30 and card_points(parse_card("wild-draw4"), s1) == 50
    assert (
        card_points(parse_card("wild-shuffle"), s3) == 50
        and card_points(parse_card("wild-custom"), official) == 40
    )
    assert sum(card_points(card, official) for card in deck(official)) == 1240


def test_can_play_on_a_declared_wild_colour_only() -> None:
    top = parse_card("wild")
    assert can_play(parse_card("green-4"), top, Colour.GREEN, Rules())
    assert not can_play(parse_card("red-4"), top, Colour.GREEN, Rules())
    assert can_play(parse_card("wild-draw4"), top, Colour.GREEN, Rules())


def test_stacking_compatibility_table() -> None:
    plus2, plus4 = parse_card("red-draw2"), parse_card("wild-draw4")
    table = {
        stacking: [
            can_stack(card, top, Rules(stacking=stacking))
            for card, top in ((plus2, plus2), (plus4, plus2), (plus4, plus4), (plus2, plus4))
        ]
        for stacking in ("off", "same_type", "s2_combos")
    }
    assert table == {
        "off": [False, False, False, False],
        "same_type": [True, False, True, False],
        "s2_combos": [True, True, True, False],
    }
    assert not can_stack(parse_card("red-skip"), plus2, Rules(stacking="same_type"))


def test_custom_wild_colour_choice() -> None:
    custom = parse_card("wild-custom")
    s3 = Rules.preset("officieel")
    assert declarable_colours(custom, parse_card("blue-1"), Colour.BLUE, s3) == (Colour.BLUE,)
    assert len(declarable_colours(custom, custom, Colour.BLUE, s3)) == 4
    assert len(declarable_colours(parse_card("wild"), parse_card("blue-1"), Colour.BLUE, s3)) == 4


@pytest.mark.parametrize(
    ("legal_if", "wild_counts", "hand", "legal"),
    [
        ("no_active_colour", False, ["blue-3", "yellow-3"], True),
        ("no_active_colour", False, ["red-9"], False),
        ("no_active_colour", True, ["blue-1", "wild"], False),
        ("no_active_colour", True, ["blue-1", "wild-draw4"], True),
        ("no_playable_card", False, ["blue-3"], False),
        ("no_playable_card", False, ["blue-4", "wild"], True),
        ("always", False, ["red-1", "red-3"], True),
        ("always", True, ["red-1", "wild"], False),
    ],
)
def test_wild_draw4_legality(legal_if: str, wild_counts: bool, hand: list[str], legal: bool) -> None:
    rules = Rules(wd4_legal_if=legal_if, wd4_wild_in_hand_counts=wild_counts)
    assert wd4_is_legal(parse_cards(hand), parse_card("red-3"), Colour.RED, rules) is legal


def test_ranks_classify_cards() -> None:
    assert parse_card("red-skip").is_action and not parse_card("red-skip").is_number
    assert parse_card("blue-draw2").draw_amount == 2 and parse_card("red-5").draw_amount == 0
    assert parse_card("wild-swap").rank is Rank.WILD_SWAP and parse_card("wild-swap").colour is None
