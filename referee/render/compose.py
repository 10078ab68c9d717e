"""Compositing sprites onto a frame while tracking which object owns every pixel.

The owner map is what makes the labels honest: a corner index is labelled only if enough of it
is still visible after everything placed later (other cards, fingers, a cup) has covered it. The
same :func:`place` is meant for a table-video renderer: give it a frame, a sprite and the
homography from sprite pixels to frame pixels.

>>> import numpy as np
>>> from referee.render.cards import render_card
>>> scene = Scene(np.full((200, 200, 3), 90, np.uint8))
>>> card = scene.add_card(render_card("blue-5", height=120, rng=np.random.default_rng(0)),
...                       pose_homography((77, 120), centre=(100, 100), height=120, angle=0))
>>> scene.finalise(); [CLASS_NAMES[b.class_id] for b in card.boxes if b.labelled]
['5', '5']
>>> thumb = np.zeros((200, 200), np.uint8); thumb[:75, :85] = 255     # over the top-left index
>>> scene.add_object(Sprite(np.zeros((200, 200, 3), np.uint8), thumb), np.eye(3), kind="hand")
>>> scene.finalise(); [(round(b.visible, 2), b.labelled) for b in card.boxes]
[(0.0, False), (1.0, True)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from referee.vision.classes import CLASS_NAMES

#: A corner index or colour-blind symbol is labelled when at least this much of it is visible.
MIN_VISIBLE = 0.6
#: Boxes smaller than this (pixels, either side) are not labelled: nothing can read them.
MIN_BOX_SIDE = 3.0


class SpriteLike(Protocol):
    bgr: np.ndarray
    alpha: np.ndarray


@dataclass
class Sprite:
    """Any unlabelled object to composite (a hand, a coin, a phone): BGR and uint8 alpha."""

    bgr: np.ndarray
    alpha: np.ndarray


@dataclass
class Placement:
    """Where a sprite landed: its coverage (0..1) inside the frame box ``[y0:y0+h, x0:x0+w]``."""

    x0: int
    y0: int
    alpha: np.ndarray

    def full(self, shape: tuple[int, int]) -> np.ndarray:
        """Coverage as a full-frame float32 mask."""
        mask = np.zeros(shape, np.float32)
        h, w = self.alpha.shape
        mask[self.y0 : self.y0 + h, self.x0 : self.x0 + w] = self.alpha
        return mask


def pose_homography(
    sprite_size: tuple[int, int],
    centre: tuple[float, float],
    height: float,
    angle: float,
    camera: np.ndarray | None = None,
) -> np.ndarray:
    """Sprite pixels → frame: scale to ``height`` px, rotate by ``angle``° about its centre, move to
    ``centre`` on the table plane, then apply the optional ``camera`` homography (table → image)."""
    w, h = sprite_size
    scale = height / h
    theta = math.radians(angle)
    cos, sin = math.cos(theta) * scale, math.sin(theta) * scale
    to_origin = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
    rotate = np.array([[cos, -sin, centre[0]], [sin, cos, centre[1]], [0, 0, 1]], np.float64)
    homography = rotate @ to_origin
    return camera @ homography if camera is not None else homography


def transform_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to N × 2 points."""
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), homography).reshape(
        -1, 2
    )


def place(
    canvas: np.ndarray,
    sprite: SpriteLike,
    homography: np.ndarray,
    shadow: float = 0.0,
    shadow_offset: tuple[float, float] = (3.0, 4.0),
) -> Placement | None:
    """Warp ``sprite`` into ``canvas`` (float32 or uint8 BGR, modified in place) and return its coverage.

    ``shadow`` (0..1) first darkens the table under a blurred, offset copy of the sprite's outline,
    the soft shadow a card or hand casts under a lamp. Returns None when nothing lands in the frame.
    """
    ch, cw = canvas.shape[:2]
    sh, sw = sprite.alpha.shape[:2]
    corners = transform_points(homography, np.float32([(0, 0), (sw, 0), (sw, sh), (0, sh)]))
    margin = int(abs(shadow_offset[0]) + abs(shadow_offset[1]) + 8) if shadow > 0 else 1
    x0 = max(0, math.floor(corners[:, 0].min()) - margin)
    y0 = max(0, math.floor(corners[:, 1].min()) - margin)
    x1 = min(cw, math.ceil(corners[:, 0].max()) + margin)
    y1 = min(ch, math.ceil(corners[:, 1].max()) + margin)
    if x1 <= x0 or y1 <= y0:
        return None
    local = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ homography
    size = (x1 - x0, y1 - y0)
    alpha = cv2.warpPerspective(sprite.alpha, local, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    if not alpha.any():
        return None
    colour = cv2.warpPerspective(
        sprite.bgr, local, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    region = canvas[y0:y1, x0:x1]
    work = region if canvas.dtype == np.float32 else region.astype(np.float32)
    if shadow > 0:
        blur = max(3, int(abs(shadow_offset[1]) * 2) | 1)
        shift = np.float32([[1, 0, shadow_offset[0]], [0, 1, shadow_offset[1]]])
        cast = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, size), (blur, blur), 0)
        work *= cv2.merge([1 - shadow * cast] * 3)
    a = cv2.merge([alpha] * 3)
    work += (colour.astype(np.float32) - work) * a  # in place when the canvas is float32
    if work is not region:
        region[:] = np.clip(work, 0, 255).astype(canvas.dtype)
    return Placement(x0, y0, alpha)


