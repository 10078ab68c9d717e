"""Whole training scenes: what the camera over an UNO table sees, with labels and metadata.

Scene kinds (shares in :data:`SCENE_WEIGHTS`):

* ``discard`` — a crop of the discard zone: a pile of 1–8 cards, the top one entirely in the frame
  at any rotation, older cards peeking out; sometimes fingers laying the card;
* ``table`` — the overhead camera 40–80 cm above a table seen with tilt: discard pile, face-down
  draw pile, hands laid out fanned for scoring, scattered cards, distractors, arms;
* ``fan`` — close-ups of hand-held fans turned about a pivot, fingers holding them;
* ``negative`` — no UNO faces at all: tables, distractors, hands, card backs;
* ``row`` (asked for by name, not in the mix) — a hand spread in a tight row, back cards showing
  little more than their top index.

``faces`` swaps every rendered face for a photographed one (``uno-referee dataset --faces``, see
:class:`referee.lab.photo_faces.PhotoDeal`); everything else, the random numbers included, stays
as rendered, so the same seed lays out the same scene with the real deck's faces.

>>> result = render_scene(np.random.default_rng(3), size=256, kind="discard")
>>> result.image.shape, result.kind, len(result.labels) >= 1
((256, 256, 3), 'discard', True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from referee.render.cards import CARD_ASPECT, PRINT_FAMILIES, CardSprite, render_back, render_card
from referee.render.compose import PlacedCard, Scene, pose_homography, transform_points
from referee.render.objects import hand_sprite, random_distractor
from referee.render.surfaces import add_glare, glare_map, photometric, table_surface, veil
from referee.vision.classes import COLOURS, SYMBOL_CLASSES, WILD_SYMBOLS, card_name

SCENE_WEIGHTS: dict[str, float] = {"discard": 0.42, "table": 0.26, "fan": 0.21, "negative": 0.11}

#: Shares of the print families in training scenes (classic, modern, recent, offbrand): the decks
#: in circulation, with the recent Mattel print as common as the one before it.
FAMILY_SHARES: tuple[float, ...] = (0.22, 0.33, 0.33, 0.12)

#: Sprites are rendered a little larger than they appear, then shrunk by the warp (sharper print).
_OVERSAMPLE = 1.3

#: Turns a rendered face into the same card's face from elsewhere (a photographed deck), same size.
FaceSwap = Callable[[CardSprite], CardSprite]


def typeface_families(faces: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Font files grouped by family (the file name before its first ``-``), families sorted.

    >>> typeface_families(("/f/Inter-Bold.otf", "/f/Cabin-Bold.otf", "/f/Inter-Black.otf"))
    [('/f/Cabin-Bold.otf',), ('/f/Inter-Black.otf', '/f/Inter-Bold.otf')]
    """
    by_family: dict[str, list[str]] = {}
    for face in sorted(faces):
        by_family.setdefault(family_name(face), []).append(face)
    return [tuple(group) for group in by_family.values()]


def family_name(face: str) -> str:
    """A font file's family: its file name before the first ``-``.

    >>> family_name("/usr/share/fonts/opentype/mplus/Mplus2-Black.otf")
    'Mplus2'
    """
    return Path(face).name.split("-")[0]


class Retype:
    """A :data:`FaceSwap` that draws each face again with its numerals in other typefaces: one family
    per card, every family as likely however many weights it has (``dataset --typefaces held-out``).

    Its own random numbers, not the scene's: the scene lays out the same table as without it.

    >>> faces = ("/f/Inter-Bold.otf", "/f/Inter-Black.otf", "/f/Cabin-Bold.otf")
    >>> sorted(Retype(faces, seed=1).families)
    [('/f/Cabin-Bold.otf',), ('/f/Inter-Black.otf', '/f/Inter-Bold.otf')]
    """

    def __init__(self, faces: tuple[str, ...], seed: int) -> None:
        self.families = typeface_families(faces)
        self.rng = np.random.default_rng(seed)

    def __call__(self, rendered: CardSprite) -> CardSprite:
        family = self.families[int(self.rng.integers(len(self.families)))]
        height = rendered.size[1]
        return render_card(
            rendered.name, rendered.design, rendered.colourblind, height, self.rng, fonts=family
        )


