"""Training patches for the pair check: labelled by the rendered scene's own cards, seeded, and seen
by the training only at the turns that leave a card a card."""

from __future__ import annotations

import numpy as np
import pytest

from referee.lab.glyph_training import augment
from referee.lab.pair_data import main, scene_patches
from referee.vision.pairs import PAIR_PX


def test_a_scene_gives_one_card_and_two_card_pairs_the_same_on_every_run() -> None:
    patches, labels = [], []
    for seed in range(6):
        found, answers = scene_patches(seed)
        assert len(found) == len(answers)
        patches += found
        labels += answers
    assert set(labels) == {0, 1}  # tables, fans and piles hold both
    assert all(patch.shape == (PAIR_PX, PAIR_PX, 3) and patch.dtype == np.uint8 for patch in patches)
    again, answers = scene_patches(5)
    assert answers == labels[-len(answers) :]
    assert all(np.array_equal(a, b) for a, b in zip(again, patches[-len(again) :], strict=True))


def test_the_pair_check_trains_on_half_turns_only() -> None:
    """A quarter-turned card-shaped patch is no card's; a glyph crop may lie at any quarter turn."""
    patch = np.zeros((1, PAIR_PX, PAIR_PX, 3), np.uint8)
    patch[0, :, : PAIR_PX // 4] = 255  # a white strip down the left side
    for seed in range(20):
        seen = augment(patch, np.random.default_rng(seed), photo_share=0.0, turns=2)[0].mean(axis=0)
        columns, rows = seen.mean(axis=0), seen.mean(axis=1)
        assert np.ptp(columns) > 0.5 > np.ptp(rows)  # still a strip down a side, never across


def test_bad_arguments_are_one_line(tmp_path, capsys) -> None:
    assert main([str(tmp_path / "p.npz"), "--scenes", "0"]) == 2
    assert capsys.readouterr().err == "pair_data: error: --scenes and --workers must be at least 1\n"


def test_training_the_pair_check_writes_its_two_answers(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json

    from referee.lab import glyph_training
    from referee.vision.pairs import PAIR_CLASSES, PairCheck

    patches, labels = [], []
    for seed in range(8):  # some 60 pairs: one held out to score
        found, answers = scene_patches(seed)
        patches += found
        labels += answers
    data = tmp_path / "pairs.npz"
    np.savez_compressed(
        data, crops=np.stack(patches), labels=np.asarray(labels), decks_seen=np.asarray([], str)
    )
    out = tmp_path / "uno_pairs.onnx"
    assert (
        glyph_training.main([str(data), "--pairs", "--out", str(out), "--minutes", "0.02", "--batch", "16"])
        == 0
    )
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["classes"] == list(PAIR_CLASSES) and card["decks_seen"] == [] and "context" not in card
    assert PairCheck(out).two_cards(
        np.zeros((200, 200, 3), np.uint8), [((50.0, 50.0), (120.0, 150.0))]
    ).shape == (1,)
