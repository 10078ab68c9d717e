"""Training patches for the centre reader: labelled by the rendered scene's own cards and what covers
them, seeded, and trainable into a reader that answers every card symbol or "no centre"."""

from __future__ import annotations

import numpy as np
import pytest

from referee.lab.centre_data import main, scene_patches
from referee.vision.centres import CENTRE_CLASSES, CENTRE_PX, NO_CENTRE


def _patches(seeds: range) -> tuple[list[np.ndarray], list[int]]:
    patches, labels = [], []
    for seed in seeds:
        found, answers = scene_patches(seed)
        assert len(found) == len(answers)
        patches += found
        labels += answers
    return patches, labels


def test_a_scene_gives_read_and_hidden_centres_the_same_on_every_run() -> None:
    patches, labels = _patches(range(8))
    hidden = CENTRE_CLASSES.index(NO_CENTRE)
    assert hidden in labels and len(set(labels) - {hidden}) >= 5  # centres to read, and hidden ones
    assert all(patch.shape == (CENTRE_PX, CENTRE_PX, 3) and patch.dtype == np.uint8 for patch in patches)
    again, answers = scene_patches(7)
    assert answers == labels[-len(answers) :]
    assert all(np.array_equal(a, b) for a, b in zip(again, patches[-len(again) :], strict=True))


def test_a_read_centre_shows_a_card_and_a_hidden_one_may_not() -> None:
    """A patch labelled with a symbol is the middle of one card: its print, in the card's colours,
    varies across the patch (a symbol on a field), never a flat stretch of cloth."""
    patches, labels = _patches(range(8))
    hidden = CENTRE_CLASSES.index(NO_CENTRE)
    read = [patch for patch, label in zip(patches, labels, strict=True) if label != hidden]
    assert min(float(patch.std()) for patch in read) > 8.0


def test_bad_arguments_are_one_line(tmp_path, capsys) -> None:
    assert main([str(tmp_path / "c.npz"), "--workers", "0"]) == 2
    assert capsys.readouterr().err == "centre_data: error: --scenes and --workers must be at least 1\n"


def test_training_the_centre_reader_writes_every_symbol_and_no_centre(tmp_path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json

    from referee.lab import glyph_training
    from referee.vision.centres import CentreReader

    patches, labels = _patches(range(8))
    data = tmp_path / "centres.npz"
    np.savez_compressed(
        data, crops=np.stack(patches), labels=np.asarray(labels), decks_seen=np.asarray([], str)
    )
    out = tmp_path / "uno_centres.onnx"
    assert (
        glyph_training.main([str(data), "--centres", "--out", str(out), "--minutes", "0.02", "--batch", "16"])
        == 0
    )
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["classes"] == list(CENTRE_CLASSES) and card["decks_seen"] == [] and "region" in card
    beliefs = CentreReader(out).read(np.zeros((200, 200, 3), np.uint8), [((50.0, 50.0), (120.0, 150.0))])
    assert beliefs.shape == (1, len(CENTRE_CLASSES)) and np.isclose(beliefs.sum(), 1.0, atol=1e-4)
