"""Detection on pictures much larger than the network input: overlapping tiles plus one whole view.

A 4,000 px photo of a table shrunk into a 320 px input leaves a corner index a few pixels tall,
below what the detector can read. So large pictures are cut into overlapping tiles that are each
shrunk by at most ``max_shrink``; a detection cut by an inner tile edge is dropped (the overlapping
neighbour holds it whole), one whole-picture pass catches indices larger than the overlap, and
class-aware NMS merges what several views saw.

The size of a card in the picture is not known beforehand: an overhead photo of a whole table may
show indices of 8 px, a close-up one of 200 px. So the first views also measure the indices they
found, and when those came out smaller than the network reads well (:func:`finer_shrink`), a second
set of tiles looks again at the scale that brings them to a readable size, enlarging when needed.

>>> plan_tiles(1000, 400, tile=400, overlap=100)
[(0, 0, 400, 400), (300, 0, 700, 400), (600, 0, 1000, 400)]
>>> len(plan_tiles(4000, 3000, tile=800, overlap=160))
30
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from referee.vision.backends import Detector
from referee.vision.detection import Detection, non_max_suppression

#: A detection this close (in tile pixels) to an inner tile edge is treated as cut by it.
EDGE_TOLERANCE = 2.0


def plan_tiles(width: int, height: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Tiles ``(x1, y1, x2, y2)`` of side ``tile`` covering the picture, neighbours sharing ``overlap``."""

    def starts(length: int) -> list[int]:
        if length <= tile:
            return [0]
        count = math.ceil((length - overlap) / (tile - overlap))
        step = (length - tile) / (count - 1)
        return [round(i * step) for i in range(count)]

    return [
        (x, y, min(width, x + tile), min(height, y + tile)) for y in starts(height) for x in starts(width)
    ]


def needs_tiling(image_shape: tuple[int, ...], imgsz: int, max_shrink: float) -> bool:
    """True when the whole picture would be shrunk more than ``max_shrink`` times into the input."""
    return max(image_shape[:2]) > imgsz * max_shrink


def view_shrink(image_shape: tuple[int, ...], imgsz: int, max_shrink: float | None = None) -> float:
    """How many times the coarsest view shrinks the picture's pixels (below 1: it enlarges them)."""
    shrink = max(image_shape[:2]) / imgsz
    return shrink if max_shrink is None else min(shrink, max_shrink)


def finer_shrink(
    index_sizes: Sequence[float],
    image_shape: tuple[int, ...],
    imgsz: int,
    *,
    shrink: float,
    index_px: float,
    min_shrink: float,
    max_tiles: int,
    overlap: float = 0.2,
    step: float = 1.4,
) -> float | None:
    """The shrink at which the found indices would be ``index_px`` input pixels long, or None.

    ``index_sizes`` are the longer sides, in picture pixels, of the indices a view at ``shrink`` found.
    None when fewer than two were found (one box says little about the picture's scale) or when the
    finer view would not be at least ``step`` times finer (not worth another set of tiles). The finer
    view is coarsened until it needs at most ``max_tiles`` tiles, which bounds the time it costs.

    >>> limits = dict(index_px=20, min_shrink=0.5, max_tiles=48)
    >>> finer_shrink([27, 25, 30], (1280, 1280), 320, shrink=4.0, **limits)
    1.35
    >>> finer_shrink([60, 70], (1280, 1280), 320, shrink=2.5, **limits) is None
    True
    >>> finer_shrink([6, 7, 8], (416, 416), 320, shrink=1.3, **limits)
    0.5
    >>> round(finer_shrink([6, 7, 8], (2000, 3000), 320, shrink=2.5, **limits), 2)  # 48 tiles at most
    1.43
    """
    if len(index_sizes) < 2:
        return None
    height, width = image_shape[:2]
    wanted = max(min_shrink, float(np.median(index_sizes)) / index_px)
    while True:
        tile = round(imgsz * wanted)
        if len(plan_tiles(width, height, tile, round(tile * overlap))) <= max_tiles:
            break
        wanted *= 1.1
    return wanted if wanted * step <= shrink else None


def detect_tiled(
    detector: Detector, image_bgr: np.ndarray, max_shrink: float = 2.5, overlap: float = 0.2
) -> list[Detection]:
    """Detections over the whole picture from one whole view plus overlapping tiles, merged."""
    found = list(detector.detect(image_bgr))
    found += detect_in_tiles(detector, image_bgr, max_shrink, overlap)
    return merge_detections(found, detector.iou)


def detect_in_tiles(
    detector: Detector, image_bgr: np.ndarray, shrink: float, overlap: float = 0.2
) -> list[Detection]:
    """Detections from overlapping tiles, each ``shrink`` times the input side, in picture pixels.

    Not merged: the caller merges them with its other views. A tile larger than the picture is the
    picture itself (the detector letterboxes it).
    """
    height, width = image_bgr.shape[:2]
    tile = max(8, round(detector.imgsz * shrink))
    found = []
    for x1, y1, x2, y2 in plan_tiles(width, height, tile, round(tile * overlap)):
        inner_edges = (x1 > 0, y1 > 0, x2 < width, y2 < height)
        for detection in detector.detect(image_bgr[y1:y2, x1:x2]):
            if _cut_by_inner_edge(detection.box, x2 - x1, y2 - y1, inner_edges):
                continue
            bx1, by1, bx2, by2 = detection.box
            box = (bx1 + x1, by1 + y1, bx2 + x1, by2 + y1)
            found.append(Detection(box, detection.class_id, detection.class_name, detection.score))
    return found


def merge_detections(detections: list[Detection], iou_threshold: float) -> list[Detection]:
    """Class-aware NMS over detections from several views of one picture."""
    if not detections:
        return []
    boxes = np.asarray([d.box for d in detections], np.float64)
    scores = np.asarray([d.score for d in detections], np.float64)
    class_ids = np.asarray([d.class_id for d in detections], np.int64)
    return [detections[i] for i in non_max_suppression(boxes, scores, class_ids, iou_threshold)]


def _cut_by_inner_edge(
    box: tuple[float, float, float, float], tile_width: int, tile_height: int, inner: tuple[bool, ...]
) -> bool:
    left, top, right, bottom = inner
    x1, y1, x2, y2 = box
    return (
        (left and x1 <= EDGE_TOLERANCE)
        or (top and y1 <= EDGE_TOLERANCE)
        or (right and x2 >= tile_width - EDGE_TOLERANCE)
        or (bottom and y2 >= tile_height - EDGE_TOLERANCE)
    )