@dataclass(frozen=True)
class DeckStyle:
    """The deck a scene is played with (one game, one deck; sometimes a stray card of another)."""

    design: str
    colourblind: bool
    faces: FaceSwap | None = None  # a photographed deck's faces replace the rendered ones

    @staticmethod
    def random(rng: np.random.Generator) -> DeckStyle:
        return DeckStyle(str(rng.choice(PRINT_FAMILIES, p=FAMILY_SHARES)), bool(rng.random() < 0.3))


@dataclass
class RenderedScene:
    """A finished frame (uint8 BGR), its scene graph and its YOLO rows."""

    image: np.ndarray
    scene: Scene
    kind: str
    surface: str

    @property
    def labels(self) -> list[tuple[int, float, float, float, float]]:
        return self.scene.yolo_labels()

    def metadata(self) -> dict:
        """The per-image JSON sidecar used for card-level evaluation."""
        h, w = self.image.shape[:2]
        return {
            "kind": self.kind,
            "surface": self.surface,
            "size": [w, h],
            "cards": [card.to_json() for card in self.scene.cards],
            "objects": list(self.scene.objects),
        }


def random_card_name(rng: np.random.Generator) -> str:
    """A card name with symbol classes roughly balanced (wilds a bit rarer, as in a real deck)."""
    weights = np.float64([0.6 if s in WILD_SYMBOLS else 1.0 for s in SYMBOL_CLASSES])
    symbol = str(rng.choice(SYMBOL_CLASSES, p=weights / weights.sum()))
    return card_name(symbol, None if symbol in WILD_SYMBOLS else str(rng.choice(COLOURS)))


def _sprite(
    style: DeckStyle, on_screen_height: float, rng: np.random.Generator, face_up: bool = True
) -> CardSprite:
    height = int(np.clip(on_screen_height * _OVERSAMPLE, 40, 420))
    if not face_up:
        return render_back(height, rng)
    printed = DeckStyle.random(rng) if rng.random() < 0.05 else style
    name = random_card_name(rng)
    sprite = render_card(name, printed.design, printed.colourblind, height, rng, variety=True)
    # Rendered even when swapped: the scene draws the same random numbers with photographed faces.
    return sprite if style.faces is None else style.faces(sprite)


def random_camera(size: int, rng: np.random.Generator, tilt: float) -> np.ndarray:
    """Table plane (size × size virtual top view) → image: a tilted, slightly rotated camera."""
    s = float(size)
    src = np.float32([(0, 0), (s, 0), (s, s), (0, s)])
    dst = src + rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * s
    near_edge = int(rng.integers(0, 4))  # the edge closest to the camera looks larger
    grow = rng.uniform(0, tilt) * s
    for corner in (near_edge, (near_edge + 1) % 4):
        dst[corner] += (dst[corner] - s / 2) / (s / 2) * grow
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def _lift(sprite: CardSprite, homography: np.ndarray, amount: float, rng: np.random.Generator) -> np.ndarray:
    """Tilt a card a little out of the table plane (held in a hand, lying on another card's edge)."""
    w, h = sprite.size
    corners = sprite.corners
    moved = corners + rng.uniform(-amount, amount, (4, 2)).astype(np.float32) * np.float32([w, h])
    return homography @ cv2.getPerspectiveTransform(corners, moved).astype(np.float64)


def _inside(polygon: np.ndarray, size: int, margin: float = 1.0) -> bool:
    return bool((polygon >= margin).all() and (polygon <= size - margin).all())


