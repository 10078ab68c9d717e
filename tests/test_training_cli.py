"""The training command's own logic, with ultralytics replaced by fakes (CI never trains)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from referee.lab import training
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
    weights = tmp_path / "e4.pt"
    weights.write_bytes(b"pt")
    output = weights.with_suffix(".onnx") if beside else tmp_path / "out" / "model.onnx"
    assert training.export(weights, output, imgsz=320) == output
    assert output.read_bytes() == b"onnx"
    assert json.loads(output.with_suffix(".json").read_text())["architecture"] == "yolo11n"
    if not beside:
        assert not (tmp_path / "e4.onnx").exists()  # nothing left beside the checkpoint
