"""The card renderer and the compositor: determinism, every face, honest labels under occlusion."""

from __future__ import annotations

import numpy as np
import pytest

from referee.render.cards import (
    ALL_CARD_NAMES,
    DESIGNS,
    deck_card_names,
    parse_card_name,
    render_back,
    render_card,
)
from referee.render.compose import MIN_VISIBLE, Scene, Sprite, place, pose_homography
from referee.render.scenes import SCENE_KINDS, SCENE_WEIGHTS, render_scene
from referee.vision.classes import CLASS_NAMES, COLOURBLIND_CLASSES, COLOURS, SYMBOL_CLASSES


def test_card_rendering_is_deterministic_by_seed():
    first = render_card("green-reverse", "classic", True, 180, np.random.default_rng(42))
    again = render_card("green-reverse", "classic", True, 180, np.random.default_rng(42))
    other = render_card("green-reverse", "classic", True, 180, np.random.default_rng(43))
    assert np.array_equal(first.bgr, again.bgr) and np.array_equal(first.alpha, again.alpha)
    assert all(np.array_equal(a.hull, b.hull) for a, b in zip(first.regions, again.regions, strict=True))
    assert not np.array_equal(first.bgr, other.bgr)


def test_scene_rendering_is_deterministic_by_seed():
    first = render_scene(np.random.default_rng([7, 1]), size=192)
    again = render_scene(np.random.default_rng([7, 1]), size=192)
    assert np.array_equal(first.image, again.image)
    assert first.labels == again.labels and first.metadata() == again.metadata()


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("colourblind", [False, True])
def test_every_card_renders_with_its_own_labels(design, colourblind):
    rng = np.random.default_rng(5)
    for name in ALL_CARD_NAMES:
        sprite = render_card(name, design, colourblind, 120, rng)
        symbol, colour = parse_card_name(name)
        w, h = sprite.size
        assert sprite.bgr.shape == (h, w, 3) and sprite.alpha.shape == (h, w) and h == 120
        classes = sorted(CLASS_NAMES[r.class_id] for r in sprite.regions)
        expected = [symbol, symbol]
        if colourblind and colour is not None:
            cb = COLOURBLIND_CLASSES[COLOURS.index(colour)]
            assert classes.count(cb) in (2, 3), name  # both corners, sometimes the centre too
            expected += [cb] * classes.count(cb)
        assert classes == sorted(expected), name
        for region in sprite.regions:
            assert (region.hull >= 0).all() and (region.hull <= [w, h]).all(), name
            extent = region.hull.max(axis=0) - region.hull.min(axis=0)
            assert 2 <= extent[1] <= 0.2 * h, name  # a corner symbol, not the centre picture


def test_the_two_designs_look_different():
    rng = np.random.default_rng(0)
    classic = render_card("blue-4", "classic", False, 150, rng)
    modern = render_card("blue-4", "modern", False, 150, rng)
    inside = (slice(20, 130), slice(15, 82))  # within the border and off the corner indices

    def white_share(bgr: np.ndarray) -> float:
        return float((bgr[inside].min(axis=2) > 200).mean())

    # The classic oval is filled white; the modern one is a thin ring on the coloured field.
    assert white_share(classic.bgr) > white_share(modern.bgr) + 0.25


def test_deck_composition_and_names():
    assert len(deck_card_names(108)) == 108 and len(deck_card_names(112)) == 112
    assert deck_card_names(112).count("wild-custom") == 3
    assert {parse_card_name(n)[0] for n in ALL_CARD_NAMES} == set(SYMBOL_CLASSES)
    with pytest.raises(ValueError, match="unknown card name"):
        parse_card_name("purple-3")
    with pytest.raises(ValueError, match="design"):
        render_card("red-1", design="retro")


def test_back_is_never_labelled():
    back = render_back(150, np.random.default_rng(1))
    scene = Scene(np.full((200, 200, 3), 120, np.uint8))
    card = scene.add_card(back, pose_homography(back.size, (100, 100), 150, 10))
    scene.finalise()
    assert not back.face_up and back.regions == [] and card.boxes == [] and scene.yolo_labels() == []
    assert card.visible_fraction > 0.95


def _lone_card(name: str = "yellow-8", angle: float = 0.0):
    sprite = render_card(name, "modern", True, 160, np.random.default_rng(3))
    scene = Scene(np.full((240, 240, 3), 60, np.uint8))
    card = scene.add_card(sprite, pose_homography(sprite.size, (120, 120), 160, angle), shadow=0.0)
    return sprite, scene, card


