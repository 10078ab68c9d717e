"""A weight soup of glyph classifiers: one network whose weights are the members' mean."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from crop_networks import trained_glyph_network


def _exported(tmp_path: Path, name: str, seed: int, decks: list[str], classes: int | None = None) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from referee.lab import glyph_training

    net = trained_glyph_network(seed, classes)
    path = tmp_path / f"{name}.onnx"
    card = {"classes": ["x"] * (classes or 23), "crop_px": 40, "context": 1.5, "decks_seen": decks}
    glyph_training.export(net, path, {**card, "trained_on": f"{name} run"})
    return path


def test_the_soup_is_the_mean_of_its_members_weights_and_saw_every_members_decks(tmp_path: Path) -> None:
    from referee.lab.glyph_soup import make_soup
    from referee.lab.glyph_training import state_from_onnx

    a = _exported(tmp_path, "a", 1, ["uno-cards-roboflow"])
    b = _exported(tmp_path, "b", 2, ["uno-cards-criscard"])
    card = make_soup([a, b], tmp_path / "soup.onnx")
    soup, first, second = (state_from_onnx(path) for path in (tmp_path / "soup.onnx", a, b))
    for name in ("features.3.0.weight", "features.6.1.bias", "embed.weight", "classes.bias"):
        np.testing.assert_allclose(soup[name].numpy(), (first[name] + second[name]).numpy() / 2, atol=1e-6)
    assert card["decks_seen"] == ["uno-cards-criscard", "uno-cards-roboflow"]
    written = json.loads((tmp_path / "soup.json").read_text(encoding="utf-8"))
    assert written["decks_seen"] == card["decks_seen"] and "a.onnx: a run" in written["trained_on"]


def test_a_soup_of_one_network_with_itself_answers_as_it_does(tmp_path: Path) -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    from referee.lab.glyph_soup import make_soup

    a = _exported(tmp_path, "a", 3, [])
    make_soup([a, a], tmp_path / "same.onnx")
    crops = np.random.default_rng(0).random((4, 3, 40, 40)).astype(np.float32)
    alone = onnxruntime.InferenceSession(str(a)).run(None, {"crops": crops})
    souped = onnxruntime.InferenceSession(str(tmp_path / "same.onnx")).run(None, {"crops": crops})
    for x, y in zip(alone, souped, strict=True):
        np.testing.assert_allclose(x, y, atol=1e-5)


def test_networks_that_answer_other_classes_make_no_soup_and_say_so_in_one_line(
    tmp_path: Path, capsys
) -> None:
    from referee.lab.glyph_soup import main

    glyphs = _exported(tmp_path, "glyphs", 1, [])
    corners = _exported(tmp_path, "corners", 2, [], classes=2)
    assert main([str(tmp_path / "soup.onnx"), str(glyphs), str(corners)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("glyph_soup: error:") and "classes" in error and "\n" not in error
    assert not (tmp_path / "soup.onnx").exists()


def test_a_member_without_its_card_is_named_in_one_line(tmp_path: Path, capsys) -> None:
    from referee.lab.glyph_soup import main

    a = _exported(tmp_path, "a", 1, [])
    b = _exported(tmp_path, "b", 2, [])
    b.with_suffix(".json").unlink()
    assert main([str(tmp_path / "soup.onnx"), str(a), str(b)]) == 2
    error = capsys.readouterr().err.strip()
    assert "b.json" in error and "\n" not in error
