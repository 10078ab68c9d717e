"""Calibration on synthetic camera pictures: markers warped by a known homography, cards of known colour."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from calibration.clicks import PointCollector, require_display
from calibration.colours import colour_model_from_cards, index_fields
from calibration.markers import find_markers, marker_image, marker_sheet, write_marker_sheet
from calibration.plane import build_profile, check_zones, profile_from_markers
from calibration.preview import draw_preview
from calibration.profile import CalibrationProfile
from calibration.table_view import CARD_MM, Zone, default_zones
from referee.errors import UserError
from referee.render.cards import render_card
from referee.render.compose import place, pose_homography

TABLE_MM = (700.0, 500.0)
MARGIN_MM = 60.0
CANVAS_PX_PER_MM = 2.0
FRAME_SIZE = (1280, 720)
#: Where the canvas corners land in the camera picture: a camera looking down at a slant.
CAMERA_QUAD = np.float32([[180, 40], [1110, 80], [1240, 700], [50, 670]])
CARD_COLOURS = ("red", "yellow", "green", "blue")


def mm_to_canvas(x_mm: float, y_mm: float) -> tuple[float, float]:
    return ((x_mm + MARGIN_MM) * CANVAS_PX_PER_MM, (y_mm + MARGIN_MM) * CANVAS_PX_PER_MM)


def canvas_size() -> tuple[int, int]:
    return (
        round((TABLE_MM[0] + 2 * MARGIN_MM) * CANVAS_PX_PER_MM),
        round((TABLE_MM[1] + 2 * MARGIN_MM) * CANVAS_PX_PER_MM),
    )


def true_homography() -> np.ndarray:
    """Canvas pixels → camera pixels."""
    width, height = canvas_size()
    canvas = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    return cv2.getPerspectiveTransform(canvas, CAMERA_QUAD)


def table_canvas(
    marker_ids=(0, 1, 2, 3), card: str | None = None, symbol: str = "5", faded: float = 0.0
) -> np.ndarray:
    """A wooden table from above with the markers on paper at the rectangle's corners (and a card
    of colour ``card``, ``black`` for a wild)."""
    width, height = canvas_size()
    rng = np.random.default_rng(7)
    canvas = np.empty((height, width, 3), np.uint8)
    canvas[:] = (60, 105, 150)  # wood brown
    canvas = np.clip(canvas + rng.normal(0, 6, canvas.shape), 0, 255).astype(np.uint8)
    side = round(60 * CANVAS_PX_PER_MM)
    paper = round(84 * CANVAS_PX_PER_MM)
    corners_mm = [(0, 0), (TABLE_MM[0], 0), TABLE_MM, (0, TABLE_MM[1])]
    for marker_id, (x_mm, y_mm) in zip((0, 1, 2, 3), corners_mm, strict=True):
        if marker_id not in marker_ids:
            continue
        cx, cy = (round(v) for v in mm_to_canvas(x_mm, y_mm))
        canvas[cy - paper // 2 : cy + paper // 2, cx - paper // 2 : cx + paper // 2] = 245
        canvas[cy - side // 2 : cy + side // 2, cx - side // 2 : cx + side // 2] = cv2.cvtColor(
            marker_image(marker_id, side), cv2.COLOR_GRAY2BGR
        )
    if card is not None:
        draw_card(canvas, card, symbol, faded)
    return canvas


def draw_card(canvas: np.ndarray, colour: str, symbol: str = "5", faded: float = 0.0) -> None:
    """A rendered classic-deck card at the middle of the table, turned 20°; ``faded`` blends its
    print towards white (0: as printed, 0.5: half way), like a deck washed out by years of play."""
    name = "wild" if colour == "black" else f"{colour}-{symbol}"
    sprite = render_card(name, design="classic", rng=np.random.default_rng(3))
    print_bgr = sprite.bgr.astype(np.float32)
    sprite = dataclasses.replace(sprite, bgr=np.uint8(print_bgr + (245 - print_bgr) * faded))
    centre = mm_to_canvas(TABLE_MM[0] / 2, TABLE_MM[1] / 2)
    place(canvas, sprite, pose_homography(sprite.size, centre, CARD_MM[1] * CANVAS_PX_PER_MM, 20.0))


def camera_picture(canvas: np.ndarray) -> np.ndarray:
    return cv2.warpPerspective(canvas, true_homography(), FRAME_SIZE, borderValue=(50, 50, 50))


def true_image_corners() -> np.ndarray:
    corners_mm = [(0, 0), (TABLE_MM[0], 0), TABLE_MM, (0, TABLE_MM[1])]
    points = np.float32([mm_to_canvas(x, y) for x, y in corners_mm]).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, true_homography()).reshape(4, 2)


def test_markers_recover_the_known_homography():
    profile = profile_from_markers(camera_picture(table_canvas()), TABLE_MM)
    error = np.abs(np.float32(profile.image_corners) - true_image_corners()).max()
    assert error < 1.0, f"corner error {error:.2f} px"
    view = profile.table_view()
    # any table point maps where the true geometry puts it
    probe_mm = np.float32([[350, 250], [100, 400], [650, 20]])
    canvas_points = np.float32([mm_to_canvas(x, y) for x, y in probe_mm]).reshape(-1, 1, 2)
    expected = cv2.perspectiveTransform(canvas_points, true_homography()).reshape(-1, 2)
    assert np.abs(view.to_image(probe_mm) - expected).max() < 1.0
    assert np.abs(view.to_table(expected) - probe_mm).max() < 1.0


@pytest.mark.parametrize(
    ("present", "missing_text"), [((0, 1, 3), "missing 2 (bottom right)"), ((), "seen none")]
)
def test_missing_markers_are_one_line(present, missing_text):
    with pytest.raises(UserError) as error:
        profile_from_markers(camera_picture(table_canvas(marker_ids=present)), TABLE_MM)
    message = str(error.value)
    assert missing_text in message and "\n" not in message and "--print-markers" in message


def test_marker_sheet_is_a4_at_300_dpi_and_detectable(tmp_path):
    sheet = marker_sheet(60)
    assert sheet.shape == (3508, 2480)
    assert sorted(find_markers(sheet).centres) == [0, 1, 2, 3]
    path = tmp_path / "markers.png"
    write_marker_sheet(str(path))
    png = path.read_bytes()
    assert b"pHYs" in png[:100]
    assert cv2.imread(str(path), cv2.IMREAD_GRAYSCALE).shape == (3508, 2480)
    with pytest.raises(UserError, match="20 to 65 mm"):
        marker_sheet(90)


def test_zone_crop_is_the_top_down_zone():
    canvas = table_canvas(card="red")
    profile = profile_from_markers(camera_picture(canvas), TABLE_MM)
    crop = profile.table_view().crop(camera_picture(canvas), "discard")
    zone = profile.zones["discard"]
    assert crop.shape == (round(zone.height * 2), round(zone.width * 2), 3)
    # the same zone cut straight from the top-down canvas: the crop must look like it
    x0, y0 = mm_to_canvas(zone.x, zone.y)
    reference = canvas[round(y0) : round(y0 + zone.height * 2), round(x0) : round(x0 + zone.width * 2)]
    difference = np.abs(
        cv2.GaussianBlur(crop, (9, 9), 0).astype(int) - cv2.GaussianBlur(reference, (9, 9), 0)
    )
    assert np.median(difference) < 12


def test_wrong_frame_size_is_a_user_error():
    view = profile_from_markers(camera_picture(table_canvas()), TABLE_MM).table_view()
    with pytest.raises(UserError, match="calibrate again"):
        view.crop(np.zeros((480, 640, 3), np.uint8), "discard")


def test_zone_outside_the_picture_and_bad_zones_are_rejected():
    frame = camera_picture(table_canvas())
    corners = true_image_corners()
    zones = {"discard": Zone(250, 150, 200, 200), "scoring": Zone(0, 600, 700, 300)}  # below the picture
    with pytest.raises(UserError, match="scoring zone reaches outside"):
        build_profile(frame, corners, TABLE_MM, zones)
    with pytest.raises(UserError, match="overlap"):
        check_zones({"discard": Zone(250, 150, 200, 200), "scoring": Zone(0, 300, 700, 200)})
    with pytest.raises(UserError, match="not in order"):
        build_profile(frame, corners[[1, 0, 2, 3]], TABLE_MM)


def test_default_zones_fit_a_card_and_stay_apart():
    for size in ((700, 500), (500, 700), (1200, 800), (400, 350)):
        check_zones(default_zones(size))
    with pytest.raises(UserError, match="too small"):
        default_zones((300, 300))


def test_profile_round_trips_and_rejects_damage(tmp_path):
    profile = profile_from_markers(camera_picture(table_canvas()), TABLE_MM)
    path = profile.save(tmp_path / "sub" / "calibration.json")
    loaded = CalibrationProfile.load(path)
    assert loaded.zones == profile.zones and loaded.frame_size == FRAME_SIZE
    assert np.allclose(loaded.table_view().homography, profile.table_view().homography, atol=1e-4)
    data = json.loads(path.read_text())
    data["version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="version 99"):
        CalibrationProfile.load(path)
    path.write_text("{ not json")
    with pytest.raises(UserError, match="unreadable"):
        CalibrationProfile.load(path)
    del data["zones"]
    data["version"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="damaged"):
        CalibrationProfile.load(path)
    with pytest.raises(UserError, match="run uno-referee calibrate first"):
        CalibrationProfile.load(tmp_path / "none.json")


@pytest.fixture(scope="module")
def reader():
    """The shipped detector with the default colours: what ``uno-referee calibrate --colours`` uses."""
    from referee.table.session import card_reader

    return card_reader(None, threads=1)


def discard_crop(frame: np.ndarray) -> np.ndarray:
    return profile_from_markers(frame, TABLE_MM).table_view().crop(frame, "discard")


def test_calibration_samples_the_fields_a_read_colours_by(reader):
    """The field around each corner index, as a read sees it; not the classic deck's big numeral
    in the middle (it sits on a white oval), not the table."""
    from referee.vision.colour import ColourModel

    fields = index_fields(discard_crop(camera_picture(table_canvas(card="blue"))), reader)
    assert len(fields) == 2
    model = ColourModel.default()
    for field in fields:
        assert max(field.shape[:2]) < 3 * 32  # an index (~30 px) and its surroundings, not the card
        reading = model.read(model.votes(field, (0, 0, field.shape[1], field.shape[0]), 0.0))
        assert reading.colour == "blue" and reading.confidence > model.strong
    with pytest.raises(UserError, match="no card found in the discard zone: lay a red card flat"):
        index_fields(discard_crop(camera_picture(table_canvas())), reader, "a red card")


def test_calibrated_colours_read_a_faded_deck_the_default_ones_miss(reader):
    from referee.vision.colour import ColourModel
    from referee.vision.reader import CardReader

    frames = {name: camera_picture(table_canvas(card=name, faded=0.55)) for name in (*CARD_COLOURS, "black")}
    profile = profile_from_markers(frames["red"], TABLE_MM)
    model = colour_model_from_cards(profile.table_view(), frames, reader)
    calibrated = CardReader(reader.detector, model, reader.settings)
    faded_blue = discard_crop(camera_picture(table_canvas(card="blue", symbol="8", faded=0.55)))
    strict = CardReader(reader.detector, settings=dataclasses.replace(reader.settings, pale_fields=False))
    assert [card.name for card in strict.read(faded_blue)] == []  # too pale for the default colours
    # … unless read against its own ink's white (pale_fields), and then in its own colour.
    assert [card.name for card in reader.read(faded_blue)] in ([], ["blue-8"])
    for colour in CARD_COLOURS:
        crop = discard_crop(camera_picture(table_canvas(card=colour, symbol="8", faded=0.55)))
        assert [(card.name, card.colour_from) for card in calibrated.read(crop)] == [(f"{colour}-8", "hue")]
    stored = CalibrationProfile.from_dict(profile.with_colour_model(model).to_dict())
    assert stored.load_colour_model() == model
    assert profile.load_colour_model() == ColourModel.default()


def test_calibration_refuses_colours_it_would_mix_up(reader):
    frames = {name: camera_picture(table_canvas(card=name)) for name in CARD_COLOURS}
    frames["yellow"] = frames["red"]  # a red card shown when yellow was asked for
    view = profile_from_markers(frames["red"], TABLE_MM).table_view()
    with pytest.raises(UserError, match=r"the yellow card reads as red .* calibrate the colours again"):
        colour_model_from_cards(view, frames, reader)


def test_preview_shows_both_views():
    frame = camera_picture(table_canvas(card="green"))
    preview = draw_preview(frame, profile_from_markers(frame, TABLE_MM))
    assert preview.shape[0] == frame.shape[0] and preview.shape[1] > frame.shape[1]
    assert (preview[:, : frame.shape[1]] != frame).any()  # outlines were drawn


def test_point_collector_and_headless_message(monkeypatch):
    points = PointCollector(["a", "b", "c", "d"])
    for x in range(5):
        points.click(x, x)
    assert points.done and len(points.points) == 4
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(UserError, match="headless"):
        require_display()
