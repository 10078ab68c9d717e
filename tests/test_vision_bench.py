"""``uno-referee bench vision``: one parseable line per backend, errors in one line."""

from __future__ import annotations

import re

import numpy as np

from referee.cli import main
from referee.vision.backends import available_backends
from referee.vision.deck import LearntDeck
from referee.vision.glyphs import load_glyph_classifier
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

#: The lines of ``--reader`` on onnxruntime, the shipped networks installed: the detector, the glyph
#: classifier, the corner check, the pair check, the reader without and with the pair check.
READER_LINES = [
    "onnxruntime",
    "glyphs",
    "corners",
    "pairs",
    "centres",
    "reader-nopairs(onnxruntime)",
    "reader-nocentres(onnxruntime)",
    "reader(onnxruntime)",
]
LINE = re.compile(r"^(?P<label>[\w()+-]+): median_ms=(?P<median>[\d.]+) p90_ms=(?P<p90>[\d.]+) cpu_ms=[\d.]+")


def test_one_line_per_backend(tmp_path, capsys):
    model = write_scripted_model(tmp_path / "m.onnx", tensor_for_boxes([(100, 100, 120, 130)], ["4"]))
    status = main(["bench", "vision", "--model", str(model), "--runs", "5", "--warmup", "1", "--reader"])
    assert status == 0
    out, err = capsys.readouterr()
    assert err.startswith("machine: ")  # a figure is only comparable with the machine it came from
    lines = [LINE.match(line) for line in out.splitlines()[1:]]
    assert all(lines)
    assert [m["label"] for m in lines] == [*READER_LINES, *available_backends()[1:]]
    assert all(float(m["median"]) <= float(m["p90"]) for m in lines)
    # Each optional second look's cost, as a ratio measured in alternating rounds with the reader.
    reader_line = next(line for line in out.splitlines() if line.startswith("reader(onnxruntime)"))
    assert re.search(r" pairs_ratio=\d+\.\d{3} centres_ratio=\d+\.\d{3}$", reader_line)


def test_the_shipped_detector_is_timed_in_both_precisions(capsys, monkeypatch):
    monkeypatch.delenv("UNO_REFEREE_MODEL", raising=False)
    assert main(["bench", "vision", "--runs", "5", "--warmup", "0", "--backends", "onnxruntime"]) == 0
    out = capsys.readouterr().out
    labels = [LINE.match(line)["label"] for line in out.splitlines()[1:]]
    assert labels == ["onnxruntime", "glyphs", "corners", "pairs", "centres", "onnxruntime-int8"]
    assert "uno_cards.onnx" in out.splitlines()[0]


def test_unknown_backend_is_one_line(tmp_path, capsys):
    model = write_scripted_model(tmp_path / "m.onnx", tensor_for_boxes([(1, 1, 9, 9)], ["4"]))
    assert main(["bench", "vision", "--model", str(model), "--backends", "tflite"]) == 2
    installed = ", ".join(available_backends())
    assert capsys.readouterr().err == (
        f"uno-referee: error: backend 'tflite' is not available here: choose from {installed}\n"
    )


def test_the_reader_is_timed_with_a_learnt_deck_too(tmp_path, capsys):
    """A user who learnt a deck sees what it costs on their machine; ``--deck`` alone is refused."""
    glyphs = load_glyph_classifier()
    faces = np.random.default_rng(0).normal(size=(2, 64)).astype(np.float32)
    faces /= np.linalg.norm(faces, axis=1, keepdims=True)
    deck = tmp_path / "deck.json"
    LearntDeck(("red-4", "blue-7"), faces, glyph_model=glyphs.identity).save(deck)
    model = write_scripted_model(tmp_path / "m.onnx", tensor_for_boxes([(100, 100, 120, 130)], ["4"]))
    quick = ["--runs", "5", "--warmup", "0", "--backends", "onnxruntime"]
    common = ["bench", "vision", "--model", str(model), *quick]
    assert main([*common, "--deck", str(deck)]) == 2
    assert (
        capsys.readouterr().err
        == "uno-referee: error: --deck times the reader with a learnt deck: add --reader\n"
    )
    assert main([*common, "--reader", "--deck", str(deck)]) == 0
    labels = [LINE.match(line)["label"] for line in capsys.readouterr().out.splitlines()[1:]]
    assert labels == [*READER_LINES, "reader+deck(onnxruntime)"]


def test_a_reference_detector_is_timed_alongside_and_the_ratio_printed(tmp_path, capsys):
    """Machines of one type differ several-fold from run to run: a latency goal set on one is checked
    on another by the ratio to a model measured beside it."""
    model = write_scripted_model(tmp_path / "m.onnx", tensor_for_boxes([(100, 100, 120, 130)], ["4"]))
    quick = ["--runs", "6", "--warmup", "0", "--backends", "onnxruntime"]
    assert main(["bench", "vision", "--model", str(model), *quick, "--against", str(model)]) == 0
    lines = capsys.readouterr().out.splitlines()
    measured, against = (LINE.match(line) for line in lines[-2:])
    assert (measured["label"], against["label"]) == ("measured", "against")
    ratio = float(re.search(r" ratio=([\d.]+) ", lines[-1])[1])
    # The medians are printed to 0.01 ms: the ratio from them agrees to about that.
    mine, theirs = float(measured["median"]), float(against["median"])
    assert abs(ratio - mine / theirs) <= 0.02 / theirs
    missing = tmp_path / "old.onnx"
    assert main(["bench", "vision", "--model", str(model), *quick, "--against", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"uno-referee: error: no reference detector at {missing} (--against takes an ONNX file)\n"
    )


def test_alternating_rounds_share_the_runs():
    from referee.lab.vision_bench import time_alternating

    counts = [0, 0]

    def count(k: int) -> None:
        counts[k] += 1

    timings = time_alternating([lambda: count(0), lambda: count(1)], runs=23, warmup=2, rounds=5)
    assert counts == [25, 25] and len(timings) == 2
    assert all(t.median_ms <= t.p90_ms for t in timings)
