"""The table referee beyond the scenarios: rejections change nothing, undo, replay, journal forms."""

from __future__ import annotations

import dataclasses
import json

import pytest

from referee.errors import UserError
from referee.rules import (
    EVENT_TYPES,
    OBSERVATION_TYPES,
    Accept,
    Catch,
    Challenge,
    ChooseColour,
    Colour,
    Draw,
    Flip,
    Observation,
    ObservationError,
    Pass,
    Play,
    Reveal,
    Rules,
    Setup,
    SetupError,
    Table,
    Target,
    Undo,
    Uno,
    event_to_dict,
    observation_from_dict,
    parse_card,
)
from referee.rules import events as ev

card = parse_card


def mid_round(rules: str | dict = "official", **counts: int) -> Table:
    return Table.from_dict(
        {
            "rules": rules,
            "players": ["Anna", "Ben", "Clara"],
            "top": "red-5",
            "turn": "Anna",
            "counts": counts or {"Anna": 5, "Ben": 5, "Clara": 5},
        }
    )


def full_state(table: Table) -> tuple:
    """Everything observable plus the internal snapshot, so that no hidden field can differ unnoticed."""
    return table.state(), table._snapshot()


def long_stream(turns: int) -> list[Observation]:
    """A legal two-player stream: red number cards, with a draw-and-pass every third turn (reshuffles too)."""
    stream: list[Observation] = []
    for turn in range(turns):
        if turn % 3 == 2:
            stream += [Draw(1), Pass()]
        else:
            stream.append(Play(card(f"red-{turn % 10}")))
    return stream


def two_player_table() -> Table:
    return Table.from_dict(
        {"players": ["Anna", "Ben"], "top": "red-5", "turn": "Anna", "counts": {"Anna": 50, "Ben": 50}}
    )


REJECTIONS: list[tuple[str, list[Observation], Observation, str]] = [
    ("out of turn", [], Play(card("red-7"), by="Ben"), "not_your_turn"),
    ("no match", [], Play(card("blue-7")), "no_match"),
    ("pass without draw", [], Pass(), "not_allowed"),
    ("second draw", [Draw(1)], Draw(1), "only_drawn_card"),
    ("colour owed", [Play(card("wild"))], Play(card("red-1")), "colour_first"),
    ("uno while colour owed", [Play(card("wild"))], Uno(), "colour_first"),
    (
        "stack not allowed",
        [Play(card("wild-draw4")), ChooseColour(Colour.BLUE)],
        Play(card("wild-draw4")),
        "must_draw",
    ),
    (
        "other challenger",
        [Play(card("wild-draw4")), ChooseColour(Colour.BLUE)],
        Challenge(by="Clara"),
        "not_your_challenge",
    ),
    ("nothing to challenge", [], Challenge(), "nothing_to_challenge"),
    ("nothing to catch", [], Catch("Ben", by="Anna"), "nothing_to_catch"),
    (
        "reveal too short",
        [Play(card("wild-draw4")), ChooseColour(Colour.BLUE), Challenge()],
        Reveal((card("red-1"),)),
        "not_allowed",
    ),
    ("flip mid-round", [], Flip(card("red-1")), "not_allowed"),
    ("undo with nothing", [], Undo(), "not_allowed"),
    ("target not owed", [], Target("Ben"), "not_allowed"),
    ("accept with nothing pending", [], Accept(), "not_allowed"),
]


@pytest.mark.parametrize(
    ("what", "before", "observation", "reason"), REJECTIONS, ids=[r[0] for r in REJECTIONS]
)
def test_a_rejected_observation_leaves_the_state_untouched(
    what: str, before: list[Observation], observation: Observation, reason: str
) -> None:
    table = mid_round()
    for step in before:
        assert table.observe(step).ok, step
    snapshot = full_state(table)
    verdict = table.observe(observation)
    assert (verdict.ok, verdict.reason, verdict.penalties, verdict.recorded) == (False, reason, (), False)
    assert full_state(table) == snapshot


def test_a_rejected_observation_is_announced_with_its_reason() -> None:
    table = mid_round()
    assert table.observe(Play(card("blue-7"))).events == (ev.IllegalPlay("Anna", card("blue-7"), "no_match"),)
    assert table.observe(Pass()).events == (ev.Rejected("Anna", "not_allowed"),)


def test_unknown_names_are_input_errors_and_change_nothing() -> None:
    table = mid_round()
    snapshot = full_state(table)
    for observation in (Play(card("red-7"), by="Zoe"), Catch("Zoe", by="Ben"), Catch("Anna")):
        with pytest.raises(ObservationError) as error:
            table.observe(observation)
        assert isinstance(error.value, UserError) and "\n" not in str(error.value)
    assert full_state(table) == snapshot