def test_unoccluded_card_labels_both_corners_tightly():
    sprite, scene, card = _lone_card(angle=30)
    scene.finalise()
    labelled = [b for b in card.boxes if b.labelled]
    assert len(labelled) == len(sprite.regions)
    assert all(b.visible > 0.97 for b in labelled)
    for box in labelled:
        x1, y1, x2, y2 = box.box
        assert 0 <= x1 < x2 <= 240 and 0 <= y1 < y2 <= 240
        assert (x2 - x1) * (y2 - y1) < 0.05 * 103 * 160  # a small corner box, not the card
    rows = scene.yolo_labels()
    assert len(rows) == len(labelled)
    for _, cx, cy, w, h in rows:
        assert min(cx - w / 2, cy - h / 2) >= 0 and max(cx + w / 2, cy + h / 2) <= 1


def test_finger_over_an_index_removes_only_that_label():
    sprite, scene, card = _lone_card()
    top_left = card.hulls[0][1]
    x0, y0 = np.floor(top_left.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(top_left.max(axis=0)).astype(int) + 2
    finger = np.zeros((240, 240), np.uint8)
    finger[y0:y1, x0:x1] = 255
    scene.add_object(Sprite(np.full((240, 240, 3), (120, 160, 210), np.uint8), finger), np.eye(3), "hand")
    scene.finalise()
    first, rotated_twin = card.boxes[0], card.boxes[len(sprite.regions) // 2]
    assert first.class_id == rotated_twin.class_id == SYMBOL_CLASSES.index("8")
    assert first.visible == 0.0 and not first.labelled
    assert rotated_twin.labelled
    assert SYMBOL_CLASSES.index("8") in [row[0] for row in scene.yolo_labels()]


def test_partly_covered_index_follows_the_visibility_threshold():
    _, _, card = _lone_card()
    hull = card.hulls[0][1]
    x0, x1 = hull[:, 0].min(), hull[:, 0].max()
    # Cover the left 30 % and the left 60 % of the index with a later card's edge.
    for share, expect_label in ((0.3, True), (0.6, False)):
        _, scene, card = _lone_card()
        cover = np.zeros((240, 240), np.uint8)
        cover[:, : round(x0 + (x1 - x0) * share)] = 255
        scene.add_object(Sprite(np.zeros((240, 240, 3), np.uint8), cover), np.eye(3), "card-edge")
        scene.finalise()
        box = card.boxes[0]
        assert (box.visible >= MIN_VISIBLE) == expect_label == box.labelled, (share, box.visible)


def test_card_over_card_and_out_of_frame_hide_indices():
    rng = np.random.default_rng(9)
    below = render_card("red-2", "classic", False, 160, rng)
    above = render_card("blue-9", "classic", False, 160, rng)
    scene = Scene(np.full((240, 240, 3), 60, np.uint8))
    # The lower card hangs off the left edge; the upper one sits over its right half.
    low = scene.add_card(below, pose_homography(below.size, (10, 120), 160, 0))
    high = scene.add_card(above, pose_homography(above.size, (75, 120), 160, 0))
    scene.finalise()
    assert not any(b.labelled for b in low.boxes)  # left index out of frame, right index covered
    assert all(b.labelled for b in high.boxes)
    assert low.visible_fraction < 0.5 < high.visible_fraction


def test_place_returns_the_coverage_it_painted():
    canvas = np.zeros((100, 100, 3), np.uint8)
    sprite = Sprite(np.full((20, 10, 3), 255, np.uint8), np.full((20, 10), 255, np.uint8))
    placement = place(canvas, sprite, pose_homography((10, 20), (50, 50), 40, 90))
    mask = placement.full((100, 100))
    assert abs(mask.sum() - 20 * 40) < 40  # rotated by 90°: 40 wide, 20 high
    assert canvas[..., 0][mask > 0.99].min() == 255 and canvas[mask == 0].max() == 0
    assert place(canvas, sprite, pose_homography((10, 20), (500, 500), 40, 0)) is None


@pytest.mark.parametrize("kind", SCENE_KINDS)
def test_scenes_have_valid_labels_and_metadata(kind):
    for index in range(6):
        result = render_scene(np.random.default_rng([11, index]), size=224, kind=kind)
        assert result.image.shape == (224, 224, 3) and result.image.dtype == np.uint8
        for class_id, cx, cy, w, h in result.labels:
            assert 0 <= class_id < len(CLASS_NAMES)
            assert 0 < w < 0.5 and 0 < h < 0.5
            assert min(cx - w / 2, cy - h / 2) >= -1e-6 and max(cx + w / 2, cy + h / 2) <= 1 + 1e-6
        meta = result.metadata()
        labelled = [b for card in meta["cards"] for b in card["boxes"] if b["labelled"]]
        assert len(labelled) == len(result.labels)
        assert all(b["visible"] >= MIN_VISIBLE for b in labelled)
        if kind == "negative":
            assert result.labels == [] and not any(card["face_up"] for card in meta["cards"])
        if kind == "discard":
            top = [card for card in meta["cards"] if card["top_of_pile"]]
            assert len(top) == 1 and np.asarray(top[0]["polygon"]).min() >= 0


def test_a_hollow_glyph_keeps_the_field_inside_a_rim_on_a_plate():
    """The recent deck's "+4": black inside a white rim, a black hairline, a white plate."""
    from referee.render.glyphs import hollow_glyph

    mask = np.zeros((40, 40), np.uint8)
    mask[10:30, 16:24] = 255  # a bar
    black, white = (20, 20, 20), (240, 240, 240)
    glyph = hollow_glyph(mask, black, white, rim=0.1, hairline=0.05, plate=0.1)
    pad = (glyph.alpha.shape[0] - 40) // 2
    row = glyph.bgr[pad + 20, :, 0]
    centre = pad + 20
    assert row[centre] == pytest.approx(20, abs=1)  # the field inside the glyph
    assert row[centre + 4 + 3] == pytest.approx(240, abs=1)  # the rim just outside the bar
    assert row[centre + 4 + 4 + 1] == pytest.approx(20, abs=1)  # the hairline
    assert row[centre + 4 + 4 + 2 + 3] == pytest.approx(240, abs=1)  # the plate
    assert glyph.alpha[pad + 20, centre + 4 + 4 + 2 + 3] == 1.0 and glyph.label_mask.sum() > (mask > 0).sum()


def test_the_wild_field_is_sometimes_a_washed_out_grey_never_a_print_colour():
    """Cameras record a matte black anywhere up to a mid grey; training must show wilds that way too."""
    from referee.render.cards import _camera_black

    rng = np.random.default_rng(3)
    blacks = np.float32([_camera_black(rng) for _ in range(400)])
    values = blacks.mean(axis=1)
    assert (values < 50).mean() > 0.5 and (values > 70).mean() > 0.1 and values.max() < 150
    assert np.abs(blacks[:, 0] - blacks[:, 2]).max() < 0.4 * values.max()  # tinted, not coloured


def test_veiling_glare_lifts_blacks_and_keeps_the_order_of_tones():
    from referee.render.surfaces import veil

    image = np.zeros((40, 40, 3), np.uint8)
    image[:, 20:] = 230
    image[:20, :20] = 15  # a black field beside a white one
    lifted = veil(image, np.random.default_rng(1))
    assert lifted.dtype == np.uint8 and lifted.shape == image.shape
    assert lifted[0, 0].min() > image[0, 0].max() + 5  # black turned grey
    assert lifted[0, 30].min() > lifted[0, 0].max() + 60  # white still far lighter
    assert np.array_equal(lifted, veil(image, np.random.default_rng(1)))


def test_the_entwined_reverse_is_two_arrows_pointing_apart_along_the_diagonal():
    """The recent Mattel print's reverse: point-symmetric, its ink on the rising diagonal, and the
    two tails side by side across the middle, parted by a gap (not one blob)."""
    from referee.render.glyphs import pictogram_mask

    mask = pictogram_mask("reverse", 120, np.random.default_rng(2), "entwined")
    assert mask.shape == (120, 120)
    ink = mask > 127
    turned = np.rot90(ink, 2)
    assert (ink & turned).sum() > 0.8 * ink.sum()  # the same turned half round
    rising = ink[:40, 80:].sum() + ink[80:, :40].sum()  # top-right and bottom-left corners
    falling = ink[:40, :40].sum() + ink[80:, 80:].sum()
    assert rising > 10 * max(falling, 1)
    across = ink[np.arange(120), np.arange(120)].astype(int)  # the falling diagonal
    assert np.count_nonzero(np.diff(across) == 1) == 2  # two runs of ink with a gap between


def _middle_of(name: str, design: str) -> np.ndarray:
    sprite = render_card(name, design, False, 300, np.random.default_rng(4))
    h, w = sprite.bgr.shape[:2]
    return sprite.bgr[round(h * 0.3) : round(h * 0.7), round(w * 0.2) : round(w * 0.8)]


def _largest_white_fill(middle: np.ndarray) -> float:
    """How much of its bounding box the largest white patch fills (a plain card: most; a frame: little)."""
    import cv2

    white = (middle.min(axis=2) > 200).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(white)
    _, _, w, h, area = max(stats[1:count], key=lambda row: row[4])
    return area / float(w * h)


def test_the_recent_draw_two_shows_plain_white_cards_the_modern_framed_ones():
    """The recent print's draw two is two plain white cards; the modern print frames its two cards
    in white around the card colour. The centre reader learns each print's own picture."""
    assert _largest_white_fill(_middle_of("blue-draw2", "recent")) > 0.8
    assert _largest_white_fill(_middle_of("blue-draw2", "modern")) < 0.5


def test_the_recent_wild_draw_four_heaps_one_plain_card_of_each_colour():
    import cv2

    hsv = cv2.cvtColor(_middle_of("wild-draw4", "recent"), cv2.COLOR_BGR2HSV)
    hue = hsv[..., 0][(hsv[..., 1] > 120) & (hsv[..., 2] > 80)]
    bands = {"red": (hue < 10) | (hue > 170), "yellow": (hue >= 18) & (hue < 38)}
    bands |= {"green": (hue >= 40) & (hue < 90), "blue": (hue >= 95) & (hue < 135)}
    assert all(band.sum() > 300 for band in bands.values()), {k: int(v.sum()) for k, v in bands.items()}


def test_half_the_skips_are_the_open_ring_and_a_scene_draws_no_more_random_numbers() -> None:
    """The classic print's skip: a thin ring the card shows through, its bar flatter than 45°."""
    from referee.render.glyphs import pictogram_mask

    looks = []
    for seed in range(40):
        rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
        ink = pictogram_mask("skip", 120, rng) > 127
        twin.uniform(0.13, 0.2)
        assert rng.random() == twin.random()  # the rest of the scene draws what it drew before
        ys, xs = np.nonzero(ink)
        middle = np.hypot(ys - 60, xs - 60) < 25  # inside the ring: the bar alone
        dy, dx = np.linalg.eigh(np.cov(np.stack([ys[middle], xs[middle]])))[1][:, -1]
        angle = np.degrees(np.arctan2(abs(dy), abs(dx)))
        ring = int(np.argmax(~ink[60, 1:] & ink[60, :-1]))  # the ring's width along the middle row
        looks.append((angle, ring / 120))
    angles, rings = np.array(looks).T
    flat = angles < 42
    assert 10 <= flat.sum() <= 30
    assert angles[flat].max() < 42 <= angles[~flat].min() and abs(angles[~flat] - 45).max() < 3
    assert rings[flat].mean() < 0.75 * rings[~flat].mean()  # an open ring is thinner


def test_a_scene_without_busy_prints_is_drawn_as_before_and_busy_ones_are_busy() -> None:
    """Asking for no busy print spends no random draw (every earlier seed renders as it did), and a
    busy print has hard edges all over, where the plain surfaces have few."""
    import cv2

    from referee.render.surfaces import BUSY_SURFACES, SURFACES, table_surface

    for seed in range(6):
        plain, kind = table_surface(96, 96, np.random.default_rng(seed))
        again, kind_again = table_surface(96, 96, np.random.default_rng(seed), busy=0.0)
        assert kind == kind_again and np.array_equal(plain, again)
        assert kind in SURFACES

    def edge_share(image: np.ndarray) -> float:
        grey = cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
        return float((cv2.Canny(grey, 60, 150) > 0).mean())

    for seed in range(9):
        busy, kind = table_surface(192, 192, np.random.default_rng(seed), busy=1.0)
        assert kind in BUSY_SURFACES
        assert edge_share(busy) > 0.02, kind
    for kind in ("felt", "laminate", "solid", "gradient"):
        plain, _ = table_surface(192, 192, np.random.default_rng(1), kind=kind)
        assert edge_share(plain) < 0.02, kind


def test_a_scene_asked_for_busy_prints_lies_on_one() -> None:
    from referee.render.surfaces import BUSY_SURFACES

    scene = render_scene(np.random.default_rng(5), size=128, kind="negative", busy=1.0)
    assert scene.surface in BUSY_SURFACES
    assert render_scene(np.random.default_rng(5), size=128, kind="negative").surface not in BUSY_SURFACES


def test_tight_rows_are_asked_for_by_name_and_leave_the_training_mix_as_it_was():
    """Earlier data sets' seeds must lay out the same scenes: ``row`` is rendered only on request."""
    assert "row" in SCENE_KINDS and "row" not in SCENE_WEIGHTS
    assert set(SCENE_WEIGHTS) < set(SCENE_KINDS)
    result = render_scene(np.random.default_rng([11, 0]), size=224, kind="row")
    assert result.kind == "row" and len(result.metadata()["cards"]) >= 2
