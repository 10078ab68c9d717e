"""Glyph crops for the second-stage glyph classifier: what each detector box looks like, labelled.

The detector proposes boxes; :class:`referee.vision.glyphs.GlyphClassifier` looks again at each box's
square crop and says which symbol it holds — or that it holds none (a card's big centre symbol, the
oval, clutter, a table pattern). Its training crops come from two sources:

* **rendered scenes** (:func:`referee.render.scenes.render_scene`, every print family and installed
  face): each labelled index box, shifted and scaled a little as a detector's boxes wander; and
  background squares of index size that overlap no index — the centre artwork of every card among
  them (the "centre symbol is never a corner" rule is learnt here);
* **real photos**: the corner-index boxes of the shared Roboflow *train* split, and background
  squares from the same photos. Its validation split and every other real deck stay unseen, so
  that the per-deck evaluation scores decks this model never trained on.

With ``--faces FOLDER`` every scene is dealt a real deck's photographed faces instead of rendered
ones (a face folder as ``../shared/data/uno-cards-criscard``, as ``uno-referee dataset --faces``
deals them): that deck's real glyphs, at every size, angle and light the scenes give. The crops
count as real (``source`` 1) and the set records the deck as seen, so a model trained on them is
never the one that scores that deck: this is how the held-out networks (``models/lodo/roboflow``, which
score the Roboflow deck) learn from the other real deck.

With ``--mine DETECTOR.onnx`` the crops are the detector's own boxes on rendered scenes instead (hard
examples): a box over no labelled index is background, whatever it boxed (a phone's clock, a score
sheet's digits, a card's centre numeral), and a box on an index keeps that index's class, cut the way
this detector really cuts it. Clutter and whole tables, where the detector invents most, weigh more
(:data:`MINING_SCENES`).

``python -m referee.lab.glyph_data OUT.npz --scenes 6000 --roboflow ../shared/data/uno-cards-roboflow``
writes ``crops`` (N × S × S × 3 uint8 BGR), ``labels`` (N, class id; :data:`BACKGROUND` for none)
and ``source`` (0 rendered, 1 real).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from referee.errors import UserError
from referee.lab.evaluate import labelled_images, yolo_boxes
from referee.lab.provenance import deck_name
from referee.vision.classes import CLASS_NAMES, SYMBOL_CLASSES, TWO_CHARACTER_SYMBOLS
from referee.vision.corners import box_end
from referee.vision.detection import box_iou, box_overlap_of_smaller
from referee.vision.glyphs import BACKGROUND, CONTEXT, CROP_PX, glyph_crop
from referee.vision.images import read_image

if TYPE_CHECKING:
    from referee.render.scenes import FaceSwap

#: A labelled box is shifted by up to this share of its size and scaled by up to this factor, as the
#: detector's boxes wander around a glyph.
BOX_JITTER = 0.12
BOX_SCALE = (0.85, 1.2)
BACKGROUND_PER_IMAGE = 4  # background squares per picture (about one per labelled index)
#: Indices printed as two characters ("+2", "+4"): a detector often boxes only one of them (the "4"
#: of a hollow "+4" on a real deck), so these also train as a part of the box along its longer side.
WIDE_INDICES = frozenset(CLASS_NAMES.index(name) for name in TWO_CHARACTER_SYMBOLS)
PART_OF_WIDE = (0.55, 0.75)


#: Scene kinds to mine the detector's mistakes on, weighted towards where it makes them.
MINING_SCENES: dict[str, float] = {"discard": 0.25, "table": 0.35, "fan": 0.1, "negative": 0.3}
#: A detector box overlapping every labelled index by less than this (IoU, and share of the smaller
#: box) boxed something else: a background crop. At least MINED_INDEX_IOU: that index's own box.
MINED_BACKGROUND_OVERLAP = 0.15
MINED_INDEX_IOU = 0.5
#: Mining looks below the reader's detection threshold: near misses are tomorrow's false cards.
MINING_CONF = 0.08
#: An index of which only this share shows (another card or a hand over the rest) is no index to
#: read: too little of it to label, yet the detector boxes it and its symbol is mostly a guess (on
#: rendered whole tables, 13 of 18 cards read off a card's unlabelled parts, 9 of them wrong). Its
#: crops train as background. Between the upper bound and the label's threshold
#: (:data:`referee.render.compose.MIN_VISIBLE`) an index teaches nothing certain and is left out.
COVERED_VISIBLE = (0.1, 0.45)
#: A detector box lying this much inside a covered index's box is a box on that index.
MINED_COVERED_OVERLAP = 0.5


def jittered(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A labelled xyxy box moved and scaled like a detector's box of the same glyph."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2 + rng.uniform(-BOX_JITTER, BOX_JITTER) * w
    cy = (y1 + y2) / 2 + rng.uniform(-BOX_JITTER, BOX_JITTER) * h
    w, h = w * rng.uniform(*BOX_SCALE), h * rng.uniform(*BOX_SCALE)
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def part_of(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One end of a box along its longer side (55–75 % of it), as a detector boxes one character of
    a two-character index."""
    share = rng.uniform(*PART_OF_WIDE)
    from_start = rng.random() < 0.5
    return np.array(box_end(tuple(float(v) for v in box), share, from_start))


