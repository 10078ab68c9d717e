"""The colour profile: one card of each colour laid in the discard zone under the room's light.

The card is found as the largest region of the discard-zone crop that differs from the table
around it, checked against a card's size (the crop is metric, so a card is about 56 × 87 mm).
The pixels around its four corners — white rim, field and index, what the reader looks at — are
white-balanced as every read is and go to the vision reader's
:meth:`~referee.vision.colour.ColourModel.from_samples`, which owns what a colour reference is;
the profile stores the resulting model.
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
#: Around each card corner, a window this wide centred this far in along the diagonal: about the
#: field a read takes around a corner index (the index box and a fifth of its size around it).
CORNER_WINDOW_MM = 16.0
CORNER_INSET_MM = 11.0


def card_mask(crop_bgr: np.ndarray, px_per_mm: float, card: str = "the card") -> np.ndarray:
    """The card in a discard-zone crop as a mask (rim included), or a one-line error saying what to fix."""
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
    return labels == largest


def card_field_pixels(crop_bgr: np.ndarray, px_per_mm: float, card: str = "the card") -> np.ndarray:
    """The card's field pixels (N × 3 BGR) without its white rim, or a one-line error saying what to fix."""
    mask = card_mask(crop_bgr, px_per_mm, card).astype(np.uint8)
    rim = max(1, round(RIM_MM * px_per_mm))
    field = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rim + 1, 2 * rim + 1)))
    return crop_bgr[field.astype(bool)]


def card_corner_pixels(crop_bgr: np.ndarray, px_per_mm: float, card: str = "the card") -> list[np.ndarray]:
    """The card's pixels around each of its four corners (N × 3 BGR each): where the reader looks at
    a card, with the white rim, the field and the index glyph, so calibration sees what reads see."""
    mask = card_mask(crop_bgr, px_per_mm, card)
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    corners = cv2.boxPoints(cv2.minAreaRect(max(contours, key=cv2.contourArea)))
    centre = corners.mean(axis=0)
    half = CORNER_WINDOW_MM / 2 * px_per_mm
    windows = []
    for corner in corners:
        towards_centre = (centre - corner) / max(float(np.linalg.norm(centre - corner)), 1.0)
        x, y = corner + towards_centre * CORNER_INSET_MM * px_per_mm
        top, left = max(0, round(y - half)), max(0, round(x - half))
        bottom, right = round(y + half), round(x + half)
        pixels = crop_bgr[top:bottom, left:right][mask[top:bottom, left:right]]
        if len(pixels):
            windows.append(pixels)
    return windows


def colour_model_from_cards(view: TableView, pictures: Mapping[str, np.ndarray]):
    """A :class:`~referee.vision.colour.ColourModel` from one camera picture per card colour.

    ``pictures`` maps red, yellow, green and blue (and optionally black, a wild card) to a frame
    from the calibrated camera with that card alone in the discard zone.
    """
    from referee.vision.colour import ColourModel

    unknown = sorted(set(pictures) - set(SAMPLE_COLOURS))
    if unknown:
        raise UserError(f"unknown card colour {unknown[0]!r}: use {', '.join(SAMPLE_COLOURS)}")
    base = ColourModel.default()
    samples = {}
    for colour, picture in pictures.items():
        card = "a wild card" if colour == "black" else f"a {colour} card"
        corners = card_corner_pixels(view.crop(picture, "discard"), view.px_per_mm, card)
        # Each corner balanced to its own white ink, as each read is; then the model learns from all.
        samples[colour] = np.concatenate([base.balanced(pixels) for pixels in corners])
    return ColourModel.from_samples(samples, base)
