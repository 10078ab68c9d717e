"""The event stream and unattended refereeing: what the referee saw and decided, line by line."""

from __future__ import annotations

import io
import json

import pytest

from hardware.buttons import ButtonName
from hardware.camera import CameraBack, CameraLost
from hardware.speaker import RecordingSpeaker
from referee.rules import Table
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import CardLanded, CardTakenBack, CardUnreadable, PileCleared
from referee.table.stream import CollectedEvents, JsonLinesEvents, Moment, open_event_stream

B = ButtonName


def landed(card: str, confidence: float = 0.93, from_deg: float | None = 270.0) -> CardLanded:
    return CardLanded(card, confidence, (0, 0, 50, 80), ((5, 5), (45, 75)), 0.0, False, from_deg)


def make_app(unattended: bool = False, journal: Journal | None = None) -> tuple[RefereeApp, CollectedEvents]:
    table = Table.deal(["Anna", "Ben", "Clara"], "official")
    game_id = journal.start_game(table.setup, language="en") if journal else None
    events = CollectedEvents()
    app = RefereeApp(
        table,
        RecordingSpeaker(),
        PhraseBook("en"),
        journal=journal,
        game_id=game_id,
        events=events,
        unattended=unattended,
    )
    return app, events


def at(app: RefereeApp, t: float, frame: int) -> RefereeApp:
    app.moment = Moment(t, frame)
    return app


def test_each_line_is_versioned_json_and_is_flushed_at_once(tmp_path):
    path = tmp_path / "events.jsonl"
    stream = open_event_stream(str(path))
    stream.emit(Moment(12.4, 186), "landed", {"card": "red-7"})
    # Still open: a reader of the file sees the line already.
    assert json.loads(path.read_text()) == {
        "v": 1,
        "t": 12.4,
        "frame": 186,
        "event": "landed",
        "card": "red-7",
    }
    stream.close()


def test_an_unwritable_stream_is_a_one_line_error(tmp_path):
    from referee.errors import UserError

    with pytest.raises(UserError, match="cannot write the event stream"):
        open_event_stream(str(tmp_path / "no" / "such" / "folder" / "events.jsonl"))


def test_pile_events_buttons_verdicts_and_camera_reach_the_stream_in_order():
    app, events = make_app()
    at(app, 1.5, 15).on_pile(landed("red-4", from_deg=None))
    at(app, 3.0, 30).on_pile(landed("red-4", 0.871, 270.04))
    at(app, 3.5, 35).on_pile(CardUnreadable(3.5))
    at(app, 4.0, 40).on_button(B.DRAW)
    at(app, 4.2, 42).on_pile(CardTakenBack("blue-1", 4.2, "red-9"))
    at(app, 5.0, 50).on_camera(CameraLost("camera 0", 5.0))
    at(app, 9.0, 51).on_camera(CameraBack("camera 0", 9.0, 4.0))
    at(app, 9.5, 60).on_pile(PileCleared(9.5))
    names = [line["event"] for line in events.lines]
    assert names == [
        "landed", "verdict", "landed", "verdict", "unreadable", "message", "button", "verdict",
        "taken_back", "camera_lost", "message", "camera_back", "message", "cleared",
    ]  # fmt: skip
    landing = events.lines[2]
    assert landing == {
        "v": 1, "t": 3.0, "frame": 30, "event": "landed", "card": "red-4", "confidence": 0.871,
        "replayed": False, "reached_from_deg": 270.0,
    }  # fmt: skip
    verdict = events.lines[3]
    assert verdict["observation"] == {"play": "red-4"} and verdict["ok"] is True
    assert verdict["turn"] == "Ben" and verdict["colour"] == "red" and verdict["penalties"] == []
    assert verdict["said"] == ["Anna plays the red four.", "Ben's turn."]
    assert events.lines[6] == {"v": 1, "t": 4.0, "frame": 40, "event": "button", "button": "DRAW"}
    assert events.lines[11]["outage_s"] == 4.0
    assert events.lines[5]["key"] == "straighten_card" and events.lines[5]["spoken"] is True


def test_a_refusal_carries_its_reason_and_penalties():
    app, events = make_app()
    app.on_pile(landed("red-4"))
    app.on_pile(landed("blue-9"))
    refused = events.lines[-1]
    assert refused["event"] == "verdict" and refused["ok"] is False and refused["reason"] == "no_match"
    assert refused["turn"] == "Anna" and refused["said"]


