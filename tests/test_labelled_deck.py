"""Learning a deck from labelled photos of several cards (``referee.lab.labelled_deck``): how
``deck learn`` is measured on a deck that has no one-card photos (the shared Roboflow set)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from referee.errors import UserError
from referee.lab.evaluate import labelled_images
from referee.lab.labelled_deck import learn_from_labels, main
from referee.vision.backends import load_detector
from referee.vision.glyphs import load_glyph_classifier
from referee.vision.reader import CardReader
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

NAMES = Path(__file__).parent / "data" / "roboflow_train_faces.json"
FIVE = ["blue-7", "green-2", "red-9", "wild-draw4", "yellow-skip"]


@pytest.fixture(scope="module")
def train(shared) -> Path:
    return shared / "data" / "uno-cards-roboflow" / "train"


@pytest.fixture(scope="module")
def names_file(tmp_path_factory) -> Path:
    """Two photos of each of five faces (every colour and a wild), from the checked names."""
    cards = json.loads(NAMES.read_text())["cards"]
    chosen: dict[str, str] = {}
    for stem, face in cards.items():
        if face in FIVE and list(chosen.values()).count(face) < 2:
            chosen[stem] = face
    path = tmp_path_factory.mktemp("names") / "names.json"
    path.write_text(json.dumps({"cards": chosen}))
    return path


@pytest.fixture(scope="module")
def named(train, names_file) -> list:
    return labelled_images(train, roboflow=True, named=names_file)


def test_the_checked_names_cover_every_face_of_the_deck():
    from referee.vision.deck import standard_faces

    faces = Counter(json.loads(NAMES.read_text())["cards"].values())
    assert sorted(faces) == sorted(standard_faces())
    assert min(faces.values()) >= 2  # a second photo where the detector misses the first


def test_the_named_index_of_each_photo_is_learnt_up_to_the_cap(named):
    glyphs = load_glyph_classifier(None)
    reader = CardReader(load_detector(None), glyphs=glyphs)
    deck, problems, taught = learn_from_labels(
        named, reader.detect, glyphs, source="train", photos_per_face=1
    )
    assert problems == []
    assert len(taught) == len(FIVE)
    assert deck.faces == FIVE and deck.colours is not None
    assert deck.photos == dict.fromkeys(FIVE, 1)
    both = learn_from_labels(named, reader.detect, glyphs, source="train", photos_per_face=2).deck
    assert both.photos == dict.fromkeys(FIVE, 2)
    # The learnt glyphs recognise the faces they came from (each glyph at four quarter turns).
    matches = deck.match(deck.embeddings[::4])
    assert [m.card if m else None for m in matches] == list(deck.cards[::4])


def test_the_photos_not_learnt_from_are_named_apart(train, names_file, tmp_path, capsys):
    """``--rest`` names the named photos the deck did not learn from: more photos of the same deck
    to score it on, none of them taught."""
    rest = tmp_path / "rest.json"
    deck = tmp_path / "deck.json"
    assert main([f"{train}:{names_file}", "--roboflow", "--out", str(deck), "--rest", str(rest)]) == 0
    named = json.loads(names_file.read_text())["cards"]
    untaught = json.loads(rest.read_text())["cards"]
    assert sorted(untaught.values()) == sorted(FIVE)  # two photos a face, one of them learnt
    assert all(named[stem] == face for stem, face in untaught.items())
    assert f"named 5 photos not learnt from in {rest}" in capsys.readouterr().out
    assert labelled_images(train, roboflow=True, named=rest)  # a names file eval --real reads


def test_a_label_the_detector_finds_nothing_over_is_named_and_teaches_nothing(named, tmp_path):
    # A stand-in detector that boxes one corner of every photo, far from any labelled index.
    model = write_scripted_model(tmp_path / "corner.onnx", tensor_for_boxes([(0, 0, 4, 4)], ["7"], 0.9))
    glyphs = load_glyph_classifier(None)
    reader = CardReader(load_detector(model), glyphs=glyphs)
    with pytest.raises(UserError, match=r"nothing learnt from train: .*found no index over the named"):
        learn_from_labels(named, reader.detect, glyphs, source="train")


def test_bad_input_is_one_line(train, tmp_path, capsys):
    assert main([str(train), "--roboflow", "--out", str(tmp_path / "deck.json")]) == 2
    assert "name the photos' cards with FOLDER:NAMES.json" in capsys.readouterr().err
    broken = tmp_path / "names.json"
    broken.write_text('{"cards": {"x": "purple-7"}}')
    assert main([f"{train}:{broken}", "--roboflow", "--out", str(tmp_path / "deck.json")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a names file" in error
    names = f"{train}:{NAMES}"
    assert main([names, "--roboflow", "--photos-per-face", "0", "--out", str(tmp_path / "deck.json")]) == 2
    assert capsys.readouterr().err == "labelled_deck: error: --photos-per-face must be at least 1, not 0\n"
    assert not (tmp_path / "deck.json").exists()


def test_a_deck_no_network_saw_reads_its_other_photos_once_learnt(train, shared, tmp_path, roboflow_held_out):
    """Roboflow, leave-one-deck-out (model card, forty-third, forty-fourth and fiftieth sessions): learnt
    from one training photo a face, the held-out networks read 59 of the 60 named validation photos
    (60 of 60 with the held-out networks before the fiftieth session, which read fewer of the 900
    labelled indices without a deck: 0.962 against 0.974 now)."""
    from referee.lab.evaluate import evaluate
    from referee.table.session import card_reader

    networks = roboflow_held_out
    learner = card_reader(None, **networks)
    photos = labelled_images(train, roboflow=True, named=NAMES)
    deck = learn_from_labels(photos, learner.detect, learner.glyphs, source="train").deck
    assert len(deck.faces) == 54
    deck.save(tmp_path / "deck.json")
    valid = labelled_images(
        shared / "data" / "uno-cards-roboflow" / "valid",
        roboflow=True,
        named=Path(__file__).parent / "data" / "roboflow_valid_colours.json",
    )
    reader = card_reader(None, deck=str(tmp_path / "deck.json"), **networks)
    named = evaluate(reader, valid).to_json()["named"]
    assert named["top1_accuracy"] >= 0.98, named["mistakes"]
