"""A rendered stand-in for a user's own deck, to measure ``deck learn`` where no second real deck is at
hand: one print (one look, one set of print colours) photographed twice, once to learn from and once
to deal into scenes.

``python -m referee.lab.standin_deck OUT --design recent --seed 11`` writes ``OUT/learn/<face>/a.jpg``
(one photo per face, for ``uno-referee deck learn OUT/learn``) and ``OUT/faces/`` (a second photo of
each face under another lamp, with ``labels.jsonl``, for ``uno-referee dataset … --faces OUT/faces``).
Then::

    uno-referee deck learn OUT/learn --out OUT/deck.json
    uno-referee dataset datasets/standin-tables --faces OUT/faces --kind table --count 60 --size 1280
    uno-referee eval datasets/standin-tables --cards-of official [--deck OUT/deck.json]

compares whole tables read with and without the learnt deck (the model card's nineteenth session).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from referee.render.cards import PRINT_FAMILIES, render_card
from referee.vision.deck import standard_faces

PHOTO_HEIGHT = 420  # px: about criscard's one-card photos


def photograph(face: np.ndarray, alpha: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One photo of a rendered face: on white paper, under a lamp of its own tint and brightness, at
    times a little out of focus."""
    cover = alpha[..., None].astype(np.float32) / 255.0
    card = 240.0 * (1 - cover) + face.astype(np.float32) * cover
    lamp = rng.uniform(0.85, 1.1, 3) * rng.uniform(0.8, 1.05)
    card = np.clip(card * lamp, 0, 255)
    if rng.random() < 0.5:
        card = cv2.GaussianBlur(card, (0, 0), rng.uniform(0.5, 1.2))
    return card.astype(np.uint8)


def write_deck(out: Path, design: str, seed: int) -> int:
    """Write ``learn/`` and ``faces/``; returns the number of faces. Every face is rendered from the
    same seed, so the deck has one look; each photo draws its own lamp."""
    lamps = np.random.default_rng(seed + 1000)
    (out / "faces" / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for number, name in enumerate(standard_faces()):
        sprite = render_card(name, design, height=PHOTO_HEIGHT, rng=np.random.default_rng(seed))
        learn = out / "learn" / name
        learn.mkdir(parents=True, exist_ok=True)
        quality = [cv2.IMWRITE_JPEG_QUALITY, 90]
        cv2.imwrite(str(learn / "a.jpg"), photograph(sprite.bgr, sprite.alpha, lamps), quality)
        image = f"images/{number:02d}.jpg"
        cv2.imwrite(str(out / "faces" / image), photograph(sprite.bgr, sprite.alpha, lamps), quality)
        lines.append(json.dumps({"image": image, "card": name}))
    (out / "faces" / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.standin_deck", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="output folder (learn/ and faces/ are written into it)")
    parser.add_argument("--design", choices=PRINT_FAMILIES, default="recent", help="print family")
    parser.add_argument("--seed", type=int, default=11, help="the deck's look (font, print colours)")
    args = parser.parse_args(argv)
    faces = write_deck(args.out, args.design, args.seed)
    print(f"{args.out}: {faces} faces to learn from (learn/), a second photo of each (faces/)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