def test_scores_are_in_the_stream_when_a_round_ends():
    app, events = make_app()
    app.read_scoring_zone = lambda: ["blue-skip"]  # each hand left: one action card, 20 points
    table = app.table
    app.on_pile(landed("red-4"))
    while table.waiting_for == "play":
        app.on_pile(landed("red-2"))
    while table.waiting_for in ("reveal", "scores"):
        app.on_button(B.DRAW)
    scores = [line for line in events.lines if line["event"] == "scores"]
    assert len(scores) == 1
    assert {key: scores[0][key] for key in ("winner", "points", "scores", "match_winner")} == {
        "winner": "Anna",
        "points": 40,
        "scores": {"Anna": 40, "Ben": 0, "Clara": 0},
        "match_winner": None,
    }


def test_a_repeated_refusal_is_said_once_then_every_few_seconds_but_always_streamed():
    app, events = make_app()
    app.on_pile(landed("red-4"))
    for second in range(10):
        at(app, 10.0 + second, 100 + second).on_pile(landed("blue-9"))
    refusals = [line for line in events.lines if line["event"] == "verdict" and not line["ok"]]
    assert len(refusals) == 10
    spoken = [line for line in refusals if line["said"]]
    assert [line["t"] for line in spoken] == [10.0, 15.0]
    assert all(line["held_back"] for line in refusals if not line["said"])
    sentence = refusals[0]["said"][0]
    assert [text for text, _ in app.speaker.said].count(sentence) == 2


def test_attended_a_wild_waits_for_its_colour_button():
    app, _ = make_app()
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild"))
    assert not app.on_pile(landed("green-3")).ok
    assert app.table.waiting_for == "colour"


def test_unattended_the_next_card_tells_the_colour_nobody_pressed():
    app, events = make_app(unattended=True)
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild"))
    assert app.on_pile(landed("green-3")).ok
    assert [line["observation"] for line in events.lines if line["event"] == "verdict"][-2:] == [
        {"colour": "green"},
        {"play": "green-3"},
    ]
    # A wild on an uncalled wild keeps the colour from before the first wild.
    app.on_pile(landed("wild"))
    assert app.on_pile(landed("wild")).ok
    assert app.table.active_colour is None and app.table.waiting_for == "colour"
    assert app.on_pile(landed("green-5")).ok
    chosen = [line["observation"] for line in events.lines if "colour" in line.get("observation", {})]
    assert chosen[-2:] == [{"colour": "green"}, {"colour": "green"}]


def test_unattended_an_unchallenged_draw_four_was_accepted():
    app, _ = make_app(unattended=True)
    app.on_pile(landed("red-4"))
    app.on_pile(landed("wild-draw4"))  # Anna
    verdict = app.on_pile(landed("blue-3"))  # Ben took four and is skipped: Clara plays blue
    assert verdict.ok
    assert app.table.counts == {"Anna": 6, "Ben": 11, "Clara": 6}


def test_unattended_a_round_that_ended_by_counting_alone_is_reopened_when_cards_still_land():
    app, _ = make_app(unattended=True)
    table = app.table
    app.on_pile(landed("red-4"))
    while table.waiting_for == "play":
        app.on_pile(landed("red-2"))
    assert table.state().round_winner == "Anna"
    # Play goes on: Anna had drawn a card nobody reported. Ben, on one card too, goes out now.
    assert app.on_pile(landed("red-7")).ok
    assert [observation.key for observation, _ in app.verdicts[-4:]] == ["undo", "draw", "play", "play"]
    assert table.count("Anna") == 1 and table.state().round_winner == "Ben"
    # A round really over is followed by the pile gathered up: no reopening after that.
    app.on_pile(PileCleared(0.0))
    app.on_pile(landed("blue-1"))
    assert table.state().round_winner == "Ben" and table.waiting_for == "scores"


def test_presses_are_journalled_with_their_stream_time():
    with Journal.open(":memory:") as journal:
        app, _ = make_app(journal=journal)
        app.on_pile(landed("red-4"))
        at(app, 41.2, 412).on_button(B.DRAW)
        at(app, 43.0, 430).on_button(B.GREEN)
        assert journal.presses(app.game_id) == [
            {"t": 41.2, "button": "DRAW", "frame": 412},
            {"t": 43.0, "button": "GREEN", "frame": 430},
        ]


def test_json_lines_writer_keeps_key_order():
    out = io.StringIO()
    JsonLinesEvents(out).emit(Moment(1.0, 10), "verdict", {"ok": True})
    assert out.getvalue().startswith('{"v":1,"t":1.0,"frame":10,"event":"verdict"')
