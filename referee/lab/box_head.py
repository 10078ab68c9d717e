"""Rewrite an exported detector's box decoding so onnxruntime runs it faster, with the same outputs.

A YOLO head turns each box side's 16-bin distribution into a distance ("distribution focal loss",
DFL): softmax over the bins, then a 1×1 convolution with the weights 0, 1, …, 15. Ultralytics
exports the softmax over axis 1 of a ``[batch, 16, 4, anchors]`` tensor; onnxruntime's CPU softmax
transposes such a tensor to put the axis last and back again, about 1.3 ms of the detector's 20 ms on
one thread here (the largest single node). Putting the bins last in the transpose that is already
there, taking the softmax over the last axis and the weighted sum as a matrix product computes the
same numbers (identical outputs, checked on random input when rewriting) with one copy fewer.

    python -m referee.lab.box_head models/uno_cards.onnx models/uno_cards.onnx

The export (:func:`referee.lab.training.export`) applies it to every new detector; the int8 copy
keeps the rewrite of the float model it is quantised from.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.errors import UserError


def rewrite_box_softmax(model: object) -> int:
    """Rewrite every DFL block of ``model`` (an ``onnx.ModelProto``) in place; returns how many.

    A block is a Transpose with ``perm`` (0, 2, 1, 3), a Softmax over axis 1 and a bias-free 1×1
    Conv with one output channel, in a chain read by nothing else, whose result is only reshaped.
    A model already rewritten has none (returns 0)."""
    from onnx import helper, numpy_helper

    graph = model.graph  # type: ignore[attr-defined]
    producers = {output: node for node in graph.node for output in node.output}
    outputs = {output.name for output in graph.output}
    consumers: dict[str, list[object]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    rewritten = 0
    for conv in list(graph.node):
        if conv.op_type != "Conv" or len(conv.input) != 2 or conv.input[1] not in initializers:
            continue
        softmax = producers.get(conv.input[0])
        if softmax is None or softmax.op_type != "Softmax" or _attribute(softmax, "axis") != 1:
            continue
        transpose = producers.get(softmax.input[0])
        if (
            transpose is None
            or transpose.op_type != "Transpose"
            or _attribute(transpose, "perm") != [0, 2, 1, 3]
        ):
            continue
        weights = numpy_helper.to_array(initializers[conv.input[1]])
        if weights.ndim != 4 or weights.shape[0] != 1 or weights.shape[2:] != (1, 1):
            continue
        # Only where nothing else reads the tensors whose layout changes, and the distances are only
        # reshaped after ([b, 1, 4, a] and [b, 4, a, 1] hold the same numbers in the same order).
        private = all(
            len(consumers.get(name, [])) == 1 and name not in outputs
            for name in (transpose.output[0], softmax.output[0])
        )
        readers = consumers.get(conv.output[0], [])
        reshaped = bool(readers) and all(node.op_type == "Reshape" for node in readers)  # type: ignore[attr-defined]
        if not (private and reshaped):
            continue
        _set_attribute(transpose, "perm", [0, 1, 3, 2])  # [b, 4, 16, a] -> [b, 4, a, 16]
        _set_attribute(softmax, "axis", -1)
        bins = f"{conv.name or conv.output[0]}/bins"
        graph.initializer.append(numpy_helper.from_array(weights.reshape(-1, 1).astype(np.float32), bins))
        matmul = helper.make_node(
            "MatMul", [softmax.output[0], bins], list(conv.output), name=f"{conv.name}/MatMul"
        )
        position = list(graph.node).index(conv)
        graph.node.remove(conv)
        graph.node.insert(position, matmul)
        stale = {transpose.output[0], softmax.output[0], *conv.output}
        for info in [info for info in graph.value_info if info.name in stale]:
            graph.value_info.remove(info)  # shapes changed; onnxruntime infers them again
        if not any(conv.input[1] in node.input for node in graph.node):
            graph.initializer.remove(initializers[conv.input[1]])
        rewritten += 1
    return rewritten


def _attribute(node: object, name: str) -> object:
    from onnx import helper

    for attribute in node.attribute:  # type: ignore[attr-defined]
        if attribute.name == name:
            value = helper.get_attribute_value(attribute)
            return list(value) if not isinstance(value, int | float | bytes) else value
    return None


def _set_attribute(node: object, name: str, value: int | list[int]) -> None:
    from onnx import helper

    for attribute in list(node.attribute):  # type: ignore[attr-defined]
        if attribute.name == name:
            node.attribute.remove(attribute)  # type: ignore[attr-defined]
    node.attribute.append(helper.make_attribute(name, value))  # type: ignore[attr-defined]


def largest_difference(before: Path, after: Path, imgsz: int, seed: int = 0) -> float:
    """The largest absolute difference between two models' first outputs on one random input (a
    picture of ``imgsz`` pixels square where the input's size is left open)."""
    import onnxruntime as ort

    sessions = [
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]) for path in (before, after)
    ]
    first = sessions[0].get_inputs()[0]
    shape = [
        dim if isinstance(dim, int) else 1 if axis == 0 else imgsz for axis, dim in enumerate(first.shape)
    ]
    feed = np.random.default_rng(seed).random(shape, dtype=np.float32)
    outputs = [session.run(None, {session.get_inputs()[0].name: feed})[0] for session in sessions]
    return float(np.abs(outputs[0] - outputs[1]).max())


def rewrite_file(source: Path, target: Path, imgsz: int = 320, tolerance: float = 1e-4) -> int:
    """Rewrite ``source`` into ``target`` (may be the same file) and check that the outputs agree."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(str(source))
    except (OSError, DecodeError, ValueError) as error:
        raise UserError(f"cannot read ONNX model {source} ({error}): give an exported detector") from error
    count = rewrite_box_softmax(model)
    if count == 0:
        return 0
    onnx.checker.check_model(model)
    scratch = target.with_name(target.name + ".rewriting")
    onnx.save(model, str(scratch))
    difference = largest_difference(source, scratch, imgsz)
    if difference > tolerance:
        scratch.unlink()
        raise UserError(f"the rewritten {source} differs by {difference:.2g}: keep the original")
    scratch.replace(target)
    return count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.box_head", description=__doc__.splitlines()[0]
    )
    parser.add_argument("source", type=Path, help="an exported detector (.onnx)")
    parser.add_argument("target", type=Path, help="where the rewritten model goes (may be the source)")
    parser.add_argument("--imgsz", type=int, default=320, help="input side for the equality check")
    args = parser.parse_args(argv)
    try:
        count = rewrite_file(args.source, args.target, args.imgsz)
    except UserError as error:
        parser.exit(2, f"error: {error}\n")
    print(
        f"{args.target}: {count} box decoding block(s) rewritten"
        if count
        else f"{args.source}: nothing to rewrite"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
