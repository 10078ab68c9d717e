"""Tiny stand-ins for the reader's crop networks (the corner check, the pair check, the centre
reader), built with onnx so that tests control what they answer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def brightness_network(path: Path, card: dict, slope: float, side: int = 40) -> Path:
    """A network that is the surer of its second answer the brighter the crop (the mean of each
    channel, times ``slope``, less 2), written with its card (the .json beside it)."""
    weights = np.array([[-slope, slope]] * 3, np.float32)  # mean of each channel → the two answers
    return _linear_network(path, card, weights, np.array([2.0, -2.0], np.float32), side)


def constant_network(path: Path, card: dict, probabilities: list[float], side: int = 40) -> Path:
    """A network that gives every crop the same ``probabilities`` (whatever it sees), written with
    its card: for tests of how the reader heeds an answer, not of how it is reached."""
    logits = np.log(np.maximum(np.asarray(probabilities, np.float32), 1e-9))
    return _linear_network(path, card, np.zeros((3, len(logits)), np.float32), logits, side)


def _linear_network(path: Path, card: dict, weights: np.ndarray, bias: np.ndarray, side: int) -> Path:
    """softmax(mean of each channel @ ``weights`` + ``bias``), with the channel means as its
    embedding, saved with its card (the .json beside it)."""
    import onnx
    from onnx import TensorProto, helper

    count = len(bias)
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
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", count]),
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 3]),
        ],
        [
            helper.make_tensor("weights", TensorProto.FLOAT, [3, count], weights.ravel().tolist()),
            helper.make_tensor("bias", TensorProto.FLOAT, [count], np.asarray(bias, np.float32).tolist()),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    path.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    return path


def trained_glyph_network(seed: int, classes: int | None = None):
    """The glyph classifier's own network (torch) with random weights and batch norms that carry
    statistics of their own, as after training (an export folds them into its convolutions)."""
    import torch

    from referee.lab import glyph_training

    torch.manual_seed(seed)
    net = glyph_training.build_network() if classes is None else glyph_training.build_network(classes)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    return net
