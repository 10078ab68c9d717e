"""Card faces from photographs, so the simulated table can film a real deck and not only our renderer's.

A face folder holds flattened, upright photos of single cards (the card's outline is the picture's
edge) and a ``labels.jsonl`` naming each one, one JSON object a line::

    {"image": "images/Blue_011_card_Reverse.jpg", "card": "blue-reverse"}

as ``../shared/data/uno-cards-criscard`` does. Each photo becomes a
:class:`~referee.render.cards.CardSprite` like a rendered card: scaled to the card's shape, its
corners rounded off by the alpha, and its two corner indices labelled where a card prints them
(:data:`INDEX_REGION` and its half-turn twin), so the table video composites it, and the oracle
reader labels it, exactly as it does a rendered card. :class:`PhotoDeal` does the same for the
still scenes of ``uno-referee dataset --faces`` (held-out whole tables dealt with a real deck).

>>> import numpy as np
>>> sprite = photo_sprite("red-7", np.full((420, 275, 3), 200, np.uint8), height=87)
>>> sprite.size, [region.class_name for region in sprite.regions]
((56, 87), ['7', '7'])
>>> int(sprite.alpha[0, 0]), int(sprite.alpha[43, 28])  # a rounded-off corner, the middle
(0, 255)
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.errors import UserError
from referee.render.cards import CARD_ASPECT, CardSprite, LabelRegion, parse_card_name
from referee.vision.classes import SYMBOL_CLASSES

LABELS_FILE = "labels.jsonl"
#: Where the top-left corner index lies, as shares of the photo's width and height (x1, y1, x2, y2),
#: measured by drawing it on photos of a recent Mattel deck (wide enough for "+2" and "+4"); the
#: other index is its half-turn twin.
INDEX_REGION = (0.11, 0.05, 0.31, 0.21)
#: The card's corner radius as a share of its height (about 3.5 mm of 87 mm).
CORNER_RADIUS = 0.04
#: The sprite's design name, as the truth log records it.
PHOTO_DESIGN = "photo"


def photo_sprite(name: str, photo_bgr: np.ndarray, height: int) -> CardSprite:
    """A photographed face as a card sprite ``height`` pixels tall, labelled like a rendered one."""
    symbol, _ = parse_card_name(name)
    width = max(8, round(height * CARD_ASPECT))
    bgr = cv2.resize(photo_bgr, (width, height), interpolation=cv2.INTER_AREA)
    x1, y1, x2, y2 = INDEX_REGION
    corner = np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) * np.float32([width, height])
    twin = np.float32([width, height]) - corner
    class_id = SYMBOL_CLASSES.index(symbol)
    regions = [LabelRegion(class_id, corner), LabelRegion(class_id, twin)]
    alpha = _rounded_alpha(width, height, CORNER_RADIUS * height)
    return CardSprite(name, PHOTO_DESIGN, False, True, bgr, alpha, regions)


def _rounded_alpha(width: int, height: int, radius: float, supersample: int = 4) -> np.ndarray:
    """An opaque card with transparent rounded-off corners, anti-aliased by drawing it larger."""
    w, h, r = width * supersample, height * supersample, max(1, round(radius * supersample))
    alpha = np.zeros((h, w), np.uint8)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for centre in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, centre, r, 255, -1)
    return cv2.resize(alpha, (width, height), interpolation=cv2.INTER_AREA)


@dataclass(frozen=True)
class PhotoFaces:
    """The photographed faces of one deck, by card name (a face photographed twice has two)."""

    folder: Path
    photos: dict[str, tuple[np.ndarray, ...]]

    @property
    def photo_count(self) -> int:
        return sum(len(photos) for photos in self.photos.values())

    @property
    def deck(self) -> str:
        """The deck's name, as the per-deck evaluation names it: its folder's (``uno-cards-criscard``)."""
        return self.folder.resolve().name

    def stand_in(self, name: str, seed: int) -> str:
        """``name`` when it was photographed, else a photographed face like it (the same symbol in
        another colour, a wild for a wild, else any), chosen by ``seed``: a scene asks for cards a
        deck may lack (wild swap, a face nobody photographed)."""
        if name in self.photos:
            return name
        symbol, colour = parse_card_name(name)

        def distance(other: str) -> int:
            other_symbol, other_colour = parse_card_name(other)
            return 0 if other_symbol == symbol else 1 if (other_colour is None) == (colour is None) else 2

        distances = {other: distance(other) for other in self.photos}
        closest = sorted(other for other, d in distances.items() if d == min(distances.values()))
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        return closest[int(rng.integers(len(closest)))]

    @classmethod
    def load(cls, folder: str | Path) -> PhotoFaces:
        """Read ``folder/labels.jsonl`` and every photo it names; any fault is a one-line error."""
        folder = Path(folder)
        if not folder.is_dir():
            raise UserError(f"no such face folder: {folder}")
        labels = folder / LABELS_FILE
        if not labels.is_file():
            raise UserError(f"no {LABELS_FILE} in {folder}: a face folder lists its photos there")
        photos: dict[str, list[np.ndarray]] = {}
        try:
            lines = labels.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as error:
            raise UserError(f"cannot read {labels}: {error.strerror}") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{labels} line {number}"
            try:
                entry = json.loads(line)
                image, name = str(entry["image"]), str(entry["card"])
                parse_card_name(name)
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise UserError(
                    f'{where}: write {{"image": "images/….jpg", "card": "red-7"}} ({error})'
                ) from None
            except ValueError as error:
                raise UserError(f"{where}: {error}") from None
            picture = cv2.imread(str(folder / image), cv2.IMREAD_COLOR)
            if picture is None:
                raise UserError(f"{where}: cannot read the photo {folder / image}")
            photos.setdefault(name, []).append(picture)
        if not photos:
            raise UserError(f"{labels} names no photos")
        return cls(folder, {name: tuple(pictures) for name, pictures in photos.items()})

    def sprite(self, name: str, height: int, seed: int) -> CardSprite | None:
        """``name``'s face from a photo (one of its photos, chosen by ``seed``); None when it has none."""
        pictures = self.photos.get(name)
        if not pictures:
            return None
        choice = np.random.default_rng([seed, zlib.crc32(name.encode())]).integers(len(pictures))
        return photo_sprite(name, pictures[int(choice)], height)


@dataclass(frozen=True)
class PhotoDeal:
    """What one still scene is dealt from a photographed deck: called with each card the renderer
    drew, it returns that card's photographed face (or a stand-in's) at the same size.

    The scene still renders every card first and only then swaps it, so it draws the same random
    numbers as without photos: ``dataset --faces`` with a seed lays out exactly the tables of the
    rendered set with that seed, and the two sets compare picture for picture.
    """

    faces: PhotoFaces
    seed: int  # the scene's: which photo of a face photographed twice, which stand-in

    def __call__(self, rendered: CardSprite) -> CardSprite:
        name = self.faces.stand_in(rendered.name, self.seed)
        sprite = self.faces.sprite(name, rendered.size[1], self.seed)
        assert sprite is not None  # a stand-in is always photographed
        return sprite