def test_undo_goes_back_one_observation_at_a_time_far_beyond_a_checkpoint() -> None:
    stream = long_stream(200)
    table = two_player_table()
    states = [full_state(table)]
    for observation in stream:
        assert table.observe(observation).ok
        states.append(full_state(table))
    assert len(stream) > 2 * 64  # several undo checkpoints were taken
    for expected in reversed(states[:-1]):
        verdict = table.observe(Undo())
        assert verdict.ok and isinstance(verdict.events[0], ev.Undone)
        assert full_state(table) == expected
    assert not table.can_undo and table.observe(Undo()).reason == "not_allowed"


def test_undo_then_new_observations_continue_from_the_restored_state() -> None:
    table = mid_round()
    table.observe(Play(card("red-7")))
    table.observe(Play(card("red-skip")))
    assert table.observe(Undo()).events == (ev.Undone(Play(card("red-skip"))),)
    assert table.turn == "Ben"
    assert table.observe(Play(card("red-reverse"))).ok
    assert table.turn == "Anna" and table.state().direction == "counterclockwise"


def test_replaying_the_journal_rebuilds_the_same_referee() -> None:
    table = two_player_table()
    journal = []
    for observation in long_stream(90):
        verdict = table.observe(observation)
        if verdict.recorded:
            journal.append(observation.to_dict())
    table.observe(Undo())
    journal.append({"undo": True})
    setup = Setup.from_dict(json.loads(json.dumps(table.to_dict())))
    replayed = Table.replay(
        setup, [observation_from_dict(json.loads(json.dumps(entry))) for entry in journal]
    )
    assert replayed.state() == table.state()
    assert replayed._snapshot() == table._snapshot()


def test_penalised_rejections_are_recorded_and_replayed() -> None:
    table = mid_round({"preset": "official", "misplay_penalty": 2})
    verdict = table.observe(Play(card("blue-9")))
    assert not verdict.ok and verdict.recorded and table.count("Anna") == 7
    replayed = Table.replay(table.setup, [Play(card("blue-9"))])
    assert replayed.state() == table.state()


def test_replay_refuses_a_journal_of_another_game() -> None:
    with pytest.raises(ObservationError, match="journal entry 1"):
        Table.replay(mid_round().setup, [Play(card("blue-9"))])


@pytest.mark.parametrize(
    "mapping",
    [
        {"flip": "red-5"},
        {"play": "wild-draw4", "by": "Ben"},
        {"colour": "yellow"},
        {"target": "Clara", "by": "Anna"},
        {"draw": 1},
        {"pass": True},
        {"uno": True, "by": "Anna"},
        {"catch": "Anna", "by": "Ben"},
        {"challenge": True},
        {"accept": True},
        {"reveal": ["red-1", "wild"], "by": "Anna"},
        {"undo": True},
    ],
)
def test_observations_round_trip_through_their_mapping_form(mapping: dict) -> None:
    observation = observation_from_dict(mapping)
    assert observation.to_dict() == mapping
    assert Observation.from_dict(json.loads(json.dumps(mapping))) == observation
    assert type(observation) in OBSERVATION_TYPES


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({}, "exactly one observation key, found none"),
        ({"play": "red-1", "flip": "red-2"}, "found flip, play"),
        ({"play": "red-1", "player": "Ben"}, "unknown key 'player'"),
        ({"pass": "yes"}, "write 'pass: true'"),
        ({"draw": True}, "draw: expected a whole number"),
        ({"colour": "purple"}, "unknown colour 'purple'"),
        ({"reveal": "red-1"}, "list of card names"),
        ({"play": "red-1", "by": 3}, "by: expected a player name"),
        ({"undo": True, "by": "Ben"}, "undo takes no 'by'"),
    ],
)
def test_bad_observations_are_one_line_errors(mapping: dict, message: str) -> None:
    with pytest.raises(UserError) as error:
        observation_from_dict(mapping)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_setup_round_trips_and_validates() -> None:
    setup = Setup.from_dict(
        {
            "rules": {"preset": "spielhilfe", "jump_in": True},
            "players": ["Anna", "Ben", "Clara"],
            "scores": {"Anna": 120},
            "top": "wild",
            "colour": "green",
            "turn": "Ben",
            "direction": "counterclockwise",
            "counts": {"Anna": 1, "Ben": 4},
            "uno_called": ["Anna"],
        }
    )
    assert Setup.from_dict(json.loads(json.dumps(setup.to_dict()))) == setup
    assert setup.count_of("Clara") == 7 and setup.rules.jump_in


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"players": ["Anna", "Anna"]}, "every name must be different"),
        ({"players": ["Anna", "Ben"], "dealer": "Zoe"}, "dealer: unknown player 'Zoe'"),
        ({"players": ["Anna", "Ben"], "hand_size": 60}, "do not fit a 108-card deck"),
        ({"players": ["Anna", "Ben"], "top": "wild"}, "give the declared colour"),
        ({"players": ["Anna", "Ben"], "top": "red-1", "colour": "blue"}, "is red, not blue"),
        ({"players": ["Anna", "Ben"], "counts": {"Anna": 3}}, "also needs 'top'"),
        (
            {"players": ["Anna", "Ben"], "top": "red-1", "uno_called": ["Anna"]},
            "does not hold exactly one card",
        ),
        ({"players": ["Anna", "Ben", "Clara"], "rules": {"partners": True}}, "exactly 4 players"),
        ({"players": ["Anna", "Ben"], "scores": {"Anna": -5}}, "whole number ≥ 0"),
        ({"players": ["Anna", "Ben"], "seats": 2}, "unknown key 'seats'"),
        ({"rules": "official"}, "players: missing"),
    ],
)
def test_bad_setups_are_one_line_errors(mapping: dict, message: str) -> None:
    with pytest.raises(SetupError) as error:
        Setup.from_dict(mapping)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_events_of_a_wild_draw4_challenge_in_table_order() -> None:
    table = mid_round()
    assert table.observe(Play(card("wild-draw4"))).events == (
        ev.CardPlayed("Anna", card("wild-draw4")),
        ev.ColourOwed("Anna"),
    )
    assert table.observe(ChooseColour(Colour.GREEN)).events == (
        ev.ColourChosen("Anna", Colour.GREEN),
        ev.ChallengePrompt("Ben", "Anna", 4),
        ev.NextTurn("Ben"),
    )
    assert table.observe(Challenge()).events == (ev.RevealNeeded("Anna", "challenge"),)
    verdict = table.observe(Reveal(tuple(map(card, ["red-1", "blue-2", "blue-3", "blue-4"]))))
    assert verdict.events == (
        ev.ChallengeSettled("Ben", "Anna", True),
        ev.PenaltyDrawn("Anna", 4, "challenge_guilty"),
        ev.NextTurn("Ben"),
    )
    assert json.loads(json.dumps(verdict.to_dict()))["penalties"] == [
        {"player": "Anna", "cards": 4, "reason": "challenge_guilty"}
    ]


