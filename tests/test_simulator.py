"""The simulator's own physics: real cards conserved, observations consistent with the truth, options obeyed.

These tests need no referee: they check the simulator against the rules text directly, so that the
property tests (tests/test_properties.py) hold the referee to a ground truth that is itself tested.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from referee.rules.cards import deck, hand_points, parse_card, parse_colour
from referee.rules.legality import can_play, can_stack
from referee.rules.observations import observation_from_dict
from referee.rules.options import PRESETS, Rules
from referee.rules.simulator import (
    ACCEPT,
    Habits,
    RandomPlayer,
    ScriptedPlayer,
    SimStep,
    SimulationError,
    Simulator,
)
from referee.rules.table import STATE_KEYS

NAMES4 = ("Anna", "Ben", "Clara", "Dan")


def seats(count: int, habits: Habits | None = None) -> dict[str, RandomPlayer]:
    return {f"P{i}": RandomPlayer(habits) for i in range(count)}


def match(rules: Rules, seed: int, count: int = 4, habits: Habits | None = None) -> list[SimStep]:
    return Simulator(seats(count, habits), rules, seed).run()


def steps_where(
    rules: Rules,
    condition: Callable[[list[SimStep], int], bool],
    count: int = 4,
    habits: Habits | None = None,
) -> Iterator[tuple[list[SimStep], int]]:
    """(match, index) pairs, over seeds 0, 1, …, where ``condition`` holds for the step at ``index``."""
    for seed in range(300):
        steps = match(rules, seed, count, habits)
        for index in range(len(steps)):
            if condition(steps, index):
                yield steps, index


def first_where(rules: Rules, condition: Callable[[list[SimStep], int], bool], **kwargs) -> tuple[list, int]:
    found = next(steps_where(rules, condition, **kwargs), None)
    assert found is not None, "no seed in range produced the situation"
    return found


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_cards_are_conserved_and_observations_parse(preset):
    rules = Rules.preset(preset, target_score=100)
    for seed, count in ((1, 2), (2, 5), (3, 10)):
        steps = match(rules, seed, count)
        assert steps[-1].truth.match_winner is not None
        assert steps[-1].truth.waiting_for == "match_over"
        for step in steps:
            assert step.truth.cards_total == rules.deck_size
            observation_from_dict(step.observation)  # exactly the scenario step format
            assert set(step.truth.expectations()) == set(STATE_KEYS)


def test_same_seed_same_match_and_seeds_differ():
    rules = Rules(target_score=100)
    first = [step.observation for step in match(rules, 11)]
    assert first == [step.observation for step in match(rules, 11)]
    assert first != [step.observation for step in match(rules, 12)]


def test_a_round_starts_from_the_real_deck():
    steps = match(Rules.preset("officieel", target_score=50), 4)
    truth = steps[0].truth
    everything = Counter(truth.draw_pile_cards + truth.discard_pile + truth.set_aside)
    for cards in truth.seat_hands:
        everything.update(cards)
    assert everything == Counter(deck(Rules.preset("officieel")))
    assert all(len(cards) == 7 for cards in truth.seat_hands)


def test_counts_follow_the_observations():
    """Between steps a hand changes only by its own plays, its draws and its penalties (no swaps here)."""
    rules = Rules(target_score=200, stacking="s2_combos")
    for seed in range(5):
        steps = match(rules, seed, 5, Habits(misplay=0.05))
        for before, after in itertools.pairwise(steps):
            if after.truth.round_number != before.truth.round_number:
                continue
            expected = before.truth.counts
            observation = after.observation
            if after.accepted and "play" in observation:
                expected[observation["by"]] -= 1
            if "draw" in observation:
                expected[observation["by"]] += observation["draw"]
            for penalty in after.truth.penalties:
                expected[penalty.player] += penalty.cards
            assert after.truth.counts == expected, observation


def test_each_accepted_play_was_legal_and_landed_on_the_pile():
    rules = Rules(target_score=200, stacking="s2_combos", jump_in=True)
    for seed in range(3):
        steps = match(rules, seed, 5, Habits(misplay=0.05))
        for before, step in itertools.pairwise(steps):
            if "play" not in step.observation:
                continue
            card = parse_card(step.observation["play"])
            assert step.landed is card
            top = parse_card(before.truth.top)
            colour = parse_colour(before.truth.colour)
            if not step.accepted:
                assert not can_play(card, top, colour, rules)
                assert step.truth.discard_pile == before.truth.discard_pile
                continue
            assert step.truth.discard_pile[-1] is card
            if before.truth.pending_draw:
                assert can_stack(card, top, rules)
            else:
                assert can_play(card, top, colour, rules)


def test_first_card_draw_two_makes_the_first_player_draw():
    rules = Rules(target_score=50)
    steps, index = first_where(rules, lambda s, i: s[i].observation.get("flip", "").endswith("draw2"))
    penalty = steps[index].truth.penalties
    assert len(penalty) == 1 and (penalty[0].cards, penalty[0].reason) == (2, "first_card")
    assert steps[index].truth.turn == "P1"  # P0 (left of the dealer P3) drew and is skipped


def test_first_cards_the_officieel_rules_ignore_are_turned_over():
    rules = Rules.preset("officieel", target_score=50)
    steps, index = first_where(
        rules, lambda s, i: "flip" in s[i].observation and parse_card(s[i].observation["flip"]).is_action
    )
    assert steps[index].truth.waiting_for == "flip" and not steps[index].truth.penalties
    assert "flip" in steps[index + 1].observation


@pytest.mark.parametrize("how", ["reshuffle", "set_aside", "ignore"])
def test_wild_draw_four_turned_up_first(how):
    rules = Rules(target_score=50, first_card_wild_draw4=how)
    steps, index = first_where(
        rules,
        lambda s, i: (
            s[i].observation.get("flip") == "wild-draw4" and (i == 0 or "flip" not in s[i - 1].observation)
        ),
    )
    truth = steps[index].truth
    wd4 = parse_card("wild-draw4")
    assert truth.waiting_for == "flip"
    assert (truth.discard_pile[-1:] == (wd4,)) == (how == "ignore")
    assert (truth.set_aside[-1:] == (wd4,)) == (how == "set_aside")
    dealt = rules.deck_size - 4 * 7
    assert truth.draw_pile == (dealt if how == "reshuffle" else dealt - 1)


def test_a_wild_first_card_is_declared_by_the_first_player():
    rules = Rules(target_score=50)
    steps, index = first_where(rules, lambda s, i: s[i].observation.get("flip") == "wild")
    assert steps[index].truth.waiting_for == "colour"
    assert steps[index + 1].observation["by"] == "P0" and "colour" in steps[index + 1].observation


def test_the_pile_is_rebuilt_from_the_discards_keeping_the_top():
    rules = Rules(target_score=500)
    steps, index = first_where(
        rules,
        lambda s, i: (
            i > 0 and s[i].truth.draw_pile > s[i - 1].truth.draw_pile and "flip" not in s[i].observation
        ),
    )
    before, after = steps[index - 1].truth, steps[index].truth
    assert after.discard_pile[0] in (before.discard_pile[-1], after.discard_pile[-1])
    assert after.cards_total == rules.deck_size


def test_without_keeping_the_top_the_dealer_turns_up_a_new_card():
    rules = Rules(target_score=500, reshuffle_keep_top=False)
    steps, index = first_where(
        rules,
        lambda s, i: s[i].truth.waiting_for == "flip" and s[i].truth.top is None and s[i].truth.round_number,
        count=6,
    )
    assert "flip" in steps[index + 1].observation
    assert steps[index + 1].truth.top == steps[index + 1].observation["flip"]


def test_a_forgotten_uno_is_caught_for_two_cards():
    habits = Habits(forget_uno=0.5, catch=1.0)
    steps, index = first_where(
        Rules(target_score=50), lambda s, i: "catch" in s[i].observation, habits=habits
    )
    step = steps[index]
    culprit = step.observation["catch"]
    assert [(p.player, p.cards, p.reason) for p in step.truth.penalties] == [(culprit, 2, "uno")]
    assert steps[index - 1].truth.counts[culprit] == 1


def test_catcher_calls_first_under_the_dutch_rules():
    habits = Habits(forget_uno=0.5, catch=1.0, call_back=1.0)
    rules = Rules.preset("officieel", target_score=50)
    steps, index = first_where(rules, lambda s, i: "catch" in s[i].observation, habits=habits)
    catcher, culprit = steps[index].observation["by"], steps[index].observation["catch"]
    assert steps[index - 2].observation == {"uno": True, "by": catcher}
    assert steps[index - 1].observation == {"uno": True, "by": culprit}


def test_automatic_uno_penalty_when_the_next_player_acts():
    habits = Habits(forget_uno=0.5)
    rules = Rules.preset("langfassung", target_score=50)
    found = first_where(
        rules, lambda s, i: any(p.reason == "uno" for p in s[i].truth.penalties), habits=habits
    )
    step = found[0][found[1]]
    assert "catch" not in step.observation and step.observation["by"] != step.truth.penalties[0].player


def test_a_challenged_bluff_costs_the_bluffer_four():
    habits = Habits(bluff=1.0, challenge=1.0)
    steps, index = first_where(
        Rules(target_score=100),
        lambda s, i: any(p.reason == "challenge_guilty" for p in s[i].truth.penalties),
        habits=habits,
    )
    assert "challenge" in steps[index - 1].observation
    assert steps[index].observation["by"] == steps[index].truth.penalties[0].player


def test_stacked_draws_are_taken_together():
    habits = Habits(stack=1.0, challenge=0.0)
    rules = Rules.preset("langfassung", target_score=100)
    steps, index = first_where(
        rules, lambda s, i: any(p.reason == "stack" for p in s[i].truth.penalties), habits=habits
    )
    assert steps[index].truth.penalties[0].cards == steps[index - 1].truth.pending_draw >= 4


def test_reveals_count_the_losing_hands():
    rules = Rules(target_score=50)
    steps = match(rules, 5)
    last_reveal = max(
        i for i, step in enumerate(steps) if step.truth.waiting_for in ("next_round", "match_over")
    )
    first = last_reveal
    while "reveal" in steps[first - 1].observation:
        first -= 1
    shown = [
        parse_card(name) for step in steps[first : last_reveal + 1] for name in step.observation["reveal"]
    ]
    assert steps[last_reveal].truth.points == hand_points(shown, rules)


@pytest.mark.parametrize("mode", ["lowest_total", "elimination"])
def test_match_modes_that_count_each_hand_against_its_holder(mode):
    rules = Rules(match_mode=mode, target_score=100)
    truth = match(rules, 3, 5)[-1].truth
    if mode == "lowest_total":
        assert max(truth.scores.values()) >= 100
        assert truth.scores[truth.match_winner] == min(truth.scores.values())
    else:
        assert truth.match_winner not in truth.eliminated
        assert len(truth.eliminated) == 4


def test_partners_share_one_total():
    truth = match(Rules(partners=True, target_score=200), 8)[-1].truth
    assert truth.scores["P0"] == truth.scores["P2"] and truth.scores["P1"] == truth.scores["P3"]


def test_all_out_plays_on_until_one_holds_cards():
    rules = Rules(round_end="all_out", target_score=100)
    steps = match(rules, 2, 5)
    ends = [step.truth for step in steps if step.truth.waiting_for == "scores"][:1]
    assert ends and sum(1 for count in ends[0].counts.values() if count) == 1


def test_seven_o_swaps_and_passes_hands():
    rules = Rules(seven_o=True, target_score=100)
    steps, index = first_where(rules, lambda s, i: "target" in s[i].observation)
    by, target = steps[index].observation["by"], steps[index].observation["target"]
    before, after = steps[index - 1].truth.hands, steps[index].truth.hands
    assert after[by] == before[target] and after[target] == before[by]


def test_shuffle_hands_deals_everything_again():
    rules = Rules.preset("officieel", target_score=100)
    steps, index = first_where(
        rules,
        lambda s, i: s[i - 1].observation.get("play") == "wild-shuffle" and "colour" in s[i].observation,
    )
    before, after = steps[index - 1].truth.counts, steps[index].truth.counts
    assert sum(before.values()) == sum(after.values()) and max(after.values()) - min(after.values()) <= 1


def test_jump_in_plays_an_identical_card_out_of_turn():
    rules = Rules(jump_in=True, target_score=100)
    steps, index = first_where(
        rules, lambda s, i: "play" in s[i].observation and s[i].observation["by"] != s[i - 1].truth.turn
    )
    assert steps[index].observation["play"] == steps[index - 1].truth.top
    assert steps[index].accepted


def test_misplays_are_refused_and_cost_the_penalty():
    rules = Rules(misplay_penalty=2, target_score=50)
    steps, index = first_where(rules, lambda s, i: not s[i].accepted, habits=Habits(misplay=0.3))
    step = steps[index]
    assert step.reason == "no_match" and step.truth.penalties[0].reason == "misplay"
    assert step.truth.discard_pile == steps[index - 1].truth.discard_pile


def test_scripted_player_plays_its_cards_when_it_can():
    """Anna first draws although she could play, then plays the wild she was dealt at once."""
    wild = parse_card("wild")
    seed = next(
        seed
        for seed in range(100)
        if wild in next(iter(Simulator(seats(4), Rules(), seed))).truth.hands["P0"]
    )
    players = seats(4)
    players["P0"] = ScriptedPlayer([None, wild])
    steps = Simulator(players, Rules(target_score=50), seed).run()
    actions = [step.observation for step in steps if step.observation.get("by") == "P0"]
    assert actions[0] == {"draw": 1, "by": "P0"}
    assert {"play": "wild", "by": "P0"} in actions[1:4]


def test_player_breaking_the_protocol_is_reported():
    class Stubborn(RandomPlayer):
        def answer_draw(self, game, me, stackable, may_challenge):
            return "maybe"

    players = {name: Stubborn(Habits(bluff=1.0)) for name in NAMES4}
    with pytest.raises(SimulationError, match="answered 'maybe'"):
        Simulator(players, Rules(stacking="same_type"), seed=1).run()


def test_a_match_that_does_not_end_is_stopped():
    with pytest.raises(SimulationError, match="did not end within 50 steps"):
        Simulator(seats(4), Rules(), seed=1, max_steps=50).run()


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="2 to 10 players"):
        Simulator(seats(1), Rules())
    with pytest.raises(ValueError, match="exactly 4 players"):
        Simulator(seats(3), Rules(partners=True))
    with pytest.raises(ValueError, match="probability"):
        Habits(bluff=1.5)


def test_accept_is_the_answer_without_stacking_or_challenge():
    class Accepting(RandomPlayer):
        def answer_draw(self, game, me, stackable, may_challenge):
            return ACCEPT

    players = {name: Accepting(Habits(bluff=1.0)) for name in NAMES4}
    steps = Simulator(players, Rules(target_score=50), seed=2).run()
    accepts = [step for step in steps if "accept" in step.observation]
    assert accepts and all(step.truth.penalties[0].reason == "draw4" for step in accepts)
    assert not any("challenge" in step.observation for step in steps)


@pytest.mark.parametrize("announced", [True, False])
def test_first_card_swap_may_be_declined_with_or_without_a_word(announced):
    rules = Rules(deck="deck112", target_score=50)
    habits = Habits(swap_on_first_card=0.0)

    def simulator(seed: int) -> Simulator:
        return Simulator(seats(4, habits), rules, seed)

    # The first card is turned up before anyone decides anything: look only at it, then play those matches.
    swap_first = (
        seed for seed in range(5000) if next(iter(simulator(seed))).observation["flip"] == "wild-swap"
    )
    for seed in swap_first:
        steps = simulator(seed).run()
        if ("target" in steps[2].observation) == announced:
            break
    else:
        pytest.fail("no seed in range started with a Wild Swap Hands declined that way")
    assert steps[1].truth.waiting_for == "target" and steps[1].observation["by"] == "P0"
    assert steps[2].observation["by"] == "P0"
    if announced:
        assert steps[2].observation["target"] == "P0"
        assert steps[2].truth.hands["P0"] == steps[1].truth.hands["P0"]
    else:
        assert "play" in steps[2].observation or "draw" in steps[2].observation


@pytest.mark.parametrize(("jump_in", "reason"), [(False, "not_your_turn"), (True, "not_identical")])
def test_a_card_played_out_of_turn_is_refused(jump_in, reason):
    rules = Rules(jump_in=jump_in, misplay_penalty=1, target_score=50)
    steps, index = first_where(
        rules,
        lambda s, i: not s[i].accepted and s[i].observation["by"] != s[i - 1].truth.turn,
        habits=Habits(out_of_turn=0.2),
    )
    step, before = steps[index], steps[index - 1].truth
    assert step.reason in (reason, "not_your_turn")  # a pending draw is no moment to jump in
    assert step.reason == reason or before.waiting_for == "challenge_or_accept"
    assert [(p.player, p.reason) for p in step.truth.penalties] == [(step.observation["by"], "misplay")]
    assert step.truth.turn == before.turn and step.truth.discard_pile == before.discard_pile


def test_a_false_catch_is_refused_and_costs_the_catcher():
    rules = Rules(false_catch_penalty=2, target_score=50)
    steps, index = first_where(
        rules, lambda s, i: "catch" in s[i].observation and not s[i].accepted, habits=Habits(false_catch=1.0)
    )
    step = steps[index]
    assert step.reason == "nothing_to_catch"
    assert [(p.player, p.cards, p.reason) for p in step.truth.penalties] == [
        (step.observation["by"], 2, "false_catch")
    ]
    target = step.observation["catch"]
    assert steps[index - 1].observation == {"uno": True, "by": target}