def background_boxes(
    labelled: np.ndarray, shape: tuple[int, ...], count: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Squares-ish boxes of index size anywhere in the picture that overlap no labelled box."""
    height, width = shape[:2]
    sizes = (labelled[:, 2:] - labelled[:, :2]).max(axis=1) if len(labelled) else np.array([height / 12])
    found: list[np.ndarray] = []
    for _ in range(count * 8):
        if len(found) == count:
            break
        side = float(rng.choice(sizes)) * rng.uniform(0.7, 3.0)
        aspect = rng.uniform(0.55, 1.5)
        w, h = side * min(1.0, aspect), side * min(1.0, 1 / aspect)
        x1, y1 = rng.uniform(-0.2 * w, width - 0.8 * w), rng.uniform(-0.2 * h, height - 0.8 * h)
        box = np.array([x1, y1, x1 + w, y1 + h])
        if not len(labelled) or box_iou(box, labelled).max() < 0.1:
            found.append(box)
    return found


def centre_boxes(polygons: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """Boxes over the big centre symbol of face-up cards (card outlines as 4 × 2 corner arrays):
    the numeral a detector most often mistakes for an index, which must stay background."""
    boxes = []
    for polygon in polygons:
        centre = polygon.mean(axis=0)
        height = max(np.linalg.norm(polygon[3] - polygon[0]), np.linalg.norm(polygon[1] - polygon[0]))
        side = height * rng.uniform(0.25, 0.42)
        w, h = side * rng.uniform(0.6, 1.0), side
        if rng.random() < 0.5:
            w, h = h, w
        cx, cy = centre + rng.uniform(-0.05, 0.05, 2) * height
        boxes.append(np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]))
    return boxes


def covered_boxes(cards: Iterable) -> list[np.ndarray]:
    """The boxes of face-up cards' symbol indices that show only :data:`COVERED_VISIBLE` of themselves."""
    low, high = COVERED_VISIBLE
    return [
        np.array(box.box, np.float64)
        for card in cards
        if card.face_up
        for box in card.boxes
        if not box.labelled and low <= box.visible < high and CLASS_NAMES[box.class_id] in SYMBOL_CLASSES
    ]


def _crops_of(
    image: np.ndarray,
    rows: list[tuple[int, np.ndarray]],
    rng: np.random.Generator,
    card_polygons: list[np.ndarray] = (),
    context: float = CONTEXT,
    covered: list[np.ndarray] = (),
) -> Iterator[tuple[np.ndarray, int]]:
    """Crops of the labelled indices ``rows`` (and of one end of the two-character ones), background
    squares, cards' centre artwork, and the ``covered`` indices, as background."""
    labelled = np.asarray([box for _, box in rows]).reshape(-1, 4)
    for class_id, box in rows:
        yield glyph_crop(image, tuple(jittered(box, rng)), context), class_id
        if class_id in WIDE_INDICES:
            yield glyph_crop(image, tuple(jittered(part_of(box, rng), rng)), context), class_id
    for box in background_boxes(labelled, image.shape, BACKGROUND_PER_IMAGE, rng):
        yield glyph_crop(image, tuple(box), context), BACKGROUND
    for box in centre_boxes(list(card_polygons), rng):
        if not len(labelled) or box_iou(box, labelled).max() < 0.2:
            yield glyph_crop(image, tuple(box), context), BACKGROUND
    for box in covered:
        yield glyph_crop(image, tuple(jittered(box, rng)), context), BACKGROUND


def _rendered(
    task: tuple[int, int, int, float, str | None, float, str | None],
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of one rendered scene (run in a worker process)."""
    from referee.render.scenes import render_scene

    seed, index, size, context, faces, busy, kind = task
    rng = np.random.default_rng([seed, index])
    scene = render_scene(rng, size, kind, faces=_dealt(faces, seed, index), busy=busy)
    height, width = scene.image.shape[:2]
    rows = [(c, np.array(box)) for c, box in yolo_boxes(scene.labels, width, height)]
    polygons = [
        np.asarray(card.polygon, np.float64)
        for card in scene.scene.cards
        if card.face_up and card.visible_fraction > 0.6
    ]
    covered = covered_boxes(scene.scene.cards)
    return _stacked(_crops_of(scene.image, rows, rng, polygons, context, covered))


def _stacked(pairs: Iterable[tuple[np.ndarray, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(crop, label) pairs as the crops array and the labels array (both empty for none)."""
    pairs = list(pairs)
    if not pairs:
        return np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack([c for c, _ in pairs]), np.asarray([label for _, label in pairs], np.int64)


def mined_crops(
    image: np.ndarray,
    rows: list[tuple[int, np.ndarray]],
    found: list[np.ndarray],
    hidden: list[np.ndarray] = (),
    context: float = CONTEXT,
    covered: list[np.ndarray] = (),
) -> Iterator[tuple[np.ndarray, int]]:
    """Crops of a detector's boxes ``found`` (xyxy), labelled by the indices ``rows`` they cover:
    background where they cover none, the index's class where they box it. A box on one of the
    ``covered`` indices (:data:`COVERED_VISIBLE`) is background too. Boxes in between (half an index)
    and boxes on other ``hidden`` indices (covered, but not that much, so not labelled either) teach
    nothing certain and are left out."""
    labelled = np.asarray([box for _, box in rows]).reshape(-1, 4)
    every_index = np.concatenate([labelled, np.asarray(hidden, np.float64).reshape(-1, 4)])
    covered_index = np.asarray(covered, np.float64).reshape(-1, 4)
    for box in found:
        if not len(every_index) or (
            max(box_iou(box, every_index).max(), box_overlap_of_smaller(box, every_index).max())
            < MINED_BACKGROUND_OVERLAP
        ):
            yield glyph_crop(image, tuple(box), context), BACKGROUND
        elif len(labelled) and (overlap := box_iou(box, labelled)).max() >= MINED_INDEX_IOU:
            yield glyph_crop(image, tuple(box), context), rows[int(overlap.argmax())][0]
        elif len(covered_index) and box_overlap_of_smaller(box, covered_index).max() >= MINED_COVERED_OVERLAP:
            yield glyph_crop(image, tuple(box), context), BACKGROUND


#: The random stream that picks, per scene, which photo of a face and which stand-ins it is dealt.
_FACES_STREAM = 3


def _dealt(faces: str | None, seed: int, index: int) -> FaceSwap | None:
    """The photographed faces scene ``index`` is dealt from the face folder ``faces`` (None: rendered)."""
    from referee.render.dataset import photo_deal

    return None if faces is None else photo_deal(faces, seed, index, _FACES_STREAM)


_miner: dict[str, object] = {}  # the detector of a mining worker process, loaded once


def _mined(
    task: tuple[int, int, int, str, float, str | None, float, str | None],
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of the detector's boxes on one rendered scene (run in a worker process)."""
    from referee.render.scenes import render_scene

    seed, index, size, model, context, faces, busy, kind = task
    if model not in _miner:
        _miner[model] = _mining_reader(Path(model))
    reader = _miner[model]
    rng = np.random.default_rng([seed, index])
    if kind is None:
        kinds = list(MINING_SCENES)
        kind = str(rng.choice(kinds, p=np.float64(list(MINING_SCENES.values()))))
    scene = render_scene(rng, size, kind, faces=_dealt(faces, seed, index), busy=busy)
    height, width = scene.image.shape[:2]
    rows = [(c, np.array(box)) for c, box in yolo_boxes(scene.labels, width, height)]
    found = [np.array(d.box) for d in reader.detect(scene.image)]
    hidden = [np.array(b.box) for card in scene.scene.cards for b in card.boxes if not b.labelled]
    covered = covered_boxes(scene.scene.cards)
    return _stacked(mined_crops(scene.image, rows, found, hidden, context, covered))


def _mining_reader(model: Path):
    """A reader of ``model`` that only detects, below the usual threshold (:data:`MINING_CONF`)."""
    from referee.vision.backends import load_detector
    from referee.vision.reader import CardReader

    return CardReader(load_detector(model, conf=MINING_CONF, threads=1))


def _roboflow_train(folder: Path) -> Iterator[tuple[np.ndarray, list[tuple[int, np.ndarray]]]]:
    """Each photo of the shared Roboflow *train* split with its labelled boxes (ids remapped to ours)."""
    for item in labelled_images(folder / "train", roboflow=True):
        image = read_image(item.path)
        yield image, [(c, np.array(box)) for c, box in item.boxes(image.shape[1], image.shape[0])]


def mined_roboflow_crops(folder: Path, model: Path, context: float) -> tuple[np.ndarray, np.ndarray]:
    """The detector's boxes on the shared Roboflow *train* split, labelled like :func:`mined_crops`."""
    reader = _mining_reader(model)
    return _stacked(
        pair
        for image, rows in _roboflow_train(folder)
        for pair in mined_crops(image, rows, [np.array(d.box) for d in reader.detect(image)], context=context)
    )


def roboflow_crops(
    folder: Path, rng: np.random.Generator, context: float = CONTEXT
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of the shared Roboflow *train* split (its ids remapped to ours)."""
    return _stacked(
        pair
        for image, rows in _roboflow_train(folder)
        for pair in _crops_of(image, rows, rng, context=context)
    )


def build(
    out: Path,
    scenes: int,
    seed: int,
    size: int,
    roboflow: Path | None,
    workers: int,
    mine: Path | None = None,
    context: float = CONTEXT,
    compress: bool = True,
    faces: Path | None = None,
    busy: float = 0.0,
    kind: str | None = None,
) -> tuple[int, int]:
    """Write the crop set; returns (rendered crops, real crops). ``mine``: crop this detector's boxes;
    ``compress`` False saves a big set in seconds rather than minutes (on a lease, not for keeping);
    ``faces``: deal every scene this face folder's photographed faces (their crops count as real);
    ``busy``: the share of scenes laid on a busy print (:data:`referee.render.surfaces.BUSY_SURFACES`);
    ``kind``: render only scenes of this kind (None: the training mix; when mining, :data:`MINING_SCENES`)."""
    dealt = None if faces is None else str(faces)
    with get_context("spawn").Pool(workers) as pool:
        if mine is None:
            tasks = [(seed, i, size, context, dealt, busy, kind) for i in range(scenes)]
            parts = pool.map(_rendered, tasks, chunksize=32)
        else:
            tasks = [(seed, i, size, str(mine), context, dealt, busy, kind) for i in range(scenes)]
            parts = pool.map(_mined, tasks, chunksize=32)
    crops = [p[0] for p in parts]
    labels = [p[1] for p in parts]
    from_scenes = sum(len(p) for p in labels)
    rendered, real = (from_scenes, 0) if faces is None else (0, from_scenes)
    if roboflow is not None:
        if mine is None:
            real_crops, real_labels = roboflow_crops(roboflow, np.random.default_rng([seed, 10**9]), context)
        else:
            real_crops, real_labels = mined_roboflow_crops(roboflow, mine, context)
        crops.append(real_crops)
        labels.append(real_labels)
        real += len(real_labels)
    source = np.concatenate([np.zeros(rendered, np.uint8), np.ones(real, np.uint8)])
    out.parent.mkdir(parents=True, exist_ok=True)
    seen = sorted(deck_name(folder) for folder in (roboflow, faces) if folder is not None)
    decks = np.array(seen, dtype=str)
    (np.savez_compressed if compress else np.savez)(
        out,
        crops=np.concatenate(crops),
        labels=np.concatenate(labels),
        source=source,
        decks_seen=decks,
        context=np.float64(context),
    )
    return rendered, real


def main(argv: list[str] | None = None) -> int:
    from referee.render.scenes import SCENE_KINDS

    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.glyph_data", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="output .npz")
    parser.add_argument("--scenes", type=int, default=6000, help="rendered scenes to crop")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=416, help="rendered scene side in pixels")
    parser.add_argument("--roboflow", type=Path, help="the shared Roboflow folder (its train split is used)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mine", type=Path, metavar="ONNX", help="crop this detector's boxes: hard examples")
    parser.add_argument(
        "--context", type=float, default=CONTEXT, help=f"crop side in box sides (default {CONTEXT})"
    )
    parser.add_argument(
        "--kind",
        choices=sorted(SCENE_KINDS),
        help="crop only scenes of this kind (default: the training mix; with --mine, the mining mix)",
    )
    parser.add_argument("--no-compress", action="store_true", help="save uncompressed (faster, larger)")
    parser.add_argument(
        "--busy",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of scenes laid on a busy print (bands, cells, strokes), not a plain table (default 0)",
    )
    parser.add_argument(
        "--faces",
        type=Path,
        metavar="FOLDER",
        help="deal every scene a real deck's photographed faces (a face folder with labels.jsonl); "
        "that deck is then seen by what trains on these crops",
    )
    args = parser.parse_args(argv)
    try:
        if args.faces is not None:
            from referee.render.dataset import photo_faces

            photo_faces(str(args.faces))  # a one-line error for a broken face folder, before any work
        if args.roboflow is not None and not (args.roboflow / "train" / "images").is_dir():
            raise UserError(f"{args.roboflow} has no train/images: pass the shared Roboflow folder")
        if not 0 <= args.busy <= 1:
            raise UserError(f"--busy is a share between 0 and 1 (got {args.busy})")
        if args.mine is not None and not args.mine.is_file():
            raise UserError(f"detector {args.mine} not found: pass an exported .onnx")
        rendered, real = build(
            args.out,
            args.scenes,
            args.seed,
            args.size,
            args.roboflow,
            args.workers,
            args.mine,
            args.context,
            compress=not args.no_compress,
            faces=args.faces,
            busy=args.busy,
            kind=args.kind,
        )
    except UserError as error:
        print(f"glyph_data: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{args.out}: {rendered} rendered crops, {real} real crops, classes {len(CLASS_NAMES)} + background"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
