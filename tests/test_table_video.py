"""The simulated table video: deterministic frames, a truth log matching the pictures, a real calibration."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.plane import profile_from_markers
from referee.errors import UserError
from referee.lab.table_bench import simulated_round
from referee.lab.video import OracleReader, TableVideo, VideoSettings
from referee.rules.options import Rules

PLAYERS = ["Anna", "Ben", "Clara"]
STEPS = [
    {"flip": "green-4"},
    {"play": "red-7", "by": "Anna"},  # not legal on green-4, but the video films what happens
    {"draw": 1, "by": "Ben"},
    {"play": "red-7", "by": "Ben"},  # the identical card replayed
    {"colour": "red"},
    {"play": "wild", "by": "Clara"},
    {"reveal": ["blue-2", "yellow-skip"], "by": "Anna"},
]
SMALL = VideoSettings(frame_size=(640, 480))


@pytest.fixture(scope="module")
def video() -> TableVideo:
    return TableVideo(STEPS, PLAYERS, seed=5, settings=SMALL)


def test_same_seed_same_frames_and_truth(video: TableVideo) -> None:
    again = TableVideo(STEPS, PLAYERS, seed=5, settings=SMALL)
    assert again.frame_count == video.frame_count
    assert again.truth_json() == video.truth_json()
    probe = [0, video.truth.pile_events[1].landed_frame - 2, video.frame_count - 1]
    for index in probe:
        assert np.array_equal(again.render(index), video.render(index))
    other = TableVideo(STEPS, PLAYERS, seed=6, settings=SMALL)
    assert not np.array_equal(other.render(probe[1]), video.render(probe[1]))


def test_frames_are_lazy_and_timestamped_at_the_frame_rate(video: TableVideo) -> None:
    frames = video.frames(start=10, stop=13)
    first = next(frames)
    assert (first.index, first.timestamp) == (10, pytest.approx(10 / SMALL.fps))
    assert first.image.shape == (480, 640, 3) and first.image.dtype == np.uint8
    assert [frame.index for frame in frames] == [11, 12]


def test_truth_log_follows_the_steps(video: TableVideo) -> None:
    events = video.truth.pile_events
    assert [(e.kind, e.card, e.step) for e in events] == [
        ("flip", "green-4", 0),
        ("play", "red-7", 1),
        ("play", "red-7", 3),
        ("play", "wild", 5),
    ]
    assert [e.identical_replay for e in events] == [False, False, True, False]
    assert events[1].pose != events[2].pose
    for earlier, later in itertools.pairwise(events):
        assert earlier.landed_frame < earlier.hand_left_frame < later.landed_frame
    for event in events:
        assert event.landed_s == pytest.approx(event.landed_frame / SMALL.fps)
    (reveal,) = video.truth.reveals
    assert reveal.cards == ("blue-2", "yellow-skip") and reveal.by == "Anna"
    assert events[-1].hand_left_frame < reveal.laid_frame < reveal.removed_frame <= video.frame_count
    assert len(video.truth.step_s) == len(STEPS)
    assert video.truth.step_s == sorted(video.truth.step_s)
    assert [video.truth.step_s[e.step] for e in events] == [e.hand_left_s for e in events]
    assert video.truth.step_s[6] == reveal.laid_s
    kinds = [d.kind for d in video.truth.disturbances]
    assert "draw" in kinds and "reveal" in kinds and "clear-scoring" in kinds
    json.dumps(video.truth_json())  # plain JSON all the way down


def test_hand_left_is_the_first_frame_without_hand_over_the_pile(video: TableVideo) -> None:
    for event in video.truth.pile_events:
        assert video.hand_over("discard", video._specs[event.hand_left_frame - 1].hand)
        assert not video.hand_over("discard", video._specs[event.hand_left_frame].hand)


def test_oracle_sees_the_landed_card_on_top_once_the_hand_left(video: TableVideo) -> None:
    oracle = OracleReader(video)
    for event in video.truth.pile_events:
        oracle.show(event.hand_left_frame)
        crop = video.view.crop(video.render(event.hand_left_frame), "discard")
        names = [card.name for card in oracle.read(crop)]
        assert event.card in names
        scene = video.scene(event.hand_left_frame)
        top = [card for card in scene.cards if card.top_of_pile]
        assert [card.sprite_name for card in top] == [event.card]
    oracle.show(0)  # before the deal: an empty pile
    assert oracle.read(video.view.crop(video.render(0), "discard")) == []


def test_markers_in_the_picture_give_the_videos_own_calibration(video: TableVideo) -> None:
    measured = profile_from_markers(video.render(0), SMALL.table_size_mm)
    difference = np.abs(np.float64(measured.image_corners) - np.float64(video.calibration.image_corners))
    assert difference.max() < 1.0
    video.view.check_zones_in_frame()


def test_lighting_drifts_but_a_still_table_stays_still(video: TableVideo) -> None:
    last = video.frame_count - 1
    brightness = [float(video.render(last, at_s=t).mean()) for t in np.arange(0.0, 120.0, 5.0)]
    assert max(brightness) / min(brightness) > 1.03  # the room's light drifts over minutes
    noise = video.render(last, at_s=100.0).astype(np.float32) - video.render(last, at_s=100.2)
    assert 0.5 < float(np.std(noise)) < 8


def test_write_video_with_truth_and_calibration(tmp_path, video: TableVideo) -> None:
    short = TableVideo(STEPS[:2], PLAYERS, seed=1, settings=VideoSettings(frame_size=(320, 240)))
    truth_path, calibration_path = short.write(tmp_path / "game.avi")
    capture = cv2.VideoCapture(str(tmp_path / "game.avi"))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == short.frame_count
    capture.release()
    assert json.loads(truth_path.read_text())["pile_events"][1]["card"] == "red-7"
    assert json.loads(calibration_path.read_text())["method"] == "simulated"
    with pytest.raises(UserError, match=r"\.mp4 or \.avi"):
        short.write(tmp_path / "game.gif")


def test_bad_settings_are_one_line_errors() -> None:
    with pytest.raises(UserError, match="fps"):
        VideoSettings(fps=0)
    with pytest.raises(UserError, match="two players"):
        TableVideo(STEPS, ["Solo"])


@pytest.mark.parametrize("seed", [1, 7, 12])
def test_a_table_is_colour_calibrated_like_a_user_would_before_playing(seed, tmp_path):
    """Calibration finds each card by its indices, so a light or busy cloth is not taken for the
    card: on these tables the earlier whole-card sampling read yellow as green (1), most colours
    wrong (7) or yellow and green as blue (12)."""
    from calibration.colours import colour_model_from_cards
    from referee.lab.video import with_table_colours
    from referee.table.session import card_reader
    from referee.vision.backends import load_detector
    from referee.vision.reader import CardReader
    from referee.vision.scripted import tensor_for_boxes, write_scripted_model

    reader = card_reader(None, threads=1)
    game = [{"flip": "blue-5"}, {"play": "blue-8", "by": "Anna"}]
    video = TableVideo(game, ["Anna", "Ben"], seed=seed, settings=VideoSettings(frame_size=(960, 720)))
    pictures = video.colour_calibration_pictures()
    assert sorted(pictures) == ["black", "blue", "green", "red", "yellow"]
    calibrated = with_table_colours(reader, video)
    # Only the colours change: the glyph classifier and the corner check read on (they were dropped once).
    assert (calibrated.detector, calibrated.glyphs, calibrated.corners) == (
        reader.detector,
        reader.glyphs,
        reader.corners,
    )
    assert reader.glyphs is not None and reader.corners is not None and calibrated.symbols == reader.symbols
    assert (
        calibrated.colour_model
        == colour_model_from_cards(video.view, pictures, reader)
        != reader.colour_model
    )
    x, y = video.discard_centre()
    for card in ("red-7", "yellow-7", "green-7", "blue-7"):
        crop = video.view.crop(video.still_picture(card, x, y, angle_deg=30.0), "discard")
        assert [found.name for found in calibrated.read(crop)] == [card]
    blind = CardReader(
        load_detector(
            write_scripted_model(tmp_path / "m.onnx", tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
        )
    )
    with pytest.raises(UserError, match="no card found in the discard zone"):
        colour_model_from_cards(video.view, pictures, blind)
    assert with_table_colours(blind, video) is blind  # the default colours, as the user is told


def test_a_wild_draw_four_turned_up_first_is_taken_back_not_a_cleared_pile() -> None:
    """R: a Wild Draw Four turned up first goes back into the deck. The hand takes that one card
    back; gathering the whole pile is for a new round (the watcher reports the two differently)."""
    rules = Rules.preset("official")
    steps = simulated_round(["Anna", "Ben", "Clara", "Dan"], 702, rules)[:3]
    assert steps[0].observation["flip"] == "wild-draw4" and not steps[0].truth.discard_pile
    video = TableVideo.from_simulation(steps, ["Anna", "Ben", "Clara", "Dan"], seed=702, settings=SMALL)
    kinds = [d.kind for d in video.truth.disturbances]
    assert "take-back" in kinds and "clear-pile" not in kinds


def test_a_deck_in_other_typefaces_films_the_same_game_in_one_print_of_those_faces(
    video: TableVideo, monkeypatch
) -> None:
    import referee.render.cards as cards
    from referee.render.cards import PRINT_FAMILIES
    from referee.render.glyphs import FONT_DIR

    used: list[tuple[str, str]] = []

    def recording_text_mask(text, height, font_name, *args, **kwargs):
        used.append((text, font_name))
        return real_text_mask(text, height, font_name, *args, **kwargs)

    landed = video.truth.pile_events[0].hand_left_frame
    plain_frame = video.render(landed)
    real_text_mask = cards.text_mask
    monkeypatch.setattr(cards, "text_mask", recording_text_mask)
    serif = (str(FONT_DIR / "DejaVuSerif-Bold.ttf"),)
    retyped = TableVideo(STEPS, PLAYERS, seed=5, settings=SMALL, typefaces=serif)
    assert retyped.design in PRINT_FAMILIES
    # The same game, table and camera: only the faces' print differs.
    truth, plain = retyped.truth_json(), video.truth_json()
    assert truth["deck"].pop("typefaces") == ["DejaVuSerif-Bold.ttf"] and plain["deck"].pop("typefaces") == []
    for log in (truth, plain):
        log["deck"].pop("design")
    assert truth == plain
    assert not np.array_equal(retyped.render(landed), plain_frame)
    numerals = {font_name for text, font_name in used if text.strip("+").isdigit()}
    assert numerals == set(serif)  # every numeral of the filmed faces, in the given face


def test_a_game_filmed_on_a_busy_print_is_the_same_game_on_a_busier_table(video: TableVideo) -> None:
    """`bench table --table busy`: the same plays and reveals, and markers that still calibrate, on a
    cover that is busy (hard edges all over, where a plain table has few)."""
    busy = TableVideo(STEPS, PLAYERS, seed=5, settings=replace(SMALL, busy_table=True))

    def played(log: dict) -> list:
        return [(event["kind"], event["card"]) for event in log["pile_events"]] + [
            reveal["cards"] for reveal in log["reveals"]
        ]

    assert played(busy.truth_json()) == played(video.truth_json())
    profile_from_markers(busy.render(0), SMALL.table_size_mm)  # the markers still calibrate it

    def edges_off_the_cards(frame: np.ndarray) -> float:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        corner = grey[: grey.shape[0] // 4, grey.shape[1] // 3 : 2 * grey.shape[1] // 3]  # between markers
        return float((cv2.Canny(corner, 60, 150) > 0).mean())

    assert edges_off_the_cards(busy.render(0)) > 2 * edges_off_the_cards(video.render(0)) + 0.01
