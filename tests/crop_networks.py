"""Tiny stand-ins for the reader's crop networks (the corner check, the pair check, the centre
reader), built with onnx so that tests control what they answer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def brightness_network(path: Path, card: dict, slope: float, side: int = 40) -> Path:
    """A network that is the surer of its second answer the brighter the crop (the mean of each
    channel, times ``slope``, less 2), written with its card (the .json beside it)."""
    import onnx
    from onnx import TensorProto, helper

    weights = np.array([[-slope, slope]] * 3, np.float32)  # mean of each channel → the two answers
    bias = np.array([2.0, -2.0], np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["crops"], ["pooled"], axes=[2, 3], keepdims=0),
            helper.make_node("MatMul", ["pooled", "weights"], ["logits_raw"]),
            helper.make_node("Add", ["logits_raw", "bias"], ["logits"]),
            helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1),
            helper.make_node("Identity", ["pooled"], ["embedding"]),
        ],
        "stand_in",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, side, side])],
        [
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", 2]),
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 3]),
        ],
        [
            helper.make_tensor("weights", TensorProto.FLOAT, [3, 2], weights.ravel().tolist()),
            helper.make_tensor("bias", TensorProto.FLOAT, [2], bias.tolist()),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    path.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    return path


def constant_network(path: Path, card: dict, probabilities: list[float], side: int = 40) -> Path:
    """A network that gives every crop the same ``probabilities`` (whatever it sees), written with
    its card: for tests of how the reader heeds an answer, not of how it is reached."""
    import onnx
    from onnx import TensorProto, helper

    count = len(probabilities)
    logits = np.log(np.maximum(np.asarray(probabilities, np.float32), 1e-9))
    graph = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["crops"], ["pooled"], axes=[2, 3], keepdims=0),
            helper.make_node("MatMul", ["pooled", "zeros"], ["nothing"]),
            helper.make_node("Add", ["nothing", "logits"], ["answer"]),
            helper.make_node("Softmax", ["answer"], ["probabilities"], axis=1),
            helper.make_node("Identity", ["pooled"], ["embedding"]),
        ],
        "constant",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, side, side])],
        [
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", count]),
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 3]),
        ],
        [
            helper.make_tensor("zeros", TensorProto.FLOAT, [3, count], [0.0] * (3 * count)),
            helper.make_tensor("logits", TensorProto.FLOAT, [count], logits.tolist()),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    path.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    return path
