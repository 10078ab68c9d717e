"""The card reader's colour on real photos: the shared Roboflow validation set (real decks, real light).

The photos carry symbol labels only; the colours of 60 of them were checked by eye and stored in
``tests/data/roboflow_valid_colours.json``. The labelled boxes stand in for the detector here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.lab.evaluate import labelled_images
from referee.vision.backends import load_detector
from referee.vision.classes import CLASS_NAMES
from referee.vision.detection import Detection
from referee.vision.images import read_image
from referee.vision.reader import CardReader
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

EXPECTED = Path(__file__).parent / "data" / "roboflow_valid_colours.json"


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> CardReader:
    path = tmp_path_factory.mktemp("model") / "unused.onnx"
    return CardReader(load_detector(write_scripted_model(path, tensor_for_boxes([(0, 0, 1, 1)], ["0"], 0.0))))


@pytest.fixture(scope="module")
def photos(shared):
    return labelled_images(shared / "data" / "uno-cards-roboflow" / "valid", roboflow=True)


def as_detection(class_id: int, box) -> Detection:
    return Detection(tuple(box), class_id, CLASS_NAMES[class_id], 0.9)


def test_colours_checked_by_eye(reader, photos):
    expected = json.loads(EXPECTED.read_text())["cards"]
    by_stem = {item.path.stem: item for item in photos}
    wrong = {}
    for stem, name in expected.items():
        item = by_stem[stem]
        image = read_image(item.path)
        first = item.boxes(image.shape[1], image.shape[0])[0]
        cards = reader.cards_from_detections(image, [as_detection(*first)])
        read = cards[0].name if cards else None
        if read != name:
            wrong[stem] = (name, read)
    # Known miss (1 of 60): a blue 5 fanned under a red card whose field fills half the labelled box.
    assert len(wrong) <= 1, wrong


def test_every_real_index_reads_as_a_card(reader, photos):
    """No real corner index is rejected as 'not card-like' (each photo holds three cards)."""
    rejected = []
    for item in photos:
        image = read_image(item.path)
        for class_id, box in item.boxes(image.shape[1], image.shape[0]):
            if not reader.cards_from_detections(image, [as_detection(class_id, box)]):
                rejected.append((item.path.name, CLASS_NAMES[class_id]))
    assert len(photos) == 300 and not rejected


def test_shipped_model_names_the_real_cards(shared):
    """The shipped detector + reader end to end on the 60 photos whose card was named by eye.

    A guard for the committed weights: at release 58 of 60 were right (the two misses: the half-hidden
    blue 5 above, and a red 3 read as red draw-two).
    """
    from models import default_model_path
    from referee.lab.evaluate import evaluate

    photos = labelled_images(shared / "data" / "uno-cards-roboflow" / "valid", roboflow=True, named=EXPECTED)
    reader = CardReader(load_detector(default_model_path(), threads=2))
    named = evaluate(reader, photos).to_json()["named"]
    assert named["photos"] == 60
    assert named["top1_accuracy"] >= 0.95, named["mistakes"]


def test_networks_that_never_saw_the_deck_name_the_real_cards(shared, roboflow_held_out):
    """Roboflow, leave-one-deck-out without a deck: the held-out networks (`models/lodo/roboflow`)
    on the 60 named photos. A guard for the reader's rules as much as for those weights: since the
    sixty-eighth session's networks (taught tight rows) they read 58 of 60 (a wild draw four and a
    green reverse, unread) and 0.987 of the 156 named training photos; from the fifty-first session
    59 of 60 and 0.974; before it, 56 (two blue 8s read green from the grass in their field windows,
    and a fan's back card, a yellow 0, dropped as a doubted lone corner)."""
    from referee.lab.evaluate import evaluate
    from referee.table.session import card_reader

    reader = card_reader(None, **roboflow_held_out)
    photos = labelled_images(shared / "data" / "uno-cards-roboflow" / "valid", roboflow=True, named=EXPECTED)
    named = evaluate(reader, photos).to_json()["named"]
    assert named["photos"] == 60
    assert named["top1_accuracy"] >= 0.966, named["mistakes"]
