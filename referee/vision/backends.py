"""Detector backends behind one small interface: ``Detector.detect(image_bgr) -> list[Detection]``.

Three engines run the same exported YOLO11 ONNX file: ``onnxruntime`` (the default, what the Pi
runs), ``opencv-dnn`` (no extra dependency beyond OpenCV) and ``ultralytics`` (a reference for
checking the other two; offered only where it is installed, it pulls in torch). The first two share
the letterbox and decoding in :mod:`referee.vision.detection`, so they differ only in the engine.

None of this imports torch: the Pi has none.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import logging
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np

from referee.errors import UserError
from referee.vision.classes import CLASS_NAMES
from referee.vision.detection import Detection, Letterbox, decode_yolo, to_blob

DEFAULT_BACKEND = "onnxruntime"
DEFAULT_CONF = 0.25
DEFAULT_IOU = 0.5
#: Input size when neither the model nor the caller fixes one (the training recipe's 320 px).
DEFAULT_IMGSZ = 320


@dataclass(frozen=True)
class ModelInfo:
    """What the runtime needs to know about a detector file besides its weights."""

    path: Path
    class_names: tuple[str, ...]
    imgsz: int
    fixed_input: bool  # True when the ONNX input has a static height/width (then imgsz is that size)
    version: str = ""
    trained_on: str = ""
    #: Real decks whose photos it trained on (folder names, e.g. uno-cards-roboflow): scores on these
    #: are "seen", never leave-one-deck-out figures.
    decks_seen: tuple[str, ...] = ()


def _check_input_size(size: int) -> None:
    if size % 32 or size <= 0:
        raise UserError(
            f"input size {size} is not a multiple of 32 (the network's stride): use e.g. 224, 256, 320"
        )


def _check_model_file(path: Path) -> None:
    from models import QUANTISED_MODEL_FILE

    if path.is_file():
        return
    if path.name == QUANTISED_MODEL_FILE:
        raise UserError(
            f"no int8 detector at {path}: write it with `python -m referee.lab.quantize` "
            '(docs/hardware.md §8) or use the float one ([detector] precision = "float", --precision float)'
        )
    raise UserError(
        f"no detector model at {path}: put the trained uno_cards.onnx there, "
        "set UNO_REFEREE_MODEL, or pass --model PATH"
    )


def _unreadable_model(path: Path, error: Exception) -> UserError:
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return UserError(
        f"cannot load the detector model {path} ({reason[:160]}): re-export it as ONNX or pass --model PATH"
    )


def _sidecar_metadata(path: Path) -> dict[str, Any]:
    """``uno_cards.json`` beside ``uno_cards.onnx``, as the training recipe writes it (may be absent)."""
    sidecar = path.with_suffix(".json")
    if not sidecar.is_file():
        return {}
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"model metadata {sidecar} is not valid JSON ({error}): fix or delete it") from error
    if not isinstance(data, dict):
        raise UserError(f"model metadata {sidecar} must be a JSON object with 'names' and 'imgsz'")
    return data


def _ultralytics_metadata(custom: dict[str, str]) -> dict[str, Any]:
    """The ``names``/``imgsz`` that an Ultralytics export stores in the ONNX metadata, as plain values."""
    data: dict[str, Any] = {}
    try:
        if "names" in custom:
            names = ast.literal_eval(custom["names"])
            data["names"] = [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)
        if "imgsz" in custom:
            imgsz = ast.literal_eval(custom["imgsz"])
            data["imgsz"] = max(imgsz) if isinstance(imgsz, list | tuple) else int(imgsz)
        if "version" in custom:
            data["version"] = f"ultralytics {custom['version']}"
    except (ValueError, SyntaxError, KeyError, TypeError):
        return {}
    return data


def model_info(
    path: Path, input_shape: list[Any], output_rows: int | None, embedded: dict[str, str], imgsz: int | None
) -> ModelInfo:
    """Combine the sidecar JSON, the ONNX's own metadata and its tensor shapes into one record.

    The sidecar wins (the training recipe writes it on purpose); class names default to ours when
    the output has exactly our class count.
    """
    metadata = {**_ultralytics_metadata(embedded), **_sidecar_metadata(path)}
    names = tuple(str(name) for name in metadata.get("names", ()))
    if not names:
        if output_rows is not None and output_rows - 4 != len(CLASS_NAMES):
            raise UserError(
                f"model {path} predicts {output_rows - 4} classes and names none: "
                f"write {path.with_suffix('.json')} with a 'names' list"
            )
        names = CLASS_NAMES
    if output_rows is not None and output_rows != 4 + len(names):
        raise UserError(
            f"model {path} outputs {output_rows} rows but its metadata names {len(names)} classes "
            f"(expected 4 + {len(names)}): re-export it or fix {path.with_suffix('.json')}"
        )
    height, width = (input_shape[2], input_shape[3]) if len(input_shape) == 4 else (None, None)
    fixed = isinstance(height, int) and isinstance(width, int)
    if fixed:
        if height != width:
            raise UserError(f"model {path} has a non-square input {height}×{width}: export it square")
        if imgsz is not None and imgsz != height:
            raise UserError(
                f"model {path} has a fixed {height} px input, not {imgsz}: "
                f"leave --imgsz out or export the model with dynamic=True (or at imgsz={imgsz})"
            )
        size = int(height)
    else:
        size = imgsz or int(metadata.get("imgsz") or DEFAULT_IMGSZ)
    _check_input_size(size)
    return ModelInfo(
        path=path,
        class_names=names,
        imgsz=size,
        fixed_input=fixed,
        version=str(metadata.get("version", "")),
        trained_on=str(metadata.get("trained_on", "")),
        decks_seen=tuple(str(deck) for deck in metadata.get("decks_seen", [])),
    )


class Detector(ABC):
    """Runs a YOLO11 corner-index detector on a BGR image; boxes come back in the image's pixels."""

    backend: ClassVar[str]

    def __init__(
        self,
        model_path: Path | str,
        *,
        imgsz: int | None = None,
        conf: float = DEFAULT_CONF,
        iou: float = DEFAULT_IOU,
        threads: int = 1,
    ) -> None:
        self.model_path = Path(model_path)
        _check_model_file(self.model_path)
        if not 0.0 < conf < 1.0 or not 0.0 < iou <= 1.0:
            raise UserError(f"confidence {conf} and IoU {iou} thresholds must lie between 0 and 1")
        if threads < 1:
            raise UserError(f"threads must be at least 1, not {threads}")
        self.conf, self.iou, self.threads = conf, iou, threads
        self.info = self._load(imgsz)

    @property
    def class_names(self) -> tuple[str, ...]:
        return self.info.class_names

    @property
    def imgsz(self) -> int:
        return self.info.imgsz

    def at_input(self, imgsz: int) -> Detector:
        """The same loaded network fed pictures of ``imgsz`` px (weights and session shared): the
        pile watcher reads its small, fixed zone at a smaller input than photos are read at."""
        if imgsz == self.imgsz:
            return self
        if self.info.fixed_input:
            raise UserError(
                f"model {self.model_path} has a fixed {self.imgsz} px input, not {imgsz}: "
                f"set detector.pile_imgsz = {self.imgsz} or export the model with dynamic=True"
            )
        _check_input_size(imgsz)
        resized = copy.copy(self)
        resized.info = replace(self.info, imgsz=imgsz)
        return resized

    def at_confidence(self, conf: float) -> Detector:
        """The same loaded network reporting boxes down to score ``conf`` (weights and session
        shared): a reader with a learnt deck reads weaker proposals where the deck vouches for them."""
        if not 0.0 < conf < 1.0:
            raise UserError(f"confidence {conf} must lie between 0 and 1")
        lowered = copy.copy(self)
        lowered.conf = conf
        return lowered

    @abstractmethod
    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """Index and colour-blind-symbol boxes found in one BGR picture, best score first."""

    @abstractmethod
    def _load(self, imgsz: int | None) -> ModelInfo:
        """Open the model file (raising UserError when it cannot) and describe it."""


