"""``uno-referee detect PATH...``: the cards in pictures, as a table or as JSON lines.

With ``--json`` every picture gives exactly one line::

    {"image": "<path as given>", "cards": [{"card": "red-7", "confidence": 0.97,
     "box": [x1, y1, x2, y2], "colour_from": "hue"}]}

An unreadable file inside a folder is reported on stderr (one line) and skipped; the exit status
is then 1. A missing path, an unreadable file named directly or a missing model is an error (2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from referee.vision.options import add_detector_arguments, add_reader_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "detect",
        help="recognise the face-up cards in pictures",
        description="Recognise the face-up UNO cards in pictures (files or folders of pictures).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="picture files or folders of pictures")
    parser.add_argument("--json", action="store_true", help="one JSON object per picture per line")
    parser.add_argument("--annotate", type=Path, metavar="DIR", help="also write annotated pictures into DIR")
    add_detector_arguments(parser, threads=min(4, os.cpu_count() or 1))
    add_reader_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from calibration.markers import marker_outlines, on_a_marker
    from referee.errors import UserError
    from referee.vision.annotate import annotate
    from referee.vision.images import collect_images, iter_images
    from referee.vision.options import reader_from_args, tiles_from_args

    sources = collect_images(args.paths)
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot create --annotate folder {args.annotate}: {error.strerror}") from error
    reader = reader_from_args(args)
    tiles = tiles_from_args(args)
    skipped: list[str] = []
    reported = 0
    written: set[str] = set()
    for source, image in iter_images(sources, skipped):
        reported = _report_skipped(skipped, reported)
        cards = reader.read(image, tiles=tiles)
        if cards:  # a whole table's calibration markers look like wild indices: they are no cards
            outlines = marker_outlines(image)
            cards = [card for card in cards if not any(on_a_marker(d.centre, outlines) for d in card.indices)]
        if args.json:
            record = {"image": source.shown, "cards": [card.to_json() for card in cards]}
            print(json.dumps(record), flush=True)
        else:
            print(_table(source.shown, cards), flush=True)
        if args.annotate is not None:
            target = _annotation_path(args.annotate, source.path, written)
            if not cv2.imwrite(str(target), annotate(image, cards)):
                raise UserError(f"cannot write {target}: check that --annotate {args.annotate} is writable")
    reported = _report_skipped(skipped, reported)
    return 1 if reported else 0


def _report_skipped(skipped: list[str], reported: int) -> int:
    """Print the newly skipped pictures, one line each, as they occur; returns how many so far."""
    for message in skipped[reported:]:
        print(f"uno-referee: skipped: {message}", file=sys.stderr, flush=True)
    return len(skipped)


def _table(shown: str, cards: list) -> str:
    """A human-readable block: the picture, then one card per line."""
    if not cards:
        return f"{shown}: no cards"
    lines = [f"{shown}: {len(cards)} card{'s' if len(cards) != 1 else ''}"]
    for card in cards:
        box = ", ".join(f"{v:.0f}" for v in card.box)
        lines.append(
            f"  {card.name:<14} {card.confidence:5.2f}  colour from {card.colour_from:<6}  box [{box}]"
        )
    return "\n".join(lines)


def _annotation_path(folder: Path, source: Path, written: set[str]) -> Path:
    """``DIR/<stem>.jpg``, numbered when two inputs share a stem."""
    stem, number = source.stem, 1
    while (name := f"{stem}.jpg" if number == 1 else f"{stem}-{number}.jpg") in written:
        number += 1
    written.add(name)
    return folder / name