def _add_hand(
    scene: Scene,
    target: tuple[float, float],
    card_height: float,
    rng: np.random.Generator,
    wrist_direction: float | None = None,
) -> None:
    """A hand with fingers about as long as a real one next to cards ``card_height`` pixels tall."""
    reach = card_height * rng.uniform(0.55, 0.9)
    sprite, homography = hand_sprite(scene.shape, target, reach, rng, wrist_direction)
    scene.add_object(sprite, homography, kind="hand", shadow=rng.uniform(0.2, 0.45))


def _add_distractors(scene: Scene, count: int, card_height: float, camera, rng: np.random.Generator) -> None:
    h, w = scene.shape
    for _ in range(count):
        kind, sprite = random_distractor(card_height, rng)
        sh, sw = sprite.alpha.shape
        centre = (rng.uniform(0, w), rng.uniform(0, h))
        homography = pose_homography((sw, sh), centre, sh, rng.uniform(0, 360), camera)
        scene.add_object(sprite, homography, kind=kind)


def _discard(scene: Scene, size: int, rng: np.random.Generator, style: DeckStyle) -> None:
    card_h = size * rng.uniform(0.4, 0.78)
    camera = random_camera(size, rng, 0.05)
    count = int(rng.choice(range(1, 9), p=[0.18, 0.18, 0.16, 0.14, 0.12, 0.1, 0.07, 0.05]))
    for _ in range(count - 1):
        centre = (size / 2 + rng.normal(0, size * 0.14), size / 2 + rng.normal(0, size * 0.14))
        sprite = _sprite(style, card_h, rng)
        scene.add_card(sprite, pose_homography(sprite.size, centre, card_h, rng.uniform(0, 360), camera))
    top = _sprite(style, card_h, rng)
    for _ in range(20):  # the top card lies entirely in the crop
        centre = (size / 2 + rng.normal(0, size * 0.06), size / 2 + rng.normal(0, size * 0.06))
        homography = pose_homography(top.size, centre, card_h, rng.uniform(0, 360), camera)
        if _inside(transform_points(homography, top.corners), size):
            break
        card_h *= 0.93
        homography = pose_homography(top.size, (size / 2, size / 2), card_h, rng.uniform(0, 360), camera)
    card = scene.add_card(top, homography, top_of_pile=True)
    if rng.random() < 0.3:
        corner = card.polygon[int(rng.integers(0, 4))]
        target = tuple(corner + (np.mean(card.polygon, axis=0) - corner) * rng.uniform(0.0, 0.35))
        _add_hand(scene, target, card_h, rng)
    if rng.random() < 0.1:
        _add_distractors(scene, 1, card_h, camera, rng)


def _fanned_row(
    scene: Scene,
    style: DeckStyle,
    start: tuple[float, float],
    direction: float,
    count: int,
    card_h: float,
    camera: np.ndarray,
    rng: np.random.Generator,
    steps: tuple[float, float] = (0.22, 0.5),
    centred: bool = False,
    lift: float = 0.0,
) -> None:
    """A hand laid out for scoring: cards in a row, each covering most of the previous one.

    ``steps``: the shift from card to card, in card widths; ``centred``: ``start`` is the row's middle,
    not its first card; ``lift``: cards tilted out of the table plane (held in a hand)."""
    step = card_h * CARD_ASPECT * rng.uniform(*steps)
    base_angle = math.degrees(direction) + rng.normal(0, 6)
    if centred:
        back = step * (count - 1) / 2
        start = (start[0] - math.cos(direction) * back, start[1] - math.sin(direction) * back)
    for k in range(count):
        centre = (start[0] + math.cos(direction) * step * k, start[1] + math.sin(direction) * step * k)
        sprite = _sprite(style, card_h, rng)
        angle = base_angle + rng.normal(0, 3)
        homography = pose_homography(sprite.size, centre, card_h, angle, camera)
        if lift:
            homography = _lift(sprite, homography, lift, rng)
        scene.add_card(sprite, homography, shadow=0.25)


