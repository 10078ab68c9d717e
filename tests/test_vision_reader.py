"""The card reader: colour from pixels, colour-blind fallback, corner pairing, tiling, empty tables.

Cards are drawn by the project's renderer (both print designs) and pasted on a textured table;
the detections are the renderer's own label boxes, so these tests check the reader, not a network.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import cv2
import numpy as np
import pytest
from numpy.lib.array_utils import byte_bounds

from referee.errors import UserError
from referee.render.cards import render_card
from referee.rules.options import Rules
from referee.vision.backends import load_detector
from referee.vision.classes import CLASS_NAMES, COLOURS, symbols_in_play
from referee.vision.colour import (
    BLACK,
    FACE_WHITE_TINT,
    WHITE_INK_TINT,
    ColourModel,
    field_crop,
    on_white_face,
    white_gains_at,
)
from referee.vision.detection import Detection, box_iou
from referee.vision.glyphs import GLYPH_CLASSES, GlyphReadings
from referee.vision.reader import CardReader, ReaderSettings, ReadTrace, _between
from referee.vision.scripted import tensor_for_boxes, write_scripted_model


def table(height: int, width: int, seed: int = 0, colour=(70, 95, 75)) -> np.ndarray:
    """A felt-like table: a flat colour with some noise."""
    noise = np.random.default_rng(seed).normal(0, 6, (height, width, 3))
    return np.clip(np.float32(colour) + noise, 0, 255).astype(np.uint8)


@dataclass
class Pasted:
    name: str
    outline: tuple[float, float, float, float]
    detections: list[Detection]

    @property
    def indices(self) -> list[Detection]:
        return [d for d in self.detections if not d.class_name.startswith("cb-")]


def paste(canvas, name, x, y, height=160, design="modern", colourblind=False, seed=0) -> Pasted:
    """Draw a rendered card at (x, y); its label boxes become detections with score 0.9."""
    sprite = render_card(
        name, design=design, colourblind=colourblind, height=height, rng=np.random.default_rng(seed)
    )
    h, w = sprite.bgr.shape[:2]
    alpha = sprite.alpha[..., None].astype(np.float32) / 255
    region = canvas[y : y + h, x : x + w]
    region[:] = (region * (1 - alpha) + sprite.bgr * alpha).astype(np.uint8)
    detections = [
        Detection(
            (
                x + float(r.hull[:, 0].min()),
                y + float(r.hull[:, 1].min()),
                x + float(r.hull[:, 0].max()),
                y + float(r.hull[:, 1].max()),
            ),
            r.class_id,
            CLASS_NAMES[r.class_id],
            0.9,
        )
        for r in sprite.regions
    ]
    return Pasted(name, (x, y, x + w, y + h), detections)


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> CardReader:
    """A reader whose detector is never run here (cards_from_detections takes the detections)."""
    path = tmp_path_factory.mktemp("model") / "scripted.onnx"
    write_scripted_model(path, tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    return CardReader(load_detector(path))


@pytest.mark.parametrize("design", ["modern", "classic"])
@pytest.mark.parametrize("name", ["red-7", "yellow-skip", "green-draw2", "blue-0", "wild", "wild-draw4"])
def test_colour_comes_from_the_field(reader, design, name):
    canvas = table(260, 220)
    card = paste(canvas, name, 30, 30, design=design, seed=len(name))
    (seen,) = reader.cards_from_detections(canvas, card.detections)
    assert (seen.name, seen.colour_from, len(seen.indices)) == (name, "hue", 2)
    assert seen.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("seed", range(6))
def test_every_colour_on_random_prints(reader, seed):
    canvas = table(240, 4 * 150, seed)
    cards = [
        paste(canvas, f"{colour}-{seed + 1}", 10 + 150 * i, 20, seed=seed * 10 + i)
        for i, colour in enumerate(COLOURS)
    ]
    seen = reader.cards_from_detections(canvas, [d for card in cards for d in card.detections])
    assert sorted(card.name for card in seen) == sorted(card.name for card in cards)


def faded(image: np.ndarray, keep: float) -> np.ndarray:
    """The picture with only ``keep`` of its chroma left (a washed-out print under glare)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 1:] = 128 + (lab[..., 1:] - 128) * keep
    return cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_Lab2BGR)


@pytest.mark.parametrize("colour", COLOURS)
def test_colourblind_symbol_decides_when_the_hue_is_weak(reader, colour):
    canvas = table(260, 220)
    card = paste(canvas, f"{colour}-4", 30, 30, colourblind=True, seed=3)
    washed = faded(canvas, 0.15)
    (seen,) = reader.cards_from_detections(washed, card.detections)
    assert (seen.name, seen.colour_from) == (f"{colour}-4", "symbol")
    # Without the symbol the washed-out card has no usable colour and is not reported at all …
    strict = CardReader(reader.detector, settings=replace(reader.settings, pale_fields=False))
    assert strict.cards_from_detections(washed, card.indices) == []
    # … or, read against its own ink's white (pale_fields), reported in its own colour, never another.
    assert [seen.name for seen in reader.cards_from_detections(washed, card.indices)] in ([], [f"{colour}-4"])
    # With its colour intact the field decides, even though the symbol is there.
    assert reader.cards_from_detections(canvas, card.detections)[0].colour_from == "hue"


def test_two_corners_make_one_card_with_the_card_box(reader):
    canvas = table(300, 260)
    card = paste(canvas, "blue-9", 50, 40, height=200)
    (seen,) = reader.cards_from_detections(canvas, card.indices)
    assert len(seen.indices) == 2
    assert box_iou(np.asarray(seen.box), np.asarray([card.outline]))[0] > 0.8


def test_identical_cards_side_by_side_stay_two(reader):
    canvas = table(260, 360)
    cards = [paste(canvas, "red-5", 20 + 110 * i, 30, seed=i) for i in range(3)]
    seen = reader.cards_from_detections(canvas, [d for card in cards for d in card.indices])
    assert [card.name for card in seen] == ["red-5"] * 3
    assert all(len(card.indices) == 2 for card in seen)


def test_a_fanned_hand_reads_every_card_once(reader):
    """Overlapping cards: only the top card shows both corners; the others one each."""
    canvas = table(260, 420)
    names = ["green-1", "yellow-reverse", "wild", "red-draw2", "blue-8"]
    pasted = [paste(canvas, name, 20 + 60 * i, 40, seed=i) for i, name in enumerate(names)]
    # Each later card covers the bottom-right index of the card before it.
    visible = [d for card in pasted[:-1] for d in card.indices[:1]] + pasted[-1].indices
    seen = reader.cards_from_detections(canvas, visible)
    assert sorted(card.name for card in seen) == sorted(names)


@pytest.mark.parametrize("name", ["yellow-3", "green-7", "red-draw2"])
def test_identical_cards_in_a_fanned_hand_stay_two(reader, name):
    """Seen on a laid-out hand (game 900): the top-left corners of two yellow 3s, two cards apart,
    were spaced like one card's two corners and read as one card. A card's corners are printed half
    a turn apart; these two lie the same way up."""
    canvas = table(260, 420)
    names = [name, "red-0", name, "blue-8"]
    pasted = [paste(canvas, each, 20 + 60 * i, 40, seed=i) for i, each in enumerate(names)]
    visible = [d for card in pasted[:-1] for d in card.indices[:1]] + pasted[-1].indices
    first, second = visible[0], visible[2]
    spacing = math.dist(first.centre, second.centre) / ((first.size + second.size) / 2)
    assert ReaderSettings().pair_distance[0] <= spacing <= ReaderSettings().pair_distance[1]
    seen = reader.cards_from_detections(canvas, visible)
    assert sorted(card.name for card in seen) == sorted(names)


def place_turned(canvas, name, centre, angle, height, seed) -> list[Detection]:
    """Draw a rendered card turned by ``angle`` degrees about ``centre``: its two corner indices'
    boxes (top-left first) as detections."""
    sprite = render_card(
        name,
        design=("classic", "modern")[seed % 2],
        colourblind=seed % 3 == 0,
        height=height,
        rng=np.random.default_rng(seed),
    )
    h, w = sprite.bgr.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    turn[:, 2] += (centre[0] - w / 2, centre[1] - h / 2)
    size = (canvas.shape[1], canvas.shape[0])
    alpha = cv2.warpAffine(sprite.alpha, turn, size).astype(np.float32)[..., None] / 255
    canvas[:] = (canvas * (1 - alpha) + cv2.warpAffine(sprite.bgr, turn, size) * alpha).astype(np.uint8)
    corners = []
    for region in sprite.regions:
        name_of = CLASS_NAMES[region.class_id]
        if not name_of.startswith("cb-"):
            points = region.hull @ turn[:, :2].T + turn[:, 2]
            box = (*points.min(axis=0), *points.max(axis=0))
            corners.append(Detection(tuple(float(v) for v in box), region.class_id, name_of, 0.9))
    return corners


def test_identical_cards_side_by_side_are_each_read_from_both_corners_at_any_turn(reader):
    """Seen in a hand laid out for scoring (bench game 819): two yellow 5s upright side by side. Their
    two top corners lie a card's spacing apart and were paired first, which left both bottom corners
    lone: three cards. The reader pairs as many corners as it can (``pair_most``)."""
    read_right = 0
    for name, picture, first, second in twins_side_by_side(seed=1, count=60):
        cards = reader.cards_from_detections(picture, first + second)
        read_right += [len(card.indices) for card in cards] == [2, 2] and {c.name for c in cards} == {name}
    assert read_right == 60


def test_a_pair_gives_way_to_two_pairs_of_lone_corners():
    from referee.vision.reader import _most_pairs

    top_a, top_b, bottom_a, bottom_b = "top A", "top B", "bottom A", "bottom B"  # stand-ins for indices
    candidates = [(0.30, 0, 1, top_a, top_b), (0.42, 0, 2, top_a, bottom_a), (0.34, 1, 3, top_b, bottom_b)]
    paired: set[int] = set()
    assert sorted(_most_pairs(candidates, paired)) == [(top_a, bottom_a), (top_b, bottom_b)]
    assert paired == {0, 1, 2, 3}
    paired = set()  # with only one lone corner to take, the cheapest pair stays
    assert _most_pairs(candidates[:2], paired) == [(top_a, top_b)] and paired == {0, 1}


def a_card_and_its_table(rng: np.random.Generator, low: int, high: int) -> tuple[str, int, np.ndarray]:
    """A random card (any symbol; a colour unless a wild), its height (``low`` to ``high`` px) and an
    empty table three heights square to lay it on."""
    symbols = [n for n in CLASS_NAMES if not n.startswith("cb-")]
    symbol = symbols[rng.integers(len(symbols))]
    name = symbol if symbol.startswith("wild") else f"{COLOURS[rng.integers(4)]}-{symbol}"
    height = int(rng.integers(low, high))
    return name, height, np.full((3 * height, 3 * height, 3), rng.integers(40, 200, 3), np.uint8)


