"""The glyph classifier's training crops: labelled boxes as a detector would box them."""

from __future__ import annotations

import numpy as np
import pytest

from referee.lab.glyph_data import PART_OF_WIDE, _crops_of, part_of
from referee.vision.classes import CLASS_NAMES
from referee.vision.glyphs import BACKGROUND


@pytest.mark.parametrize("box", [np.array([10.0, 20.0, 50.0, 40.0]), np.array([10.0, 20.0, 30.0, 80.0])])
def test_a_part_of_a_wide_index_is_one_end_along_its_longer_side(box: np.ndarray) -> None:
    rng = np.random.default_rng(3)
    long_axis = 0 if box[2] - box[0] >= box[3] - box[1] else 1
    ends = set()
    for _ in range(40):
        part = part_of(box, rng)
        short_axis = 1 - long_axis
        assert (part[short_axis], part[short_axis + 2]) == (box[short_axis], box[short_axis + 2])
        share = (part[long_axis + 2] - part[long_axis]) / (box[long_axis + 2] - box[long_axis])
        assert PART_OF_WIDE[0] <= share <= PART_OF_WIDE[1]
        ends.add("start" if part[long_axis] == box[long_axis] else "end")
        assert part[long_axis] == box[long_axis] or part[long_axis + 2] == box[long_axis + 2]
    assert ends == {"start", "end"}


def test_two_character_indices_also_train_as_a_part_of_their_box() -> None:
    image = np.full((200, 200, 3), 90, np.uint8)
    rows = [(CLASS_NAMES.index("wild-draw4"), np.array([20.0, 20.0, 60.0, 45.0]))]
    rows += [(CLASS_NAMES.index("7"), np.array([120.0, 120.0, 140.0, 150.0]))]
    labels = [label for _, label in _crops_of(image, rows, np.random.default_rng(0))]
    indices = [label for label in labels if label != BACKGROUND]
    assert sorted(indices) == sorted([CLASS_NAMES.index("wild-draw4")] * 2 + [CLASS_NAMES.index("7")])


def test_a_crop_set_records_its_real_decks_and_training_refuses_one_that_does_not(tmp_path, capsys) -> None:
    from referee.lab import glyph_training

    old = tmp_path / "old.npz"
    np.savez_compressed(old, crops=np.zeros((4, 40, 40), np.uint8), labels=np.zeros(4, np.int64))
    assert glyph_training.main([str(old), "--out", str(tmp_path / "g.onnx")]) == 2
    assert capsys.readouterr().err == (
        f"glyph_training: error: {old} does not record which real decks it holds: make it again\n"
    )
    assert not (tmp_path / "g.onnx").exists()
