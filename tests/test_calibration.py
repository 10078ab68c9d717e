"""Calibration on synthetic camera pictures: markers warped by a known homography, cards of known colour."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.clicks import PointCollector, require_display
from calibration.colours import card_field_pixels, colour_model_from_cards
from calibration.markers import find_markers, marker_image, marker_sheet, write_marker_sheet
from calibration.plane import build_profile, check_zones, profile_from_markers
from calibration.preview import draw_preview
from calibration.profile import CalibrationProfile
from calibration.table_view import Zone, default_zones
from referee.errors import UserError

TABLE_MM = (700.0, 500.0)
MARGIN_MM = 60.0
CANVAS_PX_PER_MM = 2.0
FRAME_SIZE = (1280, 720)
#: Where the canvas corners land in the camera picture: a camera looking down at a slant.
CAMERA_QUAD = np.float32([[180, 40], [1110, 80], [1240, 700], [50, 670]])
CARD_BGR = {"red": (40, 30, 200), "yellow": (30, 210, 240), "green": (70, 160, 40), "blue": (190, 100, 20)}


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


def table_canvas(marker_ids=(0, 1, 2, 3), card: str | None = None) -> np.ndarray:
    """A wooden table from above with the markers on paper at the rectangle's corners (and a card)."""
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
        draw_card(canvas, card)
    return canvas


def draw_card(canvas: np.ndarray, colour: str) -> None:
    """A card at the middle of the table, turned 20°: white rim, coloured field, white oval."""
    centre = mm_to_canvas(TABLE_MM[0] / 2, TABLE_MM[1] / 2)
    s = CANVAS_PX_PER_MM

    def box(width_mm: float, height_mm: float) -> np.ndarray:
        return np.int32(cv2.boxPoints((centre, (width_mm * s, height_mm * s), 20.0)))

    cv2.fillConvexPoly(canvas, box(56, 87), (245, 245, 245))
    cv2.fillConvexPoly(canvas, box(50, 81), CARD_BGR[colour] if colour != "black" else (25, 25, 25))
    cv2.ellipse(canvas, (centre, (38 * s, 62 * s), 50.0), (245, 245, 245), -1)


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


def test_card_field_is_found_and_its_rim_left_out():
    canvas = table_canvas(card="blue")
    frame = camera_picture(canvas)
    view = profile_from_markers(frame, TABLE_MM).table_view()
    pixels = card_field_pixels(view.crop(frame, "discard"), view.px_per_mm)
    blue = np.all(np.abs(pixels.astype(int) - CARD_BGR["blue"]) < 40, axis=1).mean()
    white = (pixels.min(axis=1) > 200).mean()
    wood = np.all(np.abs(pixels.astype(int) - (60, 105, 150)) < 30, axis=1).mean()
    assert blue > 0.45 and wood < 0.02, (blue, white, wood)
    with pytest.raises(UserError, match="no card found"):
        card_field_pixels(view.crop(camera_picture(table_canvas()), "discard"), view.px_per_mm, "a red card")


def test_colour_model_from_one_card_per_colour():
    colour = pytest.importorskip("referee.vision.colour")
    frames = {name: camera_picture(table_canvas(card=name)) for name in (*CARD_BGR, "black")}
    profile = profile_from_markers(frames["red"], TABLE_MM)
    model = colour_model_from_cards(profile.table_view(), frames)
    for name, bgr in CARD_BGR.items():
        expected = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)
        assert np.abs(np.float64(model.centres[name]) - expected).max() < 6, name
    stored = CalibrationProfile.from_dict(profile.with_colour_model(model).to_dict())
    assert stored.load_colour_model() == model
    assert profile.load_colour_model() == colour.ColourModel.default()


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
