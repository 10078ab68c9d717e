"""Small JPEGs of the discard zone: the journal keeps one for every card that landed or could not be read.

Players who dispute a verdict (and the game report) can see what the referee saw. A picture is the
zone's crop shrunk to at most :data:`LONGEST_SIDE` pixels and encoded at the best JPEG quality that
stays within :data:`MAX_BYTES`, so a long evening's pictures stay a few megabytes.

>>> import numpy as np
>>> noisy = np.random.default_rng(0).integers(0, 256, (600, 500, 3), dtype=np.uint8)
>>> len(small_jpeg(noisy)) <= MAX_BYTES
True
"""

from __future__ import annotations

import cv2
import numpy as np

#: The largest picture kept, in bytes.
MAX_BYTES = 30_000
#: The longest side of a kept picture, in pixels: a card's corner index stays legible.
LONGEST_SIDE = 320
_QUALITIES = (85, 70, 55, 40, 25)


def small_jpeg(image_bgr: np.ndarray, max_bytes: int = MAX_BYTES) -> bytes:
    """The picture as a JPEG of at most ``max_bytes``: shrunk, then lower quality, then smaller still."""
    picture = _shrunk(image_bgr, LONGEST_SIDE)
    while True:
        for quality in _QUALITIES:
            ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if ok and encoded.size <= max_bytes:
                return encoded.tobytes()
        picture = _shrunk(picture, max(16, max(picture.shape[:2]) // 2))


def _shrunk(image: np.ndarray, longest: int) -> np.ndarray:
    height, width = image.shape[:2]
    scale = longest / max(height, width)
    if scale >= 1.0:
        return image
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)
