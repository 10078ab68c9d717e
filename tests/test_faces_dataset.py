"""``uno-referee dataset --faces``: held-out scenes dealt with a real deck's photographed faces.

The crafted "photos" are magenta cards whose corner indices are painted green where
:data:`~referee.lab.photo_faces.INDEX_REGION` says a card prints them, so a labelled box that
follows the photographed face through the scene's pose, light and occlusion lies on green.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from referee.cli import main
from referee.lab.photo_faces import INDEX_REGION, PhotoFaces
from referee.render.cards import parse_card_name
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

PHOTOGRAPHED = ("red-7", "blue-7", "green-skip", "wild")
MAGENTA, GREEN = (255, 0, 255), (0, 255, 0)


def _photo(height: int = 300, width: int = 200) -> np.ndarray:
    photo = np.full((height, width, 3), MAGENTA, np.uint8)
    x1, y1, x2, y2 = (round(v * s) for v, s in zip(INDEX_REGION, (width, height) * 2, strict=True))
    photo[y1:y2, x1:x2] = GREEN
    photo[height - y2 : height - y1, width - x2 : width - x1] = GREEN  # the half-turn twin
    return photo


@pytest.fixture(scope="module")
def faces(tmp_path_factory) -> Path:
    """A face folder as ../shared/data/uno-cards-criscard lays it out: photos and labels.jsonl."""
    folder = tmp_path_factory.mktemp("deck") / "crafted-deck"
    (folder / "images").mkdir(parents=True)
    lines = []
    for k, name in enumerate(PHOTOGRAPHED):
        cv2.imwrite(str(folder / "images" / f"{k}.jpg"), _photo())
        lines.append(json.dumps({"image": f"images/{k}.jpg", "card": name}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _dataset(out: Path, faces: Path | None, kind: str = "discard", count: int = 4) -> list[str]:
    args = ["dataset", str(out), "--count", str(count), "--seed", "3", "--size", "320", "--workers", "1"]
    return [*args, "--kind", kind, *(["--faces", str(faces)] if faces else ["--val-fraction", "1"])]


def _sidecars(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "meta" / "val").glob("*.json"))]


def test_a_scene_dealt_with_photos_labels_the_corners_of_the_faces_it_shows(faces, tmp_path, capsys):
    out = tmp_path / "dealt"
    assert main(_dataset(out, faces)) == 0
    assert "faces: 4 photos of 4 cards of crafted-deck" in capsys.readouterr().out
    assert not list((out / "images" / "train").glob("*"))  # an evaluation set: all val
    labelled = 0
    for meta in _sidecars(out):
        assert meta["faces"] == "crafted-deck"
        image = cv2.imread(str(out / "images" / "val" / meta["image"])).astype(int)
        for card in (card for card in meta["cards"] if card["face_up"]):
            # Every face is a photo; a card the deck lacks was dealt as a photographed stand-in.
            assert card["design"] == "photo" and card["name"] in PHOTOGRAPHED
            symbol, _ = parse_card_name(card["name"])
            for box in (box for box in card["boxes"] if box["labelled"]):
                assert box["class_name"] == symbol
                x1, y1, x2, y2 = (round(v) for v in box["box"])
                b, g, r = (image[y1:y2, x1:x2, k] for k in range(3))
                assert ((g > r + 40) & (g > b + 40)).mean() > 0.3  # the painted index is in the box
                labelled += 1
        rows = (out / "labels" / "val" / meta["image"].replace(".jpg", ".txt")).read_text().splitlines()
        assert len(rows) == sum(b["labelled"] for card in meta["cards"] for b in card["boxes"])
    assert labelled >= 4
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["faces"]["deck"] == "crafted-deck" and data["faces"]["photos"] == 4
    assert "evaluation only" in data["faces"]["use"]
    assert data["decks_seen"] == ["crafted-deck"]  # whatever trains on it has seen the deck


def test_the_same_seed_lays_out_the_rendered_set_with_the_photographed_faces(faces, tmp_path):
    dealt, rendered = tmp_path / "dealt", tmp_path / "rendered"
    assert main(_dataset(dealt, faces, "table", 2)) == 0
    assert main(_dataset(rendered, None, "table", 2)) == 0
    for a, b in zip(_sidecars(dealt), _sidecars(rendered), strict=True):
        assert [card["polygon"] for card in a["cards"]] == [card["polygon"] for card in b["cards"]]
        assert a["objects"] == b["objects"] and a["surface"] == b["surface"]
    assert not {"faces", "decks_seen"} & set(yaml.safe_load((rendered / "data.yaml").read_text()))


def test_a_card_without_a_photo_gets_a_photographed_stand_in_like_it(faces):
    deck = PhotoFaces.load(faces)
    assert deck.stand_in("red-7", 1) == "red-7"
    assert deck.stand_in("yellow-7", 1) in ("red-7", "blue-7")  # the same symbol
    assert deck.stand_in("wild-swap", 1) == "wild"  # a wild for a wild
    assert deck.stand_in("yellow-2", 5) in ("red-7", "blue-7", "green-skip")
    assert {deck.stand_in("yellow-7", seed) for seed in range(20)} == {"red-7", "blue-7"}


def test_eval_names_the_deck_of_the_faces(faces, tmp_path, capsys):
    out = tmp_path / "dealt"
    assert main(_dataset(out, faces, count=2)) == 0
    blind = write_scripted_model(tmp_path / "blind.onnx", tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    report_dir, errors = tmp_path / "report", tmp_path / "errors"
    arguments = ["eval", str(out), "--model", str(blind), "--glyph-model", "none"]
    assert main([*arguments, "--report", str(report_dir), "--errors", str(errors)]) == 0
    printed = capsys.readouterr().out
    assert "faces: photographed deck crafted-deck (4 photos), unseen by these models" in printed
    report = json.loads((report_dir / "report.json").read_text())
    assert report["faces"]["deck"] == "crafted-deck" and report["faces"]["seen"] is False
    cards = report["cards"]
    assert cards["errors"]["missed"] == cards["overall"]["truth"] > 0  # a blind model misses them all
    assert sorted(p.name for p in errors.iterdir()) == sorted(
        Path(p).with_suffix(".jpg").name for p in cards["error_examples"]["missed"]
    )


def test_a_seen_decks_dealt_faces_are_read_by_held_out_networks(faces, tmp_path, capsys, held_out_folder):
    seen_deck = tmp_path / "uno-cards-roboflow"  # a deck the shipped networks trained on
    shutil.copytree(faces, seen_deck)
    out = tmp_path / "dealt"
    assert main(_dataset(out, seen_deck, count=2)) == 0
    held_out = held_out_folder(seen=[])
    report_dir = tmp_path / "report"
    assert main(["eval", str(out), "--held-out-models", str(held_out), "--report", str(report_dir)]) == 0
    printed = capsys.readouterr().out
    assert f"read by the held-out networks in {held_out}, which never saw them" in printed
    assert "unseen by these models" in printed
    report = json.loads((report_dir / "report.json").read_text())
    assert report["faces"]["seen"] is False and report["model"] == str(held_out / "uno_cards.onnx")
    assert main(["eval", str(out), "--held-out-models", "none", "--report", str(report_dir)]) == 0
    assert "SEEN in training by these models" in capsys.readouterr().out


def _folder(tmp_path: Path, labels: str | None, photo: bytes | None = None) -> Path:
    folder = tmp_path / "faces"
    (folder / "images").mkdir(parents=True)
    _, encoded = cv2.imencode(".jpg", _photo())
    (folder / "images" / "0.jpg").write_bytes(photo if photo is not None else encoded.tobytes())
    if labels is not None:
        (folder / "labels.jsonl").write_text(labels, encoding="utf-8")
    return folder


GOOD = '{"image": "images/0.jpg", "card": "red-7"}\n'


@pytest.mark.parametrize(
    ("labels", "photo", "message"),
    [
        (None, None, "no labels.jsonl in {folder}"),
        ('{"image": "images/0.jpg", "card": "purple-7"}\n', None, "labels.jsonl line 1: unknown card name"),
        ('{"image": "images/0.jpg", "card": "red-77"}\n', None, "labels.jsonl line 1: unknown card name"),
        ("{not json\n", None, "labels.jsonl line 1: write"),
        (GOOD, b"not a jpeg", "cannot read the photo {folder}/images/0.jpg"),
        ('{"image": "images/gone.jpg", "card": "red-7"}\n', None, "cannot read the photo"),
    ],
)
def test_a_bad_face_folder_is_a_one_line_error_naming_the_file(tmp_path, capsys, labels, photo, message):
    folder = _folder(tmp_path, labels, photo)
    assert main(["dataset", str(tmp_path / "out"), "--count", "1", "--faces", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-referee: error: ") and err.count("\n") == 1, err
    assert message.format(folder=folder) in err
    assert not (tmp_path / "out").exists()  # nothing written from a bad deck


def test_one_set_holds_one_deck_and_no_training_photos(faces, tmp_path, capsys):
    out = tmp_path / "rendered"
    assert main(_dataset(out, None, count=1)) == 0
    assert main(_dataset(out, faces, count=1)) == 2
    err = capsys.readouterr().err
    assert "already holds scenes with rendered faces, not the faces of crafted-deck" in err
    arguments = ["dataset", str(tmp_path / "x"), "--count", "1", "--faces", str(faces)]
    assert main([*arguments, "--roboflow", str(tmp_path)]) == 2
    assert "--faces makes an evaluation set" in capsys.readouterr().err


def test_the_help_says_a_faces_set_is_for_evaluation(capsys):
    assert main(["dataset", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "For EVALUATION sets only" in text and "never trained on it" in text


def test_a_deck_the_models_trained_on_is_not_reported_as_unseen():
    from referee.commands.eval import faces_lines

    (line,) = faces_lines({"deck": "uno-cards-roboflow", "photos": 9, "seen": True})
    assert "SEEN in training" in line and "not an unseen-deck figure" in line
    assert faces_lines(None) == []


def test_glyph_crops_dealt_a_photographed_deck_are_its_real_indices_and_record_it_seen(faces, tmp_path):
    from referee.lab.glyph_data import build
    from referee.vision.classes import CLASS_NAMES
    from referee.vision.glyphs import BACKGROUND

    out = tmp_path / "crops.npz"
    rendered, real = build(out, scenes=8, seed=3, size=320, roboflow=None, workers=1, faces=faces)
    crops = np.load(out)
    assert rendered == 0 and real == len(crops["labels"]) > 0
    assert list(crops["decks_seen"]) == ["crafted-deck"] and crops["source"].all()
    on_an_index = crops["labels"] != BACKGROUND
    assert {CLASS_NAMES[c] for c in crops["labels"][on_an_index]} <= {"7", "skip", "wild"}
    # Each index crop is centred on the photo's painted index: green, under whatever light and veil.
    middles = crops["crops"][on_an_index][:, 17:23, 17:23].astype(int).mean(axis=(1, 2))  # BGR
    green = middles[:, 1] > middles[:, [0, 2]].max(axis=1) + 10
    assert on_an_index.sum() >= 8 and green.mean() > 0.9


def test_glyph_crops_from_a_broken_face_folder_are_one_line_and_write_nothing(tmp_path, capsys):
    from referee.lab import glyph_data

    out = tmp_path / "crops.npz"
    assert glyph_data.main([str(out), "--faces", str(tmp_path / "nowhere"), "--scenes", "2"]) == 2
    err = capsys.readouterr().err
    assert err == f"glyph_data: error: no such face folder: {tmp_path / 'nowhere'}\n" and not out.exists()
