"""The pair check: are two corner indices one card's two corners, or corners of two cards?

The reader pairs corners by geometry (spacing, size), by their glyphs (a card's two corners are
printed half a turn apart) and by colour. Two identical cards side by side defeat all three: a pair of
wilds in a fan, two green 5s in a laid-out hand, whose corners lie as far apart as one card's. Then two
cards are reported as one ("merged"). What does tell them apart is the card itself: one card's two
corners frame one face (a white border all round, one oval, one centre symbol); two cards' corners frame
pieces of two, with an edge running across.

This network looks at exactly that. :func:`pair_patch` cuts the card-shaped patch that the two indices
would span if they were one card's (the card's frame follows from the two index centres alone: an
index sits :data:`INDEX_AT` in from its card's corner, and the other diagonally opposite), stretched
to a :data:`PAIR_PX` square; the network answers how sure it is that the patch shows two cards. It is
the glyph classifier's small network (:mod:`referee.lab.glyph_training`) with two answers, trained
beside the runtime on rendered scenes (``python -m referee.lab.pair_data``), and runs on onnxruntime.

>>> image = np.zeros((200, 200, 3), np.uint8)
>>> pair_patch(image, (60.0, 50.0), (140.0, 150.0)).shape
(40, 40, 3)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import PAIR_MODEL_FILE, model_file
from referee.errors import UserError
from referee.vision.glyphs import crops_blob, load_optional_check, open_crop_model

#: The check's two answers.
PAIR_CLASSES: tuple[str, ...] = ("one card", "two cards")
PAIR_PX = 40  # side of the square the network sees
#: Where an index's centre sits on its card, as shares of the card's width and height from the
#: nearest corner (rendered prints: 0.19–0.22 and 0.14–0.16; the recent Mattel print photographed
#: in criscard: about 0.2 and 0.15). Its twin sits as far from the opposite corner.
INDEX_AT = (0.2, 0.145)
CARD_ASPECT = 1.556  # height / width of an UNO card (56 × 87 mm)
#: The patch shows this share of the card's width and height beyond each edge: enough of what lies
#: around to see whether the card ends there.
PAIR_MARGIN = 0.12
#: The shipped check, beside the detector (used where present).
DEFAULT_PAIR_MODEL = model_file(PAIR_MODEL_FILE)


#: The part of a card a patch shows, in card units (the card's width is 1, its height
#: :data:`CARD_ASPECT`): left, top, right, bottom. The pair check's: the card and its margin.
Region = tuple[float, float, float, float]
PAIR_REGION: Region = (
    -PAIR_MARGIN,
    -PAIR_MARGIN * CARD_ASPECT,
    1 + PAIR_MARGIN,
    (1 + PAIR_MARGIN) * CARD_ASPECT,
)


def card_frame(
    first: tuple[float, float], second: tuple[float, float], side: int = PAIR_PX, region: Region = PAIR_REGION
) -> np.ndarray:
    """The 2 × 3 affine map from the pixels of a ``side`` square patch to the picture's, for the card
    whose corner indices are centred at ``first`` (its top-left one, the card upright) and ``second``:
    the card's ``region`` (card units) stretched over the square."""
    width_share, height_share = INDEX_AT
    # The card in its own units (width 1, height CARD_ASPECT): its two index centres.
    top_left = complex(width_share, height_share * CARD_ASPECT)
    bottom_right = complex(1 - width_share, (1 - height_share) * CARD_ASPECT)
    a, b = complex(*first), complex(*second)
    scale = (b - a) / (bottom_right - top_left)  # rotation and size, card units → picture
    shift = a - scale * top_left
    left, top, right, bottom = region
    step_x, step_y = (right - left) / side, (bottom - top) / side
    first_pixel = complex(left + step_x / 2, top + step_y / 2)
    along_u, along_v, at = scale * step_x, scale * complex(0, step_y), scale * first_pixel + shift
    return np.float32([[along_u.real, along_v.real, at.real], [along_u.imag, along_v.imag, at.imag]])


def card_patch(
    image_bgr: np.ndarray,
    first: tuple[float, float],
    second: tuple[float, float],
    side: int = PAIR_PX,
    region: Region = PAIR_REGION,
) -> np.ndarray:
    """The ``side`` square showing ``region`` of the card whose index centres are ``first`` (taken as
    the card's top-left index) and ``second``, edges replicated where the card would leave the
    picture. Drawn at twice the size and then shrunk, so that a card much larger than the patch is
    averaged, not sampled."""
    big = cv2.warpAffine(
        image_bgr,
        card_frame(first, second, 2 * side, region),
        (2 * side, 2 * side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def pair_patch(image_bgr: np.ndarray, first: tuple[float, float], second: tuple[float, float]) -> np.ndarray:
    """The :data:`PAIR_PX` square the pair check sees for two index centres: the whole card and
    :data:`PAIR_MARGIN` around it."""
    return card_patch(image_bgr, first, second)


def both_ways_round(session: Any, patches: np.ndarray) -> np.ndarray:
    """A card-patch network's answers (``probabilities``) for N patches cut with either index as the
    top-left one, each averaged with its answer for the patch half-turned (the other index first:
    the same card, turned, so not cut again)."""
    blob = crops_blob(np.concatenate([patches, patches[:, ::-1, ::-1]]))
    (probabilities,) = session.run(["probabilities"], {session.get_inputs()[0].name: blob})
    return (probabilities[: len(patches)] + probabilities[len(patches) :]) / 2


class PairCheck:
    """The pair check over onnxruntime; ``two_cards(image, pairs)`` → one share per pair."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session, _, self.info = open_crop_model(path, threads, "pair model", "--pair-model")
        if tuple(self.info.get("classes", ())) != PAIR_CLASSES:
            raise UserError(f"pair model {path} does not answer {' or '.join(PAIR_CLASSES)}")
        self.path = path

    def two_cards(
        self,
        image_bgr: np.ndarray,
        pairs: list[tuple[tuple[float, float], tuple[float, float]]],
    ) -> np.ndarray:
        """(N,) how sure the check is that each pair of index centres are two cards' corners. Each
        pair is looked at both ways round (either index as the top-left one: the card half-turned,
        which it was trained on) and the two answers averaged."""
        if not pairs:
            return np.zeros(0, np.float32)
        answers = both_ways_round(self._session, np.stack([pair_patch(image_bgr, a, b) for a, b in pairs]))
        return answers[:, PAIR_CLASSES.index("two cards")]


def load_pair_check(path: Path | str | None = None, threads: int = 1) -> PairCheck | None:
    """The check at ``path`` (a one-line error when it is missing); "none": no check; None or "":
    the shipped one where it is installed, else no check (the reader then pairs without it)."""
    return load_optional_check(path, DEFAULT_PAIR_MODEL, PairCheck, threads)
