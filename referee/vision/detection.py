"""Backend-independent detector maths: letterbox in, YOLO11 tensor out, class-aware NMS.

Every backend feeds the same letterboxed blob to its engine and hands the raw ``(1, 4 + nc, anchors)``
tensor back here, so that the three backends differ only in how they run the network — and a
decoding bug shows up in all of them, where one test catches it.

>>> letterbox = Letterbox.fit((480, 640), 320)  # a 640×480 image into a 320 px square
>>> letterbox.scale, letterbox.pad_x, letterbox.pad_y
(0.5, 0.0, 40.0)
>>> letterbox.to_image(np.array([[0.0, 40.0, 320.0, 280.0]])).tolist()
[[0.0, 0.0, 640.0, 480.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Ultralytics pads with this grey; the network was trained on it, so the runtime pads the same.
PAD_VALUE = 114

Box = tuple[float, float, float, float]  # image pixels: x1, y1, x2, y2


@dataclass(frozen=True)
class Detection:
    """One detected box: an index glyph or a colour-blind symbol, in the image's own pixels."""

    box: tuple[float, float, float, float]  # x1, y1, x2, y2
    class_id: int
    class_name: str
    score: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    @property
    def size(self) -> float:
        """The longer side: an index glyph's extent does not depend on the card's rotation by 90°."""
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1])


@dataclass(frozen=True)
class Letterbox:
    """How an image was scaled and padded into the square network input, and back."""

    scale: float
    pad_x: float
    pad_y: float
    size: int
    image_width: int
    image_height: int

    @classmethod
    def fit(cls, image_shape: tuple[int, ...], size: int) -> Letterbox:
        """Scale the longer side to ``size`` (up or down) and centre the result, as Ultralytics does."""
        height, width = image_shape[:2]
        scale = min(size / height, size / width)
        new_width, new_height = round(width * scale), round(height * scale)
        # Whole-pixel offsets, rounded as Ultralytics rounds them, so that boxes map back exactly.
        return cls(
            scale,
            float(round((size - new_width) / 2 - 0.1)),
            float(round((size - new_height) / 2 - 0.1)),
            size,
            width,
            height,
        )

    def apply(self, image_bgr: np.ndarray) -> np.ndarray:
        """The padded ``size``×``size`` BGR picture the network sees."""
        height, width = image_bgr.shape[:2]
        new_width, new_height = round(width * self.scale), round(height * self.scale)
        if (new_width, new_height) != (width, height):
            # Bilinear as Ultralytics predicts (and 7× cheaper on a crop); area averaging only for
            # strong shrinking, where bilinear would alias small indices away.
            interpolation = cv2.INTER_AREA if self.scale < 0.5 else cv2.INTER_LINEAR
            image_bgr = cv2.resize(image_bgr, (new_width, new_height), interpolation=interpolation)
        top, left = int(self.pad_y), int(self.pad_x)
        bottom, right = self.size - new_height - top, self.size - new_width - left
        return cv2.copyMakeBorder(
            image_bgr, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
        )

    def to_image(self, boxes_xyxy: np.ndarray) -> np.ndarray:
        """Map boxes from network-input pixels back to the original image's pixels, clipped to it."""
        boxes = np.asarray(boxes_xyxy, dtype=np.float64).copy()
        boxes[:, [0, 2]] = (boxes[:, [0, 2]] - self.pad_x) / self.scale
        boxes[:, [1, 3]] = (boxes[:, [1, 3]] - self.pad_y) / self.scale
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, self.image_width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, self.image_height)
        return boxes

    def to_input(self, boxes_xyxy: np.ndarray) -> np.ndarray:
        """Map boxes from image pixels into network-input pixels (the inverse of :meth:`to_image`)."""
        boxes = np.asarray(boxes_xyxy, dtype=np.float64).copy()
        boxes[:, [0, 2]] = boxes[:, [0, 2]] * self.scale + self.pad_x
        boxes[:, [1, 3]] = boxes[:, [1, 3]] * self.scale + self.pad_y
        return boxes


def to_blob(letterboxed_bgr: np.ndarray) -> np.ndarray:
    """``(1, 3, H, W)`` float32 RGB in 0…1, the layout Ultralytics exports expect."""
    return cv2.dnn.blobFromImage(letterboxed_bgr, scalefactor=1 / 255.0, swapRB=True)


def _intersections_and_areas(box: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    inter_w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    inter_h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter_w * inter_h, area, areas


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one xyxy box with each of ``boxes``."""
    intersection, area, areas = _intersections_and_areas(box, boxes)
    return intersection / np.maximum(area + areas - intersection, 1e-9)


def box_share_inside(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The share of each of ``boxes`` that lies inside one xyxy ``box``."""
    intersection, _, areas = _intersections_and_areas(box, boxes)
    return intersection / np.maximum(areas, 1e-9)


def box_overlap_of_smaller(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Intersection over the smaller box's area, of one xyxy box with each of ``boxes``: 1.0 where
    one lies inside the other, however loose the outer one (where IoU stays low)."""
    intersection, area, areas = _intersections_and_areas(box, boxes)
    return intersection / np.maximum(np.minimum(area, areas), 1e-9)


def non_max_suppression(
    boxes: np.ndarray, scores: np.ndarray, class_ids: np.ndarray, iou_threshold: float
) -> np.ndarray:
    """Indices kept by greedy class-aware NMS, best score first.

    Class-aware because a card's index and its colour-blind symbol overlap and must both survive.
    """
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        best, rest = order[0], order[1:]
        keep.append(int(best))
        same_class = class_ids[rest] == class_ids[best]
        overlapping = box_iou(boxes[best], boxes[rest]) > iou_threshold
        order = rest[~(same_class & overlapping)]
    return np.asarray(keep, dtype=np.int64)


def decode_yolo(
    output: np.ndarray,
    letterbox: Letterbox,
    class_names: tuple[str, ...],
    conf_threshold: float,
    iou_threshold: float,
    max_detections: int = 300,
) -> list[Detection]:
    """Boxes from a YOLO11 ``(1, 4 + nc, anchors)`` output (cx, cy, w, h, then per-class scores)."""
    predictions = np.asarray(output)[0]
    if predictions.shape[0] != 4 + len(class_names):
        raise ValueError(f"output has {predictions.shape[0]} rows, expected 4 + {len(class_names)} classes")
    class_scores = predictions[4:]
    class_ids = class_scores.argmax(axis=0)
    scores = class_scores[class_ids, np.arange(class_scores.shape[1])]
    candidates = np.flatnonzero(scores >= conf_threshold)
    if candidates.size == 0:
        return []
    cx, cy, w, h = predictions[:4, candidates].astype(np.float64)
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    scores, class_ids = scores[candidates].astype(np.float64), class_ids[candidates]
    kept = non_max_suppression(boxes, scores, class_ids, iou_threshold)[:max_detections]
    image_boxes = letterbox.to_image(boxes[kept])
    return [
        Detection(
            tuple(float(v) for v in box), int(class_ids[i]), class_names[class_ids[i]], float(scores[i])
        )
        for box, i in zip(image_boxes, kept, strict=True)
    ]
