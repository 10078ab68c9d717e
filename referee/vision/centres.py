"""The centre reader: the big symbol in the middle of a card, as a second opinion on its corners.

A card's corner indices are small: at the table camera's scale an index is 15–30 px, and a glyph of a
print no network saw (an off-brand 5 whose bowl nearly closes, a recent print's diagonal reverse
arrows) is misread there. The same card prints its symbol again in the middle, three to five times
as large. Once the reader has paired a card's two corners it knows the card's frame
(:func:`referee.vision.pairs.card_frame`), and so where that big symbol lies.

:func:`centre_patch` cuts :data:`CENTRE_REGION` of the card as a :data:`CENTRE_PX` square; a small
network (the glyph classifier's design, trained beside the runtime on rendered scenes by
``python -m referee.lab.centre_data``) names the symbol there, or answers "no centre" where another card,
a hand or the picture's edge hides it. Like the glyph classifier it reads a card at any turn: which of
the two corners is the card's top-left one is unknown, so each card is looked at both ways round and
the two answers averaged (a 6 and a 9 differ by their underline, as at the corners).

>>> image = np.zeros((200, 200, 3), np.uint8)
>>> centre_patch(image, (60.0, 50.0), (140.0, 150.0)).shape
(40, 40, 3)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models import CENTRE_MODEL_FILE, model_file
from referee.errors import UserError
from referee.vision.classes import SYMBOL_CLASSES
from referee.vision.glyphs import load_optional_check, open_crop_model
from referee.vision.pairs import CARD_ASPECT, Region, both_ways_round, card_patch

#: The reader's answers: a symbol, or no centre to read.
NO_CENTRE = "no centre"
CENTRE_CLASSES: tuple[str, ...] = (*SYMBOL_CLASSES, NO_CENTRE)
CENTRE_PX = 40
#: The middle 0.9 × 0.9 card widths of a card (card units: width 1, height :data:`CARD_ASPECT`):
#: every rendered print family's centre symbol, numeral or picture, lies within it.
CENTRE_REGION: Region = (0.05, CARD_ASPECT / 2 - 0.45, 0.95, CARD_ASPECT / 2 + 0.45)
#: The shipped reader, beside the detector (used where present).
DEFAULT_CENTRE_MODEL = model_file(CENTRE_MODEL_FILE)


def centre_patch(
    image_bgr: np.ndarray, first: tuple[float, float], second: tuple[float, float]
) -> np.ndarray:
    """The :data:`CENTRE_PX` square the centre reader sees for a card whose corner indices are
    centred at ``first`` (taken as its top-left one) and ``second``."""
    return card_patch(image_bgr, first, second, CENTRE_PX, CENTRE_REGION)


class CentreReader:
    """The centre reader over onnxruntime; ``read(image, cards)`` → one belief row per card."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session, _, self.info = open_crop_model(path, threads, "centre model", "--centre-model")
        if tuple(self.info.get("classes", ())) != CENTRE_CLASSES:
            raise UserError(f"centre model {path} does not answer the card symbols and {NO_CENTRE!r}")
        self.path = path

    def read(
        self,
        image_bgr: np.ndarray,
        cards: list[tuple[tuple[float, float], tuple[float, float]]],
    ) -> np.ndarray:
        """(N, len(CENTRE_CLASSES)) what each card's centre shows, for cards given by their two index
        centres: each looked at both ways round (the patch half-turned) and the answers averaged."""
        if not cards:
            return np.zeros((0, len(CENTRE_CLASSES)), np.float32)
        return both_ways_round(self._session, np.stack([centre_patch(image_bgr, a, b) for a, b in cards]))


def load_centre_reader(path: Path | str | None = None, threads: int = 1) -> CentreReader | None:
    """The reader at ``path`` (a one-line error when it is missing); "none": no reader; None or "":
    the shipped one where it is installed, else none (cards are then read from their corners alone)."""
    return load_optional_check(path, DEFAULT_CENTRE_MODEL, CentreReader, threads)
