"""Training patches for the centre reader (:mod:`referee.vision.centres`): the big symbol in the
middle of a card whose two corners show, or "no centre" where something hides it.

Every rendered scene knows each card's corners and what covers what. For each face-up card with both
corner indices labelled, the patch is cut as :func:`referee.vision.centres.centre_patch` cuts it, from
centres moved a little as the detector's boxes wander, either index first. Its label is the card's
symbol where at least :data:`SEEN` of the centre region is the card's own, and "no centre" where at
most :data:`HIDDEN` is (another card, a hand, the picture's edge); in between the patch is skipped, as
neither answer is right. Two cards' corners that the reader's geometry could pair (an index of each,
one card's spacing apart) are cut too, as "no centre": what lies between them is no card's middle.

``python -m referee.lab.centre_data OUT.npz --scenes 8000 --seed 3000`` writes ``crops`` (N × 40 × 40 × 3
uint8 BGR), ``labels`` (N,) and ``decks_seen`` (none: rendered cards only), for
``python -m referee.lab.glyph_training OUT.npz --centres --out models/uno_centres.onnx``.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.lab.pair_data import labelled_corners, mixed_scene, pairable, patch_job
from referee.render.compose import visible_fraction
from referee.vision.centres import CENTRE_CLASSES, CENTRE_PX, CENTRE_REGION, NO_CENTRE, centre_patch
from referee.vision.classes import CLASS_NAMES
from referee.vision.pairs import card_frame

#: A centre at least this visible is read; at most ``HIDDEN`` visible it is "no centre".
SEEN = 0.85
HIDDEN = 0.5
#: Two cards' corner pairs kept per card of the scene (at least one a scene).
TWO_CARD_PAIRS = 0.3


def _region_outline(first: tuple[float, float], second: tuple[float, float]) -> np.ndarray:
    """The centre region's four corners in the picture, for a card's two index centres."""
    frame = card_frame(first, second, CENTRE_PX, CENTRE_REGION)
    corners = np.float64([[0, 0, 1], [CENTRE_PX, 0, 1], [CENTRE_PX, CENTRE_PX, 1], [0, CENTRE_PX, 1]])
    return corners @ frame.T.astype(np.float64)


def scene_patches(seed: int) -> tuple[list[np.ndarray], list[int]]:
    """The patches and labels of one rendered scene (seeded: the same on every machine)."""
    rng, rendered = mixed_scene(seed)
    scene = rendered.scene
    by_card: dict[int, list[tuple[int, tuple[float, float, float]]]] = {}
    corners = labelled_corners(rendered, rng)
    for owner, class_id, centre in corners:
        by_card.setdefault(owner, []).append((class_id, centre))
    no_centre = CENTRE_CLASSES.index(NO_CENTRE)
    cards: list[tuple[tuple[float, float], tuple[float, float], int]] = []
    for owner, found in by_card.items():
        if len(found) != 2 or found[0][0] != found[1][0]:
            continue
        (class_id, (ax, ay, _)), (_, (bx, by, _)) = found
        first, second = ((ax, ay), (bx, by)) if rng.random() < 0.5 else ((bx, by), (ax, ay))
        seen = visible_fraction(scene.owner, scene.cards[owner].owner_id, _region_outline(first, second))
        if seen >= SEEN:
            cards.append((first, second, CENTRE_CLASSES.index(CLASS_NAMES[class_id])))
        elif seen <= HIDDEN:
            cards.append((first, second, no_centre))
    two_cards = [
        (corners[i][2][:2], corners[j][2][:2])
        for i, j, _ in pairable(corners)
        if corners[i][0] != corners[j][0]  # corners of two cards
    ]
    keep = max(1, round(TWO_CARD_PAIRS * len(by_card)))
    if len(two_cards) > keep:
        two_cards = [two_cards[k] for k in rng.choice(len(two_cards), keep, replace=False)]
    cards += [(a, b, no_centre) for a, b in two_cards]
    return [centre_patch(rendered.image, a, b) for a, b, _ in cards], [label for _, _, label in cards]


def main(argv: list[str] | None = None) -> int:
    written = patch_job(argv, "centre_data", __doc__.splitlines()[0], scene_patches, (8000, 3000))
    if written is None:
        return 2
    out, labels = written
    shown = np.mean(labels != CENTRE_CLASSES.index(NO_CENTRE))
    print(f"wrote {out}: {len(labels)} cards, {shown:.2f} of them with a centre to read")
    return 0


if __name__ == "__main__":
    cv2.setNumThreads(1)
    raise SystemExit(main())