def _table(scene: Scene, size: int, rng: np.random.Generator, style: DeckStyle) -> None:
    card_h = size * rng.uniform(0.09, 0.2)
    camera = random_camera(size, rng, rng.uniform(0.02, 0.12))
    budget = int(rng.integers(1, 21))

    def spot() -> tuple[float, float]:
        return rng.uniform(size * 0.1, size * 0.9), rng.uniform(size * 0.1, size * 0.9)

    if rng.random() < 0.6:  # the face-down draw pile
        centre, angle = spot(), rng.uniform(0, 360)
        for k in range(int(rng.integers(2, 7))):
            back = _sprite(style, card_h, rng, face_up=False)
            jitter = (centre[0] + rng.normal(0, 1.5) - k * 0.4, centre[1] + rng.normal(0, 1.5) - k * 0.6)
            scene.add_card(back, pose_homography(back.size, jitter, card_h, angle + rng.normal(0, 4), camera))
    if rng.random() < 0.75 and budget > 0:  # the discard pile
        centre = spot()
        pile = int(min(budget, rng.integers(1, 6)))
        for k in range(pile):
            sprite = _sprite(style, card_h, rng)
            offset = (centre[0] + rng.normal(0, card_h * 0.12), centre[1] + rng.normal(0, card_h * 0.12))
            homography = pose_homography(sprite.size, offset, card_h, rng.uniform(0, 360), camera)
            scene.add_card(sprite, homography, top_of_pile=k == pile - 1)
        budget -= pile
    for _ in range(int(rng.integers(0, 3))):  # hands laid out for scoring
        if budget <= 1:
            break
        count = int(min(budget, rng.integers(2, 9)))
        _fanned_row(scene, style, spot(), rng.uniform(0, 2 * math.pi), count, card_h, camera, rng)
        budget -= count
    for _ in range(budget):  # scattered cards, some face down
        face_up = rng.random() < 0.8
        sprite = _sprite(style, card_h, rng, face_up)
        scene.add_card(sprite, pose_homography(sprite.size, spot(), card_h, rng.uniform(0, 360), camera))
    _add_distractors(scene, int(rng.choice([0, 0, 1, 1, 2, 3])), card_h, camera, rng)
    for _ in range(int(rng.choice([0, 0, 0, 1, 1, 2]))):  # arms reaching over the table
        _add_hand(scene, spot(), card_h, rng)


def _fan(scene: Scene, size: int, rng: np.random.Generator, style: DeckStyle) -> None:
    card_h = size * rng.uniform(0.28, 0.62)
    count = int(rng.integers(2, 7))
    camera = random_camera(size, rng, 0.06)
    pivot = (size / 2 + rng.normal(0, size * 0.12), size / 2 + card_h * rng.uniform(0.2, 0.8))
    radius = card_h * rng.uniform(0.6, 1.2)
    spread = rng.uniform(6, 18)
    base = rng.normal(0, 25)
    angles = [base + (k - (count - 1) / 2) * spread for k in range(count)]
    if rng.random() < 0.3:
        angles.reverse()  # held in the other hand: the left card on top
    front: PlacedCard | None = None
    for angle in angles:
        theta = math.radians(angle)
        centre = (pivot[0] + radius * math.sin(theta), pivot[1] - radius * math.cos(theta))
        sprite = _sprite(style, card_h, rng)
        homography = _lift(sprite, pose_homography(sprite.size, centre, card_h, angle, camera), 0.04, rng)
        front = scene.add_card(sprite, homography, shadow=0.3)
    if front is not None and rng.random() < 0.6:  # the thumb and fingers holding the fan
        bottom = (front.polygon[2] + front.polygon[3]) / 2
        target = tuple(bottom + (np.mean(front.polygon, axis=0) - bottom) * rng.uniform(0.05, 0.4))
        _add_hand(scene, target, card_h, rng, math.pi / 2 + rng.normal(0, 0.5))