def twins_side_by_side(
    seed: int, count: int
) -> Iterator[tuple[str, np.ndarray, list[Detection], list[Detection]]]:
    """Two identical cards side by side, up to 15° apart, at any rotation, blurred, noisy and JPEG'd:
    the card's name, the picture and each card's two corner boxes (top-left first)."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        name, height, canvas = a_card_and_its_table(rng, 60, 320)
        angle, middle = rng.uniform(0, 360), 1.5 * height
        first = place_turned(canvas, name, (middle - 0.55 * height, middle), angle, height, k)
        second_centre = (middle + 0.55 * height, middle + rng.uniform(-0.1, 0.1) * height)
        second = place_turned(canvas, name, second_centre, angle + rng.uniform(-15, 15), height, k + 1)
        picture = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.3, 1.5))
        picture = np.clip(picture + rng.normal(0, rng.uniform(2, 8), picture.shape), 0, 255).astype(np.uint8)
        _, jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        yield name, cv2.imdecode(jpeg, cv2.IMREAD_COLOR), first, second


def corners_told_apart(reader: CardReader, seed: int, count: int) -> tuple[int, int]:
    """Over :func:`twins_side_by_side`: how often one card's own two corners were read as two cards,
    and how often the two cards' top-left corners alone were (rightly) read as two cards rather than
    paired."""
    own_split = twins_apart = 0
    for _, picture, first, second in twins_side_by_side(seed, count):
        own_split += len(reader.cards_from_detections(picture, second)) != 1
        twins_apart += len(reader.cards_from_detections(picture, [first[0], second[0]])) == 2
    return own_split, twins_apart


def test_the_half_turn_test_tells_twins_apart_and_never_splits_a_card(reader):
    """200 random pairs of identical cards at any rotation, sizes from tiny to large. Against the
    same reader without the test: no card more is split into two (the few such cards are tiny or
    pale, read so without it too), and far more same-way-up twins are told apart."""
    without = CardReader(reader.detector, settings=replace(reader.settings, turn_test_alike=2.0))
    own_split, twins_apart = corners_told_apart(reader, seed=3, count=200)
    own_split_without, twins_apart_without = corners_told_apart(without, seed=3, count=200)
    assert own_split == own_split_without
    assert twins_apart >= twins_apart_without + 0.1 * 200


def corners_of_two_in_a_pile(reader: CardReader, seed: int, count: int) -> int:
    """Two identical cards in a pile, the second turned 25-90° against the first about nearly the same
    centre: the first's top-left corner and the second's bottom-right one lie as far apart as one
    card's two corners. Returns how often they were (rightly) read as two cards."""
    rng = np.random.default_rng(seed)
    apart = 0
    for k in range(count):
        name, height, canvas = a_card_and_its_table(rng, 120, 260)
        angle, middle = rng.uniform(0, 360), 1.5 * height
        under = place_turned(canvas, name, (middle, middle), angle, height, k)
        shifted = (middle + rng.uniform(-0.1, 0.1) * height, middle + rng.uniform(-0.1, 0.1) * height)
        turn = float(rng.choice([-1, 1]) * rng.uniform(25, 90))
        over = place_turned(canvas, name, shifted, angle + turn, height, k + 1)
        apart += len(reader.cards_from_detections(canvas, [under[0], over[1]])) == 2
    return apart


def test_corners_of_two_cards_turned_apart_in_a_pile_are_two_cards(reader):
    """Seen on whole tables (twenty-fifth session): a pile's two identical cards, or two wilds, read
    as one card from one corner of each. One card's two corners are each other half-turned; these are
    not, at any symbol (an 8 or a wild's oval looks alike half-turned only at the same rotation)."""
    without = CardReader(reader.detector, settings=replace(reader.settings, turn_test_apart=None))
    assert corners_of_two_in_a_pile(reader, 5, 60) >= corners_of_two_in_a_pile(without, 5, 60) + 0.5 * 60
    # … and one card's own two corners, blurred, noisy and JPEG'd, are never taken apart by it.
    assert (
        corners_told_apart(reader, seed=4, count=100)[0] == corners_told_apart(without, seed=4, count=100)[0]
    )


def test_one_glyph_read_as_two_symbols_is_one_card(reader):
    canvas = table(260, 220)
    card = paste(canvas, "yellow-6", 30, 30)
    top_left = card.indices[0]
    twin = Detection(top_left.box, CLASS_NAMES.index("9"), "9", 0.5)
    seen = reader.cards_from_detections(canvas, [*card.indices, twin])
    assert [c.name for c in seen] == ["yellow-6"]


def test_empty_tables_stay_empty(reader):
    """Index-sized boxes on surfaces with no card under them are rejected by their pixels."""
    boxes = [(40, 40, 60, 70), (120, 90, 135, 115)]
    surfaces = {
        "felt": table(200, 200),
        "red cloth": table(200, 200, colour=(40, 40, 190)),
        "white paper": table(200, 200, colour=(235, 235, 235)),
        "black desk": table(200, 200, colour=(20, 20, 20)),
    }
    for surface, image in surfaces.items():
        for symbol in ("7", "skip", "wild", "wild-draw4"):
            detections = [Detection(box, CLASS_NAMES.index(symbol), symbol, 0.95) for box in boxes]
            assert reader.cards_from_detections(image, detections) == [], (surface, symbol)


def test_wild_symbol_on_a_coloured_card_is_rejected(reader):
    canvas = table(260, 220)
    card = paste(canvas, "green-3", 30, 30)
    misread = [Detection(d.box, CLASS_NAMES.index("wild"), "wild", 0.9) for d in card.indices]
    assert reader.cards_from_detections(canvas, misread) == []


def test_a_wild_boxed_tightly_around_its_oval_is_still_a_wild(reader):
    """The network may box the modern wild's index, a four-colour oval, without the black around it
    (seen on a simulated table, where a played wild went unread): the black field is further out."""
    canvas = table(260, 220)
    card = paste(canvas, "wild", 30, 30, design="modern", height=100)
    hugging = []
    for d in card.detections:
        x1, y1, x2, y2 = d.box
        dx, dy = 0.27 * (x2 - x1), 0.27 * (y2 - y1)
        hugging.append(Detection((x1 + dx, y1 + dy, x2 - dx, y2 - dy), d.class_id, d.class_name, d.score))
    assert [c.name for c in reader.cards_from_detections(canvas, hugging)] == ["wild"]


def test_a_four_colour_wild_index_beside_the_big_oval_on_grey_is_a_wild(reader):
    """On a photographed recent deck dealt onto lit tables, the wild's corner showed no black (the
    light lifted it to grey) and the card's big four-colour oval reached into the field read around
    the index: a wild read by the detector and the glyph classifier was dropped for want of a wild's
    field. Its own glyph shows the four colours, which no coloured card's index does."""
    canvas = table(260, 220)
    card = paste(canvas, "wild", 30, 30, design="recent", height=160)
    x1, y1, x2, y2 = card.outline
    body = canvas[y1:y2, x1:x2]
    body[body.max(axis=2) < 70] = (105, 100, 100)  # the black field, lifted to grey by the light
    index = min(card.indices, key=lambda d: d.box[1])
    bx1, by1, bx2, by2 = index.box
    size = index.size
    canvas[
        round(by1 - 0.3 * size) : round(by2 + 0.6 * size), round(bx2 + 0.15 * size) : round(bx2 + 0.6 * size)
    ] = (
        40,
        40,
        200,
    )  # the big oval's red quarter beside the index …
    canvas[
        round(by2 + 0.15 * size) : round(by2 + 0.6 * size), round(bx1 - 0.3 * size) : round(bx2 + 0.15 * size)
    ] = (
        40,
        200,
        230,
    )  # … and its yellow one below
    wild = [Detection(index.box, CLASS_NAMES.index("wild"), "wild", 0.9)]
    assert [c.name for c in reader.cards_from_detections(canvas, wild)] == ["wild"]
    # the four colours of the glyph are the evidence: a white glyph in the same place is no wild
    canvas[round(by1) : round(by2), round(bx1) : round(bx2)] = (235, 235, 235)
    assert reader.cards_from_detections(canvas, wild) == []


@pytest.mark.parametrize("design", ["recent", "modern"])
def test_a_wild_draw_four_whose_black_the_light_lifted_past_half_the_white_is_a_wild(reader, design):
    """Glare and a phone's tone curve lifted a photographed deck's black to more than half the white
    ink's lightness (criscard's faces on bright tables): the field, with no print colour in it, is
    still a wild's. The old rule (grey at most half as light) dropped the card."""
    canvas = table(260, 220, colour=(170, 172, 175))  # a bright table, lighter than the lifted black
    card = paste(canvas, "wild-draw4", 30, 30, design=design, height=160)
    x1, y1, x2, y2 = card.outline
    body = canvas[y1:y2, x1:x2]
    body[body.max(axis=2) < 70] = (122, 122, 122)  # 0.55 of the white ink's lightness (Lab)
    assert [c.name for c in reader.cards_from_detections(canvas, card.detections)] == ["wild-draw4"]
    half = CardReader(reader.detector, settings=replace(ReaderSettings(), wild_grey_lightness=0.5))
    assert half.cards_from_detections(canvas, card.detections) == []


@pytest.mark.parametrize("design", ["recent", "modern"])
@pytest.mark.parametrize("misread_as", ["0", "8"])
def test_a_four_colour_wild_index_read_as_a_numeral_is_a_wild(reader, design, misread_as):
    """On a photographed deck the wild's round four-colour index was read as a "0" and, its field
    brightened to grey by the camera, the card taken for a yellow or blue 0: no coloured card prints
    three colours in one index."""
    canvas = table(260, 220)
    card = paste(canvas, "wild", 30, 30, design=design, height=160)
    x1, y1, x2, y2 = card.outline
    body = canvas[y1:y2, x1:x2]
    body[body.max(axis=2) < 70] = (105, 100, 100)  # the black field, as a camera may show it
    misread = [Detection(d.box, CLASS_NAMES.index(misread_as), misread_as, 0.9) for d in card.indices]
    assert [c.name for c in reader.cards_from_detections(canvas, misread)] == ["wild"]
    strict = CardReader(reader.detector, settings=replace(reader.settings, four_colour_top=0.0))
    assert [c.name for c in strict.cards_from_detections(canvas, misread)] != ["wild"]


