"""Mixing data sets for training: every set's training folder, the first set's val, every deck seen."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from referee.cli import main as cli
from referee.errors import UserError
from referee.lab.mix_sets import main, mix
from referee.lab.provenance import dataset_decks


def _set(root: Path, decks: list[str], pictures: int = 2) -> Path:
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
    for index in range(pictures):
        (root / "images" / "train" / f"p{index}.jpg").write_bytes(b"jpg")
    record = {"path": str(root), "train": "images/train", "val": "images/val"}
    (root / "data.yaml").write_text(yaml.safe_dump({**record, **({"decks_seen": decks} if decks else {})}))
    return root


def test_the_mix_lists_every_training_folder_and_every_deck_seen(tmp_path: Path) -> None:
    rendered = _set(tmp_path / "rendered", ["uno-cards-roboflow"])
    dealt = _set(tmp_path / "dealt", ["uno-cards-criscard"])
    data = yaml.safe_load(mix(tmp_path / "mixed", [rendered, dealt]).read_text())
    assert data["train"] == [str((folder / "images" / "train").resolve()) for folder in (rendered, dealt)]
    assert data["val"] == str((rendered / "images" / "val").resolve())
    assert data["decks_seen"] == ["uno-cards-criscard", "uno-cards-roboflow"]
    assert dataset_decks(tmp_path / "mixed" / "data.yaml") == ["uno-cards-criscard", "uno-cards-roboflow"]
    assert len(data["names"]) == 22


def test_a_set_without_a_description_or_training_pictures_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(UserError, match=r"holds no data\.yaml"):
        mix(tmp_path / "mixed", [tmp_path / "nothing"])
    empty = _set(tmp_path / "empty", [], pictures=0)
    with pytest.raises(UserError, match="holds no pictures"):
        mix(tmp_path / "mixed", [empty])
    assert main([str(tmp_path / "mixed"), str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_scenes_dealt_a_real_deck_make_a_training_set_that_has_seen_it(
    tmp_path: Path, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--seed", "3", "--size", "160", "--workers", "1"]
    rendered = ["--count", "3", "--val-fraction", "0.34"]
    assert cli(["dataset", str(tmp_path / "rendered"), *rendered, *common]) == 0
    faces = ["--faces", str(shared / "data" / "uno-cards-criscard"), "--val-fraction", "0"]
    assert cli(["dataset", str(tmp_path / "dealt"), "--count", "2", *faces, *common]) == 0
    assert "a network trained on these scenes has seen this deck" in capsys.readouterr().out
    assert yaml.safe_load((tmp_path / "dealt" / "data.yaml").read_text())["faces"]["use"].startswith(
        "training"
    )
    assert len(list((tmp_path / "dealt" / "images" / "train").glob("*.jpg"))) == 2
    path = mix(tmp_path / "mixed", [tmp_path / "rendered", tmp_path / "dealt"])
    assert dataset_decks(path) == ["uno-cards-criscard"]
