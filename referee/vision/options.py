"""Command-line options shared by ``detect``, ``eval`` and ``bench vision``, and the reader they build.

Only argparse here at import time: the CLI builds every parser on start-up, and OpenCV or
onnxruntime are imported when a command actually runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.vision.backends import Detector
    from referee.vision.reader import CardReader

TILING_CHOICES = ("auto", "always", "never")


def add_detector_arguments(parser: argparse.ArgumentParser, threads: int, backend: bool = True) -> None:
    """``--model [--backend] --conf --iou --imgsz --threads``."""
    parser.add_argument(
        "--model", type=Path, help="detector ONNX file (default: the shipped model or $UNO_REFEREE_MODEL)"
    )
    if backend:
        parser.add_argument(
            "--backend",
            default="onnxruntime",
            help="onnxruntime (default), opencv-dnn, or ultralytics if installed",
        )
    parser.add_argument("--conf", type=float, default=0.25, help="minimum detection score (default 0.25)")
    parser.add_argument("--iou", type=float, default=0.5, help="NMS overlap threshold (default 0.5)")
    parser.add_argument(
        "--imgsz",
        type=int,
        help="network input size for a model exported with dynamic=True (default: its own)",
    )
    parser.add_argument("--threads", type=int, default=threads, help=f"CPU threads (default {threads})")


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    """``--colours --tiles``, on top of the detector's options."""
    parser.add_argument("--colours", type=Path, help="colour model JSON written by colour calibration")
    parser.add_argument(
        "--tiles",
        choices=TILING_CHOICES,
        default="auto",
        help="cut large pictures into tiles: auto (default: when indices would get too small), always, never",
    )


def detector_from_args(args: argparse.Namespace) -> Detector:
    """The detector the options describe (one-line errors for bad paths and values)."""
    from referee.vision.backends import load_detector

    return load_detector(
        args.model, args.backend, imgsz=args.imgsz, conf=args.conf, iou=args.iou, threads=args.threads
    )


def reader_from_args(args: argparse.Namespace) -> CardReader:
    """The card reader the options describe."""
    from referee.vision.colour import ColourModel
    from referee.vision.reader import CardReader

    colours = ColourModel.load(args.colours) if args.colours else None
    return CardReader(detector_from_args(args), colours)


def tiles_from_args(args: argparse.Namespace) -> bool | None:
    """``--tiles`` as the reader's ``tiles`` argument."""
    return {"auto": None, "always": True, "never": False}[args.tiles]