class LetterboxDetector(Detector):
    """A backend that only runs the network: letterbox and decoding are ours, shared by all."""

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        letterbox = Letterbox.fit(image_bgr.shape, self.imgsz)
        output = self._infer(to_blob(letterbox.apply(image_bgr)))
        return decode_yolo(output, letterbox, self.class_names, self.conf, self.iou)

    @abstractmethod
    def _infer(self, blob: np.ndarray) -> np.ndarray:
        """The raw ``(1, 4 + nc, anchors)`` output for a ``(1, 3, S, S)`` blob."""


class OnnxRuntimeDetector(LetterboxDetector):
    """onnxruntime on the CPU: the fastest here and on the Pi's ARM cores; the default."""

    backend = "onnxruntime"

    def _load(self, imgsz: int | None) -> ModelInfo:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # warnings about unused initialisers are noise to the user
        try:
            self.session = ort.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own untyped errors for bad files
            raise _unreadable_model(self.model_path, error) from error
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        rows = self.session.get_outputs()[0].shape[1]
        embedded = dict(self.session.get_modelmeta().custom_metadata_map)
        return model_info(
            self.model_path, list(model_input.shape), rows if isinstance(rows, int) else None, embedded, imgsz
        )

    def _infer(self, blob: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: blob})[0]


