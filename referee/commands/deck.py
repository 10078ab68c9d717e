"""``uno-referee deck learn FOLDER --out DECK.json``: teach the referee the faces of your own deck.

``FOLDER`` holds one sub-folder per card name (``red-7/``, ``blue-reverse/``, ``wild/``,
``wild-draw4/`` …) with one or more photos of that face: one card per photo, any size or rotation.
Then ``uno-referee detect PATH... --deck DECK.json`` or ``[vision] deck = "DECK.json"`` in the config
for ``run`` and ``watch``. Every photo that teaches nothing is named on one line with the reason; the
rest is still learnt. Faces not shown are read by the general model, and the command lists them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from referee.vision.options import add_detector_arguments

if TYPE_CHECKING:
    from referee.vision.deck import LearntDeck


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "deck", help="learn your own deck's faces from photos (deck learn FOLDER --out DECK.json)"
    )
    actions = parser.add_subparsers(dest="deck_action", metavar="ACTION", required=True)
    learn = actions.add_parser(
        "learn",
        help="learn a deck from a folder with one sub-folder of photos per card name",
        description=__doc__.splitlines()[0],
    )
    learn.add_argument("folder", type=Path, help="one sub-folder per card name: red-7/, wild/, …")
    learn.add_argument("--out", type=Path, required=True, metavar="DECK.json", help="where to write the deck")
    learn.add_argument("--glyph-model", type=Path, help="glyph classifier ONNX (default: the shipped one)")
    learn.add_argument("--verbose", action="store_true", help="one line per photo learnt, too")
    add_detector_arguments(learn, threads=2)
    learn.set_defaults(handler=handle_learn)


def handle_learn(args: argparse.Namespace) -> int:
    import sys

    from referee.vision.deck import learn_deck
    from referee.vision.glyphs import load_glyph_classifier
    from referee.vision.options import detector_from_args
    from referee.vision.reader import CardReader

    started = time.monotonic()
    glyphs = load_glyph_classifier(args.glyph_model, threads=args.threads)
    reader = CardReader(detector_from_args(args), glyphs=glyphs)
    deck, problems = learn_deck(args.folder, reader.detect, glyphs, progress=print if args.verbose else None)
    for problem in problems:
        print(f"uno-referee: skipped: {problem}", file=sys.stderr)
    deck.save(args.out)
    print("\n".join(learnt_lines(deck, args.out, time.monotonic() - started)))
    return 1 if problems else 0


def learnt_lines(deck: LearntDeck, out: Path, seconds: float) -> list[str]:
    """What ``deck learn`` says of a deck it wrote: faces, photos, time, colours, colour-blind symbols,
    where; then the standard faces not shown, which the general model reads."""
    from referee.vision.deck import standard_faces

    symbols = {True: "; colour-blind symbols printed", False: "; no colour-blind symbols", None: ""}
    lines = [
        f"learnt {len(deck.faces)} faces from {sum(deck.photos.values())} photos in {seconds:.1f} s; colours "
        + ("learnt from the faces" if deck.colours else "not learnt (default colours)")
        + symbols[deck.colourblind_symbols]
        + f"; wrote {out}"
    ]
    missing = deck.missing(standard_faces())
    if missing:
        lines.append(f"not shown, read by the general model: {', '.join(missing)}")
    return lines
