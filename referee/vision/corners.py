"""The card-corner check: a wider look at each box the detector proposes: is a card around it?

The glyph classifier (:mod:`referee.vision.glyphs`) sees a box with half a box of margin: enough to
read a glyph, too little to tell a card's corner index from a phone's clock, a score sheet's digits or
a poker card's rank, which print the same numerals. This network sees :attr:`CornerCheck.context`
(3) box sides around the box: a card's white border and rounded corner, or a phone's bezel, a ruled
sheet, the rest of the clock. It answers one thing, how sure it is that the box is *not* a card's
corner index, and the reader drops boxes it is sure of (``ReaderSettings.corner_reject``).

It is trained beside the runtime on the detector's own boxes, true and false, on rendered scenes and
the Roboflow training photos (``python -m referee.lab.glyph_data OUT --mine DETECTOR --context 3``,
then ``python -m referee.lab.glyph_training OUT --corners``), and runs on onnxruntime. Optional: a
reader without it reads as before.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models import CORNER_MODEL_FILE, model_file
from referee.errors import UserError
from referee.vision.glyphs import crops_blob, glyph_crop, load_optional_check, open_crop_model

#: The check's two answers.
CORNER_CLASSES: tuple[str, ...] = ("index", "background")
#: The shipped check, beside the detector (used where present).
DEFAULT_CORNER_MODEL = model_file(CORNER_MODEL_FILE)


class CornerCheck:
    """The card-corner check over onnxruntime; ``not_corner(image, boxes)`` → one share per box."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session, _, self.info = open_crop_model(path, threads, "corner model", "--corner-model")
        if tuple(self.info.get("classes", ())) != CORNER_CLASSES or "context" not in self.info:
            raise UserError(f"corner model {path} has no card naming classes {CORNER_CLASSES} and a context")
        self.path = path
        self.context = float(self.info["context"])
        self._input = self._session.get_inputs()[0].name

    def not_corner(self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
        """(N,) how sure the check is that each box (xyxy, image pixels) is no card's corner index."""
        if not boxes:
            return np.zeros(0, np.float32)
        crops = np.stack([glyph_crop(image_bgr, box, self.context) for box in boxes])
        (probabilities,) = self._session.run(["probabilities"], {self._input: crops_blob(crops)})
        return probabilities[:, CORNER_CLASSES.index("background")]


def load_corner_check(path: Path | str | None = None, threads: int = 1) -> CornerCheck | None:
    """The check at ``path`` (a one-line error when it is missing); "none": no check; None or "":
    the shipped one where it is installed, else no check (the reader then reads without it)."""
    return load_optional_check(path, DEFAULT_CORNER_MODEL, CornerCheck, threads)