@dataclass
class LabelBox:
    """A labelled symbol in the frame: class, box (x1, y1, x2, y2 pixels), visible fraction."""

    class_id: int
    box: tuple[float, float, float, float]
    visible: float
    labelled: bool

    def to_json(self) -> dict:
        return {
            "class": self.class_id,
            "class_name": CLASS_NAMES[self.class_id],
            "box": [round(v, 2) for v in self.box],
            "visible": round(self.visible, 3),
            "labelled": self.labelled,
        }


@dataclass
class PlacedCard:
    """A card in a scene; boxes and visibility are filled in by :meth:`Scene.finalise`."""

    owner_id: int
    sprite_name: str
    design: str
    colourblind: bool
    face_up: bool
    polygon: np.ndarray
    hulls: list[tuple[int, np.ndarray]]
    top_of_pile: bool = False
    visible_fraction: float = 1.0
    boxes: list[LabelBox] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "name": self.sprite_name,
            "design": self.design,
            "colourblind": self.colourblind,
            "face_up": self.face_up,
            "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in self.polygon],
            "visible_fraction": round(self.visible_fraction, 3),
            "top_of_pile": self.top_of_pile,
            "boxes": [box.to_json() for box in self.boxes],
        }


class Scene:
    """A frame under construction: the image (float32 BGR) and an owner map (object id per pixel)."""

    BACKGROUND = -1
    OCCLUDER = -2

    def __init__(self, background: np.ndarray) -> None:
        self.image = background.astype(np.float32)
        self.owner = np.full(background.shape[:2], self.BACKGROUND, np.int16)
        self.cards: list[PlacedCard] = []
        self.objects: list[str] = []

    @property
    def shape(self) -> tuple[int, int]:
        return self.owner.shape  # type: ignore[return-value]

    def _claim(self, placement: Placement, owner_id: int) -> None:
        h, w = placement.alpha.shape
        window = self.owner[placement.y0 : placement.y0 + h, placement.x0 : placement.x0 + w]
        window[placement.alpha > 0.5] = owner_id

    def add_card(
        self, sprite, homography: np.ndarray, top_of_pile: bool = False, shadow: float = 0.35
    ) -> PlacedCard:
        """Composite a :class:`~referee.render.cards.CardSprite` and remember its label geometry."""
        owner_id = len(self.cards)
        placement = place(self.image, sprite, homography, shadow=shadow)
        card = PlacedCard(
            owner_id=owner_id,
            sprite_name=sprite.name,
            design=sprite.design,
            colourblind=sprite.colourblind,
            face_up=sprite.face_up,
            polygon=transform_points(homography, sprite.corners),
            hulls=[(r.class_id, transform_points(homography, r.hull)) for r in sprite.regions],
            top_of_pile=top_of_pile,
        )
        self.cards.append(card)
        if placement is not None:
            self._claim(placement, owner_id)
        return card

    def add_object(self, sprite: SpriteLike, homography: np.ndarray, kind: str, shadow: float = 0.3) -> None:
        """Composite an unlabelled occluder or distractor (hand, coin, phone …)."""
        placement = place(self.image, sprite, homography, shadow=shadow, shadow_offset=(5.0, 7.0))
        if placement is not None:
            self._claim(placement, self.OCCLUDER)
        self.objects.append(kind)

    def finalise(self) -> None:
        """Measure what is still visible of every card and symbol; decide which boxes are labelled."""
        h, w = self.shape
        for card in self.cards:
            card.visible_fraction = visible_fraction(self.owner, card.owner_id, card.polygon)
            card.boxes = []
            for class_id, hull in card.hulls:
                visible = visible_fraction(self.owner, card.owner_id, hull)
                x1, y1 = np.clip(hull.min(axis=0), 0, [w, h])
                x2, y2 = np.clip(hull.max(axis=0), 0, [w, h])
                big_enough = x2 - x1 >= MIN_BOX_SIDE and y2 - y1 >= MIN_BOX_SIDE
                labelled = bool(card.face_up and visible >= MIN_VISIBLE and big_enough)
                box = (float(x1), float(y1), float(x2), float(y2))
                card.boxes.append(LabelBox(class_id, box, visible, labelled))

    def yolo_labels(self) -> list[tuple[int, float, float, float, float]]:
        """Labelled boxes as YOLO rows ``(class, cx, cy, w, h)``, normalised to the frame size."""
        h, w = self.shape
        rows = []
        for card in self.cards:
            for box in card.boxes:
                if box.labelled:
                    x1, y1, x2, y2 = box.box
                    rows.append(
                        (box.class_id, (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h)
                    )
        return rows


def visible_fraction(owner: np.ndarray, owner_id: int, polygon: np.ndarray) -> float:
    """Share of ``polygon`` (frame pixels, may leave the frame) whose pixels ``owner_id`` still owns."""
    x0, y0 = np.floor(polygon.min(axis=0)).astype(int)
    x1, y1 = np.ceil(polygon.max(axis=0)).astype(int) + 1
    local = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(local, [np.round((polygon - [x0, y0]) * 4).astype(np.int32)], 1, shift=2)
    total = int(local.sum())
    if total == 0:
        return 0.0
    h, w = owner.shape
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    inside = local[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
    owned = owner[cy0:cy1, cx0:cx1] == owner_id
    return float((inside.astype(bool) & owned).sum()) / total
