"""Contact sheet of rendered scenes with their labelled boxes drawn, to check labels by eye.

``python -m referee.render.preview docs/images/render-samples.jpg --count 24 --seed 1``
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from referee.render.scenes import render_scene
from referee.vision.classes import CLASS_NAMES, SYMBOL_COUNT


def draw_labels(image: np.ndarray, labels: Sequence[tuple[int, float, float, float, float]]) -> np.ndarray:
    """A copy of ``image`` with YOLO rows drawn: symbols in magenta, colour-blind symbols in cyan."""
    out = image.copy()
    h, w = out.shape[:2]
    for class_id, cx, cy, bw, bh in labels:
        x1, y1 = round((cx - bw / 2) * w), round((cy - bh / 2) * h)
        x2, y2 = round((cx + bw / 2) * w), round((cy + bh / 2) * h)
        colour = (255, 0, 255) if class_id < SYMBOL_COUNT else (255, 255, 0)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 1)
        cv2.putText(out, CLASS_NAMES[class_id], (x1, max(8, y1 - 2)), cv2.FONT_HERSHEY_PLAIN, 0.7, colour, 1)
    return out


def contact_sheet(count: int, seed: int, size: int = 416, columns: int = 6, tile: int = 260) -> np.ndarray:
    """``count`` scenes (seeded like the dataset) with boxes, in a grid of ``tile``-pixel cells."""
    tiles = []
    for index in range(count):
        scene = render_scene(np.random.default_rng([seed, index]), size)
        drawn = draw_labels(scene.image, scene.labels)
        drawn = cv2.resize(drawn, (tile, tile), interpolation=cv2.INTER_AREA)
        cv2.putText(drawn, scene.kind, (3, tile - 5), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 255, 255), 1)
        tiles.append(drawn)
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[k : k + columns]) for k in range(0, len(tiles), columns)]
    return np.vstack(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="image file to write (.jpg or .png)")
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quality", type=int, default=80, help="JPEG quality")
    args = parser.parse_args(argv)
    sheet = contact_sheet(args.count, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), sheet, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