class OpenCvDnnDetector(LetterboxDetector):
    """OpenCV's DNN module: slower than onnxruntime here, but needs nothing besides OpenCV."""

    backend = "opencv-dnn"

    def _load(self, imgsz: int | None) -> ModelInfo:
        cv2.setNumThreads(self.threads)  # process-wide in OpenCV; the bench measures one thread
        try:
            self.net = cv2.dnn.readNetFromONNX(str(self.model_path))
        except cv2.error as error:
            raise _unreadable_model(self.model_path, error) from error
        # OpenCV exposes neither the input shape nor the metadata: ask onnxruntime (a dependency anyway).
        probe = OnnxRuntimeDetector(self.model_path, imgsz=imgsz, conf=self.conf, iou=self.iou)
        return probe.info

    def _infer(self, blob: np.ndarray) -> np.ndarray:
        self.net.setInput(blob)
        return self.net.forward()


class UltralyticsDetector(Detector):
    """Ultralytics' own predictor (imports torch): a reference to check the lean backends against."""

    backend = "ultralytics"

    def _load(self, imgsz: int | None) -> ModelInfo:
        # Importing ultralytics looks for the network unless told not to (the referee never downloads),
        # and each model load is logged on stdout, where it would mix into a command's own output.
        os.environ.setdefault("YOLO_OFFLINE", "1")
        os.environ.setdefault("YOLO_AUTOINSTALL", "0")
        os.environ.setdefault("YOLO_VERBOSE", "False")
        import torch
        from ultralytics import YOLO

        logging.getLogger("ultralytics").setLevel(logging.WARNING)

        torch.set_num_threads(self.threads)

        try:
            self.model = YOLO(str(self.model_path), task="detect")
        except Exception as error:  # Ultralytics raises many types for bad files
            raise _unreadable_model(self.model_path, error) from error
        names = self.model.names
        class_names = tuple(names[i] for i in sorted(names)) if names else CLASS_NAMES
        if self.model_path.suffix == ".onnx":
            return OnnxRuntimeDetector(self.model_path, imgsz=imgsz).info
        return ModelInfo(self.model_path, class_names, imgsz or DEFAULT_IMGSZ, fixed_input=False)

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        result = self.model.predict(
            image_bgr, imgsz=self.imgsz, conf=self.conf, iou=self.iou, verbose=False, device="cpu"
        )[0]
        boxes = result.boxes
        return [
            Detection(
                tuple(float(v) for v in box), int(class_id), self.class_names[int(class_id)], float(score)
            )
            for box, class_id, score in zip(
                boxes.xyxy.numpy(), boxes.cls.numpy(), boxes.conf.numpy(), strict=True
            )
        ]


BACKENDS: dict[str, type[Detector]] = {
    cls.backend: cls for cls in (OnnxRuntimeDetector, OpenCvDnnDetector, UltralyticsDetector)
}


def available_backends() -> list[str]:
    """Backends whose engine is installed here (checked without importing: ultralytics means torch)."""
    required = {"onnxruntime": "onnxruntime", "opencv-dnn": "cv2", "ultralytics": "ultralytics"}
    return [name for name in BACKENDS if importlib.util.find_spec(required[name]) is not None]


def load_detector(
    model_path: Path | str | None = None,
    backend: str = DEFAULT_BACKEND,
    *,
    imgsz: int | None = None,
    conf: float = DEFAULT_CONF,
    iou: float = DEFAULT_IOU,
    threads: int = 1,
) -> Detector:
    """The detector for ``model_path`` (default: the shipped model) on ``backend``."""
    from models import default_model_path

    if backend not in BACKENDS:
        raise UserError(f"unknown detector backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend not in available_backends():
        raise UserError(f"backend {backend!r} is not installed here: pip install uno-referee[train]")
    path = Path(model_path) if model_path is not None else default_model_path()
    return BACKENDS[backend](path, imgsz=imgsz, conf=conf, iou=iou, threads=threads)
