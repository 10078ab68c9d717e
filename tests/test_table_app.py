"""The referee app: buttons and pile events become the right observations, are journalled and spoken."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.buttons import ButtonName, GpioButtons
from hardware.speaker import RecordingSpeaker
from referee.rules import Rules, Setup, Table, observation_from_dict
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import CardLanded, CardUnreadable

B = ButtonName


def landed(card: str, t: float = 0.0, from_deg: float | None = None) -> CardLanded:
    return CardLanded(card, 0.95, (0, 0, 50, 80), ((5, 5), (45, 75)), t, False, reached_from_deg=from_deg)


def make_app(
    rules: object = "official", language: str = "en", journal: Journal | None = None, **kw
) -> RefereeApp:
    table = Table.deal(["Anna", "Ben", "Clara"], rules)
    game_id = journal.start_game(table.setup, language=language) if journal else None
    return RefereeApp(
        table, RecordingSpeaker(language), PhraseBook(language), journal=journal, game_id=game_id, **kw
    )


def said(app: RefereeApp) -> list[str]:
    return [text for text, _ in app.speaker.said]


def test_first_card_is_a_flip_then_plays_and_turns_are_announced():
    app = make_app(language="de")
    assert app.on_pile(landed("red-4")).ok
    verdict = app.on_pile(landed("red-9"))
    assert verdict.ok and app.table.turn == "Ben"
    assert [type(o).__name__ for o, _ in app.verdicts] == ["Flip", "Play"]
    assert any("Ben" in sentence for sentence in said(app))
    assert all(language == "de" for _, language in app.speaker.said)


def test_draw_button_draws_then_passes():
    app = make_app()
    app.on_pile(landed("red-4"))
    assert app.on_button(B.DRAW).ok
    assert app.table.counts["Anna"] == 8 and app.table.turn == "Anna"
    assert app.on_button(B.DRAW).ok
    assert app.table.turn == "Ben"
    assert [type(o).__name__ for o, _ in app.verdicts][-2:] == ["Draw", "Pass"]


def test_colour_buttons_declare_a_wild_colour():
    app = make_app()
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild"))
    assert app.table.waiting_for == "colour"
    assert app.on_button(B.GREEN).ok
    assert app.table.state().colour == "green" and app.table.turn == "Ben"


def test_draw_button_accepts_a_wild_draw_four_and_challenge_button_challenges():
    app = make_app()
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild-draw4"))
    app.on_button(B.BLUE)
    assert app.table.waiting_for == "challenge_or_accept"
    assert app.on_button(B.DRAW).ok
    assert app.table.counts["Ben"] == 11 and app.table.turn == "Clara"

    other = make_app()
    other.on_pile(landed("red-4"))
    other.on_pile(landed("wild-draw4"))
    other.on_button(B.BLUE)
    assert other.on_button(B.CHALLENGE).ok
    assert other.table.waiting_for == "reveal"


def test_an_illegal_play_is_rejected_with_its_reason_and_changes_nothing():
    app = make_app()
    app.on_pile(landed("red-4"))
    before = app.table.state()
    verdict = app.on_pile(landed("blue-7"))
    assert not verdict.ok and verdict.reason == "no_match"
    assert app.table.state() == before
    assert said(app)[-1]  # the table is told why


def test_catch_button_catches_the_only_catchable_player():
    app = make_app(rules={"preset": "official"})
    table = Table.from_dict(
        {
            "players": ["Anna", "Ben", "Clara"],
            "rules": "official",
            "counts": {"Anna": 2, "Ben": 5, "Clara": 5},
            "top": "red-4",
            "turn": "Anna",
        }
    )
    app.table = table
    app.on_pile(landed("red-5"))  # Anna is down to one card and says nothing
    assert app.table.state().catchable == ["Anna"]
    verdict = app.on_button(B.CATCH)
    assert verdict.ok and app.table.counts["Anna"] == 3


def test_swap_target_is_chosen_with_the_seat_picker():
    app = make_app(rules={"preset": "official", "deck": "deck112", "extra_wild": "swap"})
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild-swap"))
    app.on_button(B.YELLOW)  # the colour
    assert app.table.waiting_for == "target"
    assert app.on_button(B.RED) is None  # opens the prompt (Ben first) ...
    assert app.prompt is not None
    app.on_button(B.BLUE)  # ... Clara
    verdict = app.on_button(B.GREEN)
    assert verdict.ok and app.prompt is None
    assert app.verdicts[-1][0].to_dict()["target"] == "Clara"


def test_unreadable_card_asks_to_straighten_it():
    app = make_app(language="nl")
    app.on_pile(CardUnreadable(1.0))
    assert said(app) == [PhraseBook("nl").message("straighten_card")]
    assert app.verdicts == []


def test_every_verdict_is_journalled_before_it_is_spoken(tmp_path):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    app = make_app(journal=journal)
    app.on_pile(landed("red-4"))
    app.on_pile(landed("blue-7"))  # rejected: still journalled
    app.on_pile(landed("red-7"))
    records = journal.records(app.game_id)
    assert len(records) == 3
    saved = journal.load(app.game_id)
    resumed = Table.replay(Setup.from_dict(saved.setup), map(observation_from_dict, saved.observations))
    assert resumed.state() == app.table.state()
    journal.close()


@pytest.fixture
def mock_pins():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def test_gpio_buttons_drive_the_app_through_mock_pins(mock_pins):
    pins = {
        "draw": 17,
        "uno": 27,
        "catch": 22,
        "challenge": 5,
        "undo": 6,
        "red": 13,
        "yellow": 19,
        "green": 26,
        "blue": 21,
    }
    buttons = GpioButtons(pins, bounce_s=0.0)
    app = make_app()
    app.on_pile(landed("red-4"))
    mock_pins.pin(17).drive_low()
    mock_pins.pin(17).drive_high()
    for press in buttons.drain():
        app.on_button(press.button)
    assert app.table.counts["Anna"] == 8
    buttons.close()


def test_every_button_after_the_round_ended_is_answered_not_raised():
    app = make_app()
    app.table = Table.from_dict(
        {
            "players": ["Anna", "Ben", "Clara"],
            "rules": "official",
            "counts": {"Anna": 1, "Ben": 5, "Clara": 5},
            "top": "red-4",
            "turn": "Anna",
        }
    )
    app.on_button(B.UNO)
    assert app.on_pile(landed("red-5")).ok
    assert app.table.turn is None  # the round is over: nobody is on turn to call a catch
    for button in ButtonName:
        verdict = app.on_button(button)
        assert verdict is None or isinstance(verdict.ok, bool)
    assert app.verdicts[-1][0].to_dict().get("by") in ("Ben", "Clara", None)


SIDES = {"Anna": 90.0, "Ben": 180.0, "Clara": -90.0}  # where each one's arm crosses the zone's edge


def learnt_sides_app(rules: object = "official") -> RefereeApp:
    """Three rounds of turn plays, each arm from its player's side (with some scatter)."""
    app = make_app(rules)
    app.on_pile(landed("red-4"))
    for k, number in enumerate("567856785"):
        player = app.table.turn
        assert app.on_pile(landed(f"red-{number}", from_deg=SIDES[player] + (-1) ** k * 8)).ok
    return app


