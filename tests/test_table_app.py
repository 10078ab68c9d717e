"""The referee app: buttons and pile events become the right observations, are journalled and spoken."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.buttons import ButtonName, GpioButtons
from hardware.speaker import RecordingSpeaker
from referee.rules import Setup, Table, observation_from_dict
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import CardLanded, CardUnreadable

B = ButtonName


def landed(card: str, t: float = 0.0) -> CardLanded:
    return CardLanded(card, 0.95, (0, 0, 50, 80), ((5, 5), (45, 75)), timestamp=t, replayed=False)


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
