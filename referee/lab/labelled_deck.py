"""Learn a deck from photos of several cards whose indices are labelled, for measuring ``deck learn``
on a deck that has no one-card photos (the shared Roboflow set: three fanned cards a photo).

``deck learn`` finds the corners of the one card in each photo. Here a photo holds several cards, so a
names file (``{"cards": {photo stem: "red-7"}}``, as ``uno-referee eval --named`` reads it) says which
card its first labelled index belongs to, and the detector's box over that index is what is learnt:
the same glyph crops and field colours :class:`DeckBuilder` learns from a one-card photo. Then::

    python -m referee.lab.labelled_deck ../shared/data/uno-cards-roboflow/train:NAMES.json --roboflow \\
        --out DECK.json --glyph-model models/lodo/roboflow/uno_glyphs.onnx \\
        --model models/lodo/roboflow/uno_cards.onnx
    uno-referee eval --real ../shared/data/uno-cards-roboflow/valid:tests/data/roboflow_valid_colours.json \\
        --roboflow --deck DECK.json --model … --glyph-model … --corner-model …

scores the deck on other photos (learn from ``train/``, score on ``valid/``), read by networks that
never saw the deck. ``--photos-per-face`` (default 1) caps the photos learnt per face, in file order.
``--rest REST.json`` writes the names of the named photos it did not learn from, so that the deck
can be scored on those too (``eval --real FOLDER:REST.json``): more photos of the same deck, none
of them taught.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from referee.errors import UserError
from referee.lab.evaluate import CARD_IOU, LabelledImage, index_overlap, labelled_images
from referee.vision.classes import SYMBOL_CLASSES
from referee.vision.deck import DeckBuilder, LearntDeck
from referee.vision.detection import Detection
from referee.vision.glyphs import GlyphClassifier
from referee.vision.reader import ReaderSettings, suppress_duplicates


class LabelledLearning(NamedTuple):
    """A deck learnt from labelled photos, one line per photo that taught nothing, and the photos
    that taught it."""

    deck: LearntDeck
    problems: list[str]
    taught: list[Path]


def learn_from_labels(
    photos: list[LabelledImage],
    detect: Callable[[np.ndarray], list[Detection]],
    glyphs: GlyphClassifier,
    *,
    source: str,
    photos_per_face: int = 1,
    settings: ReaderSettings | None = None,
) -> LabelledLearning:
    """The deck learnt from each named photo's named index, at most ``photos_per_face`` photos a face;
    one line per photo that taught nothing (the detector found no index over the label); and the
    photos learnt from."""
    from referee.vision.images import UnreadableImage, read_image

    settings = settings or ReaderSettings()
    builder = DeckBuilder(glyphs, source, settings)
    learnt: Counter[str] = Counter()
    problems: list[str] = []
    taught: list[Path] = []
    for photo in photos:
        if photo.named is None or not photo.named.boxes:
            raise UserError(f"{photo.path}: not named at a labelled index (give FOLDER:NAMES.json)")
        face = photo.named.name
        if learnt[face] >= photos_per_face:
            continue
        try:
            image = read_image(photo.path)
        except UnreadableImage as error:
            problems.append(f"{photo.path}: {error}")
            continue
        # The named index is the photo's first labelled one (as `eval --named` scores it), in pixels.
        (_, label), *_ = photo.boxes(image.shape[1], image.shape[0])
        detections = detect(image)
        indices = suppress_duplicates([d for d in detections if d.class_name in SYMBOL_CLASSES], settings)
        overlaps = index_overlap(label, np.asarray([d.box for d in indices], np.float64))
        if not indices or overlaps.max() < CARD_IOU:
            problems.append(f"{photo.path}: the detector found no index over the named {face}")
            continue
        builder.add(face, image, [indices[int(overlaps.argmax())]], detections)
        learnt[face] += 1
        taught.append(photo.path)
    return LabelledLearning(builder.build(problems), problems, taught)


def untaught_names(photos: list[LabelledImage], taught: list[Path]) -> dict[str, str]:
    """The names file (``{stem: card}``) of the named photos not learnt from."""
    learnt = set(taught)
    return {p.path.stem: p.named.name for p in photos if p.named is not None and p.path not in learnt}


def main(argv: list[str] | None = None) -> int:
    from referee.commands.deck import learnt_lines
    from referee.vision.glyphs import load_glyph_classifier
    from referee.vision.options import add_detector_arguments, detector_from_args
    from referee.vision.reader import CardReader

    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.labelled_deck", description=__doc__.splitlines()[0]
    )
    parser.add_argument("photos", metavar="FOLDER:NAMES", help="a YOLO folder of photos and a names file")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DECK.json", help="where to write the deck"
    )
    parser.add_argument(
        "--roboflow", action="store_true", help="labels use the shared Roboflow set's class ids"
    )
    parser.add_argument("--photos-per-face", type=int, default=1, help="photos learnt per face (default 1)")
    parser.add_argument(
        "--rest",
        type=Path,
        metavar="REST.json",
        help="also write the names of the named photos not learnt from, to score the deck on them",
    )
    parser.add_argument("--glyph-model", type=Path, help="glyph classifier ONNX (default: the shipped one)")
    add_detector_arguments(parser, threads=2)
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        folder, _, names = args.photos.partition(":")
        if not names:
            raise UserError(f"{args.photos}: name the photos' cards with FOLDER:NAMES.json")
        if args.photos_per_face < 1:
            raise UserError(f"--photos-per-face must be at least 1, not {args.photos_per_face}")
        photos = labelled_images(Path(folder), roboflow=args.roboflow, named=Path(names))
        glyphs = load_glyph_classifier(args.glyph_model, threads=args.threads)
        reader = CardReader(detector_from_args(args), glyphs=glyphs)
        deck, problems, taught = learn_from_labels(
            photos, reader.detect, glyphs, source=args.photos, photos_per_face=args.photos_per_face
        )
        deck.save(args.out)
        if args.rest is not None:
            rest = untaught_names(photos, taught)
            about = f"Photos of {folder} named in {names} that the deck {args.out} did not learn from."
            try:
                args.rest.write_text(json.dumps({"about": about, "cards": rest}, indent=1) + "\n")
            except OSError as error:
                raise UserError(f"cannot write {args.rest}: {error.strerror}") from error
    except UserError as error:
        print(f"labelled_deck: error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"labelled_deck: skipped: {problem}", file=sys.stderr)
    print("\n".join(learnt_lines(deck, args.out, time.monotonic() - started)))
    if args.rest is not None:
        print(f"named {len(rest)} photos not learnt from in {args.rest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
