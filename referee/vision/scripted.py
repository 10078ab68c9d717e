"""Scripted detector models: tiny ONNX files whose output is a chosen YOLO11 tensor.

Everything downstream of the network — decoding, NMS, the card reader, the pile watcher, the
table simulation — can then be tested exactly and deterministically with the real backends and
no trained weights: the file is a few kilobytes and runs in microseconds. The output ignores the
picture (it is multiplied by zero), so the chosen boxes are in *network-input* pixels.

Needs the ``onnx`` package (a test and training dependency, not a runtime one).

>>> tensor = yolo_tensor([(160, 160, 20, 30)], [7], [0.9], num_classes=22, anchors=3)
>>> tensor.shape, tensor[0, :4, 0].tolist(), round(float(tensor[0, 4 + 7, 0]), 6)
((1, 26, 3), [160.0, 160.0, 20.0, 30.0], 0.9)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.vision.classes import CLASS_NAMES


def yolo_tensor(
    boxes_cxcywh: Sequence[Sequence[float]],
    class_ids: Sequence[int],
    scores: Sequence[float],
    num_classes: int = len(CLASS_NAMES),
    anchors: int | None = None,
) -> np.ndarray:
    """A ``(1, 4 + nc, anchors)`` float32 output holding the given boxes; other anchors score zero."""
    count = len(boxes_cxcywh)
    if not count == len(class_ids) == len(scores):
        raise ValueError("boxes, class ids and scores must have the same length")
    anchors = count if anchors is None else anchors
    if anchors < count:
        raise ValueError(f"{count} boxes do not fit into {anchors} anchors")
    tensor = np.zeros((1, 4 + num_classes, anchors), np.float32)
    for anchor, (box, class_id, score) in enumerate(zip(boxes_cxcywh, class_ids, scores, strict=True)):
        tensor[0, :4, anchor] = box
        tensor[0, 4 + class_id, anchor] = score
    return tensor


def tensor_for_boxes(
    boxes_xyxy: Sequence[Sequence[float]],
    class_names: Sequence[str],
    scores: float | Sequence[float] = 0.9,
    anchors: int = 64,
) -> np.ndarray:
    """:func:`yolo_tensor` from corner boxes and our class names: the readable form for tests.

    >>> tensor_for_boxes([(10, 20, 30, 60)], ["wild"], anchors=2)[0, :4, 0].tolist()
    [20.0, 40.0, 20.0, 40.0]
    """
    boxes = [((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes_xyxy]
    class_ids = [CLASS_NAMES.index(name) for name in class_names]
    scores = [scores] * len(boxes) if isinstance(scores, float | int) else list(scores)
    return yolo_tensor(boxes, class_ids, scores, len(CLASS_NAMES), max(anchors, len(boxes)))


def write_scripted_model(
    path: Path | str,
    output: np.ndarray,
    imgsz: int = 320,
    names: Sequence[str] | None = CLASS_NAMES,
    dynamic: bool = False,
) -> Path:
    """Write an ONNX model with input ``images`` (1, 3, S, S) that always returns ``output``.

    ``names`` go into the ONNX metadata as an Ultralytics export stores them (None: no metadata);
    ``dynamic`` leaves the input's height and width open, like ``export(dynamic=True)``.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    side: list[int | str] = ["height", "width"] if dynamic else [imgsz, imgsz]
    image_input = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, *side])
    result = helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(output.shape))
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], keepdims=0),
        helper.make_node("Mul", ["mean", "zero"], ["nothing"]),  # ties the output to the input
        helper.make_node("Add", ["scripted", "nothing"], ["output0"]),
    ]
    initialisers = [
        numpy_helper.from_array(np.asarray(output, np.float32), "scripted"),
        numpy_helper.from_array(np.float32(0.0), "zero"),
    ]
    graph = helper.make_graph(nodes, "scripted_yolo", [image_input], [result], initialisers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # readable by every onnxruntime and OpenCV we support
    if names is not None:
        metadata = {"names": repr(dict(enumerate(names))), "imgsz": repr([imgsz, imgsz]), "task": "detect"}
        helper.set_model_props(model, metadata)
    onnx.checker.check_model(model)
    path = Path(path)
    onnx.save(model, str(path))
    return path
