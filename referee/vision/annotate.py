"""Pictures with what the reader saw drawn on them: for ``detect --annotate`` and for eyeballing errors."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.reader import Card

#: Outline colour (BGR) per card colour; wilds in magenta so that they stand out from every field.
_PEN: dict[str | None, tuple[int, int, int]] = {
    "red": (40, 40, 230),
    "yellow": (0, 200, 240),
    "green": (40, 170, 40),
    "blue": (220, 110, 20),
    None: (200, 40, 200),
}


def annotate(image_bgr: np.ndarray, cards: list[Card]) -> np.ndarray:
    """A copy of the picture with each card's box, its index boxes and a ``name 0.97`` label."""
    canvas = image_bgr.copy()
    scale = max(canvas.shape[:2]) / 1000
    thickness = max(1, round(2 * scale))
    font_scale = max(0.4, 0.6 * scale)
    for card in cards:
        pen = _PEN[card.colour]
        x1, y1, x2, y2 = (round(v) for v in card.box)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), pen, thickness)
        for index in card.indices:
            ix1, iy1, ix2, iy2 = (round(v) for v in index.box)
            cv2.rectangle(canvas, (ix1, iy1), (ix2, iy2), pen, max(1, thickness // 2))
        marker = "" if card.colour_from == "hue" else " (symbol)"
        label = f"{card.name} {card.confidence:.2f}{marker}"
        (width, height), baseline = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        top = max(0, y1 - height - baseline - 2)
        cv2.rectangle(canvas, (x1, top), (x1 + width + 4, top + height + baseline + 2), pen, -1)
        cv2.putText(
            canvas,
            label,
            (x1 + 2, top + height + 1),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (255, 255, 255),
            thickness,
            cv2.LINE_AA,
        )
    return canvas