def test_round_and_match_events() -> None:
    table = Table.from_dict(
        {"rules": {"target_score": 50}, "players": ["Anna", "Ben"], "top": "red-5", "turn": "Anna",
         "counts": {"Anna": 1, "Ben": 2}, "uno_called": ["Anna"]}
    )  # fmt: skip
    assert table.observe(Play(card("red-draw2"))).events[-2:] == (
        ev.PenaltyDrawn("Ben", 2, "draw2"),
        ev.ScoresNeeded(("Ben",)),
    )
    verdict = table.observe(Reveal(tuple(map(card, ["wild", "red-1", "red-2", "red-3"]))))
    assert verdict.events == (ev.RoundWon("Anna", 56, (("Anna", 56), ("Ben", 0))), ev.MatchWon("Anna"))


def test_every_event_type_is_a_frozen_dataclass_with_a_journal_form() -> None:
    assert len(EVENT_TYPES) == len({event_type.__name__ for event_type in EVENT_TYPES}) >= 30
    samples = {str: "Anna", int: 2, bool: True}
    for event_type in EVENT_TYPES:
        assert dataclasses.is_dataclass(event_type) and event_type.__dataclass_params__.frozen
        values = []
        for field in dataclasses.fields(event_type):
            kind = field.type
            if "Card" in kind:
                values.append(card("red-7"))
            elif "Colour" in kind:
                values.append(Colour.RED)
            elif "Observation" in kind:
                values.append(Pass())
            elif "tuple" in kind:
                values.append(())
            else:
                values.append(samples[{"str": str, "int": int, "bool": bool}[kind]])
        event = event_type(*values)
        assert json.loads(json.dumps(event_to_dict(event)))["type"] == event_type.__name__


def test_reshuffle_is_announced_and_counted() -> None:
    table = two_player_table()
    verdicts = [table.observe(observation) for observation in long_stream(30)]
    reshuffles = [
        event for verdict in verdicts for event in verdict.events if isinstance(event, ev.ReshuffleNeeded)
    ]
    assert reshuffles and all(event.keep_top for event in reshuffles)
    assert table.draw_pile + table.state().discard_pile + sum(table.counts.values()) == 108


def test_typed_reading_for_the_simulator() -> None:
    table = mid_round()
    assert (table.waiting_for, table.turn, table.top, table.active_colour, table.pending_draw) == (
        "play", "Anna", card("red-5"), Colour.RED, 0
    )  # fmt: skip
    table.observe(Play(card("wild")))
    assert table.owed_by == "Anna" and table.active_colour is None and table.state().colour == "choose"
    assert table.rules == Rules() and table.players == ("Anna", "Ben", "Clara")
