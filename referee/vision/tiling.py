"""Detection on pictures much larger than the network input: overlapping tiles plus one whole view.

A 4,000 px photo of a table shrunk into a 320 px input leaves a corner index a few pixels tall,
below what the detector can read. So large pictures are cut into overlapping tiles that are each
shrunk by at most ``max_shrink``; a detection cut by an inner tile edge is dropped (the overlapping
neighbour holds it whole), one whole-picture pass catches indices larger than the overlap, and
class-aware NMS merges what several views saw.

>>> plan_tiles(1000, 400, tile=400, overlap=100)
[(0, 0, 400, 400), (300, 0, 700, 400), (600, 0, 1000, 400)]
>>> len(plan_tiles(4000, 3000, tile=800, overlap=160))
30
"""

from __future__ import annotations

import math

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


def detect_tiled(
    detector: Detector, image_bgr: np.ndarray, max_shrink: float = 2.5, overlap: float = 0.2
) -> list[Detection]:
    """Detections over the whole picture from one whole view plus overlapping tiles, merged."""
    height, width = image_bgr.shape[:2]
    tile = round(detector.imgsz * max_shrink)
    found = list(detector.detect(image_bgr))
    for x1, y1, x2, y2 in plan_tiles(width, height, tile, round(tile * overlap)):
        inner_edges = (x1 > 0, y1 > 0, x2 < width, y2 < height)
        for detection in detector.detect(image_bgr[y1:y2, x1:x2]):
            if _cut_by_inner_edge(detection.box, x2 - x1, y2 - y1, inner_edges):
                continue
            bx1, by1, bx2, by2 = detection.box
            box = (bx1 + x1, by1 + y1, bx2 + x1, by2 + y1)
            found.append(Detection(box, detection.class_id, detection.class_name, detection.score))
    return merge_detections(found, detector.iou)


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
