"""The glyph classifier alone on a real deck's labelled index boxes: how well it names glyphs it
never trained on, on every box of a deck rather than on one card per photo.

``uno-referee eval --real`` scores whole cards, one named card per photo: 60 Roboflow validation
photos, so one photo is 0.017 of the figure. The same photos label 900 index boxes. Each box, cut
as the reader cuts it and read in four quarter turns as the reader reads it (:data:`VIEWS`), is named
by each classifier given; a classifier whose card lists the deck among its ``decks_seen`` is marked
*seen*: its figure is no evidence about decks it never saw.

``python -m referee.lab.glyph_eval ../shared/data/uno-cards-roboflow/valid --roboflow MODEL.onnx …``
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import UserError
from referee.lab.evaluate import LabelledImage, labelled_images
from referee.lab.provenance import deck_name
from referee.vision.classes import CLASS_NAMES
from referee.vision.glyphs import GLYPH_CLASSES, GlyphClassifier
from referee.vision.images import read_image
from referee.vision.reader import ReaderSettings

VIEWS = ReaderSettings.glyph_views  # quarter turns averaged, as the reader reads at the table
SHOWN_CONFUSIONS = 6


@dataclass
class GlyphScore:
    """One classifier's reading of a deck's labelled boxes."""

    model: Path
    seen: bool  # the deck is among the decks the classifier trained on
    right: int = 0
    total: int = 0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)  # (labelled, read) → boxes

    @property
    def accuracy(self) -> float:
        return self.right / self.total if self.total else 0.0

    def line(self) -> str:
        """One line: the model, seen or unseen, the accuracy and its commonest mistakes."""
        mistakes = ", ".join(f"{a}→{b} ×{n}" for (a, b), n in self.confusions.most_common(SHOWN_CONFUSIONS))
        seen = "seen in training" if self.seen else "unseen"
        return f"{self.model} ({seen}): {self.right}/{self.total} = {self.accuracy:.4f}" + (
            f"; mistakes: {mistakes}" if mistakes else ""
        )


def score_glyphs(classifier: GlyphClassifier, items: list[LabelledImage], score: GlyphScore) -> GlyphScore:
    """Name every labelled index box of ``items`` with ``classifier`` and count into ``score``."""
    for item in items:
        image = read_image(item.path)
        rows = item.boxes(image.shape[1], image.shape[0])
        if not rows:
            continue
        probabilities = classifier.read(image, [box for _, box in rows], VIEWS).probabilities
        for (class_id, _), row in zip(rows, probabilities, strict=True):
            labelled, read = CLASS_NAMES[class_id], GLYPH_CLASSES[int(row.argmax())]
            score.total += 1
            if read == labelled:
                score.right += 1
            else:
                score.confusions[(labelled, read)] += 1
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.glyph_eval", description=__doc__.splitlines()[0]
    )
    parser.add_argument("deck", type=Path, help="a YOLO folder of real photos (images/, labels/)")
    parser.add_argument("models", type=Path, nargs="+", metavar="MODEL", help="glyph classifier .onnx files")
    parser.add_argument(
        "--roboflow", action="store_true", help="labels use the shared Roboflow set's class ids"
    )
    args = parser.parse_args(argv)
    try:
        if not (args.deck / "images").is_dir():
            raise UserError(f"{args.deck} has no images/ folder: give a YOLO folder of labelled photos")
        items = labelled_images(args.deck, roboflow=args.roboflow)
        deck = deck_name(args.deck)
        for model in args.models:
            classifier = GlyphClassifier(model)
            score = GlyphScore(model, deck in classifier.info.get("decks_seen", []))
            score_glyphs(classifier, items, score)
            if not score.total:
                raise UserError(f"{args.deck} labels no index box: nothing to score")
            print(score.line(), flush=True)
    except UserError as error:
        print(f"glyph_eval: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
