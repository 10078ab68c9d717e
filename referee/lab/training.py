"""Train the card detector with ultralytics, fully offline, and export it for the torch-free runtime.

Why this module exists: ultralytics reaches for the network in several places (online checks,
a font download on every train/val, weight downloads, pip auto-installs, telemetry). On a closed
network some of those hang or fail, so :func:`prepare_offline` closes every one of them before
ultralytics is imported (see ``shared/notes/ultralytics-offline.md``). Training always starts from
a model *definition* (``yolo11n.yaml``), never from downloaded weights, and resumes from our own
checkpoints.

Runs as ``uno-referee train`` (installed with the ``train`` extra) or, on a bare GPU machine where
the package is not installed, as ``python -m referee.lab.training`` from the repository root.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.lab.box_head import rewrite_file
from referee.lab.provenance import checkpoint_decks, record_run
from referee.vision.classes import CLASS_NAMES

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RUNS = REPO / "runs"
FONT = REPO / "referee" / "render" / "fonts" / "DejaVuSans-Bold.ttf"

#: Augmentations chosen for cards: printed digits are never mirrored, colour is read from pixels
#: later (so hue jitter only teaches the detector to ignore colour), and rotations are mostly
#: already in the rendered scenes (ultralytics' own rotation loosens boxes, so it stays small).
AUGMENTATION: dict[str, float] = {
    "fliplr": 0.0,
    "flipud": 0.0,
    "degrees": 8.0,
    "hsv_h": 0.05,
    "hsv_s": 0.6,
    "hsv_v": 0.45,
    "scale": 0.5,
    "translate": 0.1,
    "mosaic": 1.0,
}


#: AdamW's start rate for a run from scratch (the GPU schedule); a fine-tune passes less.
START_RATE = 0.002
#: Epochs of warm-up for a fine-tune from our weights (ultralytics takes at least 100 batches).
FINE_TUNE_WARMUP_EPOCHS = 0.3


#: Architectures by name: YOLO11's layer graph at a (depth, width, max channels) scale. ``yolo11-pico``
#: halves yolo11n's width: a quarter of its arithmetic, which is what one Pi core affords per frame
#: (the discard-zone crop at 224 px in ~12 ms), for corner indices that need little capacity.
ARCHITECTURES: dict[str, tuple[float, float, int]] = {
    "yolo11n": (0.50, 0.25, 1024),
    "yolo11-pico": (0.50, 0.125, 1024),
}


def prepare_offline(config_dir: Path) -> None:
    """Stop every network access of ultralytics; must run before ``import ultralytics``."""
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    # check_font('Arial.ttf') downloads on every train/val unless a file of that name is there.
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    font = _any_font()
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = font_dir / name
        if not target.exists():
            shutil.copyfile(font, target)


def _any_font() -> Path:
    candidates = [FONT, *sorted((REPO / "referee" / "render" / "fonts").glob("*.ttf"))]
    candidates += [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")]
    for path in candidates:
        if path.is_file():
            return path
    raise UserError("no TrueType font found for ultralytics' plots: add one under referee/render/fonts/")


def _import_ultralytics() -> Any:
    try:
        import ultralytics
        from ultralytics.engine.trainer import BaseTrainer
    except ImportError as error:
        raise UserError(
            f"training needs the 'train' extra ({error.name} is missing): pip install -e '.[train]'"
        ) from error
    try:
        import polars  # noqa: F401
    except ImportError:
        BaseTrainer.read_results_csv = _read_results_csv  # a GPU box without polars still trains
    from ultralytics.utils import SETTINGS

    SETTINGS.update({"sync": False})
    return ultralytics


def model_definition(ultralytics: Any, architecture: str, folder: Path) -> Path:
    """Write the layer graph of ``architecture`` (YOLO11's own, rescaled) for our classes; return its path."""
    import yaml

    if architecture not in ARCHITECTURES:
        raise UserError(f"unknown architecture {architecture!r}: choose one of {', '.join(ARCHITECTURES)}")
    source = Path(ultralytics.__file__).parent / "cfg" / "models" / "11" / "yolo11.yaml"
    definition = yaml.safe_load(source.read_text())
    definition.pop("scales", None)
    depth, width, max_channels = ARCHITECTURES[architecture]
    definition.update(
        nc=len(CLASS_NAMES), depth_multiple=depth, width_multiple=width, max_channels=max_channels
    )
    folder.mkdir(parents=True, exist_ok=True)
    # No scale letter in the file name, so ultralytics takes the multiples above as they are.
    path = folder / f"{architecture.replace('yolo11n', 'yolo11-nano')}-uno.yaml"
    path.write_text(yaml.safe_dump(definition, sort_keys=False))
    return path


def _skip_amp_download() -> None:
    """Trust AMP on CUDA: ultralytics' AMP check compares against yolo11n.pt, which it downloads."""
    import ultralytics.engine.trainer as trainer_module

    trainer_module.check_amp = lambda model: True


def _read_results_csv(self: Any) -> dict[str, list[float | str]]:
    """Stand-in for ultralytics' polars-based reader (same shape: column → values)."""
    try:
        with open(self.csv, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return {}
    columns: dict[str, list[float | str]] = {}
    for row in rows:
        for key, value in row.items():
            key = key.strip()
            try:
                columns.setdefault(key, []).append(float(value))
            except (TypeError, ValueError):
                columns.setdefault(key, []).append(value)
    return columns


def _cpu_threads(threads: int) -> Any:
    """A callback that sets torch's CPU threads once training starts (ultralytics resets them).

    On an idle 2-core machine two threads halve the epoch time; on a *busy* one they are a trap:
    OpenMP threads spin waiting for each other while the other core runs something else. Measured
    here under load (16 × 256 px, forward + backward): 5.2 s per batch on one thread, 27–56 s on two.
    """

    def set_threads(trainer: Any) -> None:
        import torch

        if trainer.device.type == "cpu":
            torch.set_num_threads(threads)

    return set_threads


def train(
    data: Path,
    *,
    name: str = "uno-cards",
    runs: Path = DEFAULT_RUNS,
    epochs: int = 60,
    hours: float | None = None,
    imgsz: int = 320,
    batch: int = 16,
    device: str = "cpu",
    workers: int = 2,
    architecture: str = "yolo11n",
    weights: Path | None = None,
    resume: bool = False,
    cache: str | bool = False,
    seed: int = 0,
    threads: int = os.cpu_count() or 1,
    lr0: float = START_RATE,
    close_mosaic: int | None = None,
    freeze: int = 0,
) -> Path:
    """Train (or resume) a detector from scratch; returns the path of the best checkpoint.

    ``freeze``: a fine-tune keeps its first this many layers as they are (11: YOLO11's backbone,
    layers 0-10), so it adapts the neck and head to the new data without unlearning what the
    backbone learnt from data it no longer sees.
    """
    if not data.is_file():
        raise UserError(f"dataset description {data} not found: make one with `uno-referee dataset OUT`")
    prepare_offline(runs / ".ultralytics")
    ultralytics = _import_ultralytics()
    if device != "cpu":
        _skip_amp_download()
    last = runs / name / "weights" / "last.pt"
    if resume:
        if not last.is_file():
            raise UserError(f"nothing to resume: {last} does not exist (train without --resume first)")
        model = ultralytics.YOLO(str(last))
        model.add_callback("on_pretrain_routine_end", _cpu_threads(threads))
        # A resumed run keeps its schedule; only its time budget may change (hours from now).
        budget: dict[str, Any] = {"time": hours} if hours else {}
        model.train(resume=True, workers=workers, device=device, **budget)
    else:
        if weights is not None and not weights.is_file():
            raise UserError(f"checkpoint {weights} not found: pass one of our .pt files, or drop --weights")
        if freeze and weights is None:
            raise UserError("--freeze keeps learnt layers fixed: start from a checkpoint with --weights")
        # What the run sees is recorded first: a start whose history is unknown fails here, not
        # after hours of training (referee.lab.provenance).
        record_run(runs / name, data, weights)
        # From scratch (a model definition), or on from one of *our* checkpoints with a new schedule.
        definition = model_definition(ultralytics, architecture, runs / name)
        model = ultralytics.YOLO(str(weights) if weights is not None else str(definition))
        model.add_callback("on_pretrain_routine_end", _cpu_threads(threads))
        arguments: dict[str, Any] = {
            "data": str(data.resolve()),
            "epochs": epochs,
            "imgsz": imgsz,
            "batch": batch,
            "device": device,
            "workers": workers,
            "project": str(runs.resolve()),
            "name": name,
            "exist_ok": True,
            "pretrained": weights is not None,
            "optimizer": "AdamW",
            "lr0": lr0,
            "cos_lr": True,
            "patience": 0,
            "amp": device != "cpu",
            "plots": False,
            "seed": seed,
            "deterministic": False,
            "cache": cache,
            # The last quarter sees whole, unmixed scenes (or as many epochs as asked for).
            "close_mosaic": close_mosaic if close_mosaic is not None else max(1, min(10, epochs // 4)),
            **AUGMENTATION,
        }
        if weights is None:
            # ultralytics warms up for 3 epochs: half of a short CPU schedule at a near-zero rate.
            arguments["warmup_epochs"] = min(3.0, max(0.3, epochs / 10))
        else:
            # A fine-tune starts from learnt weights. ultralytics' default warm-up (made for SGD from
            # scratch) trains the biases at up to 0.1, some 300 x lr0, for as long as it lasts (three
            # epochs when --hours leaves the epochs at 60): the s37 CPU fine-tunes' biases ran at 0.067
            # and 0.034 in their first two epochs (results.csv, lr/pg2). A short warm-up at lr0 instead.
            arguments |= {"warmup_epochs": FINE_TUNE_WARMUP_EPOCHS, "warmup_bias_lr": lr0}
        if freeze:
            arguments["freeze"] = freeze
        if hours:
            arguments["time"] = hours
        model.train(**arguments)
    best = runs / name / "weights" / "best.pt"
    return best if best.is_file() else last


def export(
    weights: Path,
    output: Path,
    *,
    imgsz: int = 256,
    trained_on: str = "",
    metrics: dict[str, float] | None = None,
) -> Path:
    """Export a checkpoint to ONNX at ``output`` with a JSON card beside it: names, input size, and
    the real decks it trained on (:func:`referee.lab.provenance.checkpoint_decks`)."""
    if not weights.is_file():
        raise UserError(f"checkpoint {weights} not found: train first or pass the path of a .pt file")
    decks = checkpoint_decks(weights)  # the real decks it saw go into the model's card
    prepare_offline(DEFAULT_RUNS / ".ultralytics")
    ultralytics = _import_ultralytics()
    model = ultralytics.YOLO(str(weights))
    names = [model.names[index] for index in sorted(model.names)]
    if tuple(names) != CLASS_NAMES:
        raise UserError(f"{weights} was trained on other classes ({len(names)}): retrain with this version")
    try:
        import onnxslim  # noqa: F401

        simplify = True
    except ImportError:
        simplify = False
    # Dynamic input: the pile watcher runs small discard-zone crops at 224-256 px (latency), while
    # `detect` may feed 320 px tiles; the same file serves both at no cost in speed.
    exported = Path(model.export(format="onnx", imgsz=imgsz, opset=17, simplify=simplify, dynamic=True))
    output.parent.mkdir(parents=True, exist_ok=True)
    if exported.resolve() != output.resolve():  # ultralytics writes beside the checkpoint: keep it clean
        shutil.move(exported, output)
    rewrite_file(output, output, imgsz)  # the box decoding's softmax on the last axis: same outputs, faster
    card = {
        "names": names,
        "imgsz": imgsz,
        "version": dt.date.today().isoformat(),
        "architecture": architecture_of(model),
        "trained_on": trained_on,
        "source_checkpoint": weights.name,
        "metrics": metrics or {},
        "decks_seen": decks,
    }
    output.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    return output


def architecture_of(model: Any) -> str:
    """The name in :data:`ARCHITECTURES` whose width matches a loaded model's (by its first layer)."""
    first_channels = model.model.model[0].conv.out_channels
    for name, (_, width, _) in ARCHITECTURES.items():
        if round(64 * width) == first_channels:
            return name
    return f"yolo11 ({first_channels} stem channels)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", nargs="?", type=Path, help="ultralytics data.yaml from `uno-referee dataset`")
    parser.add_argument("--name", default="uno-cards", help="run name under --runs (default: uno-cards)")
    parser.add_argument("--runs", type=Path, default=DEFAULT_RUNS, help="folder for runs and checkpoints")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument(
        "--hours",
        type=float,
        help="fit the schedule into this many hours instead of epochs (with --resume: hours from now)",
    )
    parser.add_argument("--imgsz", type=int, default=320)
    parser.add_argument(
        "--architecture", choices=sorted(ARCHITECTURES), default="yolo11n", help="network (default yolo11n)"
    )
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument(
        "--lr0", type=float, default=START_RATE, help="start learning rate (a short fine-tune wants less)"
    )
    parser.add_argument(
        "--close-mosaic", type=int, help="epochs at the end without mosaic (default: the last quarter)"
    )
    parser.add_argument(
        "--freeze",
        type=int,
        default=0,
        metavar="N",
        help="with --weights: keep the first N layers fixed (11: the whole backbone)",
    )
    parser.add_argument("--device", default="cpu", help="cpu, or a CUDA index such as 0")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="torch CPU threads (1 on a busy machine)"
    )
    parser.add_argument("--cache", choices=["ram", "disk"], help="cache decoded images (fast GPU runs)")
    parser.add_argument("--resume", action="store_true", help="continue the run from its last.pt")
    parser.add_argument("--weights", type=Path, help="start from this checkpoint of ours with a new schedule")
    parser.add_argument("--export", type=Path, metavar="ONNX", help="after training, export best.pt here")
    parser.add_argument("--export-only", type=Path, metavar="PT", help="skip training; export this .pt")
    parser.add_argument("--export-imgsz", type=int, default=256, help="the model's default input size")
    parser.add_argument("--trained-on", default="", help="one line on the data mix, for the model card")


def run(args: argparse.Namespace) -> int:
    common = {
        "name": args.name,
        "runs": args.runs,
        "device": args.device,
        "workers": args.workers,
        "threads": args.threads,
    }
    if args.export_only:
        best = args.export_only
    elif args.resume:
        best = train(args.data or _last_data(args.runs / args.name), resume=True, hours=args.hours, **common)
    elif args.data is None:
        raise UserError("name the dataset's data.yaml (or use --resume / --export-only PT)")
    else:
        best = train(
            args.data,
            epochs=args.epochs,
            hours=args.hours,
            imgsz=args.imgsz,
            batch=args.batch,
            cache=args.cache or False,
            weights=args.weights,
            architecture=args.architecture,
            lr0=args.lr0,
            close_mosaic=args.close_mosaic,
            freeze=args.freeze,
            **common,
        )
    if not args.export_only:
        print(f"best checkpoint: {best}")
    target = args.export or (Path("models/uno_cards.onnx") if args.export_only else None)
    if target:
        path = export(best, target, imgsz=args.export_imgsz, trained_on=args.trained_on)
        print(f"exported: {path} (+ {path.with_suffix('.json').name})")
    return 0


def _last_data(run_dir: Path) -> Path:
    """The data.yaml a run was started with (recorded by ultralytics in args.yaml)."""
    import yaml

    arguments = run_dir / "args.yaml"
    if not arguments.is_file():
        raise UserError(f"nothing to resume in {run_dir}: it has no args.yaml")
    return Path(yaml.safe_load(arguments.read_text())["data"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.training", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except UserError as error:
        print(f"training: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