def test_a_jump_in_is_the_card_of_the_player_whose_arm_brought_it():
    app = learnt_sides_app(Rules.preset("official", jump_in=True))
    assert app.table.turn == "Anna"
    verdict = app.on_pile(landed("red-5", from_deg=SIDES["Ben"] - 5))  # Ben jumps in on Clara's red 5
    assert verdict.ok
    assert app.verdicts[-1][0].by == "Ben"
    assert app.table.counts["Ben"] == app.table.counts["Anna"] - 1
    assert app.table.turn == "Clara"  # play goes on after the one who jumped in
    assert any("Ben" in sentence and "jumps in" in sentence for sentence in said(app))


def test_only_a_possible_jump_in_is_given_to_another_player():
    """Another hand moving just before the pile settles can mislead the arm's side: a card that is
    no jump-in (another card, or the jump-in rule off) stays the turn's."""
    app = learnt_sides_app(Rules.preset("official", jump_in=True))
    assert app.on_pile(landed("red-6", from_deg=SIDES["Clara"])).ok  # not the red 5 on top
    assert app.verdicts[-1][0].by is None and app.table.turn == "Ben"
    app = learnt_sides_app()
    assert app.on_pile(landed("red-5", from_deg=SIDES["Clara"])).ok  # jump-in rule off
    assert app.verdicts[-1][0].by is None and app.table.turn == "Ben"


def test_from_the_turns_own_side_or_an_unclear_side_the_card_stays_the_turns():
    app = learnt_sides_app()
    assert app.on_pile(landed("red-6", from_deg=SIDES["Anna"] + 20)).ok
    assert app.verdicts[-1][0].by is None
    assert app.table.turn == "Ben"
    assert app.on_pile(landed("red-7", from_deg=135.0)).ok  # between Ben's and Anna's sides
    assert app.verdicts[-1][0].by is None


def test_before_sides_are_learnt_the_seating_order_tells_them():
    """Players sit clockwise in the configured order: after Anna's first card, Clara's side is a
    third of a turn further on, and her jump-in on the very next card is hers."""
    app = make_app(Rules.preset("official", jump_in=True))
    app.on_pile(landed("red-4"))
    assert app.on_pile(landed("red-5", from_deg=SIDES["Anna"])).ok
    assert app.table.turn == "Ben"
    assert app.on_pile(landed("red-5", from_deg=SIDES["Anna"] + 240 + 10)).ok
    assert app.verdicts[-1][0].by == "Clara"
    assert app.table.turn == "Anna"


def test_the_round_result_is_said_for_the_game_s_scoring():
    from referee.rules.events import RoundWon

    rules = Rules.preset("official", match_mode="lowest_total")
    app = RefereeApp(Table.deal(["Anna", "Ben", "Clara"], rules), RecordingSpeaker(), PhraseBook("en"))
    assert (
        app.phrases.event(RoundWon("Anna", 40, (("Anna", 0), ("Ben", 30), ("Clara", 10))))
        == "Anna wins the round. Score: Anna 0, Clara 10 and Ben 30."
    )


def test_what_the_table_sees_for_itself_is_said_as_routine_refusals_are_not():
    from referee.rules import Flip, Play, parse_card

    speaker = RecordingSpeaker("en")
    app = RefereeApp(Table.deal(["Anna", "Ben"], "official"), speaker, PhraseBook("en"))
    app.submit(Flip(parse_card("red-4")))
    app.submit(Play(parse_card("blue-9")))
    assert speaker.routine == ["Anna's turn."]
    assert speaker.said[-1][0].startswith("Anna, the blue nine can't be played.")
