"""The colour profile: one card of each colour laid in the discard zone under the room's light.

The card is found as the largest region of the discard-zone crop that differs from the table
around it, checked against a card's size (the crop is metric, so a card is about 56 × 87 mm),
and shrunk by a few millimetres so the white rim and shadows stay out. Its pixels go to the
vision reader's :meth:`~referee.vision.colour.ColourModel.from_samples`, which owns what a colour
reference is; the profile stores the resulting model.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from calibration.table_view import CARD_MM, TableView
from referee.errors import UserError

#: Colours calibration asks for; ``black`` (a wild card's field) is optional.
SAMPLE_COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "black")
#: Lab distance (OpenCV 8-bit scale, L weighted half) from the table colour that counts as "card".
CARD_CONTRAST = 28.0
RIM_MM = 4.0


def card_field_pixels(crop_bgr: np.ndarray, px_per_mm: float, card: str = "the card") -> np.ndarray:
    """The card's field pixels (N × 3 BGR) in a discard-zone crop, or a one-line error saying what to fix."""
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    height, width = lab.shape[:2]
    ring = max(3, round(0.04 * min(height, width)))
    border = np.concatenate(
        [
            lab[:ring].reshape(-1, 3),
            lab[-ring:].reshape(-1, 3),
            lab[:, :ring].reshape(-1, 3),
            lab[:, -ring:].reshape(-1, 3),
        ]
    )
    table = np.median(border, axis=0)
    difference = (lab - table) * np.float32([0.5, 1.0, 1.0])
    mask = (np.linalg.norm(difference, axis=2) > CARD_CONTRAST).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    card_area_px = CARD_MM[0] * CARD_MM[1] * px_per_mm**2
    if count <= 1:
        raise UserError(f"no card found in the discard zone: lay {card} flat in the middle of it")
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    share = stats[largest, cv2.CC_STAT_AREA] / card_area_px
    if not 0.5 <= share <= 1.8:
        size = "too small" if share < 0.5 else "too big"
        raise UserError(
            f"the thing in the discard zone is {size} for a card ({share:.1f} × a card's area): lay only "
            f"{card} flat in the middle of the discard zone, nothing else"
        )
    card = (labels == largest).astype(np.uint8)
    rim = max(1, round(RIM_MM * px_per_mm))
    field = cv2.erode(card, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rim + 1, 2 * rim + 1)))
    return crop_bgr[field.astype(bool)]


def colour_model_from_cards(view: TableView, pictures: Mapping[str, np.ndarray]):
    """A :class:`~referee.vision.colour.ColourModel` from one camera picture per card colour.

    ``pictures`` maps red, yellow, green and blue (and optionally black, a wild card) to a frame
    from the calibrated camera with that card alone in the discard zone.
    """
    from referee.vision.colour import ColourModel

    unknown = sorted(set(pictures) - set(SAMPLE_COLOURS))
    if unknown:
        raise UserError(f"unknown card colour {unknown[0]!r}: use {', '.join(SAMPLE_COLOURS)}")
    samples = {}
    for colour, picture in pictures.items():
        card = "a wild card" if colour == "black" else f"a {colour} card"
        samples[colour] = card_field_pixels(view.crop(picture, "discard"), view.px_per_mm, card)
    return ColourModel.from_samples(samples)