def test_an_index_where_three_coloured_cards_meet_is_no_four_colour_wild(reader):
    """In a tight fan one index box may hold the edges of three cards of three colours (seen on
    rendered scenes): around it lies print colour, not a wild's field."""
    canvas = table(200, 200)
    canvas[40:100, 40:160] = (40, 40, 200)  # red
    canvas[100:160, 40:100] = (40, 200, 230)  # yellow
    canvas[100:160, 100:160] = (60, 160, 60)  # green
    canvas[96:104, 40:160] = (200, 120, 30)  # blue
    cv2.ellipse(canvas, (100, 100), (9, 13), 0, 0, 360, (245, 245, 245), 3)
    box = (86.0, 82.0, 114.0, 118.0)
    misread = [Detection(box, CLASS_NAMES.index("0"), "0", 0.9)]
    assert "wild" not in [c.name for c in reader.cards_from_detections(canvas, misread)]
    no_field_test = CardReader(reader.detector, settings=replace(reader.settings, wild_max_coverage=1.01))
    assert "wild" in [c.name for c in no_field_test.cards_from_detections(canvas, misread)]


def test_a_coloured_numeral_is_not_taken_for_a_four_colour_wild(reader):
    canvas = table(260, 400)
    cards = [paste(canvas, name, 30 + 180 * i, 30, height=160) for i, name in enumerate(["red-0", "blue-8"])]
    detections = [d for card in cards for d in card.indices]
    assert sorted(c.name for c in reader.cards_from_detections(canvas, detections)) == ["blue-8", "red-0"]


def test_crop_fast_path_runs_the_network_once(tmp_path):
    """End to end on a discard-zone crop: scripted network → reader, no tiling."""
    crop = table(320, 320)
    card = paste(crop, "yellow-draw2", 90, 60, height=200)
    model = write_scripted_model(
        tmp_path / "pile.onnx",
        tensor_for_boxes([d.box for d in card.detections], [d.class_name for d in card.detections]),
    )
    (seen,) = CardReader(load_detector(model)).read(crop)
    assert seen.to_json()["card"] == "yellow-draw2"
    assert set(seen.to_json()) == {"card", "confidence", "box", "colour_from"}


def test_a_one_view_reader_looks_once_where_the_full_reader_looks_again(tmp_path):
    """The discard zone's reader: one look at its own input, even where indices are small and the
    full reader would look again in finer tiles."""
    model = write_scripted_model(
        tmp_path / "dynamic.onnx",
        tensor_for_boxes([(150, 150, 158, 160), (200, 220, 208, 230)], ["7", "7"]),
        dynamic=True,
    )
    full = CardReader(load_detector(model))
    one = full.at_one_view(224)
    pictures: dict[str, list[tuple[int, ...]]] = {"full": [], "one": []}
    for name, reader in (("full", full), ("one", one)):
        network = reader.detector.detect
        reader.detector.detect = lambda view, name=name, network=network: (
            pictures[name].append(view.shape) or network(view)
        )
    crop = table(400, 400)
    full.read(crop)
    one.read(crop)
    assert pictures["one"] == [(400, 400, 3)] and len(pictures["full"]) > 1
    assert (one.detector.imgsz, one.colour_model) == (224, full.colour_model)


class ResolutionLimitedDetector:
    """Test double for tiling: it knows where the indices of one big picture are and, like the
    network, misses those smaller than ``min_pixels`` once a view is letterboxed into ``imgsz``.
    Views cut by the view's edge are reported clipped, as a network reports a cut index."""

    def __init__(self, picture: np.ndarray, detections: list[Detection], imgsz=320, min_pixels=4.0):
        self.picture, self.truth, self.imgsz, self.min_pixels = picture, detections, imgsz, min_pixels
        self.iou, self.class_names, self.calls = 0.5, CLASS_NAMES, 0

    def detect(self, view: np.ndarray) -> list[Detection]:
        assert np.shares_memory(view, self.picture), "tiles are expected to be views of the picture"
        self.calls += 1
        offset = byte_bounds(view)[0] - byte_bounds(self.picture)[0]
        top, rest = divmod(offset, self.picture.strides[0])
        left = rest // self.picture.strides[1]
        height, width = view.shape[:2]
        scale = min(self.imgsz / height, self.imgsz / width)  # letterboxing enlarges small views too
        found = []
        for d in self.truth:
            x1, y1, x2, y2 = d.box[0] - left, d.box[1] - top, d.box[2] - left, d.box[3] - top
            cut = (max(0, x1), max(0, y1), min(width, x2), min(height, y2))
            if cut[2] - cut[0] < 2 or cut[3] - cut[1] < 2 or max(x2 - x1, y2 - y1) * scale < self.min_pixels:
                continue
            found.append(Detection(cut, d.class_id, d.class_name, d.score))
        return found


def test_large_picture_is_tiled_and_merged():
    rng = np.random.default_rng(7)
    picture = table(3000, 4000)
    names = [str(rng.choice(["red", "yellow", "green", "blue"])) + f"-{i % 10}" for i in range(18)] + [
        "wild",
        "wild-draw4",
    ]
    cards = []
    for i, name in enumerate(names):
        row, column = divmod(i, 5)
        # Jittered grid; some cards sit across the 800 px tile seams.
        x = 150 + column * 760 + int(rng.integers(-60, 60))
        y = 200 + row * 700 + int(rng.integers(-60, 60))
        cards.append(paste(picture, name, x, y, height=130, seed=i))
    truth = [d for card in cards for d in card.detections]
    fake = ResolutionLimitedDetector(picture, truth)
    reader = CardReader(fake)  # type: ignore[arg-type]
    assert reader.read(picture, tiles=False) == []  # indices of ~15 px shrink to ~1 px: invisible
    detections = reader.detect(picture)
    assert fake.calls > 20
    assert sorted(d.box for d in detections) == sorted(d.box for d in truth)  # each exactly once, uncut
    assert sorted(card.name for card in reader.read(picture)) == sorted(names)


def test_indices_found_small_are_looked_for_again_in_finer_tiles():
    """A table seen from afar: the first views find only the nearer, larger cards; measuring their
    indices tells the reader to look again at the scale where the small ones are readable too."""
    rng = np.random.default_rng(11)
    picture = table(1200, 1600)
    names, cards = [], []
    for i in range(14):
        row, column = divmod(i, 5)
        name = str(rng.choice(["red", "yellow", "green", "blue"])) + f"-{i % 10}"
        height = 260 if i < 4 else 130  # indices 38 and 20 px long
        x, y = 60 + column * 300 + int(rng.integers(-20, 20)), 60 + row * 380 + int(rng.integers(-20, 20))
        cards.append(paste(picture, name, x, y, height=height, seed=i))
        names.append(name)
    truth = [d for card in cards for d in card.detections]
    fake = ResolutionLimitedDetector(picture, truth, min_pixels=10.0)
    coarse_only = CardReader(fake, settings=ReaderSettings(index_px=1.0))  # type: ignore[arg-type]
    assert sorted(card.name for card in coarse_only.read(picture)) == sorted(names[:4])
    reader = CardReader(fake)  # type: ignore[arg-type]
    assert sorted(card.name for card in reader.read(picture)) == sorted(names)


def test_colour_model_json_round_trip(tmp_path):
    model = ColourModel.from_samples(
        {colour: np.full((8, 8, 3), bgr, np.uint8) for colour, bgr in _PRINTS.items()}
    )
    model.save(tmp_path / "colours.json")
    assert ColourModel.load(tmp_path / "colours.json") == model
    (tmp_path / "broken.json").write_text('{"centres": 3}')
    with pytest.raises(UserError, match="colour model JSON is malformed"):
        ColourModel.load(tmp_path / "broken.json")
    with pytest.raises(UserError, match="cannot read colour model"):
        ColourModel.load(tmp_path / "missing.json")


_PRINTS = {"red": (45, 40, 205), "yellow": (45, 195, 230), "green": (50, 160, 55), "blue": (165, 95, 40)}


@pytest.mark.parametrize(
    ("lamp", "hard_colour"),
    [((1.2, 1.0, 0.7), "yellow"), ((0.4, 0.4, 0.4), "yellow")],
    ids=["cold lamp", "dim room"],
)
def test_calibration_adapts_to_the_room(lamp, hard_colour):
    """Under a blue cast or in a dim room the fixed default centres misread yellow (at least half
    the time). Either fix works: samples of four cards per colour (other print runs than the test
    cards), or the uncalibrated default's balancing of each index to its white ink."""
    gains = np.float32(lamp)  # BGR

    def card_under_lamp(colour: str, seed: int):
        canvas = table(240, 180, seed)
        card = paste(canvas, f"{colour}-2", 20, 20, seed=seed)
        return np.clip(canvas * gains, 0, 255).astype(np.uint8), card.indices[0].box

    def reads(model: ColourModel, colour: str, seed: int) -> bool:
        return model.read(model.votes(*card_under_lamp(colour, seed))).colour == colour

    samples = {
        colour: [field_crop(*card_under_lamp(colour, seed)) for seed in range(100, 104)] for colour in COLOURS
    }
    calibrated = ColourModel.from_samples(samples)
    assert all(reads(calibrated, colour, seed) for colour in COLOURS for seed in range(6))
    assert calibrated.auto_white  # centres of the print, measured white-balanced as every read is
    fixed = ColourModel(auto_white=False)
    assert sum(reads(fixed, hard_colour, seed) for seed in range(6)) <= 3
    assert sum(reads(ColourModel.default(), hard_colour, seed) for seed in range(6)) >= 5


def test_calibration_needs_every_colour():
    with pytest.raises(UserError, match="lack blue"):
        ColourModel.from_samples(
            {c: np.full((8, 8, 3), _PRINTS[c], np.uint8) for c in ("red", "yellow", "green")}
        )
    grey = {c: np.full((8, 8, 3), 128, np.uint8) for c in COLOURS}
    with pytest.raises(UserError, match="only 0 coloured pixels"):
        ColourModel.from_samples(grey)


def test_a_washed_out_colour_keeps_its_hue():
    """Glare and a pale print take a colour's chroma more than its hue. A yellow at 60 % of its
    chroma, a little towards green, is still yellow, though in plain Lab distance it lies nearer
    the paler green centre; every print colour at 60 % of its chroma stays itself."""
    model = ColourModel.default()
    washed_yellow = np.float32([[180, 122.8, 157.5]])  # hue 100° (yellow 85°, green 121°), chroma 30
    assert COLOURS[model.classify(washed_yellow)[0]] == "yellow"
    for colour, (lightness, a, b) in model.centres.items():
        pale = np.float32([[lightness, 128 + 0.6 * (a - 128), 128 + 0.6 * (b - 128)]])
        label = int(model.classify(pale)[0])
        assert label >= len(COLOURS) or COLOURS[label] == colour  # itself, or too pale to be a colour


