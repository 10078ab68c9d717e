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


def test_a_two_character_index_is_a_corner_where_each_of_its_characters_looks_like_one(tmp_path):
    from referee.lab.glyph_data import PART_OF_WIDE
    from referee.vision.corners import END_SHARE

    check = CornerCheck(brightness_check(tmp_path / "corners.onnx"))
    image = np.full((200, 200, 3), 255, np.uint8)  # a bright cloth (the stand-in check doubts bright)
    image[65:146, 33:128] = 0  # the dark corner of a card around a "+4"
    plus_four = (60.0, 95.0, 100.0, 115.0)  # three long sides around it reach the cloth; a character's do not
    alone, as_two = check.not_corner(image, [plus_four]), check.not_corner(image, [plus_four], [True])
    assert alone[0] > 0.5 > 0.1 > as_two[0]
    turned = np.ascontiguousarray(image.transpose(1, 0, 2))  # the card turned a quarter: its ends along y
    upright = (95.0, 60.0, 115.0, 100.0)
    assert check.not_corner(turned, [upright], [True])[0] < 0.1 < 0.5 < check.not_corner(turned, [upright])[0]
    # A box too square for two characters is judged whole, whatever the detector named it.
    square = (68.0, 93.0, 92.0, 117.0)
    assert check.not_corner(image, [square], [True])[0] == pytest.approx(check.not_corner(image, [square])[0])
    # Where one character's look doubts it, the box stays doubted.
    reaching = (80.0, 95.0, 120.0, 115.0)  # its far character's window reaches the cloth
    assert check.not_corner(image, [reaching], [True])[0] > 0.5
    middle = sum(PART_OF_WIDE) / 2  # of the shares the check trained on
    assert middle == pytest.approx(END_SHARE)


def test_an_end_of_a_box_lies_along_its_longer_side() -> None:
    from referee.vision.corners import box_end, is_wide

    assert box_end((0.0, 0.0, 40.0, 20.0), 0.65, True) == pytest.approx((0.0, 0.0, 26.0, 20.0))
    assert box_end((0.0, 0.0, 20.0, 40.0), 0.65, False) == pytest.approx((0.0, 14.0, 20.0, 40.0))
    assert is_wide((0.0, 0.0, 40.0, 20.0)) and is_wide((0.0, 0.0, 20.0, 40.0))
    assert not is_wide((0.0, 0.0, 24.0, 22.0))
