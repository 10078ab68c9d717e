"""The rendered stand-in deck (``python -m referee.lab.standin_deck``): one print, photographed twice."""

from __future__ import annotations

import json

import cv2
import numpy as np

from referee.lab.evaluate import card_photos
from referee.lab.standin_deck import main
from referee.vision.deck import standard_faces


def test_the_official_deck_has_54_faces_and_no_house_wilds():
    faces = standard_faces()
    assert len(faces) == len(set(faces)) == 54
    assert {"red-0", "blue-draw2", "wild", "wild-draw4"} <= set(faces)
    assert not {"wild-swap", "wild-shuffle", "wild-custom"} & set(faces)


def test_one_look_two_photos_of_every_face(tmp_path):
    assert main([str(tmp_path), "--design", "offbrand", "--seed", "3"]) == 0
    learnt = sorted(folder.name for folder in (tmp_path / "learn").iterdir())
    assert learnt == sorted(standard_faces())
    photos = card_photos(tmp_path / "faces")  # the layout `dataset --faces` and `eval --real` read
    assert sorted(photo.named.name for photo in photos) == learnt
    first = cv2.imread(str(tmp_path / "learn" / "red-7" / "a.jpg"))
    (second,) = [cv2.imread(str(p.path)) for p in photos if p.named.name == "red-7"]
    assert first.shape == second.shape  # the same face …
    assert np.abs(first.astype(int) - second.astype(int)).mean() > 1.0  # … under another lamp
    lines = (tmp_path / "faces" / "labels.jsonl").read_text().splitlines()
    assert all(json.loads(line)["image"].startswith("images/") for line in lines)