def _row(scene: Scene, size: int, rng: np.random.Generator, style: DeckStyle) -> None:
    """A close-up of a hand spread in a tight row (each card shifted sideways over the one before, as
    people hold cards and as the Roboflow photos show them): the back cards show little more than
    their top index, which a detector trained only on pivot fans scores weakly."""
    card_h = size * rng.uniform(0.3, 0.62)
    count = int(rng.integers(2, 6))
    camera = random_camera(size, rng, 0.06)
    upright = rng.random() < 0.6
    direction = rng.normal(0, 0.25) if upright else rng.uniform(0, 2 * math.pi)
    middle = (size / 2 + rng.normal(0, size * 0.08), size / 2 + rng.normal(0, size * 0.08))
    steps = (0.16, 0.34)  # in card widths: the back cards' top index shows whole or nearly
    _fanned_row(scene, style, middle, direction, count, card_h, camera, rng, steps, centred=True, lift=0.03)
    front = scene.cards[-1]
    if rng.random() < 0.4:  # the thumb holding the row
        bottom = (front.polygon[2] + front.polygon[3]) / 2
        target = tuple(bottom + (np.mean(front.polygon, axis=0) - bottom) * rng.uniform(0.05, 0.3))
        _add_hand(scene, target, card_h, rng, direction + math.pi / 2 + rng.normal(0, 0.4))
    if rng.random() < 0.15:
        _add_distractors(scene, 1, card_h, camera, rng)


def _negative(scene: Scene, size: int, rng: np.random.Generator, style: DeckStyle) -> None:
    card_h = size * rng.uniform(0.1, 0.5)
    camera = random_camera(size, rng, 0.06)
    if rng.random() < 0.3:  # face-down cards are not faces: nothing to label
        centre = (rng.uniform(0.2, 0.8) * size, rng.uniform(0.2, 0.8) * size)
        for _ in range(int(rng.integers(1, 5))):
            back = _sprite(style, card_h, rng, face_up=False)
            jitter = (centre[0] + rng.normal(0, card_h * 0.3), centre[1] + rng.normal(0, card_h * 0.3))
            scene.add_card(back, pose_homography(back.size, jitter, card_h, rng.uniform(0, 360), camera))
    _add_distractors(scene, int(rng.integers(0, 6)), card_h, camera, rng)
    for _ in range(int(rng.choice([0, 1, 1, 2]))):
        _add_hand(scene, (rng.uniform(0, size), rng.uniform(0, size)), card_h, rng)


_BUILDERS = {"discard": _discard, "table": _table, "fan": _fan, "negative": _negative, "row": _row}

#: Every kind ``render_scene`` lays out: the training mix's, and ``row``, asked for by name only (kept
#: out of the mix so that the seeds of earlier data sets lay out the same scenes).
SCENE_KINDS: tuple[str, ...] = tuple(_BUILDERS)


def render_scene(
    rng: np.random.Generator,
    size: int = 416,
    kind: str | None = None,
    faces: FaceSwap | None = None,
    busy: float = 0.0,
) -> RenderedScene:
    """One random scene of ``kind`` (drawn from :data:`SCENE_WEIGHTS` when None), fully seeded by ``rng``;
    ``faces`` replaces every rendered face (card backs stay rendered); ``busy``: the share of scenes
    laid on a busy print (:data:`referee.render.surfaces.BUSY_SURFACES`)."""
    if kind is None:
        weights = np.float64(list(SCENE_WEIGHTS.values()))
        kind = str(rng.choice(list(SCENE_WEIGHTS), p=weights / weights.sum()))
    if kind not in _BUILDERS:
        raise ValueError(f"unknown scene kind {kind!r} (expected one of {', '.join(_BUILDERS)})")
    background, surface = table_surface(size, size, rng, busy=busy)
    scene = Scene(background)
    _BUILDERS[kind](scene, size, rng, replace(DeckStyle.random(rng), faces=faces))
    scene.finalise()
    if rng.random() < 0.3:  # glare on the glossy cards only
        light = glare_map(size, size, rng, int(rng.integers(1, 3)))
        add_glare(scene.image, light * (scene.owner >= 0))
    image = photometric(scene.image, rng)
    if rng.random() < 0.25:
        image = veil(image, rng)
    return RenderedScene(image, scene, kind, surface)
