"""``uno-referee detect``: the JSON-lines contract, paths as given, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_reader import paste, table

from referee.cli import main
from referee.vision.scripted import tensor_for_boxes, write_scripted_model


@pytest.fixture
def pictures(tmp_path, monkeypatch) -> Path:
    """``pics/`` (relative: the tests run inside tmp_path) with a 320 px picture of a red 7 and an
    empty table, and a scripted model that reports the red 7's two corner indices."""
    monkeypatch.chdir(tmp_path)
    folder = Path("pics")
    folder.mkdir()
    crop = table(320, 320)
    card = paste(crop, "red-7", 90, 60, height=200)
    cv2.imwrite(str(folder / "a_card.png"), crop)
    cv2.imwrite(str(folder / "b_empty.png"), table(320, 320, seed=1))
    tensor = tensor_for_boxes(
        [d.box for d in card.indices], [d.class_name for d in card.indices], scores=0.93
    )
    write_scripted_model(tmp_path / "scripted.onnx", tensor)
    return folder


def detect(capsys, *arguments: str) -> tuple[int, str, str]:
    """The command with the scripted detector's word alone (no glyph classifier's second look), so
    that the contract is tested on exact scores."""
    status = main(["detect", *arguments, "--glyph-model", "none"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_lines_contract(pictures, capsys):
    status, out, err = detect(capsys, "pics/a_card.png", "--json", "--model", "scripted.onnx")
    assert (status, err) == (0, "")
    (line,) = out.splitlines()
    record = json.loads(line)
    assert list(record) == ["image", "cards"]
    assert record["image"] == "pics/a_card.png"  # the path exactly as given
    (card,) = record["cards"]
    assert list(card) == ["card", "confidence", "box", "colour_from"]
    assert (card["card"], card["colour_from"]) == ("red-7", "hue")
    assert card["confidence"] == pytest.approx(0.93, abs=1e-3)
    x1, y1, x2, y2 = card["box"]
    assert 60 <= x1 < x2 <= 250 and 40 <= y1 < y2 <= 280  # around the 129 × 200 card at (90, 60)


def test_folder_gives_one_line_per_picture_in_order(pictures, capsys):
    status, out, _ = detect(capsys, "pics/", "--json", "--model", "scripted.onnx")
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["image"] for r in records] == ["pics/a_card.png", "pics/b_empty.png"]
    # The scripted network reports the same boxes on the empty table: its pixels reject them.
    assert [len(r["cards"]) for r in records] == [1, 0]


def test_unreadable_picture_in_a_folder_is_skipped_with_one_line(pictures, capsys):
    (pictures / "broken.jpg").write_bytes(b"not a jpeg")
    (pictures / "notes.txt").write_text("not a picture, not even looked at")
    status, out, err = detect(capsys, "pics", "--json", "--model", "scripted.onnx")
    assert status == 1
    assert (
        err
        == "uno-referee: skipped: pics/broken.jpg is not a readable picture (JPEG, PNG, BMP, WebP or TIFF)\n"
    )
    assert [json.loads(line)["image"] for line in out.splitlines()] == ["pics/a_card.png", "pics/b_empty.png"]


def test_readable_table_without_json(pictures, capsys):
    status, out, _ = detect(capsys, "pics", "--model", "scripted.onnx")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "pics/a_card.png: 1 card"
    assert lines[1].split()[:2] == ["red-7", "0.93"]
    assert "pics/b_empty.png: no cards" in out


def test_annotate_writes_pictures(pictures, capsys, tmp_path):
    status, _, _ = detect(capsys, "pics", "--annotate", "marked", "--model", "scripted.onnx", "--json")
    assert status == 0
    assert sorted(p.name for p in Path("marked").iterdir()) == ["a_card.jpg", "b_empty.jpg"]
    original = cv2.imread("pics/a_card.png")
    marked = cv2.imread("marked/a_card.jpg")
    assert marked.shape == original.shape
    assert np.abs(marked.astype(int) - original).max() > 100  # boxes and label drawn


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["pics/missing.png"], "no such file or folder: pics/missing.png"),
        (["pics/a_card.png", "--model", "nowhere.onnx"], "no detector model at nowhere.onnx"),
        (
            ["pics/a_card.png", "--model", "scripted.onnx", "--conf", "1.5"],
            "thresholds must lie between 0 and 1",
        ),
        (
            ["pics/a_card.png", "--model", "scripted.onnx", "--backend", "gpu"],
            "unknown detector backend 'gpu'",
        ),
        (["empty_folder"], "folder empty_folder holds no pictures"),
        (["pics/fake.png", "--model", "scripted.onnx"], "pics/fake.png is not a readable picture"),
    ],
)
def test_bad_input_is_one_line(pictures, capsys, arguments, message):
    Path("empty_folder").mkdir()
    (pictures / "fake.png").write_text("text, not pixels")
    status, out, err = detect(capsys, *arguments)
    assert status == 2
    assert err.startswith("uno-referee: error: ") and err.count("\n") == 1
    assert message in err
    assert out == ""


@pytest.mark.parametrize("precision", ["float", "int8"])
def test_a_whole_tables_calibration_markers_are_no_cards(tmp_path, capsys, precision):
    """On a whole simulated table frame (1920 × 1080), the four markers' white patterns on black were
    read as wild cards; the shipped models see one red 7 there, and only it is reported (the int8
    copy of the detector as well)."""
    from referee.lab.video import TableVideo

    video = TableVideo([{"flip": "red-7"}], ["Anna", "Ben"], seed=1)
    x_mm, y_mm = video.discard_centre()
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), video.still_picture("red-7", x_mm, y_mm, 20.0))
    code, out, _ = detect(capsys, str(path), "--json", "--threads", "1", "--precision", precision)
    assert code == 0
    assert [card["card"] for card in json.loads(out)["cards"]] == ["red-7"]
