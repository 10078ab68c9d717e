"""The centre reader: the patch of a card's middle its two corners fix, how the reader weighs its
answer against the corners', the shipped reader on cards it never trained on, and a one-line error
for every bad model file."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from crop_networks import constant_network
from test_vision_reader import ScriptedGlyphs, a_1_beside_a_7, paste, place_turned, relabelled, table

from referee.errors import UserError
from referee.vision.backends import load_detector
from referee.vision.centres import (
    CENTRE_CLASSES,
    CENTRE_PX,
    CENTRE_REGION,
    NO_CENTRE,
    CentreReader,
    centre_patch,
    load_centre_reader,
)
from referee.vision.classes import CLASS_NAMES, SYMBOL_CLASSES
from referee.vision.colour import ColourVotes
from referee.vision.detection import Detection
from referee.vision.pairs import CARD_ASPECT, INDEX_AT, PAIR_CLASSES, PairCheck
from referee.vision.reader import CardReader, ReaderSettings, _Index
from referee.vision.scripted import tensor_for_boxes, write_scripted_model


def answering(path: Path, answers: dict[str, float]) -> CentreReader:
    """A stand-in centre reader that answers ``answers`` (the rest shared evenly) for every card."""
    rest = (1.0 - sum(answers.values())) / (len(CENTRE_CLASSES) - len(answers))
    probabilities = [answers.get(name, rest) for name in CENTRE_CLASSES]
    return CentreReader(constant_network(path, {"classes": list(CENTRE_CLASSES)}, probabilities))


def card_picture() -> tuple[np.ndarray, tuple[float, float], tuple[float, float]]:
    """A white card 200 px wide, upright, its middle (the centre region) red, and its two index
    centres where a card prints them."""
    width, height = 200, 200 * CARD_ASPECT
    picture = np.full((500, 400, 3), (60, 90, 60), np.uint8)
    x0, y0 = 100, 80
    cv2.rectangle(picture, (x0, y0), (x0 + width, round(y0 + height)), (255, 255, 255), -1)
    left, top, right, bottom = CENTRE_REGION
    cv2.rectangle(
        picture,
        (round(x0 + left * width), round(y0 + top * width)),
        (round(x0 + right * width), round(y0 + bottom * width)),
        (0, 0, 220),
        -1,
    )
    first = (x0 + INDEX_AT[0] * width, y0 + INDEX_AT[1] * height)
    second = (x0 + (1 - INDEX_AT[0]) * width, y0 + (1 - INDEX_AT[1]) * height)
    return picture, first, second


def test_the_patch_is_the_cards_middle_either_way_round():
    picture, first, second = card_picture()
    patch = centre_patch(picture, first, second)
    assert patch.shape == (CENTRE_PX, CENTRE_PX, 3)
    inner = patch[2:-2, 2:-2].reshape(-1, 3).mean(axis=0)
    assert inner[2] > 200 and inner[0] < 20 and inner[1] < 20  # all the red middle, no white border
    # The other corner taken as the top-left one: the same middle, half-turned.
    assert np.abs(centre_patch(picture, second, first).astype(int) - patch[::-1, ::-1]).max() <= 2


def corner(name: str, box: tuple[float, float, float, float], belief: dict[str, float], wild: bool) -> _Index:
    row = np.array([belief.get(symbol, 0.0) for symbol in SYMBOL_CLASSES])
    return _Index(
        detection=Detection(box, CLASS_NAMES.index(name), name, float(row.max())),
        votes=ColourVotes(),
        colour=None if wild else "green",
        colour_from="hue",
        certainty=1.0,
        belief=row,
    )


def read_one_card(tmp_path: Path, answers: dict[str, float], belief: dict[str, float], **settings) -> str:
    """The symbol a reader with a stand-in centre reader gives one card whose two corners read
    ``belief`` (both alike) and name its best symbol."""
    path = tmp_path / "scripted.onnx"
    write_scripted_model(path, tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    reader = CardReader(
        load_detector(path),
        centres=answering(tmp_path / "centres.onnx", answers),
        settings=ReaderSettings(**settings),
    )
    picture, first, second = card_picture()
    name = max(belief, key=belief.get)
    wild = name.startswith("wild")
    group = tuple(corner(name, (x - 8, y - 12, x + 8, y + 12), belief, wild) for x, y in (first, second))
    (read,) = reader._read_centres([group], picture)
    assert read[0].detection.class_name == read[1].detection.class_name
    return read[0].detection.class_name


def test_an_unsure_card_is_named_by_its_centre(tmp_path):
    """Both corners lean to 6 over 5 (an off-brand 5 whose bowl nearly closes); the big centre is
    surely a 5."""
    assert read_one_card(tmp_path, {"5": 0.9}, {"6": 0.55, "5": 0.35}) == "5"
    assert read_one_card(tmp_path, {"5": 0.9}, {"6": 0.55, "5": 0.35}, centre_weight=None) == "6"


def test_a_hidden_centre_and_a_sure_corner_are_not_overruled(tmp_path):
    assert read_one_card(tmp_path, {"5": 0.3, NO_CENTRE: 0.6}, {"6": 0.55, "5": 0.35}) == "6"
    # Corners sure of a 6 (a 5 at one in a thousand each): a centre 90 % sure of a 5 does not win.
    assert read_one_card(tmp_path, {"5": 0.9}, {"6": 0.99, "5": 0.001}) == "6"


def test_the_centre_never_changes_a_cards_kind(tmp_path):
    """A green card stays a coloured card's symbol, a wild's field a wild's."""
    assert read_one_card(tmp_path, {"wild": 0.95}, {"6": 0.55, "5": 0.35}) == "6"
    assert read_one_card(tmp_path, {"5": 0.95}, {"wild": 0.6, "wild-draw4": 0.3}) == "wild"
    assert read_one_card(tmp_path, {"wild-draw4": 0.95}, {"wild": 0.6, "wild-draw4": 0.3}) == "wild-draw4"


