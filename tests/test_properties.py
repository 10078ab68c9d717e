"""Property tests: the referee, fed only what a table camera and buttons observe, agrees with the truth.

Hypothesis draws a preset, random option overrides, 2–10 seats, seat habits and a seed; the
simulator plays the whole match with real cards, and after EVERY observation the referee must agree
with the simulator on the verdict, turn, colour, direction, top card, hand counts, draw pile,
pending draw, penalties, scores and winners, and no card may be lost
(:func:`referee.lab.rules_bench.check_step`, the same check the soak runs).

Runs: ``pytest tests/test_properties.py`` (a quick profile, under a minute);
``HYPOTHESIS_PROFILE=long pytest tests/test_properties.py`` (many more matches).
"""

from __future__ import annotations

import os

from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from referee.lab.rules_bench import GameConfig, first_disagreement, soak_config
from referee.rules.options import CHOICES, PRESETS
from referee.rules.simulator import HABIT_PROFILES

# Own profiles (not hypothesis' global "default"): other test modules keep their settings. A failing
# match is not shrunk: a seed does not shrink meaningfully, and the failure line already names the
# preset, every override, the seats and the seed, which replays the match exactly.
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
settings.register_profile("rules-quick", max_examples=40, deadline=None, phases=_PHASES)
settings.register_profile("rules-long", max_examples=2000, deadline=None, phases=_PHASES)
PROFILE = settings.get_profile(
    "rules-long" if os.environ.get("HYPOTHESIS_PROFILE") == "long" else "rules-quick"
)

overrides = st.fixed_dictionaries(
    {"target_score": st.sampled_from((50, 150, 300))},
    optional={
        **{option: st.sampled_from(values) for option, values in CHOICES.items()},
        "misplay_penalty": st.sampled_from((1, 2)),
        "false_catch_penalty": st.sampled_from((1, 2)),
    },
)


@st.composite
def game_configs(draw: st.DrawFn) -> GameConfig:
    preset = draw(st.sampled_from(sorted(PRESETS)))
    options = draw(overrides)
    partners = options.get("partners", PRESETS[preset].partners)
    return GameConfig(
        preset=preset,
        overrides=options,
        players=4 if partners else draw(st.integers(2, 10)),
        habits=draw(st.sampled_from(sorted(HABIT_PROFILES))),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def check(config: GameConfig) -> None:
    disagreement, steps = first_disagreement(config)
    assert disagreement is None, f"{config.describe()}: {disagreement}"
    assert steps > 0


# Soak configurations (`uno-referee bench rules --soak --games 1 --first-game N`) that found a referee
# bug, kept so that each kind stays checked. Fixed since: 9, a challenged hand shown without the UNO
# penalty cards drawn after the Wild Draw Four; 11, a catcher's UNO shout under with_second_to_last;
# 1325, a player's own first UNO call taken as a shout at another who calls at once; 4224, a pass when
# nothing is left to draw; 7030 and 1974, a re-flip owed (whole discard pile reshuffled) while a reveal
# or colour is owed was dropped, or crashed the colour declaration; 2716, a re-flip owed when no card
# is left to turn up blocked the game. The last example, drawn by hypothesis in a test run: a 0 passed
# every hand on (seven_o) and left two players holding one card each; both missed UNO, and the
# referee penalised them in the order their windows opened, the simulator in seat order (now both
# judge windows that pass together in seat order). The second, also drawn by hypothesis: ten players
# hold all but one card; a voluntary draw closes a forgetful player's UNO window and the automatic
# penalty takes that last card, so the draw finds nothing (now refused, the penalty standing; the
# referee had counted a card that did not exist). The third: a Wild Swap Hands turned up first, the first
# player kept its hand without a word (R11), and another player laid a card out of turn before that player
# acted; the referee, still waiting for a target, rightly said so, while the simulator's truth had
# already moved on (the simulator no longer lays a card out of turn before the silent decline is seen).
@example(
    GameConfig(
        preset="langfassung",
        overrides={
            "challenge_success_next": "challenger_plays",
            "custom_wild_playable": "colour_or_custom",
            "deck": "deck112",
            "drawn_card": "may_play",
            "extra_wild": "swap",
            "false_catch_penalty": 2,
            "first_card_action": "apply",
            "first_card_wild": "first_player_declares",
            "first_card_wild_draw4": "set_aside",
            "jump_in": True,
            "match_by": "colour_number",
            "match_mode": "elimination",
            "misplay_penalty": 1,
            "partners": False,
            "reshuffle_keep_top": False,
            "round_end": "all_out",
            "seven_o": True,
            "stacking": "s2_combos",
            "target_score": 150,
            "two_player_rules": False,
            "uno_call_moment": "with_second_to_last",
            "uno_catcher_must_call_first": False,
            "uno_penalty_trigger": "caught_before_next_turn",
            "voluntary_draw": True,
            "wd4_legal_if": "no_active_colour",
            "wd4_wild_in_hand_counts": True,
        },
        players=7,
        habits="sloppy",
        seed=4237284,
    )
)
@example(
    GameConfig(
        preset="spielhilfe",
        overrides={
            "challenge_success_next": "challenger_plays",
            "custom_wild_playable": "anywhere",
            "deck": "classic108",
            "drawn_card": "must_play",
            "extra_wild": "shuffle",
            "false_catch_penalty": 1,
            "first_card_action": "apply",
            "first_card_wild": "ignore",
            "first_card_wild_draw4": "set_aside",
            "jump_in": False,
            "match_by": "colour_number",
            "match_mode": "lowest_total",
            "misplay_penalty": 1,
            "partners": False,
            "reshuffle_keep_top": True,
            "round_end": "all_out",
            "seven_o": False,
            "stacking": "same_type",
            "target_score": 50,
            "two_player_rules": False,
            "uno_call_moment": "holding_one",
            "uno_catcher_must_call_first": True,
            "uno_penalty_trigger": "automatic",
            "voluntary_draw": True,
            "wd4_legal_if": "always",
            "wd4_wild_in_hand_counts": False,
        },
        players=10,
        habits="sloppy",
        seed=16862058,
    )
)
@example(soak_config(9))
@example(soak_config(11))
@example(soak_config(1325))
@example(soak_config(4224))
@example(soak_config(7030))
@example(soak_config(1974))
@example(soak_config(2716))
@example(
    GameConfig(
        preset="langfassung",
        overrides={
            "custom_wild_playable": "anywhere",
            "deck": "deck112",
            "drawn_card": "may_play",
            "extra_wild": "shuffle",
            "false_catch_penalty": 1,
            "first_card_action": "ignore",
            "first_card_wild_draw4": "reshuffle",
            "jump_in": False,
            "match_by": "colour_number_symbol",
            "misplay_penalty": 1,
            "reshuffle_keep_top": True,
            "round_end": "all_out",
            "seven_o": True,
            "target_score": 300,
            "two_player_rules": True,
            "uno_call_moment": "holding_one",
            "voluntary_draw": False,
            "wd4_legal_if": "no_active_colour",
        },
        players=10,
        habits="default",
        seed=2840882667,
    )
)
@given(game_configs())
@PROFILE
def test_referee_agrees_with_the_simulated_table(config):
    check(config)


@given(
    preset=st.sampled_from(sorted(PRESETS)),
    players=st.integers(2, 10),
    seed=st.integers(0, 2**32 - 1),
)
@PROFILE
def test_presets_as_published(preset, players, seed):
    """Each preset without overrides, at a short match target."""
    check(GameConfig(preset, {"target_score": 150}, players=players, seed=seed))
