"""Rule options and presets: every option of RULES.md §10, validation with one-line messages."""

from __future__ import annotations

import dataclasses

import pytest

from referee.errors import UserError
from referee.rules import CHOICES, OPTION_NAMES, PRESETS, OptionError, Rules

SECTION_10 = {
    "deck": "classic108",
    "extra_wild": "swap",
    "first_card_action": "apply",
    "first_card_wild": "first_player_declares",
    "first_card_wild_draw4": "reshuffle",
    "match_by": "colour_number_symbol",
    "voluntary_draw": True,
    "drawn_card": "may_play",
    "wd4_legal_if": "no_active_colour",
    "wd4_wild_in_hand_counts": False,
    "challenge_success_next": "challenger_plays",
    "uno_penalty_trigger": "caught_before_next_turn",
    "uno_catcher_must_call_first": False,
    "uno_call_moment": "holding_one",
    "points_wild": 50,
    "points_special_wild": 40,
    "match_mode": "first_to_target",
    "target_score": 500,
    "round_end": "first_out",
    "reshuffle_keep_top": True,
    "stacking": "off",
    "custom_wild_playable": "anywhere",
    "two_player_rules": True,
    "seven_o": False,
    "jump_in": False,
    "partners": False,
    "misplay_penalty": 0,
    "false_catch_penalty": 0,
}


def test_official_defaults_are_section_10() -> None:
    assert Rules().to_dict() == SECTION_10
    assert set(OPTION_NAMES) == set(SECTION_10)


def test_presets_change_exactly_their_texts_options() -> None:
    assert PRESETS["official"] == Rules()
    assert PRESETS["spielhilfe"].changed_from() == {
        "match_by": "colour_number",
        "points_wild": 30,
        "stacking": "same_type",
        "uno_penalty_trigger": "caught_any_time",
        "uno_call_moment": "with_second_to_last",
        "wd4_legal_if": "no_playable_card",
    }
    assert PRESETS["langfassung"].changed_from() == {
        "first_card_wild_draw4": "set_aside",
        "voluntary_draw": False,
        "stacking": "s2_combos",
        "uno_penalty_trigger": "automatic",
    }
    assert PRESETS["officieel"].changed_from() == {
        "deck": "deck112",
        "extra_wild": "shuffle",
        "first_card_action": "ignore",
        "first_card_wild": "ignore",
        "first_card_wild_draw4": "ignore",
        "wd4_legal_if": "always",
        "uno_catcher_must_call_first": True,
        "points_special_wild": 50,
        "custom_wild_playable": "colour_or_custom",
    }


def test_every_listed_value_is_accepted() -> None:
    for option, values in CHOICES.items():
        for value in values:
            assert getattr(Rules.preset("official", **{option: value}), option) == value


def test_overrides_and_scenario_form() -> None:
    assert Rules.preset("official", stacking="s2_combos").stacking == "s2_combos"
    assert Rules.from_spec({"preset": "langfassung", "target_score": 200}).target_score == 200
    assert Rules.from_spec({"jump_in": True}) == Rules(jump_in=True)
    assert Rules.from_spec({"preset": "official", "stacking": False}).stacking == "off"  # YAML's unquoted off
    assert Rules.from_spec(Rules.preset("officieel").to_dict()) == Rules.preset("officieel")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"preset": "house"},
            "unknown rules preset 'house'; choose one of official, spielhilfe, langfassung, officieel",
        ),
        ({"stacks": "off"}, "unknown rules option 'stacks'; did you mean 'stacking'?"),
        (
            {"stacking": "always"},
            "option stacking: 'always' is not valid; choose one of off, same_type, s2_combos",
        ),
        ({"jump_in": "yes"}, "option jump_in: 'yes' is not valid; choose one of false, true"),
        ({"jump_in": 1}, "option jump_in: 1 is not valid"),
        ({"target_score": 0}, "option target_score: 0 is not valid; give a whole number ≥ 1"),
        ({"misplay_penalty": -2}, "option misplay_penalty: -2 is not valid; give a whole number ≥ 0"),
        ({"points_wild": "30"}, "option points_wild: '30' is not valid"),
        (["official"], "rules must be a preset name or a mapping"),
    ],
)
def test_bad_options_are_one_line_user_errors(spec: object, message: str) -> None:
    with pytest.raises(OptionError) as error:
        Rules.from_spec(spec)
    assert isinstance(error.value, UserError)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_rules_are_immutable_and_hashable() -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.stacking = "same_type"  # type: ignore[misc]
    assert hash(rules) == hash(Rules())
    assert Rules(deck="deck112").deck_size == 112 and rules.deck_size == 108
