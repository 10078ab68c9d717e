"""``python -m referee.lab.glyph_eval``: a glyph classifier alone on a real deck's labelled boxes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from crop_networks import constant_network

from referee.lab import glyph_eval
from referee.vision.classes import CLASS_NAMES
from referee.vision.glyphs import GLYPH_CLASSES

LABELLED = ("7", "7", "skip")  # one box a photo


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    """A YOLO folder of three photos, one labelled index box each."""
    folder = tmp_path / "some-deck"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    for k, name in enumerate(LABELLED):
        cv2.imwrite(str(folder / "images" / f"{k}.jpg"), np.full((120, 120, 3), 180, np.uint8))
        (folder / "labels" / f"{k}.txt").write_text(f"{CLASS_NAMES.index(name)} 0.5 0.5 0.2 0.25\n")
    return folder


def _always(path: Path, name: str, seen: list[str]) -> Path:
    """A glyph classifier that names every crop ``name``, trained (its card says) on ``seen``."""
    answer = [1.0 if glyph == name else 0.0 for glyph in GLYPH_CLASSES]
    card = {"classes": list(GLYPH_CLASSES), "crop_px": 40, "context": 1.5, "decks_seen": seen}
    return constant_network(path, card, answer)


def test_each_labelled_box_is_named_and_a_classifier_that_saw_the_deck_is_marked(deck, tmp_path, capsys):
    sevens = _always(tmp_path / "sevens.onnx", "7", [])
    skips = _always(tmp_path / "skips.onnx", "skip", ["some-deck"])
    assert glyph_eval.main([str(deck), str(sevens), str(skips)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{sevens} (unseen): 2/3 = 0.6667; mistakes: skip→7 ×1",
        f"{skips} (seen in training): 1/3 = 0.3333; mistakes: 7→skip ×2",
    ]


@pytest.mark.parametrize(
    ("broken", "says"),
    [("no images", "has no images/ folder"), ("no boxes", "labels no index box"), ("no model", "not found")],
)
def test_bad_input_is_one_line(deck, tmp_path, capsys, broken: str, says: str) -> None:
    model = _always(tmp_path / "sevens.onnx", "7", [])
    if broken == "no images":
        deck = tmp_path / "nowhere"
    elif broken == "no boxes":
        for label in (deck / "labels").iterdir():
            label.write_text("")
    else:
        model = tmp_path / "missing.onnx"
    assert glyph_eval.main([str(deck), str(model)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("glyph_eval: error: ") and err.count("\n") == 1 and says in err