def test_the_cards_white_border_balances_where_its_ink_cannot():
    """A yellow photographed under a cool light (criscard's Yellow_069 in a pile): the field turns
    olive, the index's bluish ink barely stands out from it, so the ink alone is no white reference
    and the field reads green. The card's white border beside the index is: balanced to it, yellow."""
    image = np.full((120, 100, 3), (45, 40, 110), np.uint8)  # a dark red cloth
    cv2.rectangle(image, (10, 10), (99, 119), (245, 216, 171), -1)  # the border, bluish white
    cv2.rectangle(image, (18, 18), (99, 119), (123, 177, 163), -1)  # measured on that photo's field
    cv2.putText(image, "2", (26, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (228, 193, 161), 3, cv2.LINE_AA)
    image = cv2.GaussianBlur(image, (3, 3), 0)
    index = (24, 26, 46, 52)
    model = ColourModel.default()
    assert model.read(model.votes(image, index)).colour == "yellow"
    alone = np.ascontiguousarray(field_crop(image, index, 0.2))  # the same pixels, nothing around them
    assert model.read(model.votes(alone, (0, 0, alone.shape[1], alone.shape[0]), 0.0)).colour == "green"


def test_an_index_with_no_white_of_its_own_borrows_the_lamp_of_another(reader):
    """The same cool-lit pale yellow, turned so that no border lies near one index (criscard's
    Yellow_069 photographed askew): that index alone reads green; beside an index of the same
    picture whose border is a white reference, it is balanced with that one's light: yellow."""
    image = np.full((300, 200, 3), (45, 40, 110), np.uint8)  # a dark red cloth
    cv2.rectangle(image, (10, 10), (189, 289), (245, 216, 171), -1)  # the border, bluish white
    cv2.rectangle(image, (18, 18), (181, 281), (128, 181, 177), -1)  # the cool-lit yellow field
    # Mid-field, the bluish ink stands out too little from the field to be a white reference.
    for x, y, ink in ((26, 50, (228, 193, 161)), (100, 200, (220, 218, 150))):
        cv2.putText(image, "2", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, ink, 3, cv2.LINE_AA)
    image = cv2.GaussianBlur(image, (3, 3), 0)
    by_the_border = Detection((24, 26, 46, 52), CLASS_NAMES.index("2"), "2", 0.9)
    mid_field = Detection((98, 176, 120, 202), CLASS_NAMES.index("2"), "2", 0.9)
    assert white_gains_at(image, mid_field.box) is None
    assert [card.name for card in reader.cards_from_detections(image, [mid_field])] == ["green-2"]
    both = reader.cards_from_detections(image, [by_the_border, mid_field])
    assert {card.name for card in both} == {"yellow-2"}
    assert any(mid_field in card.indices for card in both)  # read, and read yellow
    unbalanced = reader.with_colours(ColourModel(auto_white=False))  # borrows nothing: balances nothing
    assert not any(
        mid_field in card.indices and card.name == "yellow-2"
        for card in unbalanced.cards_from_detections(image, [by_the_border, mid_field])
    )


def test_an_off_brand_index_is_balanced_on_the_faces_white():
    """An off-brand print's index is a coloured glyph on the face's white, so no white ink stands out
    from its field; the face's white is the reference. Unbalanced, a pink lamp's white counts as print
    colour for a deck whose learnt blue is a dark, dull teal (the off-brand stand-in deck's colours,
    model card, twenty-third session): the whole face read blue."""
    face = np.full((90, 70, 3), (226, 206, 246), np.uint8)  # the face's white under a pink lamp (BGR)
    cv2.putText(face, "7", (14, 62), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (40, 205, 240), 5, cv2.LINE_AA)
    face = cv2.GaussianBlur(face, (3, 3), 0)
    index = (12, 18, 50, 66)
    gains = white_gains_at(face, index)
    assert gains is not None and gains[1] > max(gains[0], gains[2])  # green lifted against the pink
    centres = {"red": (115.0, 179.0, 170.0), "yellow": (234.0, 116.0, 214.0)}
    centres |= {"green": (184.0, 90.0, 178.0), "blue": (103.0, 113.0, 108.0)}
    learnt = replace(ColourModel.default(), centres=centres, min_chroma=14.0)
    assert learnt.read(learnt.votes(face, index)).colour == "yellow"


def _inner_faces(design: str, seed: int) -> dict[str, np.ndarray]:
    """Each colour's 8 of one rendered print, without the card's outer tenth (as a deck learns it)."""
    faces = {}
    for colour in COLOURS:
        sprite = render_card(f"{colour}-8", design=design, height=200, rng=np.random.default_rng(seed))
        height, width = sprite.bgr.shape[:2]
        faces[colour] = sprite.bgr[height // 10 : -height // 10, width // 10 : -width // 10]
    return faces


def _index(face_bgr: tuple[int, int, int], ink_bgr: tuple[int, int, int], lamp: np.ndarray) -> np.ndarray:
    """An "8" index (box :data:`_INDEX_BOX`) in ``ink_bgr`` on a ``face_bgr`` ground, under ``lamp``."""
    face = np.full((90, 70, 3), face_bgr, np.uint8)
    cv2.putText(face, "8", (14, 62), cv2.FONT_HERSHEY_SIMPLEX, 1.6, ink_bgr, 5, cv2.LINE_AA)
    return np.clip(cv2.GaussianBlur(face, (3, 3), 0) * lamp, 0, 255).astype(np.uint8)


_INDEX_BOX = (12, 18, 50, 66)
_NEUTRAL = np.float32([1.0, 1.0, 1.0])


def test_an_index_on_the_cards_white_face_is_told_from_one_on_a_coloured_field():
    """A coloured glyph on the face's white (an off-brand print) against a white glyph on a coloured
    field (every other print): what a deck's samples tell about its print."""
    for lamp in (_NEUTRAL, np.float32([0.77, 1.0, 0.95])):
        assert on_white_face(_index((236, 236, 236), (45, 40, 200), lamp), _INDEX_BOX)
        assert not on_white_face(_index((45, 40, 200), (236, 236, 236), lamp), _INDEX_BOX)
        assert not on_white_face(_index((160, 110, 30), (236, 236, 236), lamp), _INDEX_BOX)


def test_a_white_faced_deck_is_balanced_on_its_face_under_a_strong_lamp():
    """Learnt from a white-faced print, the colour model takes a light field for the face under any
    lamp, not only under a near-neutral one: a green-cyan cast that tints the face 0.23 no longer
    out-votes the red ink (the stand-in deck's red 8 read green, model card, thirty-sixth session)."""
    samples = _inner_faces("offbrand", 12)
    learnt = ColourModel.from_samples(samples, on_white=[True, True, False])
    assert learnt.face_white_tint == WHITE_INK_TINT
    face = _index((236, 236, 236), (45, 40, 200), np.float32([0.77, 1.0, 0.95]))
    default = ColourModel.default()
    assert white_gains_at(face, _INDEX_BOX) is None  # the near-neutral limit: too tinted for a face
    assert default.read(default.votes(face, _INDEX_BOX)).colour != "red"
    reading = learnt.read(learnt.votes(face, _INDEX_BOX))
    assert reading.colour == "red" and reading.confidence >= learnt.strong
    unraised = replace(learnt, face_white_tint=FACE_WHITE_TINT[0])  # the deck's colours, today's limit
    assert unraised.read(unraised.votes(face, _INDEX_BOX)).colour != "red"
    assert ColourModel.from_json(learnt.to_json()).face_white_tint == WHITE_INK_TINT
    # Most indices on coloured fields: a light field may be a washed-out yellow, so the limit stays.
    assert (
        ColourModel.from_samples(samples, on_white=[True, False, False]).face_white_tint == FACE_WHITE_TINT[0]
    )
    assert ColourModel.from_samples(samples).face_white_tint == FACE_WHITE_TINT[0]


def test_a_colour_model_saved_before_the_white_face_limit_reads_as_before():
    """Colour profiles and learnt decks written by earlier versions have no ``face_white_tint``."""
    saved = json.loads(ColourModel.default().to_json())
    del saved["face_white_tint"]
    assert ColourModel.from_json(json.dumps(saved)) == ColourModel.default()


def test_black_field_reads_black():
    model = ColourModel.default()
    field = np.full((30, 30, 3), 25, np.uint8)
    field[10:20, 10:20] = 240  # a white glyph on it
    assert model.read(model.votes(field, (8, 8, 22, 22))).colour == BLACK


def test_calibration_from_whole_cards_with_a_wild():
    """Calibration samples whole card faces (oval, centre picture and all), a wild one for black."""

    def face(name: str, seed: int) -> np.ndarray:
        sprite = render_card(name, design="modern", height=200, rng=np.random.default_rng(seed))
        height, width = sprite.bgr.shape[:2]
        return sprite.bgr[height // 10 : -height // 10, width // 10 : -width // 10]

    samples = {colour: face(f"{colour}-8", 50) for colour in COLOURS} | {BLACK: face("wild-draw4", 50)}
    balanced = ColourModel.from_samples(samples)
    as_lit = ColourModel.from_samples(samples, base=ColourModel(auto_white=False))
    # Read as lit, the black ceiling is measured on the wild card, below every print colour.
    assert as_lit.max_dark_lightness < min(lab[0] for lab in as_lit.centres.values())
    for model in (balanced, as_lit):
        for seed in range(4):
            for name in ("red-1", "yellow-1", "green-1", "blue-1", "wild"):
                canvas = table(240, 180, seed)
                card = paste(canvas, name, 20, 20, seed=seed)
                expected = name.partition("-")[0] if name != "wild" else BLACK
                seen = model.read(model.votes(canvas, card.indices[0].box)).colour
                assert seen == expected, (model.auto_white, name, seed)


def test_white_ink_undoes_a_warm_dim_lamp(reader):
    """Under an orange, dim lamp white ink looks yellow and grey: balancing each index to its white
    ink keeps cards readable without calibration; the fixed centres alone lose most of them."""
    lamp = np.float32([0.6, 0.75, 0.9])  # BGR gains
    fixed = CardReader(reader.detector, ColourModel(auto_white=False))
    counts = {"balanced": 0, "fixed": 0}
    cases = [
        (n, d, s)
        for n in ("red-6", "blue-3", "green-skip", "yellow-8")
        for d in ("classic", "modern")
        for s in range(3)
    ]
    for name, design, seed in cases:
        canvas = table(260, 220, seed, colour=(60, 120, 170))
        card = paste(canvas, name, 30, 30, design=design, seed=seed)
        lit = np.clip(canvas * lamp, 0, 255).astype(np.uint8)
        counts["balanced"] += [c.name for c in reader.cards_from_detections(lit, card.indices)] == [name]
        counts["fixed"] += [c.name for c in fixed.cards_from_detections(lit, card.indices)] == [name]
    assert counts["balanced"] >= 0.9 * len(cases) and counts["fixed"] <= 0.3 * len(cases), counts


def test_tiny_indices_are_read_without_visible_ink(reader):
    """A card 60 px tall (indices of about 8 px): blur leaves no white ink to see, colour still decides."""
    canvas = cv2.GaussianBlur(table(120, 200), (3, 3), 0)
    cards = [
        paste(canvas, name, 20 + 60 * i, 30, height=60, seed=i)
        for i, name in enumerate(["red-2", "blue-skip"])
    ]
    small = cv2.GaussianBlur(canvas, (5, 5), 0)
    assert max(d.size for card in cards for d in card.indices) < 10
    seen = reader.cards_from_detections(small, [d for card in cards for d in card.indices])
    assert sorted(card.name for card in seen) == ["blue-skip", "red-2"]


@pytest.mark.parametrize("symbol", ["3", "2"])
def test_a_big_centre_numeral_taken_for_an_index_is_no_second_card(reader, symbol):
    """The detector now and then fires on a card's large centre numeral (as itself or as a look-alike):
    with both corners paired around it, it is the card's artwork, not another card."""
    canvas = table(300, 260)
    card = paste(canvas, "blue-3", 50, 40, height=200)
    x1, y1, x2, y2 = card.outline
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    index_height = max(d.box[3] - d.box[1] for d in card.indices)
    half = 1.6 * index_height
    class_id = CLASS_NAMES.index(symbol)
    centre = Detection((cx - half * 0.7, cy - half, cx + half * 0.7, cy + half), class_id, symbol, 0.8)
    seen = reader.cards_from_detections(canvas, [*card.indices, centre])
    assert [c.name for c in seen] == ["blue-3"]


def test_a_second_looser_box_on_a_paired_corner_is_no_second_card(reader):
    canvas = table(300, 260)
    card = paste(canvas, "blue-3", 50, 40, height=200)
    corner = card.indices[0]
    x1, y1, x2, y2 = corner.box
    w, h = x2 - x1, y2 - y1
    loose = Detection((x1 - 0.6 * w, y1, x2, y2 + 0.4 * h), corner.class_id, corner.class_name, 0.3)
    assert box_iou(np.asarray(loose.box), np.asarray([corner.box]))[0] < 0.5  # NMS keeps both
    seen = reader.cards_from_detections(canvas, [*card.indices, loose])
    assert [c.name for c in seen] == ["blue-3"]


def test_both_corners_boxed_twice_are_still_one_card(reader):
    """Seen on laid-out hands: each corner boxed tightly and loosely; the two loose boxes paired with
    each other made a second red 2."""
    canvas = table(300, 260)
    card = paste(canvas, "red-2", 50, 40, height=200)
    loose = []
    for corner in card.indices:
        x1, y1, x2, y2 = corner.box
        w, h = x2 - x1, y2 - y1
        loose.append(Detection((x1 - 0.6 * w, y1, x2, y2 + 0.4 * h), corner.class_id, corner.class_name, 0.5))
    seen = reader.cards_from_detections(canvas, [*card.indices, *loose])
    assert [c.name for c in seen] == ["red-2"]


@pytest.mark.parametrize("name", ["blue-9", "yellow-7"])
def test_a_corner_boxed_again_over_its_colourblind_symbol_is_no_second_card(reader, name):
    """Seen on laid-out hands of the colour-blind deck: the detector boxes each corner's glyph once
    more, shifted onto the symbol printed beside it; the two shifted boxes paired into a second card."""
    canvas = table(300, 260)
    card = paste(canvas, name, 50, 40, height=200, colourblind=True)
    symbols = [d for d in card.detections if d.class_name.startswith("cb-")]
    shifted = []
    for corner in card.indices:
        (cx, cy) = corner.centre
        sx, sy = min((s.centre for s in symbols), key=lambda centre: math.dist(centre, corner.centre))
        dx, dy = 0.7 * (sx - cx), 0.7 * (sy - cy)
        x1, y1, x2, y2 = corner.box
        shifted.append(
            Detection((x1 + dx, y1 + dy, x2 + dx, y2 + dy), corner.class_id, corner.class_name, 0.4)
        )
    assert box_iou(np.asarray(shifted[0].box), np.asarray([card.indices[0].box]))[0] < 0.5  # NMS keeps both
    seen = reader.cards_from_detections(canvas, [*card.detections, *shifted])
    assert [c.name for c in seen] == [name]


@pytest.mark.parametrize(("name", "misread_as"), [("yellow-reverse", "reverse"), ("green-1", "4")])
def test_a_colourblind_symbol_also_boxed_as_an_index_is_no_second_card(reader, name, misread_as):
    """Seen on laid-out hands (games 909 and 919): the ★ beside a reverse also boxed as a reverse,
    the ▲ beside a 1 as a 4, each less surely than as the symbol; either became a card of its own."""
    canvas = table(300, 260)
    card = paste(canvas, name, 50, 40, height=200, colourblind=True)
    symbol = min(
        (d for d in card.detections if d.class_name.startswith("cb-")),
        key=lambda d: math.dist(d.centre, card.indices[0].centre),
    )
    x1, y1, x2, y2 = symbol.box
    w, h = x2 - x1, y2 - y1
    again = Detection(
        (x1 - 0.1 * w, y1 - 0.05 * h, x2 + 0.05 * w, y2 - 0.15 * h),
        CLASS_NAMES.index(misread_as),
        misread_as,
        0.3,
    )
    seen = reader.cards_from_detections(canvas, [*card.detections, again])
    assert [c.name for c in seen] == [name]


def test_an_index_also_boxed_as_a_colourblind_symbol_about_as_surely_is_kept(reader):
    """Seen on a whole table squeezed into 416 px (held-out scene 131): a yellow 5's lone index boxed
    as a 5 at 0.28 and as a ★ at 0.54. Neither is clearly surer; dropping the 5 lost the card."""
    canvas = table(300, 260)
    card = paste(canvas, "yellow-5", 50, 40, height=200)
    corner = card.indices[0]
    lone = replace(corner, score=0.28)
    x1, y1, x2, y2 = corner.box
    star = Detection((x1 - 1, y1 + 1, x2 - 1, y2 - 2), CLASS_NAMES.index("cb-star"), "cb-star", 0.54)
    assert [c.name for c in reader.cards_from_detections(canvas, [lone, star])] == ["yellow-5"]


def test_a_corner_also_read_as_another_symbol_in_a_looser_box_is_no_second_card(reader):
    """Seen on laid-out hands: a 7 boxed tightly and, around it, loosely as a 1 (IoU 0.6, so NMS and a
    plain IoU test keep both); the loose 1 became a red 1 of its own."""
    canvas = table(300, 260)
    card = paste(canvas, "blue-7", 50, 40, height=200)
    corner = card.indices[1]
    x1, y1, x2, y2 = corner.box
    w, h = x2 - x1, y2 - y1
    loose = Detection((x1 - 0.45 * w, y1 - 0.05 * h, x2, y2 + 0.1 * h), CLASS_NAMES.index("1"), "1", 0.4)
    assert box_iou(np.asarray(loose.box), np.asarray([corner.box]))[0] < 0.65
    seen = reader.cards_from_detections(canvas, [*card.indices, loose])
    assert [c.name for c in seen] == ["blue-7"]


class TurnAwareDetector:
    """Test double that reports the pasted cards' boxes where they lie in the picture it is given:
    the original, or the original turned by 90° clockwise."""

    def __init__(self, picture: np.ndarray, detections: list[Detection]) -> None:
        self.picture, self.truth, self.imgsz, self.class_names, self.turned_calls = (
            picture,
            detections,
            320,
            CLASS_NAMES,
            0,
        )

    def detect(self, view: np.ndarray) -> list[Detection]:
        if view.shape == self.picture.shape and np.array_equal(view, self.picture):
            return list(self.truth)
        assert np.array_equal(view, np.rot90(self.picture, k=-1)), "expected the picture turned clockwise"
        self.turned_calls += 1
        height = self.picture.shape[0]
        # A picture point (x, y) lies at (height - y, x) once the picture is turned clockwise.
        return [
            Detection(
                (height - d.box[3], d.box[0], height - d.box[1], d.box[2]), d.class_id, d.class_name, d.score
            )
            for d in self.truth
        ]


def test_a_turned_read_answers_in_the_pictures_own_pixels():
    canvas = table(300, 420)
    cards = [paste(canvas, "green-4", 30, 40, seed=1), paste(canvas, "red-skip", 220, 70, seed=2)]
    detector = TurnAwareDetector(canvas, [d for card in cards for d in card.detections])
    reader = CardReader(detector)  # type: ignore[arg-type]
    upright, turned = reader.read(canvas, tiles=False), reader.read(canvas, tiles=False, turned=True)
    assert detector.turned_calls == 1
    assert [c.name for c in turned] == [c.name for c in upright] == ["green-4", "red-skip"]
    for a, b in zip(upright, turned, strict=True):
        assert np.allclose(a.box, b.box)
        assert np.allclose([d.box for d in a.indices], [d.box for d in b.indices])


def test_tightly_fanned_cards_of_one_symbol_stay_two(reader):
    """A real photo's hand: a yellow and a red +2 fanned so tightly that their indices lie 0.85 index
    sizes apart, closer than the detector's shifted second boxes. Their colours tell them apart."""
    canvas = table(300, 300)
    first = paste(canvas, "yellow-draw2", 40, 40, height=200, seed=1)
    corner = first.indices[0]
    offset = round(0.85 * corner.size)
    second = paste(canvas, "red-draw2", 40 + offset, 40, height=200, seed=2)
    seen = reader.cards_from_detections(canvas, [corner, *second.indices])
    assert sorted((c.name, len(c.indices)) for c in seen) == [("red-draw2", 2), ("yellow-draw2", 1)]


def test_a_lone_index_cut_by_the_pictures_edge_is_not_read(reader):
    """Seen on an empty held-out scene: a green 2 lay beyond the frame, its index cut in half by the
    top edge, and the half glyph was read as a 1. With its other corner in view the card still counts
    once (from that corner: a half glyph does not match the whole one half-turned)."""
    canvas = table(300, 260)
    card = paste(canvas, "green-2", 50, 0, height=200)
    top_left, bottom_right = card.indices
    x1, y1, x2, y2 = top_left.box
    cut = Detection((x1, 0.0, x2, 0.45 * (y2 - y1)), top_left.class_id, top_left.class_name, 0.8)
    assert reader.cards_from_detections(canvas, [cut]) == []
    whole = Detection((x1, 0.0, x2, y2 - y1), top_left.class_id, top_left.class_name, 0.8)
    assert [c.name for c in reader.cards_from_detections(canvas, [whole])] == ["green-2"]
    (seen,) = reader.cards_from_detections(canvas, [cut, bottom_right])
    assert seen.name == "green-2" and bottom_right in seen.indices


# --- where the evidence disagrees: corners of one card, a field that contradicts its symbol -------


class ScriptedGlyphs:
    """A glyph classifier that answers what a test scripts for each box: {symbol: probability}
    by box centre (nearest), the rest of each row "background"."""

    def __init__(self, beliefs: dict[tuple[float, float], dict[str, float]]) -> None:
        self.beliefs = beliefs

    def read(self, image_bgr, boxes, views=1) -> GlyphReadings:
        rows = []
        for x1, y1, x2, y2 in boxes:
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            nearest = min(self.beliefs, key=lambda c: math.dist(c, centre))
            row = np.zeros(len(GLYPH_CLASSES), np.float32)
            for symbol, p in self.beliefs[nearest].items():
                row[GLYPH_CLASSES.index(symbol)] = p
            row[-1] = 1.0 - row.sum()
            rows.append(row)
        return GlyphReadings(
            np.asarray(rows).reshape(-1, len(GLYPH_CLASSES)), np.zeros((len(rows), 4), np.float32)
        )


def relabelled(detection: Detection, symbol: str, score: float = 0.8) -> Detection:
    return replace(detection, class_id=CLASS_NAMES.index(symbol), class_name=symbol, score=score)


def with_glyphs(reader: CardReader, beliefs, symbols=None) -> CardReader:
    return CardReader(reader.detector, glyphs=ScriptedGlyphs(beliefs), symbols=symbols)


def test_a_trace_keeps_the_boxes_left_after_each_step(reader):
    """A red 7's two corners, a "7" on the bare cloth (no card's field: the field test drops it) and
    a box the glyph classifier finds no index in: the trace shows each box until the step that
    dropped it, and reading with a trace reads the same cards as without."""
    canvas = table(300, 320)
    red = paste(canvas, "red-7", 30, 30, height=200)
    on_cloth = Detection((250, 240, 270, 270), CLASS_NAMES.index("7"), "7", 0.9)
    no_index = Detection((250, 20, 270, 50), CLASS_NAMES.index("2"), "2", 0.6)
    detections = [*red.indices, on_cloth, no_index]
    beliefs = {d.centre: {"7": 0.9} for d in (*red.indices, on_cloth)} | {no_index.centre: {}}
    checked = with_glyphs(reader, beliefs)
    trace = ReadTrace()
    cards = checked.cards_from_detections(canvas, detections, trace)
    assert [c.name for c in cards] == [c.name for c in checked.cards_from_detections(canvas, detections)]
    assert [c.name for c in cards] == ["red-7"]
    kept = {step: {d.box for d in boxes} for step, boxes in trace.steps()}
    corners = {d.box for d in red.indices}
    assert kept["detector"] == kept["corner check"] == {d.box for d in detections}  # no corner check here
    assert kept["glyph classifier"] == kept["duplicates"] == corners | {on_cloth.box}
    assert kept["field test"] == corners


def test_corners_read_as_1_and_7_are_one_card_when_both_can_be_a_1(reader):
    """Seen on a recent Mattel deck never trained on: its flagged 1, half-turned in the bottom-right
    corner, was read as 7 by the detector (0.74) while the glyph classifier said 1 (0.62): two cards,
    red-1 and red-7, from one."""
    canvas = table(300, 260)
    top, bottom = paste(canvas, "red-1", 50, 40, height=200).indices
    misread = [top, relabelled(bottom, "7")]
    assert sorted(card.name for card in reader.cards_from_detections(canvas, misread)) == ["red-1", "red-7"]
    beliefs = {top.centre: {"1": 0.6, "7": 0.05}, bottom.centre: {"1": 0.6, "7": 0.05}}
    (card,) = with_glyphs(reader, beliefs).cards_from_detections(canvas, misread)
    assert card.name == "red-1" and len(card.indices) == 2


def a_1_beside_a_7() -> tuple[np.ndarray, list[Detection], dict[tuple[float, float], dict[str, float]]]:
    """A red 1 and a red 7 laid side by side, each corner read clearly (0.9, the other's symbol
    0.05): the picture, the 1's bottom corner and the 7's top one (spaced like one card's corners),
    and the glyph beliefs."""
    canvas = table(260, 420)
    one = paste(canvas, "red-1", 20, 30, seed=1)
    seven = paste(canvas, "red-7", 150, 30, seed=2)
    beliefs = {
        d.centre: {d.class_name: 0.9, "1" if d.class_name == "7" else "7": 0.05}
        for d in one.indices + seven.indices
    }
    return canvas, one.indices[1:] + seven.indices[:1], beliefs


def test_corners_of_two_cards_that_each_read_clearly_are_not_reconciled(reader):
    """A red 1 and a red 7 laid side by side: the 1's bottom corner and the 7's top corner are spaced
    like one card's; neither belief gives the other's symbol, so they stay two cards."""
    canvas, corners, beliefs = a_1_beside_a_7()
    seen = with_glyphs(reader, beliefs).cards_from_detections(canvas, corners)
    assert sorted(card.name for card in seen) == ["red-1", "red-7"]


def test_a_corner_whose_colour_drifts_is_still_one_card(reader):
    """Seen on a pale yellow deck under a cool lamp: one corner's field read yellow, the other's green.
    The card's body between them decides."""
    canvas = table(300, 260)
    top, bottom = paste(canvas, "yellow-2", 50, 40, height=200).indices
    x1, y1, x2, y2 = (round(v) for v in bottom.box)
    corner = canvas[y1 - 8 : y2 + 8, x1 - 8 : x2 + 8]
    field = corner[..., 0] < 120  # the yellow print, not the white ink
    corner[field, 2] = (corner[field, 2] * 0.45).astype(np.uint8)  # less red: yellow turns green
    colours = [
        reader.colour_model.read(reader.colour_model.votes(canvas, d.box)).colour for d in (top, bottom)
    ]
    assert colours == ["yellow", "green"]
    (card,) = reader.cards_from_detections(canvas, [top, bottom])
    assert card.name == "yellow-2" and len(card.indices) == 2


def test_fingers_across_a_white_faced_card_do_not_choose_its_colour(reader):
    """Seen in a filmed game with an off-brand deck: a still hand over a new blue 9, one finger by a
    corner (that corner read red) and one across the body. The body is the largest look and on a
    white-faced card holds only the centre glyph's ink, so it no longer decides alone: each of the
    three looks votes once, and the sure blue corner and the blue ink outvote the skin."""
    canvas = table(300, 260, colour=(150, 160, 170))
    top, bottom = paste(canvas, "blue-9", 50, 40, height=200, design="offbrand").indices
    x1, y1, _, y2 = bottom.box
    skin = (80, 100, 200)  # BGR
    cv2.line(canvas, (0, int((y1 + y2) / 2 + 40)), (int(x1 + 8), int((y1 + y2) / 2 + 4)), skin, 34)
    bx1, by1, bx2, by2 = _between(top, bottom)
    cv2.line(canvas, (0, int(by1 + 30)), (int((bx1 + bx2) / 2 + 20), int((by1 + by2) / 2)), skin, 30)
    model = reader.colour_model
    assert [model.read(model.votes(canvas, d.box)).colour for d in (top, bottom)] == ["blue", "red"]
    assert model.read(model.votes(canvas, _between(top, bottom), 0.0)).colour == "red"
    (card,) = reader.cards_from_detections(canvas, [top, bottom])
    assert card.name == "blue-9" and len(card.indices) == 2


def test_neighbours_in_a_fan_of_two_colours_stay_two(reader):
    """Seen on a real photo: the top-left corners of a red and a yellow reverse in a fan, a yellow 6
    between them, were taken for one card's two corners (the reverse looks alike half-turned, and the
    body between them was yellow). Corners that disagree pair only at a card's typical spacing."""
    canvas = table(260, 420)
    names = ["red-reverse", "yellow-6", "yellow-reverse"]
    pasted = [paste(canvas, name, 20 + 60 * i, 40, seed=i) for i, name in enumerate(names)]
    visible = [d for card in pasted[:-1] for d in card.indices[:1]] + pasted[-1].indices
    beliefs = {d.centre: {d.class_name: 0.9} for d in visible}
    seen = with_glyphs(reader, beliefs).cards_from_detections(canvas, visible)
    assert sorted(card.name for card in seen) == sorted(names)


def held_at(angle: float, pivot=(210, 360), reach: float = 160) -> tuple[float, float]:
    """The centre of a card held ``angle`` degrees from upright about a hand's pivot below it."""
    turn = math.radians(angle)
    return pivot[0] + reach * math.sin(turn), pivot[1] - reach * math.cos(turn)


def fans_of_two(reader: CardReader, steps=(7, 9), seeds=range(4)) -> set[tuple[int, str, str, int]]:
    """The tight fans of two cards (a 5 behind a 6 of another colour, turned ``step`` degrees apart
    about a pivot below, as a hand is held) that ``reader`` reads wrong."""
    wrong = set()
    for seed in seeds:
        for i, (back, front) in enumerate(itertools.permutations(COLOURS, 2)):
            for step in steps:
                canvas = table(420, 420, seed=step)
                behind = place_turned(canvas, f"{back}-5", held_at(-step), step, 200, seed * 7 + i)
                ahead = place_turned(canvas, f"{front}-6", held_at(0), 0, 200, seed * 7 + i + 1)
                seen = sorted(card.name for card in reader.cards_from_detections(canvas, behind[:1] + ahead))
                if seen != sorted([f"{back}-5", f"{front}-6"]):
                    wrong.add((seed, back, front, step))
    return wrong


def test_a_back_card_in_a_tight_fan_is_coloured_by_its_own_field(reader):
    """Seen on a Roboflow photo: a blue 5 fanned behind a red 6 was read red, its field window (0.2
    of the index's size around it) holding more of the 6's field than its own strip. Each pixel of
    the window now counts only for the index it lies nearest to (``own_field``): fans the shared
    window read right stay right, and some it read wrong are right."""
    shared = CardReader(reader.detector, settings=replace(reader.settings, own_field=False))
    wrong_shared, wrong_own = fans_of_two(shared), fans_of_two(reader)
    assert wrong_own <= wrong_shared
    assert len(wrong_own) < len(wrong_shared)


def corners_in_cloth(reader: CardReader, reaches=(1.6, 1.75, 1.9)) -> set[tuple[str, str, float]]:
    """The 8s of every colour, each on a cloth of every other print colour that reaches over the
    card's edge into the top of its index's field window (``reach`` of the window's half-height past
    its top; the box itself untouched), that ``reader`` reads in the wrong colour or not at all. The
    box is a detector's: a little looser than the glyph."""
    cloths = {"red": (40, 60, 200), "yellow": (40, 200, 220), "green": (40, 170, 60), "blue": (200, 120, 40)}
    wrong = set()
    for colour, (cloth_name, cloth) in itertools.product(COLOURS, cloths.items()):
        if cloth_name == colour:
            continue
        for reach in reaches:
            canvas = table(260, 220, colour=cloth)
            glyph = paste(canvas, f"{colour}-8", 30, 30).indices[0]
            grow = 0.15 * glyph.size
            x1, y1 = glyph.box[0] - grow, glyph.box[1] - grow
            x2, y2 = glyph.box[2] + grow, glyph.box[3] + grow
            index = replace(glyph, box=(x1, y1, x2, y2))
            margin = reader.settings.field_margin * index.size
            cloth_mask = np.zeros(canvas.shape[:2], bool)
            bottom = y1 - margin + reach * (y2 - y1 + 2 * margin) / 2
            cloth_mask[int(y1 - margin) : int(bottom), int(x1 - margin) : int(x2 + margin) + 1] = True
            cloth_mask[int(y1) : int(y2) + 1, int(x1) : int(x2) + 1] = False
            canvas[cloth_mask] = cloth
            if [card.name for card in reader.cards_from_detections(canvas, [index])] != [f"{colour}-8"]:
                wrong.add((colour, cloth_name, reach))
    return wrong


def test_a_corner_whose_field_window_reaches_into_the_cloth_is_coloured_by_its_box(reader):
    """Seen on Roboflow photos: a blue 8 at the back of a fan on grass, its index near the card's edge,
    counted 208 green pixels to 200 blue in its field window, but 19 to 121 inside its box, and was
    read green. Where the window does not decide (confidence under ``strong``), the box's own pixels
    now do when they are sure (``index_field_margin``): corners the window read right stay right, and
    most it read wrong are right."""
    window_only = CardReader(reader.detector, settings=replace(reader.settings, index_field_margin=None))
    wrong_window, wrong_now = corners_in_cloth(window_only), corners_in_cloth(reader)
    assert wrong_now <= wrong_window
    assert len(wrong_now) < len(wrong_window) / 2


@pytest.mark.parametrize("design", ["modern", "classic"])
def test_a_4_on_a_black_field_is_the_wild_draw4_its_belief_names(reader, design):
    """Seen on a deck never trained on: its outlined +4 was boxed as a 4, and a 4 on a black field is
    no card, so the wild draw four went unread."""
    canvas = table(300, 260)
    indices = [
        relabelled(d, "4") for d in paste(canvas, "wild-draw4", 50, 40, height=200, design=design).indices
    ]
    assert reader.cards_from_detections(canvas, indices) == []
    beliefs = {d.centre: {"4": 0.3, "wild-draw4": 0.45} for d in indices}
    (card,) = with_glyphs(reader, beliefs).cards_from_detections(canvas, indices)
    assert card.name == "wild-draw4"


def test_the_deck_in_play_limits_what_is_read(reader):
    """A glyph half-taken for a wild-swap on a 108-card deck (which has none) is the deck's wild draw four."""
    canvas = table(300, 260)
    indices = [relabelled(d, "wild-swap") for d in paste(canvas, "wild-draw4", 50, 40, height=200).indices]
    beliefs = {d.centre: {"wild-swap": 0.5, "wild-draw4": 0.45} for d in indices}
    (anything,) = with_glyphs(reader, beliefs).cards_from_detections(canvas, indices)
    assert anything.name == "wild-swap"
    official = symbols_in_play(Rules.preset("official"))
    (in_play,) = with_glyphs(reader, beliefs, official).cards_from_detections(canvas, indices)
    assert in_play.name == "wild-draw4"
    unsure = {d.centre: {"wild-swap": 0.5, "wild-draw4": 0.1} for d in indices}
    assert with_glyphs(reader, unsure, official).cards_from_detections(canvas, indices) == []
    without_glyphs = CardReader(reader.detector, symbols=official)
    assert without_glyphs.cards_from_detections(canvas, indices) == []
    with pytest.raises(UserError, match="unknown card symbols"):
        CardReader(reader.detector, symbols={"7", "joker"})


def test_two_wild_corners_are_reconciled_only_into_a_wild(reader):
    """Seen on whole tables dealt with a real deck's faces: two corners on black fields, read as two
    different wilds, whose beliefs both leaned to an 8 (the outlined +4), were reconciled into an 8
    with no colour, and the reader stopped with an error."""
    canvas = table(300, 260)
    top, bottom = paste(canvas, "wild-draw4", 50, 40, height=200).indices
    corners = [relabelled(top, "wild-draw4"), relabelled(bottom, "wild-swap")]
    beliefs = {d.centre: {"8": 0.8, "wild-draw4": 0.1, "wild-swap": 0.1} for d in corners}
    seen = with_glyphs(reader, beliefs).cards_from_detections(canvas, corners)
    assert seen and all(card.colour is None and card.symbol.startswith("wild") for card in seen)


def test_corners_that_each_half_believe_the_other_stay_two_readings(reader):
    """Seen filming a real deck's faces on the pile: an 8 read as 8 at one corner and 4 at the other,
    each belief giving the other symbol a fair share, was reconciled into a confident 4 and called
    as a play. Where neither symbol clearly wins, the reader reports both and the watcher asks."""
    canvas = table(300, 260)
    top, bottom = paste(canvas, "green-8", 50, 40, height=200).indices
    corners = [top, relabelled(bottom, "4")]
    beliefs = {top.centre: {"8": 0.45, "4": 0.45}, bottom.centre: {"4": 0.45, "8": 0.45}}
    seen = with_glyphs(reader, beliefs).cards_from_detections(canvas, corners)
    assert sorted(card.name for card in seen) == ["green-4", "green-8"]


class DoubtingCorners:
    """A corner check that doubts every box whose centre lies right of ``x``."""

    def __init__(self, x: float) -> None:
        self.x = x
        self.info: dict = {}

    def not_corner(self, image, boxes, two_characters=()):
        return np.array([0.95 if (b[0] + b[2]) / 2 > self.x else 0.05 for b in boxes], np.float32)


def test_boxes_the_corner_check_finds_on_no_card_are_not_read(reader):
    """A phone's clock prints the numerals of a card; the wider look at what lies around a box
    (:mod:`referee.vision.corners`) tells them apart, and what it rejects is read by nothing else."""
    canvas = table(260, 440)
    red = paste(canvas, "red-7", 30, 30, height=160)
    blue = paste(canvas, "blue-3", 250, 30, height=160)
    detections = red.indices + blue.indices
    checked = CardReader(reader.detector, settings=reader.settings, corners=DoubtingCorners(220))
    assert [c.name for c in checked.cards_from_detections(canvas, detections)] == ["red-7"]
    assert sorted(c.name for c in reader.cards_from_detections(canvas, detections)) == ["blue-3", "red-7"]
    lenient = CardReader(
        reader.detector, settings=replace(reader.settings, corner_reject=0.99), corners=DoubtingCorners(220)
    )
    assert sorted(c.name for c in lenient.cards_from_detections(canvas, detections)) == ["blue-3", "red-7"]
    assert checked.at_one_view(checked.detector.imgsz).corners is checked.corners


class FixedDoubt:
    """A corner check that doubts every box as much."""

    def __init__(self, doubt: float) -> None:
        self.doubt = doubt
        self.info: dict = {}

    def not_corner(self, image, boxes, two_characters=()):
        return np.full(len(boxes), self.doubt, np.float32)


class DoubtingWholeLooks:
    """A corner check that doubts every box except those it may judge by their characters."""

    def __init__(self) -> None:
        self.info: dict = {}
        self.asked: list[tuple[tuple[float, ...], bool]] = []

    def not_corner(self, image, boxes, two_characters=()):
        flags = list(two_characters) or [False] * len(boxes)
        self.asked += [(tuple(box), flag) for box, flag in zip(boxes, flags, strict=True)]
        return np.array([0.05 if flag else 0.95 for flag in flags], np.float32)


def test_the_corner_check_judges_plus_two_and_plus_four_indices_by_their_characters(reader):
    """A "+4" box's window of three long sides shows mostly the cloth beyond the card: on a polka-dot
    cloth the check doubted both corners of a wild draw four at 0.92 and 0.96 and each character at
    0.05 to 0.09 (fifty-fifth session). The reader asks it to judge the two-character indices by
    their characters too (:meth:`referee.vision.corners.CornerCheck.not_corner`), and no others."""
    canvas = table(260, 440)
    draw4 = paste(canvas, "wild-draw4", 30, 30, height=160)
    seven = paste(canvas, "red-7", 250, 30, height=160)
    detections = draw4.indices + seven.indices
    check = DoubtingWholeLooks()
    checked = CardReader(reader.detector, settings=reader.settings, corners=check)
    assert [c.name for c in checked.cards_from_detections(canvas, detections)] == ["wild-draw4"]
    flagged = {box for box, flag in check.asked if flag}
    assert flagged == {tuple(d.box) for d in draw4.indices} and len(check.asked) == 4
    whole_looks = CardReader(
        reader.detector,
        settings=replace(reader.settings, wide_index_ends=False),
        corners=DoubtingWholeLooks(),
    )
    assert whole_looks.cards_from_detections(canvas, detections) == []


def test_a_lone_corner_the_corner_check_rather_doubts_is_no_card(reader):
    """Seen on Roboflow's photos read by networks that never saw them: wilds read in grass, soil and
    patterned cloth, each from one box. Two paired corners vouch for each other; a lone one makes a
    card only where the corner check finds it more likely a card's corner than not."""
    canvas = table(260, 440)
    whole = paste(canvas, "red-7", 30, 30, height=160)
    fanned = paste(canvas, "blue-3", 250, 30, height=160)
    detections = whole.indices + fanned.indices[:1]  # the blue 3 shows one corner
    for doubt, read in ((0.3, ["blue-3", "red-7"]), (0.6, ["red-7"])):
        checked = CardReader(reader.detector, settings=reader.settings, corners=FixedDoubt(doubt))
        assert sorted(c.name for c in checked.cards_from_detections(canvas, detections)) == read
    lenient = CardReader(
        reader.detector, settings=replace(reader.settings, lone_corner_doubt=None), corners=FixedDoubt(0.6)
    )
    assert sorted(c.name for c in lenient.cards_from_detections(canvas, detections)) == ["blue-3", "red-7"]


def test_a_lone_corner_weaker_than_the_detectors_floor_is_no_card(reader):
    """Seen on cluttered negatives read by the held-out networks: a wild in a leaf at 0.15, a red 9 on
    a package at 0.16, each from one box the glyph classifier barely recognised. A lone corner whose
    card comes out under the detector's own floor is no card; two such corners vouch for each other."""
    canvas = table(260, 440)
    whole = paste(canvas, "red-7", 30, 30, height=160)
    faint = paste(canvas, "yellow-5", 250, 30, height=160)
    beliefs = {d.centre: {"7": 0.95} for d in whole.indices}
    beliefs |= {d.centre: {"5": 0.2, "6": 0.15, "3": 0.15} for d in faint.indices}
    weak = [replace(d, score=0.3) for d in faint.indices]  # over the floor (0.25); fused under it
    glyphs = ScriptedGlyphs(beliefs)
    floored = CardReader(reader.detector, glyphs=glyphs)
    assert reader.min_score == floored.min_score == 0.25
    assert [c.name for c in floored.cards_from_detections(canvas, whole.indices + weak[:1])] == ["red-7"]
    both = floored.cards_from_detections(canvas, whole.indices + weak)
    assert sorted(c.name for c in both) == ["red-7", "yellow-5"]
    assert min(c.confidence for c in both) < floored.min_score
    lenient = CardReader(
        reader.detector, glyphs=glyphs, settings=replace(reader.settings, lone_corner_floor=False)
    )
    alone = lenient.cards_from_detections(canvas, whole.indices + weak[:1])
    assert sorted(c.name for c in alone) == ["red-7", "yellow-5"]


@pytest.mark.parametrize("back", ["blue-3", "wild"])
def test_a_weak_lone_corner_beside_a_whole_card_is_a_fans_back_card(reader, back):
    """Seen on Roboflow's fans read by networks that never saw the deck: a green 4 whose one corner,
    half covered, lay beside the next card's, read at 0.13. A coloured lone corner beside a corner of
    a card read from both corners is a card however weak; a wild's is not (its black field is the
    colour of every shadow)."""
    canvas = table(260, 440)
    behind = paste(canvas, back, 30, 30, height=160)
    front = paste(canvas, "red-7", 75, 30, height=160)
    beliefs = {d.centre: {"7": 0.95} for d in front.indices}
    symbol = back.split("-")[-1]
    beliefs[behind.indices[0].centre] = {symbol: 0.2, "6": 0.15, "8": 0.15}
    weak = replace(behind.indices[0], score=0.3)
    floored = CardReader(reader.detector, glyphs=ScriptedGlyphs(beliefs))
    seen = floored.cards_from_detections(canvas, [weak, *front.indices])
    assert sorted(c.name for c in seen) == (["red-7"] if back == "wild" else [back, "red-7"])
    assert all(c.confidence < floored.min_score for c in seen if c.name == back)


@pytest.mark.parametrize("back", ["blue-3", "green-skip", "wild", "wild-draw4"])
def test_a_doubted_lone_corner_beside_a_whole_card_is_a_fans_back_card(reader, back):
    """Seen on Roboflow's fans read by networks that never saw the deck: every labelled corner the
    corner check's doubt dropped was a back card's one corner beside the next card's. A coloured lone
    corner beside a corner of a card read from both corners stays a card however doubted; a wild's
    does not (its black field is the colour of every shadow), nor a lone corner with no card beside."""
    doubting = CardReader(reader.detector, settings=reader.settings, corners=FixedDoubt(0.6))
    for spacing in (30, 45, 60):
        canvas = table(260, 480)
        behind = paste(canvas, back, 30, 30, height=160)
        front = paste(canvas, "red-7", 30 + spacing, 30, height=160)
        alone = paste(canvas, "yellow-5", 300, 30, height=160)
        detections = behind.indices[:1] + front.indices + alone.indices[:1]
        seen = sorted(card.name for card in doubting.cards_from_detections(canvas, detections))
        assert seen == (["red-7"] if back.startswith("wild") else sorted([back, "red-7"]))


@pytest.mark.parametrize("wild", ["wild", "wild-draw4"])
def test_a_lone_wild_away_from_every_whole_card_needs_a_surer_corner_check(reader, wild):
    """Seen on Roboflow's photos read by networks that never saw the deck: wilds read from one box in
    the grass, soil and patterned cloth around a fan whose cards were read whole. In a picture that
    holds a card read from both corners, a lone wild beside none of their corners is a card only
    where the corner check barely doubts it; beside one (a fan's back card), or in a picture holding
    no whole card, the usual doubt will do, and so for a coloured lone corner."""
    canvas = table(260, 560)
    beside = paste(canvas, wild, 30, 30, height=160)  # a fan's back card, one corner seen
    whole = paste(canvas, "red-7", 75, 30, height=160)
    coloured = paste(canvas, "blue-3", 260, 30, height=160)
    apart = paste(canvas, wild, 420, 30, height=160)
    lone = [beside.indices[0], coloured.indices[0], apart.indices[0]]
    for doubt, read in ((0.05, ["blue-3", "red-7", wild, wild]), (0.3, ["blue-3", "red-7", wild])):
        checked = CardReader(reader.detector, settings=reader.settings, corners=FixedDoubt(doubt))
        seen = checked.cards_from_detections(canvas, whole.indices + lone)
        assert sorted(card.name for card in seen) == sorted(read)
        assert [c.name for c in checked.cards_from_detections(canvas, [apart.indices[0]])] == [wild]


def test_a_reader_with_other_colours_keeps_everything_else(reader) -> None:
    """A table's colour calibration swaps the colour model only: the symbols in play, the networks
    and the settings stay (the lab's calibrated reader once lost the glyph classifier this way)."""
    classic = CardReader(
        reader.detector, settings=replace(reader.settings, glyph_weight=0.4), symbols={"7", "1"}
    )
    model = ColourModel.from_samples(
        {colour: np.full((8, 8, 3), bgr, np.uint8) for colour, bgr in _PRINTS.items()}
    )
    calibrated = classic.with_colours(model)
    assert calibrated.colour_model is model and classic.colour_model is not model
    assert (calibrated.detector, calibrated.settings, calibrated.symbols) == (
        classic.detector, classic.settings, classic.symbols,
    )  # fmt: skip
    assert (calibrated.glyphs, calibrated.corners, calibrated.deck, calibrated.one_view) == (
        None,
        None,
        None,
        False,
    )
    assert np.array_equal(calibrated._allowed, classic._allowed)


def washed_out(canvas: np.ndarray, pasted: Pasted, veil: float) -> None:
    """Wash a pasted card out towards white, as glare or a veiled lens does: its fields keep their
    hue and lose most of their chroma."""
    x1, y1, x2, y2 = pasted.outline
    region = canvas[y1:y2, x1:x2].astype(np.float32)
    canvas[y1:y2, x1:x2] = (region * (1 - veil) + 235 * veil).astype(np.uint8)


@pytest.mark.parametrize(
    ("name", "veil"), [("green-7", 0.7), ("blue-3", 0.7), ("red-5", 0.7), ("yellow-2", 0.8)]
)
def test_a_washed_out_field_is_read_against_its_own_white(reader, name, veil):
    """Seen on tables dealt criscard's faces: a card washed out by glare has a field so pale that
    every pixel falls under the chroma floor and counts as white ink, so it was no card. Its ink is
    whiter still: read again with the floor at the ink's own tint, the field shows its colour."""
    canvas = table(300, 260)
    card = paste(canvas, name, 50, 40, height=200)
    washed_out(canvas, card, veil)
    top = card.indices[0]
    model = reader.colour_model
    assert model.read(model.votes(canvas, top.box)).colour is None
    assert model.read(model.votes(canvas, top.box, pale=True)).colour == name.partition("-")[0]
    assert [card.name for card in reader.cards_from_detections(canvas, [top])] == [name]
    strict = CardReader(reader.detector, settings=replace(reader.settings, pale_fields=False))
    assert strict.cards_from_detections(canvas, [top]) == []


def test_digits_on_white_paper_have_no_pale_colour(reader):
    """The lowered floor follows the white around the glyph: a score sheet's dark digits on paper
    lit by a warm lamp show no print colour, however low the floor."""
    canvas = np.full((120, 120, 3), (200, 222, 236), np.uint8)  # white paper under a warm lamp (BGR)
    cv2.putText(canvas, "7", (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (60, 60, 60), 4, cv2.LINE_AA)
    seven = Detection((38, 40, 72, 84), CLASS_NAMES.index("7"), "7", 0.9)
    model = reader.colour_model
    assert model.read(model.votes(canvas, seven.box, pale=True)).colour is None
    assert reader.cards_from_detections(canvas, [seven]) == []


def test_a_pale_corner_that_disagrees_with_its_cards_other_corner_is_no_second_card(reader):
    """Seen on tables dealt criscard's faces: a washed-out corner read from its pale field (a teal 9
    as blue, a pale 8 as a skip) beside its card's other corner, read from full colour and named
    otherwise. The two do not pair, and the stronger reading speaks for the card: one card, not two."""
    canvas = table(300, 260)
    card = paste(canvas, "green-7", 50, 40, height=200)
    top, bottom = card.indices
    x1, y1, x2, y2 = (round(v) for v in bottom.box)
    corner = canvas[y1 - 8 : y2 + 8, x1 - 8 : x2 + 8]
    corner[:] = (corner.astype(np.float32) * 0.3 + 235 * 0.7).astype(np.uint8)  # glare on one corner
    misread = replace(bottom, class_id=CLASS_NAMES.index("1"), class_name="1")
    model = reader.colour_model
    assert model.read(model.votes(canvas, bottom.box)).colour is None
    assert model.read(model.votes(canvas, bottom.box, pale=True)).colour == "green"
    assert [card.name for card in reader.cards_from_detections(canvas, [top, misread])] == ["green-7"]
    alone = reader.cards_from_detections(canvas, [misread])
    assert [card.name for card in alone] == ["green-1"]  # alone, the pale corner still makes a card


@pytest.mark.parametrize(
    ("named", "floor", "read"),
    [("7", 0.1, ["blue-4", "yellow-7"]), ("7", None, ["blue-4"]), ("1", 0.1, ["blue-4"])],
    ids=["sure-and-agreed", "no-such-floor", "disagreed"],
)
def test_a_fans_back_card_the_glyph_classifier_is_sure_of_is_read_under_the_detectors_floor(
    tmp_path, named, floor, read
):
    """Roboflow's fans, read by networks that never saw the deck (sixty-fifth session): a back card
    whose index shows whole was boxed at 0.10-0.22, under the detector's 0.25 floor, while the glyph
    classifier named it at 0.78-0.94. Where the classifier is sure of the symbol the detector named,
    the box is read, on probation: beside its fan neighbour it is a card. A weak box the two name
    differently stays unread."""
    from referee.vision.glyphs import load_glyph_classifier

    canvas = table(320, 320)  # square: the scripted detector's boxes are the picture's pixels
    back = paste(canvas, "yellow-7", 20, 40, seed=1)
    front = paste(canvas, "blue-4", 80, 40, seed=2)
    boxes = [back.indices[0].box, *(d.box for d in front.indices)]
    model = write_scripted_model(
        tmp_path / "fan.onnx", tensor_for_boxes(boxes, [named, "4", "4"], scores=[0.15, 0.9, 0.9])
    )
    settings = ReaderSettings(sure_glyph_floor=floor)
    fan_reader = CardReader(load_detector(model), glyphs=load_glyph_classifier(), settings=settings)
    assert sorted(card.name for card in fan_reader.read(canvas)) == read
