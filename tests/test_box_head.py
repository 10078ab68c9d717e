"""The detector's box decoding rewritten for speed: same outputs, and the shipped files carry it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from referee.errors import UserError  # noqa: E402
from referee.lab.box_head import main, rewrite_box_softmax, rewrite_file  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "models"


def _dfl_model(path: Path, anchors: int = 30, show_shares: bool = False) -> Path:
    """A head's box decoding as ultralytics exports it: [1, 64, a] -> 4 distances per anchor."""
    nodes = [
        helper.make_node("Reshape", ["x", "shape4"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["t"], ["s"], axis=1),
        helper.make_node("Conv", ["s", "w"], ["c"], name="dfl/conv"),
        helper.make_node("Reshape", ["c", "shape3"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array([1, 4, 16, anchors], np.int64), "shape4"),
        numpy_helper.from_array(np.array([1, 4, anchors], np.int64), "shape3"),
        numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1), "w"),
    ]
    graph = helper.make_graph(
        nodes,
        "dfl",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 64, anchors])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, anchors])],
        initializers,
    )
    if show_shares:  # the bins' shares are an output too: their layout must not change
        graph.output.append(helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 16, 4, anchors]))
    graph.input[0].name = "x"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))
    return path


def _distances(path: Path, logits: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": logits})[0]


def test_the_rewritten_decoding_gives_the_same_distances(tmp_path):
    source = _dfl_model(tmp_path / "dfl.onnx")
    model = onnx.load(str(source))
    assert rewrite_box_softmax(model) == 1
    ops = [node.op_type for node in model.graph.node]
    assert "Conv" not in ops and "MatMul" in ops
    softmax = next(node for node in model.graph.node if node.op_type == "Softmax")
    assert helper.get_attribute_value(softmax.attribute[0]) == -1
    assert rewrite_box_softmax(model) == 0, "a rewritten model has nothing left to rewrite"

    target = tmp_path / "fast.onnx"
    onnx.save(model, str(target))
    logits = np.random.default_rng(1).normal(0, 3, (1, 64, 30)).astype(np.float32)
    before, after = _distances(source, logits), _distances(target, logits)
    assert np.allclose(before, after, atol=1e-5)
    shares = np.exp(logits.reshape(4, 16, 30)) / np.exp(logits.reshape(4, 16, 30)).sum(axis=1, keepdims=True)
    assert np.allclose(after[0], (shares * np.arange(16)[None, :, None]).sum(axis=1), atol=1e-4)


def test_a_block_whose_shares_are_read_elsewhere_is_left_alone(tmp_path):
    model = onnx.load(str(_dfl_model(tmp_path / "dfl.onnx", show_shares=True)))
    assert rewrite_box_softmax(model) == 0
    assert [node.op_type for node in model.graph.node].count("Conv") == 1


def test_a_file_is_rewritten_in_place_and_a_bad_one_is_a_one_line_error(tmp_path, capsys):
    source = _dfl_model(tmp_path / "dfl.onnx")
    original = tmp_path / "original.onnx"
    original.write_bytes(source.read_bytes())
    assert main([str(source), str(source)]) == 0
    assert "rewritten" in capsys.readouterr().out
    logits = np.random.default_rng(2).normal(0, 3, (1, 64, 30)).astype(np.float32)
    assert np.allclose(_distances(original, logits), _distances(source, logits), atol=1e-5)
    assert rewrite_file(source, source) == 0
    garbage = tmp_path / "garbage.onnx"
    garbage.write_text("not a model")
    with pytest.raises(UserError, match="cannot read ONNX model"):
        rewrite_file(garbage, tmp_path / "out.onnx")


@pytest.mark.parametrize("name", ["uno_cards.onnx", "uno_cards.int8.onnx", "lodo/roboflow/uno_cards.onnx"])
def test_the_shipped_detectors_carry_the_faster_decoding(name):
    path = MODELS / name
    if not path.is_file():
        pytest.skip(f"{name} is not in this checkout")
    assert rewrite_box_softmax(onnx.load(str(path))) == 0, f"run python -m referee.lab.box_head on {name}"
