"""The card-corner check: its wider crop, its answers, and a one-line error for every bad model file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from crop_networks import brightness_network

from referee.errors import UserError
from referee.vision.corners import CORNER_CLASSES, CornerCheck, load_corner_check


def brightness_check(path: Path, context: float = 3.0, classes=CORNER_CLASSES) -> Path:
    """A tiny stand-in network: the brighter the crop, the surer it is of "background"."""
    return brightness_network(
        path, {"classes": list(classes), "context": context, "decks_seen": []}, slope=4.0
    )


def test_the_check_looks_at_context_box_sides_around_each_box(tmp_path):
    check = CornerCheck(brightness_check(tmp_path / "corners.onnx"))
    image = np.zeros((200, 200, 3), np.uint8)
    image[:, 130:] = 255  # a white sheet beside a dark table
    inside_dark = (40.0, 90.0, 60.0, 110.0)  # three sides around it: all dark
    near_sheet = (100.0, 90.0, 120.0, 110.0)  # three sides around it reach the sheet
    doubt = check.not_corner(image, [inside_dark, near_sheet])
    assert doubt.shape == (2,) and doubt[0] < 0.2 < doubt[1]
    narrow = CornerCheck(brightness_check(tmp_path / "narrow.onnx", context=1.0))
    assert narrow.not_corner(image, [near_sheet])[0] < 0.2  # one side around it: all dark
    assert check.not_corner(image, []).shape == (0,)


def test_bad_corner_model_files_are_one_line_errors(tmp_path):
    missing = r"corner model .* not found: reinstall uno-referee or pass --corner-model"
    with pytest.raises(UserError, match=missing):
        load_corner_check(tmp_path / "missing.onnx")
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"not a network")
    with pytest.raises(UserError, match="cannot be loaded"):
        CornerCheck(damaged)
    glyph_like = brightness_check(tmp_path / "glyphs.onnx", classes=("index", "other"))
    with pytest.raises(UserError, match="has no card naming classes"):
        CornerCheck(glyph_like)
    card = brightness_check(tmp_path / "card.onnx").with_suffix(".json")
    card.write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="is damaged"):
        CornerCheck(card.with_suffix(".onnx"))


def test_none_reads_without_the_check_and_empty_means_the_shipped_one(tmp_path):
    from referee.vision.corners import DEFAULT_CORNER_MODEL

    assert load_corner_check("none") is None and load_corner_check(Path("None")) is None
    shipped = load_corner_check("")
    assert (shipped is not None) == DEFAULT_CORNER_MODEL.is_file()
    assert load_corner_check(brightness_check(tmp_path / "c.onnx")).context == 3.0
