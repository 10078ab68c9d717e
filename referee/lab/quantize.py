"""Static int8 quantisation of the detector for onnxruntime (QDQ, calibrated on discard-zone crops).

Writes a separate model file (``models/uno_cards.int8.onnx`` by convention, picked up by
``bench vision``); the float model stays the default until ``uno-referee eval --model`` shows
the int8 one holds its accuracy. The box-decoding tail of the YOLO head (DFL softmax, anchor
arithmetic, final concatenation) stays in float: coordinates up to the input size do not survive
8 bits, and those nodes cost nothing.

Run with the ``onnx`` package installed (a training/test dependency)::

    python -m referee.lab.quantize models/uno_cards.onnx models/uno_cards.int8.onnx \\
        --images datasets/uno/images/val --count 300
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from referee.errors import UserError
from referee.vision.detection import Letterbox, to_blob


def calibration_crops(images: Sequence[np.ndarray], count: int, seed: int = 0) -> Iterator[np.ndarray]:
    """``count`` random square crops (30–100 % of the shorter side), like the pile watcher's input."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        image = images[k % len(images)]
        height, width = image.shape[:2]
        side = int(min(height, width) * rng.uniform(0.3, 1.0))
        top, left = int(rng.integers(0, height - side + 1)), int(rng.integers(0, width - side + 1))
        yield image[top : top + side, left : left + side]


def head_tail_nodes(model_path: Path) -> list[str]:
    """Nodes of the detection head that decode boxes (everything in the head but its conv branches)."""
    import onnx

    nodes = onnx.load(str(model_path), load_external_data=False).graph.node
    dfl = next((node.name for node in nodes if "/dfl/" in node.name), None)
    if dfl is None:
        raise UserError(f"{model_path} has no DFL node: only Ultralytics YOLO exports can be quantised here")
    head = dfl.split("/dfl/")[0] + "/"
    return [
        node.name
        for node in nodes
        if node.name.startswith(head) and not node.name.startswith((head + "cv2.", head + "cv3."))
    ]


def head_output_convs(model_path: Path) -> list[str]:
    """The last convolution of each head branch: the raw class scores and box distributions.

    Kept in float when asked (``float_head_outputs``): their outputs are logits whose small
    differences decide a symbol, and the six layers are a sliver of the network's work."""
    import onnx

    tail = set(head_tail_nodes(model_path))
    nodes = onnx.load(str(model_path), load_external_data=False).graph.node
    convs = [node for node in nodes if node.op_type == "Conv" and node.name not in tail]
    feeds = {name for node in nodes if node.name in tail for name in node.input}
    return [node.name for node in convs if set(node.output) & feeds]


def layer_nodes(model_path: Path, layers: Sequence[str]) -> list[str]:
    """Every node of the named layers (``model.10``: the export's ``/model.10/...`` nodes)."""
    import onnx

    if not layers:
        return []
    nodes = onnx.load(str(model_path), load_external_data=False).graph.node
    found = [node.name for node in nodes if any(node.name.startswith(f"/{layer}/") for layer in layers)]
    missing = [layer for layer in layers if not any(name.startswith(f"/{layer}/") for name in found)]
    if missing:
        raise UserError(f"{model_path} has no layer {', '.join(missing)}: name layers as model.N")
    return found


def quantize_model(
    source: Path,
    target: Path,
    images: Sequence[np.ndarray],
    count: int = 200,
    *,
    method: str = "minmax",
    full_range: bool = False,
    float_head_outputs: bool = False,
    float_layers: Sequence[str] = (),
) -> Path:
    """Write a QDQ int8 copy of ``source`` at ``target``, calibrated on crops of ``images``.

    ``method``: how activation ranges are set from the calibration crops (``minmax`` or
    ``percentile``, which ignores the rarest 0.001 % of values). ``full_range``: 8-bit weights
    instead of 7 (safe only on CPUs with VNNI or ARM dot products). ``float_layers``: layers kept
    in float by their export name (``model.0``: the first convolution, which sees raw pixels)."""
    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    session = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"])
    model_input = session.get_inputs()[0]
    size = model_input.shape[2] if isinstance(model_input.shape[2], int) else 320

    class Crops(CalibrationDataReader):
        def __init__(self) -> None:
            self.crops = calibration_crops(images, count)

        def get_next(self) -> dict[str, np.ndarray] | None:
            crop = next(self.crops, None)
            if crop is None:
                return None
            return {model_input.name: to_blob(Letterbox.fit(crop.shape, size).apply(crop))}

    calibration = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile}
    if method not in calibration:
        raise UserError(f"unknown calibration method {method!r}: use minmax or percentile")
    excluded = head_tail_nodes(source) + (head_output_convs(source) if float_head_outputs else [])
    excluded += layer_nodes(source, float_layers)
    prepared = target.with_name(target.stem + ".prep.onnx")
    try:
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(target),
            Crops(),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=not full_range,  # 7-bit weights: no u8×s8 saturation on AVX2 CPUs without VNNI
            calibrate_method=calibration[method],
            nodes_to_exclude=excluded,
            extra_options={"CalibPercentile": 99.999},
        )
    finally:
        prepared.unlink(missing_ok=True)
    metadata = source.with_suffix(".json")
    if metadata.is_file():
        card = json.loads(metadata.read_text(encoding="utf-8"))
        card["precision"] = "int8"
        card["quantised"] = (
            f"from {source.name}: static QDQ, {count} calibration crops, {method} ranges, "
            f"{'8' if full_range else '7'}-bit weights"
            + (", head outputs in float" if float_head_outputs else "")
            + (f", float layers {', '.join(float_layers)}" if float_layers else "")
        )
        target.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    from referee.vision.images import collect_images, iter_images

    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.quantize", description=__doc__.split("\n")[0]
    )
    parser.add_argument("source", type=Path, help="float ONNX model")
    parser.add_argument("target", type=Path, help="int8 ONNX model to write")
    parser.add_argument("--images", nargs="+", required=True, help="calibration pictures or folders")
    parser.add_argument("--count", type=int, default=200, help="calibration crops (default 200)")
    parser.add_argument(
        "--method",
        choices=("minmax", "percentile"),
        default="minmax",
        help="activation ranges (default minmax)",
    )
    parser.add_argument("--full-range", action="store_true", help="8-bit weights (VNNI or ARM dot products)")
    parser.add_argument(
        "--float-layer", action="append", default=[], metavar="model.N", help="keep this layer in float"
    )
    parser.add_argument(
        "--float-head-outputs", action="store_true", help="keep the head's last convolutions in float"
    )
    args = parser.parse_args(argv)
    try:
        if not args.source.is_file():
            raise UserError(f"no model at {args.source}")
        skipped: list[str] = []
        images = [image for _, image in iter_images(collect_images(args.images), skipped)]
        if not images:
            raise UserError("no readable calibration pictures")
        path = quantize_model(
            args.source,
            args.target,
            images,
            args.count,
            method=args.method,
            full_range=args.full_range,
            float_head_outputs=args.float_head_outputs,
            float_layers=args.float_layer,
        )
    except UserError as error:
        print(f"quantize: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