def test_corners_each_sure_of_another_symbol_are_one_card_where_the_centre_names_one(tmp_path):
    """A red 7 whose bottom corner a hand half hides: that corner surely reads 1, the top one surely
    7, so their beliefs cannot be reconciled. The card's big centre shows a 7: two of three opinions
    agree, and the corners are one red 7, not a red 7 and an invented red 1. A centre that is hidden
    or shows neither symbol leaves them two readings, as the arbiter switched off does."""
    path = tmp_path / "scripted.onnx"
    write_scripted_model(path, tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    canvas = table(300, 260)
    top, bottom = paste(canvas, "red-7", 50, 40, height=200).indices
    misread = [top, relabelled(bottom, "1")]
    beliefs = {top.centre: {"7": 0.9, "1": 0.01}, bottom.centre: {"1": 0.9, "7": 0.01}}

    def read(answers: dict[str, float], **settings) -> list[str]:
        reader = CardReader(
            load_detector(path),
            glyphs=ScriptedGlyphs(beliefs),
            centres=answering(tmp_path / "centres.onnx", answers),
            settings=ReaderSettings(**settings),
        )
        return sorted(card.name for card in reader.cards_from_detections(canvas, misread))

    assert read({"7": 0.9}) == ["red-7"]
    assert read({"7": 0.9}, centre_arbiter=False) == ["red-1", "red-7"]
    assert read({"7": 0.3, NO_CENTRE: 0.6}) == ["red-1", "red-7"]
    assert read({"4": 0.9}) == ["red-1", "red-7"]


def test_the_centre_arbiter_never_pairs_corners_the_pair_check_sees_as_two_cards(tmp_path):
    """A red 1 and a red 7 side by side, each read clearly: the 1's bottom corner and the 7's top
    one lie at one card's spacing, and the patch between them may show the 7's big centre. The pair
    check sees two cards there, and the corners stay two cards whatever the centre reader says."""
    path = tmp_path / "scripted.onnx"
    write_scripted_model(path, tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    canvas, corners, beliefs = a_1_beside_a_7()

    def read(two_cards: float) -> list[str]:
        reader = CardReader(
            load_detector(path),
            glyphs=ScriptedGlyphs(beliefs),
            centres=answering(tmp_path / "centres.onnx", {"7": 0.9}),
            pairs=PairCheck(
                constant_network(
                    tmp_path / "pairs.onnx", {"classes": list(PAIR_CLASSES)}, [1 - two_cards, two_cards]
                )
            ),
        )
        return sorted(card.name for card in reader.cards_from_detections(canvas, corners))

    assert read(two_cards=0.95) == ["red-1", "red-7"]
    assert read(two_cards=0.05) == ["red-7"]  # what the pair check guards against


def test_bad_centre_model_files_are_one_line_errors(tmp_path):
    with pytest.raises(
        UserError, match=r"centre model .* not found: reinstall uno-referee or pass --centre-model"
    ):
        load_centre_reader(tmp_path / "missing.onnx")
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"not a network")
    damaged.with_suffix(".json").write_text('{"classes": []}', encoding="utf-8")
    with pytest.raises(UserError, match="centre model"):
        CentreReader(damaged)
    with pytest.raises(UserError, match="does not answer the card symbols"):
        CentreReader(
            constant_network(tmp_path / "pairs.onnx", {"classes": ["one card", "two cards"]}, [0.5, 0.5])
        )
    assert load_centre_reader("none") is None


def test_the_shipped_reader_reads_cards_it_never_trained_on():
    """Cards drawn by another path than the reader's training scenes (the reader tests' cards, any
    turn, 60–200 px tall): the centre's symbol is read for most, and where it is wrong it is seldom
    sure."""
    reader = load_centre_reader()
    assert reader is not None, "models/uno_centres.onnx is not installed"
    rng = np.random.default_rng(30)
    right = sure_and_wrong = 0
    count = 60
    for k in range(count):
        symbol = SYMBOL_CLASSES[k % len(SYMBOL_CLASSES)]
        name = (
            symbol if symbol.startswith("wild") else f"{('red', 'yellow', 'green', 'blue')[k % 4]}-{symbol}"
        )
        height = int(rng.integers(60, 200))
        canvas = np.full((3 * height, 3 * height, 3), rng.integers(40, 200, 3), np.uint8)
        first, second = place_turned(
            canvas, name, (1.5 * height, 1.5 * height), rng.uniform(0, 360), height, k
        )
        beliefs = reader.read(canvas, [(first.centre, second.centre)])[0]
        said = CENTRE_CLASSES[int(beliefs.argmax())]
        right += said == symbol
        sure_and_wrong += said not in (symbol, NO_CENTRE) and beliefs.max() >= 0.9
    assert right >= 0.8 * count
    assert sure_and_wrong <= math.ceil(0.03 * count)
