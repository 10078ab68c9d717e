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

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from models import CORNER_MODEL_FILE, model_file
from referee.errors import UserError
from referee.vision.detection import Box
from referee.vision.glyphs import crops_blob, glyph_crop, load_optional_check, open_crop_model

#: The check's two answers.
CORNER_CLASSES: tuple[str, ...] = ("index", "background")
#: The shipped check, beside the detector (used where present).
DEFAULT_CORNER_MODEL = model_file(CORNER_MODEL_FILE)
#: A two-character index ("+2", "+4") boxed at least this much longer than wide is judged by each of
#: its characters too (:meth:`CornerCheck.not_corner`).
WIDE_ASPECT = 1.25
#: Each character's share of such a box's longer side: the middle of the shares the check was trained
#: on, as a detector boxes one character alone (``referee.lab.glyph_data.PART_OF_WIDE``).
END_SHARE = 0.65


def box_end(box: Box, share: float, from_start: bool) -> Box:
    """One end of an xyxy box along its longer side, ``share`` of it: one character of a
    two-character index.

    >>> box_end((10.0, 20.0, 50.0, 40.0), 0.5, from_start=True)
    (10.0, 20.0, 30.0, 40.0)
    >>> box_end((10.0, 20.0, 30.0, 80.0), 0.25, from_start=False)
    (10.0, 65.0, 30.0, 80.0)
    """
    end = list(box)
    axis = 0 if box[2] - box[0] >= box[3] - box[1] else 1
    length = box[axis + 2] - box[axis]
    if from_start:
        end[axis + 2] = box[axis] + share * length
    else:
        end[axis] = box[axis + 2] - share * length
    return (end[0], end[1], end[2], end[3])


def is_wide(box: Box) -> bool:
    """Whether a box is long enough for two characters (:data:`WIDE_ASPECT`)."""
    width, height = box[2] - box[0], box[3] - box[1]
    return max(width, height) >= WIDE_ASPECT * max(1e-6, min(width, height))


class CornerCheck:
    """The card-corner check over onnxruntime; ``not_corner(image, boxes)`` → one share per box."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session, _, self.info = open_crop_model(path, threads, "corner model", "--corner-model")
        if tuple(self.info.get("classes", ())) != CORNER_CLASSES or "context" not in self.info:
            raise UserError(f"corner model {path} has no card naming classes {CORNER_CLASSES} and a context")
        self.path = path
        self.context = float(self.info["context"])
        self._input = self._session.get_inputs()[0].name

    def not_corner(
        self, image_bgr: np.ndarray, boxes: list[Box], two_characters: Sequence[bool] = ()
    ) -> np.ndarray:
        """(N,) how sure the check is that each box (xyxy, image pixels) is no card's corner index.

        A box marked in ``two_characters`` (an index printed "+2" or "+4") and wide enough for two
        (:func:`is_wide`) is judged by each character too, and is a card's corner where both its
        characters' looks say so: its window is three of its long sides, mostly what lies beyond
        the card's corner (a patterned cloth there made the check doubt a wild draw four's both
        corners at 0.92 and 0.96, and each of their characters at 0.05 to 0.09)."""
        if not boxes:
            return np.zeros(0, np.float32)
        wide = [i for i, flag in enumerate(two_characters) if flag and is_wide(boxes[i])]
        looks = list(boxes) + [box_end(boxes[i], END_SHARE, start) for i in wide for start in (True, False)]
        crops = np.stack([glyph_crop(image_bgr, box, self.context) for box in looks])
        (probabilities,) = self._session.run(["probabilities"], {self._input: crops_blob(crops)})
        doubt = probabilities[:, CORNER_CLASSES.index("background")]
        whole = doubt[: len(boxes)].copy()
        for k, i in enumerate(wide):
            ends = doubt[len(boxes) + 2 * k : len(boxes) + 2 * k + 2]
            whole[i] = min(whole[i], float(ends.max()))
        return whole


def load_corner_check(path: Path | str | None = None, threads: int = 1) -> CornerCheck | None:
    """The check at ``path`` (a one-line error when it is missing); "none": no check; None or "":
    the shipped one where it is installed, else no check (the reader then reads without it)."""
    return load_optional_check(path, DEFAULT_CORNER_MODEL, CornerCheck, threads)
