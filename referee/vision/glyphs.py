"""The glyph classifier: a second, closer look at every box the detector proposes.

The detector sees a whole picture at 320 px and must find *and* name every index at once; on decks it
never saw it names some wrongly (a flagged 1 as 7, the diagonal reverse as 4) or boxes things that are
no index (a card's big centre numeral, a leaf on the tablecloth). This small network sees only one box,
cut as a square around it with some context, at :data:`CROP_PX` pixels, and answers two things:

* ``probabilities`` over the detector's classes plus :data:`BACKGROUND` ("no index here"): the reader
  fuses them with the detector's own score, and drops a box that is clearly background;
* ``embedding``: a unit vector describing the glyph's look, the space in which a user's own deck is
  learnt (:mod:`referee.vision.deck`): a face shown once is recognised by its nearest learnt glyph.

It is trained beside the runtime (``referee/lab/glyph_training.py``) on rendered crops of every print
family and on the shared Roboflow training photos, and runs on onnxruntime (no torch on the Pi):
about 0.5 ms a look at a box on one thread here. The reader looks at each box in four quarter turns
(``ReaderSettings.glyph_views``), as the classifier was trained on crops at every quarter turn.

>>> image = np.zeros((100, 100, 3), np.uint8)
>>> glyph_crop(image, (40.0, 40.0, 60.0, 70.0)).shape
(40, 40, 3)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np

from models import GLYPH_MODEL_FILE, model_file
from referee.errors import UserError
from referee.vision.classes import CLASS_NAMES, SYMBOL_CLASSES

T = TypeVar("T")

CROP_PX = 40  # side of the square the classifier sees
#: The square cut around a box: this many times its longer side, so the classifier sees a little of
#: the card around an index (its border and field) — what tells a corner from a centre symbol.
CONTEXT = 1.5
BACKGROUND = len(CLASS_NAMES)  # the extra class: no index, no colour-blind symbol
GLYPH_CLASSES: tuple[str, ...] = (*CLASS_NAMES, "background")
#: How many quarter turns of a crop :meth:`GlyphClassifier.read` may average over (the last: all).
QUARTER_TURN_VIEWS = (1, 2, 4)
ALL_QUARTER_TURNS = QUARTER_TURN_VIEWS[-1]

#: The shipped classifier, beside the detector.
DEFAULT_GLYPH_MODEL = model_file(GLYPH_MODEL_FILE)


def glyph_crop(
    image_bgr: np.ndarray, box: tuple[float, float, float, float], context: float = CONTEXT
) -> np.ndarray:
    """The classifier's view of a box: a ``CROP_PX`` square around its centre, ``context`` times
    its longer side, edges replicated where it leaves the picture."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1, 1.0) * context
    scale = CROP_PX / side
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    matrix = np.float32([[scale, 0, CROP_PX / 2 - cx * scale], [0, scale, CROP_PX / 2 - cy * scale]])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(
        image_bgr, matrix, (CROP_PX, CROP_PX), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )


@dataclass(frozen=True)
class GlyphReadings:
    """The classifier's answers for a batch of boxes."""

    probabilities: np.ndarray  # (N, len(GLYPH_CLASSES)), rows sum to 1
    embeddings: np.ndarray  # (N, D), unit rows: the upright crop's
    #: (N, V, D): the embedding of each of the V quarter turns the crops were read in (None: the
    #: upright one only), so that a learnt deck can match every look (:meth:`LearntDeck.match`).
    looks: np.ndarray | None = None

    @property
    def every_look(self) -> np.ndarray:
        """(N, V, D): :attr:`looks`, or the upright embeddings as the one look."""
        return self.looks if self.looks is not None else self.embeddings[:, None, :]

    @property
    def not_index(self) -> np.ndarray:
        """(N,) how sure the classifier is that each box holds no corner index (background or a
        colour-blind symbol)."""
        return 1.0 - self.probabilities[:, : len(SYMBOL_CLASSES)].sum(axis=1)


