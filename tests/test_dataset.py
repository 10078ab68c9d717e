"""``uno-referee dataset``: files, resume, data.yaml, the Roboflow mix and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.cli import main
from referee.errors import UserError
from referee.lab.provenance import dataset_decks
from referee.render.dataset import remap_roboflow_labels, roboflow_counts
from referee.vision.classes import CLASS_NAMES, ROBOFLOW_TO_CLASS, SYMBOL_CLASSES

REPO = Path(__file__).resolve().parent.parent


def _files(root: Path, kind: str, split: str) -> list[Path]:
    return sorted((root / kind / split).glob("*"))


def test_dataset_end_to_end_and_resume(tmp_path, capsys):
    out = tmp_path / "ds"
    args = ["dataset", str(out), "--count", "10", "--seed", "4", "--size", "160", "--workers", "1"]
    assert main([*args, "--val-fraction", "0.2"]) == 0
    assert "10 rendered, 0 already there" in capsys.readouterr().out
    for split, expected in (("train", 8), ("val", 2)):
        images = _files(out, "images", split)
        assert len(images) == expected
        assert [p.stem for p in _files(out, "labels", split)] == [p.stem for p in images]
        assert [p.stem for p in _files(out, "meta", split)] == [p.stem for p in images]
    boxes = 0
    for label in _files(out, "labels", "train") + _files(out, "labels", "val"):
        meta = json.loads((out / "meta" / label.parent.name / f"{label.stem}.json").read_text())
        rows = [line.split() for line in label.read_text().splitlines()]
        assert len(rows) == sum(b["labelled"] for card in meta["cards"] for b in card["boxes"])
        for class_id, *numbers in rows:
            assert 0 <= int(class_id) < len(CLASS_NAMES)
            assert all(0 <= float(v) <= 1 for v in numbers)
        boxes += len(rows)
    assert boxes > 0
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert Path(data["path"]).is_absolute() and Path(data["path"]) == out.resolve()
    assert (data["train"], data["val"]) == ("images/train", "images/val")
    assert [data["names"][k] for k in sorted(data["names"])] == list(CLASS_NAMES)

    # Resume: nothing to do; a lost image is rendered again, bit for bit the same.
    lost = _files(out, "images", "train")[3]
    before = lost.read_bytes()
    assert main([*args, "--val-fraction", "0.2"]) == 0
    assert "0 rendered, 10 already there" in capsys.readouterr().out
    lost.unlink()
    assert main([*args, "--val-fraction", "0.2"]) == 0
    assert "1 rendered, 9 already there" in capsys.readouterr().out
    assert lost.read_bytes() == before


def test_workers_produce_the_same_images_as_one_process(tmp_path):
    one, many = tmp_path / "one", tmp_path / "many"
    common = ["--count", "4", "--seed", "2", "--size", "128", "--val-fraction", "0"]
    assert main(["dataset", str(one), *common, "--workers", "1"]) == 0
    assert main(["dataset", str(many), *common, "--workers", "2"]) == 0
    first, second = _files(one, "images", "train"), _files(many, "images", "train")
    assert [p.name for p in first] == [p.name for p in second]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second, strict=True))


def test_one_scene_kind_only(tmp_path):
    """``--kind table`` makes a held-out set of whole-table photos, as the evaluation of busy tables uses."""
    out = tmp_path / "tables"
    common = ["--count", "3", "--seed", "5", "--size", "192", "--val-fraction", "0", "--workers", "1"]
    assert main(["dataset", str(out), *common, "--kind", "table"]) == 0
    kinds = {json.loads(p.read_text())["kind"] for p in _files(out, "meta", "train")}
    assert kinds == {"table"}


def test_roboflow_label_remap():
    text = "2 0.5 0.5 0.1 0.1\n\n6 0.2 0.3 0.05 0.06\n14 0.9 0.9 0.01 0.02\n"
    remapped = [line.split() for line in remap_roboflow_labels(text, Path("x.txt")).splitlines()]
    assert [SYMBOL_CLASSES[int(row[0])] for row in remapped] == ["wild-draw4", "wild", "9"]
    assert remapped[0][1:] == ["0.5", "0.5", "0.1", "0.1"]
    with pytest.raises(UserError, match=r"x\.txt:1: .*Roboflow class 0-14"):
        remap_roboflow_labels("15 0.5 0.5 0.1 0.1\n", Path("x.txt"))


def test_roboflow_share_is_of_the_final_train_set():
    counts = roboflow_counts(90, 10, 0.25, {"train": 2000, "val": 300})
    assert counts["train"] / (counts["train"] + 90) == pytest.approx(0.25)
    assert roboflow_counts(90, 10, 0.5, {"train": 20, "val": 1}) == {"train": 20, "val": 1}


def test_roboflow_mix_on_two_files(tmp_path, shared, capsys):
    source = shared / "data" / "uno-cards-roboflow"
    fake = tmp_path / "rf"
    for split, count in (("train", 2), ("valid", 1)):
        for kind in ("images", "labels"):
            (fake / split / kind).mkdir(parents=True)
        for image in sorted((source / split / "images").glob("*.jpg"))[:count]:
            (fake / split / "images" / image.name).write_bytes(image.read_bytes())
            label = source / split / "labels" / f"{image.stem}.txt"
            (fake / split / "labels" / label.name).write_text(label.read_text())
    out = tmp_path / "ds"
    args = ["dataset", str(out), "--count", "4", "--size", "128", "--workers", "1", "--val-fraction", "0.25"]
    assert main([*args, "--roboflow", str(fake), "--roboflow-share", "0.5"]) == 0
    assert "Roboflow photos: 2 train, 1 val" in capsys.readouterr().out
    copied = sorted((out / "labels" / "train").glob("rf_*.txt"))
    assert len(copied) == 2 and len(list((out / "images" / "val").glob("rf_*.jpg"))) == 1
    for label in copied:
        original = fake / "train" / "labels" / f"{label.stem[3:]}.txt"
        mapped = [ROBOFLOW_TO_CLASS[int(line.split()[0])] for line in original.read_text().splitlines()]
        assert [int(line.split()[0]) for line in label.read_text().splitlines()] == mapped
    # The set records the real deck it holds, and keeps that record when it is extended without it.
    assert dataset_decks(out / "data.yaml") == ["rf"]
    assert main([*args[:3], "6", *args[4:]]) == 0
    assert dataset_decks(out / "data.yaml") == ["rf"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--roboflow", "/nonexistent/rf"], "--roboflow /nonexistent/rf has no train/images"),
        (["--count", "0"], "--count must be at least 1"),
        (["--val-fraction", "1.5"], "--val-fraction must be in [0, 1]"),
        (["--roboflow-share", "1"], "--roboflow-share must be in [0, 1)"),
        (["--busy", "1.5"], "--busy is a share between 0 and 1"),
        (["--kind", "kitchen"], "argument --kind: invalid choice: 'kitchen'"),
    ],
)
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, extra, message):
    assert main(["dataset", str(tmp_path / "ds"), "--count", "2", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-referee: error: ") and message in err and err.count("\n") == 1


def test_runs_as_a_module_without_the_pi_and_inference_packages(tmp_path):
    """The GPU machine has no gpiozero, pyttsx3 or onnxruntime: the module must not need them."""
    block = "import sys; [sys.modules.__setitem__(m, None) for m in ('gpiozero', 'pyttsx3', 'onnxruntime')]"
    run = "import runpy; runpy.run_module('referee.render.dataset', run_name='__main__')"
    command = [sys.executable, "-c", f"{block}; sys.argv[1:] = {[str(tmp_path / 'ds'), '--count', '1']!r}"]
    command[-1] += f"; sys.argv += ['--size', '96', '--workers', '1']; {run}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert len(list((tmp_path / "ds" / "images" / "train").glob("*.jpg"))) == 1
