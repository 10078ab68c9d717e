"""The training command's own logic, with ultralytics replaced by fakes (CI never trains)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import UserError
from referee.lab import training
from referee.lab.provenance import checkpoint_decks, write_record
from referee.vision.classes import CLASS_NAMES


def test_run_passes_the_start_rate_to_train(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def fake_train(data: Path, **kwargs: Any) -> Path:
        seen.update(kwargs)
        return tmp_path / "best.pt"

    monkeypatch.setattr(training, "train", fake_train)
    parser = argparse.ArgumentParser()
    training.add_arguments(parser)
    assert training.run(parser.parse_args([str(tmp_path / "data.yaml"), "--lr0", "0.0008"])) == 0
    assert seen["lr0"] == pytest.approx(0.0008)


class _FakeYolo:
    """Exports the way ultralytics does: an .onnx beside the checkpoint, whose path it returns."""

    def __init__(self, weights: str) -> None:
        self.weights = Path(weights)
        self.names = dict(enumerate(CLASS_NAMES))
        conv = type("Conv", (), {"out_channels": 16})()
        layer = type("Layer", (), {"conv": conv})()
        self.model = type("Net", (), {"model": [layer]})()

    def export(self, **_: Any) -> str:
        path = self.weights.with_suffix(".onnx")
        path.write_bytes(b"onnx")
        return str(path)


@pytest.mark.parametrize("beside", [True, False])
def test_export_to_the_file_ultralytics_writes_or_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, beside: bool
) -> None:
    monkeypatch.setattr(training, "prepare_offline", lambda folder: None)
    monkeypatch.setattr(training, "_import_ultralytics", lambda: type("U", (), {"YOLO": _FakeYolo}))
    rewritten: list[tuple[Path, Path, int]] = []
    monkeypatch.setattr(training, "rewrite_file", lambda *args: rewritten.append(args))
    weights = tmp_path / "e4.pt"
    weights.write_bytes(b"pt")
    write_record(weights.with_suffix(".decks.json"), ["uno-cards-roboflow"])
    output = weights.with_suffix(".onnx") if beside else tmp_path / "out" / "model.onnx"
    assert training.export(weights, output, imgsz=320) == output
    assert output.read_bytes() == b"onnx"
    assert rewritten == [(output, output, 320)], "the box decoding is rewritten in the exported file"
    card = json.loads(output.with_suffix(".json").read_text())
    assert card["architecture"] == "yolo11n"
    assert card["decks_seen"] == ["uno-cards-roboflow"]  # eval marks that deck seen
    if not beside:
        assert not (tmp_path / "e4.onnx").exists()  # nothing left beside the checkpoint


def test_export_refuses_a_checkpoint_whose_decks_are_not_recorded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(training, "_import_ultralytics", lambda: type("U", (), {"YOLO": _FakeYolo}))
    weights = tmp_path / "old.pt"
    weights.write_bytes(b"pt")
    with pytest.raises(
        UserError, match=r"which real decks .*old\.pt trained on is not recorded: write .*old\.decks\.json"
    ):
        training.export(weights, tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


@pytest.fixture
def trainings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    """The arguments of every ``YOLO.train`` call, ultralytics replaced by a fake that records them."""
    calls: list[dict[str, Any]] = []

    class Recording(_FakeYolo):
        def add_callback(self, *_: Any) -> None:
            pass

        def train(self, **kwargs: Any) -> None:
            calls.append(kwargs)

    monkeypatch.setattr(training, "prepare_offline", lambda folder: None)
    monkeypatch.setattr(training, "_import_ultralytics", lambda: type("U", (), {"YOLO": Recording}))
    monkeypatch.setattr(training, "model_definition", lambda *_: tmp_path / "net.yaml")
    return calls


def _start(tmp_path: Path) -> tuple[Path, Path]:
    """A dataset that saw deck-a and a start checkpoint that saw deck-b."""
    data = tmp_path / "data.yaml"
    data.write_text("path: x\ndecks_seen: [deck-a]\n")
    start = tmp_path / "start.pt"
    start.write_bytes(b"pt")
    write_record(start.with_suffix(".decks.json"), ["deck-b"])
    return data, start


def test_a_run_records_its_data_decks_and_its_starts(trainings: list[dict[str, Any]], tmp_path: Path) -> None:
    data, start = _start(tmp_path)
    training.train(data, name="r", runs=tmp_path / "runs", weights=start, epochs=1)
    assert trainings[0]["data"] == str(data.resolve())
    best = tmp_path / "runs" / "r" / "weights" / "best.pt"  # where ultralytics writes it
    assert checkpoint_decks(best) == ["deck-a", "deck-b"]
    # A start whose history nobody wrote down is refused before any training.
    start.with_suffix(".decks.json").unlink()
    with pytest.raises(UserError, match=r"start\.pt trained on is not recorded"):
        training.train(data, name="r2", runs=tmp_path / "runs", weights=start, epochs=1)
    assert len(trainings) == 1


def test_a_fine_tune_warms_up_briefly_with_its_biases_at_the_start_rate(
    trainings: list[dict[str, Any]], tmp_path: Path
) -> None:
    data, start = _start(tmp_path)
    training.train(data, name="tune", runs=tmp_path / "runs", weights=start, hours=2.0, lr0=0.0003)
    training.train(data, name="scratch", runs=tmp_path / "runs", epochs=60)
    tune, scratch = trainings
    assert tune["warmup_bias_lr"] == pytest.approx(0.0003)
    assert tune["warmup_epochs"] == training.FINE_TUNE_WARMUP_EPOCHS
    assert tune["time"] == 2.0
    # From scratch, ultralytics' own warm-up stands (3 epochs of 60, its bias rate).
    assert scratch["warmup_epochs"] == 3.0
    assert "warmup_bias_lr" not in scratch


def test_a_fine_tune_can_keep_its_backbone_and_a_run_from_scratch_cannot(
    trainings: list[dict[str, Any]], tmp_path: Path
) -> None:
    data, start = _start(tmp_path)
    parser = argparse.ArgumentParser()
    training.add_arguments(parser)
    runs = str(tmp_path / "runs")
    kept_args = parser.parse_args([str(data), "--runs", runs, "--weights", str(start), "--freeze", "11"])
    free_args = parser.parse_args([str(data), "--runs", runs, "--name", "free", "--weights", str(start)])
    assert training.run(kept_args) == 0
    assert training.run(free_args) == 0
    kept, free = trainings
    assert kept["freeze"] == 11
    assert "freeze" not in free  # ultralytics' default: every layer learns
    # Frozen layers of a network that never learnt anything would stay random: refused, in one line.
    with pytest.raises(UserError, match="--freeze keeps learnt layers fixed"):
        training.train(data, name="scratch", runs=tmp_path / "runs", freeze=11)
    assert len(trainings) == 2


@pytest.mark.parametrize(("hours", "budget"), [([], {}), (["--hours", "1.5"], {"time": 1.5})])
def test_a_resumed_run_keeps_its_schedule_unless_given_new_hours(
    trainings: list[dict[str, Any]], tmp_path: Path, hours: list[str], budget: dict[str, float]
) -> None:
    weights = tmp_path / "runs" / "e2" / "weights"
    weights.mkdir(parents=True)
    (weights / "last.pt").write_bytes(b"pt")
    data = tmp_path / "data.yaml"
    data.write_text("train: x\n")
    parser = argparse.ArgumentParser()
    training.add_arguments(parser)
    args = parser.parse_args(
        [str(data), "--resume", "--name", "e2", "--runs", str(tmp_path / "runs"), *hours]
    )
    assert training.run(args) == 0
    assert trainings == [{"resume": True, "workers": 2, "device": "cpu", **budget}]