def open_crop_model(path: Path, threads: int, what: str, option: str) -> tuple[Any, bytes, dict]:
    """An onnxruntime session over one of our crop classifiers (outputs ``probabilities`` and
    ``embedding``), its weights and its card (the .json beside it); one-line errors naming ``what``."""
    if not path.is_file():
        raise UserError(f"{what} {path} not found: reinstall uno-referee or pass {option}")
    try:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        weights = path.read_bytes()
        session = ort.InferenceSession(weights, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own types for damaged files
        raise UserError(f"{what} {path} cannot be loaded ({error}): reinstall uno-referee") from error
    outputs = [o.name for o in session.get_outputs()]
    if outputs[:2] != ["probabilities", "embedding"]:
        raise UserError(f"{what} {path} is not one of uno-referee's (outputs {outputs})")
    meta = path.with_suffix(".json")
    try:
        info = json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else {}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UserError(f"{meta} is damaged ({error}): reinstall uno-referee") from None
    return session, weights, info


def crops_blob(crops_bgr: np.ndarray) -> np.ndarray:
    """N × S × S × 3 uint8 BGR crops as the networks' N × 3 × S × S float input in 0…1."""
    return np.ascontiguousarray(crops_bgr.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class GlyphClassifier:
    """The glyph classifier over onnxruntime; ``read(image, boxes)`` → :class:`GlyphReadings`."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session, weights, self.info = open_crop_model(path, threads, "glyph model", "--glyph-model")
        self.path = path
        #: The weights' fingerprint: a deck learnt in this model's embedding means nothing to another.
        self.identity = hashlib.sha256(weights).hexdigest()[:16]
        self._input = self._session.get_inputs()[0].name

    def read(
        self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]], views: int = 1
    ) -> GlyphReadings:
        """Class probabilities and embeddings of the boxes (xyxy, image pixels) of one picture.

        ``views`` (1, 2 or 4): the probabilities are averaged over the crop turned by that many
        quarter turns (0°; 0° and 90°; all four). The classifier is trained on crops turned by random
        quarter turns, so each turn is another look at the same glyph, and their mean is surer than
        any one of them. ``embeddings`` stay the upright crop's; ``looks`` holds every turn's."""
        if not boxes:
            return GlyphReadings(np.zeros((0, len(GLYPH_CLASSES)), np.float32), np.zeros((0, 0), np.float32))
        if views not in QUARTER_TURN_VIEWS:
            raise ValueError(f"views must be one of {QUARTER_TURN_VIEWS}, not {views}")
        crops = np.stack([glyph_crop(image_bgr, box) for box in boxes])
        if views == 1:
            return self.read_crops(crops)
        turned = np.concatenate([np.rot90(crops, turn, axes=(1, 2)) for turn in range(views)])
        readings = self.read_crops(np.ascontiguousarray(turned))
        probabilities = readings.probabilities.reshape(views, len(boxes), -1).mean(axis=0)
        looks = readings.embeddings.reshape(views, len(boxes), -1).transpose(1, 0, 2)
        return GlyphReadings(probabilities.astype(np.float32), looks[:, 0], looks)

    def read_crops(self, crops_bgr: np.ndarray) -> GlyphReadings:
        """The same for ready-cut crops (N × CROP_PX × CROP_PX × 3 uint8 BGR)."""
        probabilities, embeddings = self._session.run(
            ["probabilities", "embedding"], {self._input: crops_blob(crops_bgr)}
        )
        return GlyphReadings(probabilities, embeddings)


def load_optional_check(
    path: Path | str | None, shipped: Path, make: Callable[[Path, int], T], threads: int
) -> T | None:
    """One of the optional second looks (corner check, pair check, centre reader): ``make(path)`` for
    a path (a one-line error when it is missing), None for "none", and for None or "" the ``shipped``
    one where it is installed, else None (the reader then reads without it)."""
    if path is not None and str(path).lower() == "none":
        return None
    if path is not None and str(path):
        return make(Path(path), threads)
    return make(shipped, threads) if shipped.is_file() else None


def load_glyph_classifier(path: Path | None = None, threads: int = 1) -> GlyphClassifier:
    """The classifier at ``path``, or the shipped one (a one-line error when it is missing)."""
    return GlyphClassifier(path or DEFAULT_GLYPH_MODEL, threads)
