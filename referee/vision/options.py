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
    from referee.vision.centres import CentreReader
    from referee.vision.corners import CornerCheck
    from referee.vision.deck import LearntDeck
    from referee.vision.glyphs import GlyphClassifier
    from referee.vision.pairs import PairCheck
    from referee.vision.reader import CardReader

TILING_CHOICES = ("auto", "always", "never")


def add_detector_arguments(parser: argparse.ArgumentParser, threads: int, backend: bool = True) -> None:
    """``--model [--backend] --precision --conf --iou --imgsz --threads``."""
    from models import PRECISIONS

    parser.add_argument(
        "--model", type=Path, help="detector ONNX file (default: the shipped model or $UNO_REFEREE_MODEL)"
    )
    if backend:
        parser.add_argument(
            "--backend",
            default="onnxruntime",
            help="onnxruntime (default), opencv-dnn, or ultralytics if installed",
        )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default=PRECISIONS[0],
        help="the shipped detector's weights: float (default) or int8 (faster on CPUs with 8-bit dot "
        "products; the model card gives its accuracy); ignored with --model",
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
    """``--colours --deck --glyph-model --corner-model --pair-model --centre-model --cards-of --tiles``, on
    top of the detector's."""
    parser.add_argument("--colours", type=Path, help="colour model JSON written by colour calibration")
    parser.add_argument(
        "--deck", type=Path, metavar="DECK.json", help="your own deck, learnt by `uno-referee deck learn`"
    )
    parser.add_argument(
        "--glyph-model",
        type=Path,
        help="glyph classifier ONNX (default: the shipped one; 'none' reads with the detector alone)",
    )
    parser.add_argument(
        "--corner-model",
        type=Path,
        help="card-corner check ONNX (default: the shipped one where installed; 'none': without it)",
    )
    parser.add_argument(
        "--pair-model",
        type=Path,
        help="pair check ONNX (default: the shipped one where installed; 'none': without it)",
    )
    parser.add_argument(
        "--centre-model",
        type=Path,
        help="centre reader ONNX (default: the shipped one where installed; 'none': without it)",
    )
    parser.add_argument(
        "--cards-of",
        metavar="PRESET",
        help="read only the cards of this rules preset's deck (official: the 108 cards, no wild-swap); "
        "default: every card the model knows",
    )
    parser.add_argument(
        "--tiles",
        choices=TILING_CHOICES,
        default="auto",
        help="cut large pictures into tiles: auto (default: when indices would get too small), always, never",
    )


def model_from_args(args: argparse.Namespace) -> Path:
    """``--model``, else the shipped detector in ``--precision``."""
    from models import PRECISIONS, default_model_path

    return args.model or default_model_path(getattr(args, "precision", PRECISIONS[0]))


def detector_from_args(args: argparse.Namespace) -> Detector:
    """The detector the options describe (one-line errors for bad paths and values)."""
    from referee.vision.backends import load_detector

    return load_detector(
        model_from_args(args),
        args.backend,
        imgsz=args.imgsz,
        conf=args.conf,
        iou=args.iou,
        threads=args.threads,
    )


def reader_from_args(args: argparse.Namespace) -> CardReader:
    """The card reader the options describe."""
    from referee.vision.colour import ColourModel
    from referee.vision.reader import CardReader

    colours = ColourModel.load(args.colours) if args.colours else None
    return CardReader(
        detector_from_args(args),
        colours,
        glyphs=glyphs_from_args(args),
        deck=deck_from_args(args),
        symbols=symbols_from_args(args),
        corners=corners_from_args(args),
        pairs=pairs_from_args(args),
        centres=centres_from_args(args),
    )


def symbols_from_args(args: argparse.Namespace) -> frozenset[str] | None:
    """The symbols ``--cards-of`` allows (None: all); an unknown preset is a one-line error."""
    preset = getattr(args, "cards_of", None)
    if preset is None:
        return None
    from referee.errors import UserError
    from referee.rules.options import OptionError, Rules
    from referee.vision.classes import symbols_in_play

    try:
        return symbols_in_play(Rules.preset(preset))
    except OptionError as error:
        raise UserError(f"--cards-of: {error}") from error


def glyphs_from_args(args: argparse.Namespace) -> GlyphClassifier | None:
    """The glyph classifier ``--glyph-model`` names (``none``: none), else the shipped one."""
    from referee.vision.glyphs import load_glyph_classifier

    chosen = getattr(args, "glyph_model", None)
    if chosen is not None and str(chosen).lower() == "none":
        if getattr(args, "deck", None) is not None:
            from referee.errors import UserError

            raise UserError("--deck needs the glyph classifier: drop --glyph-model none")
        return None
    return load_glyph_classifier(chosen, threads=getattr(args, "threads", 1))


def corners_from_args(args: argparse.Namespace) -> CornerCheck | None:
    """The card-corner check ``--corner-model`` names (``none``: none), else the shipped one if any."""
    from referee.vision.corners import load_corner_check

    return load_corner_check(getattr(args, "corner_model", None), threads=getattr(args, "threads", 1))


def pairs_from_args(args: argparse.Namespace) -> PairCheck | None:
    """The pair check ``--pair-model`` names (``none``: none), else the shipped one if any."""
    from referee.vision.pairs import load_pair_check

    return load_pair_check(getattr(args, "pair_model", None), threads=getattr(args, "threads", 1))


def centres_from_args(args: argparse.Namespace) -> CentreReader | None:
    """The centre reader ``--centre-model`` names (``none``: none), else the shipped one if any."""
    from referee.vision.centres import load_centre_reader

    return load_centre_reader(getattr(args, "centre_model", None), threads=getattr(args, "threads", 1))


def deck_from_args(args: argparse.Namespace) -> LearntDeck | None:
    """The learnt deck ``--deck`` names, if any."""
    from referee.vision.deck import LearntDeck

    path = getattr(args, "deck", None)
    return LearntDeck.load(path) if path is not None else None


def tiles_from_args(args: argparse.Namespace) -> bool | None:
    """``--tiles`` as the reader's ``tiles`` argument."""
    return {"auto": None, "always": True, "never": False}[args.tiles]
