"""``uno-referee bench vision``: detector latency per backend on a discard-zone crop, the glyph
classifier's second look at the boxes found there (``glyphs:``, in as many quarter turns as the reader
reads each box), the card-corner check's wider one (``corners:``, where installed), the pair check on
pairs of those boxes (``pairs:``) and the centre reader on cards they would make (``centres:``, each
where installed); with ``--reader`` the whole card reader (``--deck``: with a learnt deck as well),
and in alternating rounds the reader without each installed optional look (``reader-nopairs``,
``reader-nocentres``) with the ratios ``pairs_ratio=`` and ``centres_ratio=``.

One line per backend, ``BACKEND: median_ms=… p90_ms=… cpu_ms=… imgsz=…``, timing the whole
``Detector.detect`` call (letterbox, inference, decoding and NMS) on one thread by default — the
budget the pile watcher has on the Pi — at the model's own input (``--imgsz`` for another, as
``detector.pile_imgsz`` can set for the pile). ``cpu_ms`` is the calling thread's CPU time: on a busy
machine it stays what the call costs, while the wall clock also counts waiting for a core.
Latency does not depend on the weights, so a random-init export measures the same as the trained
model; by default the shipped model is measured in both precisions (float and int8).

A machine of one type can run several times slower from one run to the next (shared hosts), so a
figure in milliseconds is comparable only with one measured beside it. ``--against MODEL`` times the
detector and a reference detector (an earlier release's) in alternating rounds on the same crop and
prints the ratio of their medians, ``against: … ratio=…``, which holds across such machines.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.errors import UserError
from referee.vision.options import add_detector_arguments, model_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_detector_arguments(parser, threads=1, backend=False)
    parser.add_argument(
        "--backends", help="comma-separated backends to measure (default: every one installed here)"
    )
    parser.add_argument(
        "--image", type=Path, help="picture to crop the discard zone from (default: synthetic)"
    )
    parser.add_argument(
        "--crop", type=int, default=400, help="side of the square discard-zone crop (default 400)"
    )
    parser.add_argument("--runs", type=int, default=200, help="timed runs per backend (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed runs first (default 20)")
    parser.add_argument(
        "--reader", action="store_true", help="also time the whole card reader on the crop (onnxruntime)"
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="MODEL",
        help="also time this reference detector (e.g. an earlier release's) in alternating rounds "
        "with the measured one, and print the ratio of their medians (onnxruntime)",
    )
    parser.add_argument(
        "--deck",
        type=Path,
        metavar="DECK.json",
        help="with --reader: also time it with this learnt deck (every box matched against its faces)",
    )


def run(args: argparse.Namespace) -> int:
    from models import PRECISIONS, default_model_path
    from referee.vision.backends import available_backends, load_detector
    from referee.vision.centres import load_centre_reader
    from referee.vision.corners import load_corner_check
    from referee.vision.glyphs import load_glyph_classifier
    from referee.vision.options import deck_from_args
    from referee.vision.pairs import load_pair_check
    from referee.vision.reader import CardReader, ReaderSettings

    if args.runs < 5 or args.warmup < 0:
        raise UserError("--runs must be at least 5 and --warmup not negative")
    if args.deck is not None and not args.reader:
        raise UserError("--deck times the reader with a learnt deck: add --reader")
    deck = deck_from_args(args)
    if args.against is not None and not args.against.is_file():
        raise UserError(f"no reference detector at {args.against} (--against takes an ONNX file)")
    installed = available_backends()
    backends = args.backends.split(",") if args.backends else installed
    for backend in backends:
        if backend not in installed:
            raise UserError(f"backend {backend!r} is not available here: choose from {', '.join(installed)}")
    crop = discard_zone_crop(args.image, args.crop)
    model = model_from_args(args)
    variants = [(backend, backend, model) for backend in backends]  # label, backend, model file
    if args.model is None and "onnxruntime" in backends:  # the shipped detector's other precisions
        for precision in PRECISIONS:
            other = default_model_path(precision)
            if precision != args.precision and other != model and other.is_file():
                variants.append((f"onnxruntime-{precision}", "onnxruntime", other))
    print(f"crop {crop.shape[1]}x{crop.shape[0]}, threads={args.threads}, runs={args.runs}, model {model}")
    glyphs = load_glyph_classifier(threads=args.threads)
    corners = load_corner_check(threads=args.threads)
    pairs = load_pair_check(threads=args.threads)
    centres = load_centre_reader(threads=args.threads)
    for label, backend, path in variants:
        detector = load_detector(
            path, backend, imgsz=args.imgsz, conf=args.conf, iou=args.iou, threads=args.threads
        )
        timing = time_call(lambda d=detector: d.detect(crop), args.runs, args.warmup)
        print(f"{timing.line(label)} imgsz={detector.imgsz}", flush=True)
        if label == "onnxruntime":
            boxes = [d.box for d in detector.detect(crop)] or [(100.0, 100.0, 124.0, 140.0)]
            views = ReaderSettings().glyph_views  # as the reader reads each box
            timing = time_call(lambda g=glyphs, b=boxes, v=views: g.read(crop, b, v), args.runs, args.warmup)
            print(f"{timing.line('glyphs')} boxes={len(boxes)} views={views}", flush=True)
            if corners is not None:
                timing = time_call(lambda c=corners, b=boxes: c.not_corner(crop, b), args.runs, args.warmup)
                print(f"{timing.line('corners')} boxes={len(boxes)}", flush=True)
            points = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
            if pairs is not None:
                two = [(a, b) for k, a in enumerate(points) for b in points[k + 1 :]]
                two = two or [(points[0], points[0])]
                timing = time_call(lambda p=pairs, t=two: p.two_cards(crop, t), args.runs, args.warmup)
                print(f"{timing.line('pairs')} pairs={len(two)} (the reader asks those spaced as a card)")
            if centres is not None:
                cards = list(zip(points[::2], points[1::2], strict=False)) or [(points[0], points[0])]
                timing = time_call(lambda c=centres, k=cards: c.read(crop, k), args.runs, args.warmup)
                print(f"{timing.line('centres')} cards={len(cards)} (those read from both corners)")
        if args.reader and label == "onnxruntime":
            reader = CardReader(detector, glyphs=glyphs, corners=corners, pairs=pairs, centres=centres)
            # Without each optional second look in turn, in alternating rounds with the whole reader:
            # each one's cost as a ratio, which holds on any machine however busy.
            lesser = {
                name: CardReader(detector, glyphs=glyphs, corners=corners, **kept)
                for name, kept, present in (
                    ("nopairs", {"centres": centres}, pairs is not None),
                    ("nocentres", {"pairs": pairs}, centres is not None),
                )
                if present
            }
            timings = time_alternating(
                [lambda r=reader: r.read(crop)] + [lambda r=r: r.read(crop) for r in lesser.values()],
                args.runs,
                args.warmup,
            )
            timing, ratios = timings[0], ""
            for name, plain in zip(lesser, timings[1:], strict=True):
                print(plain.line(f"reader-{name}({label})"), flush=True)
                ratios += f" {name.removeprefix('no')}_ratio={timing.median_ms / plain.median_ms:.3f}"
            print(timing.line(f"reader({label})") + ratios, flush=True)
            if deck is not None:
                with_deck = CardReader(
                    detector, glyphs=glyphs, corners=corners, pairs=pairs, centres=centres, deck=deck
                )
                timing = time_call(lambda r=with_deck: r.read(crop), args.runs, args.warmup)
                print(timing.line(f"reader+deck({label})"), flush=True)
    if args.against is not None:
        if "onnxruntime" not in installed:
            raise UserError("--against times detectors on onnxruntime, which is not installed here")
        measured, reference = (
            load_detector(path, "onnxruntime", imgsz=size, conf=args.conf, iou=args.iou, threads=args.threads)
            for path, size in ((model, args.imgsz), (args.against, None))
        )
        mine, theirs = time_alternating(
            [lambda: measured.detect(crop), lambda: reference.detect(crop)], args.runs, args.warmup
        )
        print(f"{mine.line('measured')} model {model}", flush=True)
        print(
            f"{theirs.line('against')} ratio={mine.median_ms / theirs.median_ms:.3f} model {args.against}",
            flush=True,
        )
    return 0


@dataclass(frozen=True)
class Timing:
    """Wall-clock median and 90th percentile, and the median CPU time of the calling thread (ms).

    On a machine shared with other work the wall clock includes waiting for a core; the thread's
    CPU time does not, and on one thread it is what the call costs on an idle machine.
    """

    median_ms: float
    p90_ms: float
    cpu_ms: float

    def line(self, label: str) -> str:
        return f"{label}: median_ms={self.median_ms:.2f} p90_ms={self.p90_ms:.2f} cpu_ms={self.cpu_ms:.2f}"


def time_call(call: Callable[[], object], runs: int, warmup: int) -> Timing:
    """Time ``call()`` ``runs`` times after ``warmup`` untimed calls."""
    return time_alternating([call], runs, warmup, rounds=1)[0]


def time_alternating(
    calls: list[Callable[[], object]], runs: int, warmup: int, rounds: int = 10
) -> list[Timing]:
    """Time each of ``calls`` ``runs`` times, in ``rounds`` alternating rounds, so that a machine
    that speeds up or slows down during the measurement affects each call alike."""
    for call in calls:
        for _ in range(warmup):
            call()
    rounds = max(1, min(rounds, runs))
    wall: list[list[float]] = [[] for _ in calls]
    cpu: list[list[float]] = [[] for _ in calls]
    for k in range(rounds):
        share = runs // rounds + (1 if k < runs % rounds else 0)
        for call, wall_ms, cpu_ms in zip(calls, wall, cpu, strict=True):
            for _ in range(share):
                start, start_cpu = time.perf_counter(), time.thread_time()
                call()
                cpu_ms.append((time.thread_time() - start_cpu) * 1000)
                wall_ms.append((time.perf_counter() - start) * 1000)
    return [_timing(w, c) for w, c in zip(wall, cpu, strict=True)]


def _timing(wall: list[float], cpu: list[float]) -> Timing:
    return Timing(statistics.median(wall), float(np.percentile(wall, 90)), statistics.median(cpu))


def discard_zone_crop(image_path: Path | None, side: int) -> np.ndarray:
    """A square crop of ``side`` px: the centre of ``image_path``, or a synthetic table with a card."""
    if side < 32:
        raise UserError(f"--crop must be at least 32 px, not {side}")
    if image_path is not None:
        from referee.vision.images import read_image

        image = read_image(image_path)
        height, width = image.shape[:2]
        top, left = max(0, (height - side) // 2), max(0, (width - side) // 2)
        return np.ascontiguousarray(image[top : top + side, left : left + side])
    import cv2

    rng = np.random.default_rng(0)
    crop = np.clip(np.float32((60, 90, 70)) + rng.normal(0, 8, (side, side, 3)), 0, 255).astype(np.uint8)
    card = (side // 4, side // 6, side * 3 // 4, side * 5 // 6)
    cv2.rectangle(crop, card[:2], card[2:], (245, 245, 245), -1)
    cv2.rectangle(crop, (card[0] + 8, card[1] + 8), (card[2] - 8, card[3] - 8), (40, 40, 200), -1)
    cv2.putText(crop, "7", (card[0] + 14, card[1] + 44), cv2.FONT_HERSHEY_DUPLEX, 1.2, (255, 255, 255), 3)
    return crop
