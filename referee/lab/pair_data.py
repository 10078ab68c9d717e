"""Training patches for the pair check (:mod:`referee.vision.pairs`): one card's two corners, or two
cards' corners that the reader's geometry would pair.

Every rendered scene knows which card each labelled index belongs to. Each pair of labelled indices
that the reader could take for one card (sizes and spacing as :class:`ReaderSettings` pairs them) is
cut as :func:`referee.vision.pairs.pair_patch` cuts it, from centres moved a little as the detector's
boxes wander, either index first: label 0 where both are one card's, 1 where they are two cards'.
Scenes are whole tables, fans and discard piles, where cards lie side by side and across each other;
two-card pairs of the same symbol (what the glyphs cannot tell apart) are all kept, other two-card
pairs at most :data:`OTHER_TWO_CARD_PAIRS` times the one-card pairs of the scene.

``python -m referee.lab.pair_data OUT.npz --scenes 6000 --seed 2900`` writes ``crops`` (N × 40 × 40 × 3
uint8 BGR), ``labels`` (N,) and ``decks_seen`` (none: rendered cards only), for
``python -m referee.lab.glyph_training OUT.npz --pairs --out models/uno_pairs.onnx``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from referee.errors import UserError
from referee.render.scenes import RenderedScene, render_scene
from referee.vision.classes import CLASS_NAMES, SYMBOL_CLASSES
from referee.vision.pairs import pair_patch
from referee.vision.reader import ReaderSettings, corner_pairs

#: Scene kinds and their shares: where corners of different cards lie as far apart as one card's.
SCENE_MIX: dict[str, float] = {"table": 0.5, "fan": 0.3, "discard": 0.2}
SCENE_PX = 640
#: An index centre moves by up to this share of its box's size, as detector boxes wander.
CENTRE_JITTER = 0.1
#: Two-card pairs of different symbols kept per one-card pair of the scene (at least one a scene).
OTHER_TWO_CARD_PAIRS = 2.0


def _centre(box: tuple[float, float, float, float], rng: np.random.Generator) -> tuple[float, float, float]:
    """A box's centre, jittered, and its size (the reader's: the longer side)."""
    x1, y1, x2, y2 = box
    size = max(x2 - x1, y2 - y1)
    dx, dy = rng.uniform(-CENTRE_JITTER, CENTRE_JITTER, 2) * size
    return (x1 + x2) / 2 + dx, (y1 + y2) / 2 + dy, size


def mixed_scene(seed: int) -> tuple[np.random.Generator, RenderedScene]:
    """A rendered table, fan or discard pile (:data:`SCENE_MIX`), and the generator that made it."""
    rng = np.random.default_rng(seed)
    kind = str(rng.choice(list(SCENE_MIX), p=np.float64(list(SCENE_MIX.values())) / sum(SCENE_MIX.values())))
    return rng, render_scene(rng, SCENE_PX, kind=kind)


def labelled_corners(
    rendered: RenderedScene, rng: np.random.Generator
) -> list[tuple[int, int, tuple[float, float, float]]]:
    """(card, symbol class, jittered centre and size) of every labelled corner index of a face-up card."""
    return [
        (owner, box.class_id, _centre(box.box, rng))
        for owner, card in enumerate(rendered.scene.cards)
        if card.face_up
        for box in card.boxes
        if box.labelled and CLASS_NAMES[box.class_id] in SYMBOL_CLASSES
    ]


def pairable(corners: list[tuple[int, int, tuple[float, float, float]]]) -> list[tuple[int, int, float]]:
    """The pairs of :func:`labelled_corners` the reader's geometry would take for one card's corners
    (:func:`referee.vision.reader.corner_pairs`)."""
    return corner_pairs([((x, y), size) for _, _, (x, y, size) in corners], ReaderSettings())


def scene_patches(seed: int) -> tuple[list[np.ndarray], list[int]]:
    """The patches and labels of one rendered scene (seeded: the same on every machine)."""
    rng, rendered = mixed_scene(seed)
    indices = labelled_corners(rendered, rng)
    one_card, same_symbol, other = [], [], []
    for i, j, _ in pairable(indices):
        (owner_a, class_a, (ax, ay, _)), (owner_b, class_b, (bx, by, _)) = indices[i], indices[j]
        pair = ((ax, ay), (bx, by)) if rng.random() < 0.5 else ((bx, by), (ax, ay))
        if owner_a == owner_b:
            one_card.append(pair)
        elif class_a == class_b:
            same_symbol.append(pair)
        else:
            other.append(pair)
    keep = max(1, round(OTHER_TWO_CARD_PAIRS * len(one_card)))
    if len(other) > keep:
        other = [other[k] for k in rng.choice(len(other), keep, replace=False)]
    pairs = [(pair, 0) for pair in one_card] + [(pair, 1) for pair in same_symbol + other]
    return [pair_patch(rendered.image, a, b) for (a, b), _ in pairs], [label for _, label in pairs]


def patch_job(
    argv: list[str] | None,
    tool: str,
    description: str,
    patches_of: Callable[[int], tuple[list[np.ndarray], list[int]]],
    defaults: tuple[int, int],
) -> tuple[Path, np.ndarray] | None:
    """The command line shared by the card-patch datasets (``tool``: ``pair_data``, ``centre_data``):
    ``OUT.npz --scenes N --seed S --workers W``; ``patches_of(seed)`` over N seeded scenes in W
    processes, written as ``crops``, ``labels`` and ``decks_seen`` (none: rendered cards only).
    Returns the file and its labels, or None after a one-line error."""
    parser = argparse.ArgumentParser(prog=f"python -m referee.lab.{tool}", description=description)
    parser.add_argument("out", type=Path, help=".npz file to write")
    parser.add_argument("--scenes", type=int, default=defaults[0])
    parser.add_argument("--seed", type=int, default=defaults[1])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        if args.scenes < 1 or args.workers < 1:
            raise UserError("--scenes and --workers must be at least 1")
        args.out.parent.mkdir(parents=True, exist_ok=True)
    except (UserError, OSError) as error:
        print(f"{tool}: error: {error}", file=sys.stderr)
        return None
    crops: list[np.ndarray] = []
    labels: list[int] = []
    seeds = [args.seed * 100_000 + k for k in range(args.scenes)]
    with get_context("spawn").Pool(args.workers) as pool:
        for done, (patches, answers) in enumerate(pool.imap(patches_of, seeds, chunksize=8), 1):
            crops += patches
            labels += answers
            if done % 500 == 0:
                print(f"{done}/{args.scenes} scenes, {len(labels)} patches", flush=True)
    if not labels:
        print(f"{tool}: error: no patch found in these scenes", file=sys.stderr)
        return None
    label_array = np.asarray(labels, np.int64)
    np.savez_compressed(
        args.out, crops=np.stack(crops), labels=label_array, decks_seen=np.asarray([], dtype=str)
    )
    return args.out, label_array


def main(argv: list[str] | None = None) -> int:
    written = patch_job(argv, "pair_data", __doc__.splitlines()[0], scene_patches, (6000, 2900))
    if written is None:
        return 2
    out, labels = written
    print(f"wrote {out}: {len(labels)} pairs, {np.mean(labels == 0):.2f} of them one card's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
