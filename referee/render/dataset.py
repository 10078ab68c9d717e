"""Write a YOLO training set of rendered scenes, optionally mixed with the shared Roboflow photos.

Runs as ``uno-referee dataset OUT ...`` and, on a training machine where the package is not
installed, as ``PYTHONPATH=. python -m referee.render.dataset OUT ...``: this import path needs only
numpy, OpenCV, Pillow, PyYAML and tqdm.

Layout (ultralytics): ``OUT/images/{train,val}/*.jpg``, ``OUT/labels/{train,val}/*.txt``,
``OUT/meta/{train,val}/*.json`` (card-level sidecars) and ``OUT/data.yaml``. Image ``i`` is drawn
from ``default_rng([seed, i])`` alone, so a run can be resumed, split over machines, or extended
with a larger ``--count`` and every existing image stays valid; finished images are skipped.

``--faces FOLDER`` deals a real deck's photographed faces (a face folder as
``../shared/data/uno-cards-criscard``, :mod:`referee.lab.photo_faces`) instead of rendered ones,
in the same scenes, labelled the same way. Such a set is for *evaluation*: a deck whose faces are
in a training set is no longer an unseen deck, and each real deck is scored only by models that
never trained on it. Its ``data.yaml`` and every sidecar name the deck (``faces``), and all its
images go to val unless ``--val-fraction`` says otherwise.

``--typefaces held-out`` draws every face's numerals in typefaces no network is trained on
(:data:`referee.render.glyphs.HELD_OUT_FAMILIES`), in the same scenes as the same seed without it:
a rendered stand-in for a real deck we do not have, to choose between models without scoring a real
deck. It is an evaluation set too (all val by default; ``data.yaml`` says ``typefaces``).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import shutil
import sys
from collections.abc import Sequence
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import UserError
from referee.render.scenes import SCENE_KINDS, SCENE_WEIGHTS
from referee.vision.classes import CLASS_NAMES, ROBOFLOW_TO_CLASS

if TYPE_CHECKING:
    from referee.lab.photo_faces import PhotoDeal, PhotoFaces
    from referee.render.scenes import FaceSwap

SPLITS = ("train", "val")
ROBOFLOW_SPLITS = {"train": "train", "valid": "val"}
#: The random stream that picks, per scene, which photo of a face and which stand-ins it is dealt.
_FACES_STREAM = 1
#: ``--typefaces`` for a set whose numerals are in typefaces no network trained on.
HELD_OUT = "held-out"
#: The random stream that retypes, per scene, the faces of ``--typefaces held-out``.
_TYPEFACES_STREAM = 2
#: What ``data.yaml`` says about a set dealt with photographed faces.
FACES_USE = (
    "evaluation only: a deck whose faces are in a training set is no longer unseen; score this deck "
    "only with models that never trained on it"
)
#: … and about such scenes rendered for training (``--val-fraction`` below 1, mixed in by
#: :mod:`referee.lab.mix_sets`).
FACES_TRAINING_USE = "training: a network trained on these scenes has seen this deck"
#: What ``data.yaml`` says about a set retyped in the held-out typefaces.
TYPEFACES_USE = (
    "evaluation only: numerals in typefaces no network trains on (referee.render.glyphs.HELD_OUT_FAMILIES), "
    "a rendered stand-in for a deck we do not have"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="output folder (created; existing images are kept)")
    parser.add_argument("--count", type=int, required=True, help="number of rendered images (train + val)")
    parser.add_argument("--seed", type=int, default=0, help="base seed: image i uses the seed (SEED, i)")
    parser.add_argument("--size", type=int, default=416, help="image side in pixels (default 416)")
    parser.add_argument(
        "--val-fraction",
        type=float,
        help="share of rendered images for val (default 0.1; all val with --faces or --typefaces held-out)",
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)"
    )
    parser.add_argument(
        "--quality", type=int, default=None, help="fixed JPEG quality (default: random 50-95)"
    )
    parser.add_argument(
        "--kind",
        choices=sorted(SCENE_KINDS),
        help="render only scenes of this kind (default: the training mix, "
        + ", ".join(f"{kind} {share * 100:.0f} %%" for kind, share in SCENE_WEIGHTS.items())
        + "; row: hands spread in a tight row, asked for by name only)",
    )
    parser.add_argument(
        "--roboflow", type=Path, help="shared Roboflow folder (with train/ and valid/) to mix in"
    )
    parser.add_argument(
        "--roboflow-share",
        type=float,
        default=0.25,
        help="fraction of the final train set that is Roboflow photos",
    )
    parser.add_argument(
        "--faces",
        type=Path,
        metavar="FOLDER",
        help="deal a real deck's photographed faces instead of rendered ones, in the same scenes: a folder "
        'with labels.jsonl naming each flattened, upright photo of one card ({"image": "images/….jpg", '
        '"card": "red-7"}, as ../shared/data/uno-cards-criscard). For EVALUATION sets only: a deck whose '
        "faces are in a training set is no longer unseen, and each real deck is scored only by models that "
        "never trained on it",
    )
    parser.add_argument(
        "--typefaces",
        choices=("training", HELD_OUT),
        default="training",
        help="numerals in the training typefaces (default), or, for EVALUATION sets, in typefaces no "
        "network is trained on (a stand-in for a deck we do not have; needs Debian's held-out font "
        "packages, see the model card)",
    )
    parser.add_argument(
        "--busy",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of scenes laid on a busy print (zebra and marble bands, honeycomb and crackle cells, "
        "grass and scribbled strokes) instead of a plain table (default 0)",
    )


def _check(args: argparse.Namespace) -> None:
    held_out = args.typefaces == HELD_OUT
    if args.val_fraction is None:
        args.val_fraction = 1.0 if args.faces is not None or held_out else 0.1
    if args.count < 1:
        raise UserError(f"--count must be at least 1 (got {args.count})")
    if not 64 <= args.size <= 2048:
        raise UserError(f"--size must be between 64 and 2048 pixels (got {args.size})")
    if not 0 <= args.val_fraction <= 1:
        raise UserError(f"--val-fraction must be in [0, 1] (got {args.val_fraction})")
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1 (got {args.workers})")
    if args.quality is not None and not 10 <= args.quality <= 100:
        raise UserError(f"--quality must be between 10 and 100 (got {args.quality})")
    if not 0 <= args.busy <= 1:
        raise UserError(f"--busy is a share between 0 and 1 (got {args.busy})")
    if not 0 <= args.roboflow_share < 1:
        raise UserError(f"--roboflow-share must be in [0, 1) (got {args.roboflow_share})")
    if args.faces is not None and args.roboflow is not None:
        raise UserError(
            "--faces makes an evaluation set and --roboflow mixes training photos in: use one of them"
        )
    if held_out and (args.faces is not None or args.roboflow is not None):
        raise UserError(
            "--typefaces held-out makes an evaluation set of rendered faces: leave out --faces and --roboflow"
        )
    if held_out:
        from referee.render.glyphs import require_held_out_fonts

        require_held_out_fonts()
    if args.roboflow is not None:
        for split in ROBOFLOW_SPLITS:
            if (
                not (args.roboflow / split / "images").is_dir()
                or not (args.roboflow / split / "labels").is_dir()
            ):
                raise UserError(
                    f"--roboflow {args.roboflow} has no {split}/images and {split}/labels folders "
                    "(point it at the shared uno-cards-roboflow folder)"
                )


def split_of(index: int, count: int, val_fraction: float) -> str:
    """Images ``0 … n_val-1`` are val, the rest train: stable when ``--count`` grows a little."""
    return "val" if index < round(count * val_fraction) else "train"


def _paths(out: Path, split: str, stem: str) -> tuple[Path, Path, Path]:
    return (
        out / "images" / split / f"{stem}.jpg",
        out / "labels" / split / f"{stem}.txt",
        out / "meta" / split / f"{stem}.json",
    )


def _write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary name so that an interrupted run never leaves a half file behind."""
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def format_labels(rows: Sequence[tuple[int, float, float, float, float]]) -> str:
    """YOLO txt: one ``class cx cy w h`` line per box, normalised, 6 decimals."""
    return "".join(f"{c} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for c, cx, cy, w, h in rows)


@functools.lru_cache(maxsize=1)
def photo_faces(folder: str) -> PhotoFaces:
    """A face folder, read once per process (a forked worker inherits the parent's reading)."""
    from referee.lab.photo_faces import PhotoFaces

    return PhotoFaces.load(folder)


def photo_deal(folder: str, seed: int, index: int, stream: int = _FACES_STREAM) -> PhotoDeal:
    """What scene ``index`` of ``seed`` is dealt from the face folder ``folder``: which photo of a face
    photographed twice, which stand-ins, drawn from its own random ``stream`` so that the scene draws
    the numbers a rendered one draws."""
    import numpy as np

    from referee.lab.photo_faces import PhotoDeal

    deal_seed = int(np.random.default_rng([seed, index, stream]).integers(2**32))
    return PhotoDeal(photo_faces(folder), deal_seed)


def render_one(job: tuple[str, int, int, int, str, int | None, str | None, str | None, bool, float]) -> int:
    """Render image ``index`` into ``out`` unless it is already there; returns 1 if it was rendered."""
    import cv2
    import numpy as np

    from referee.render.scenes import render_scene

    out_text, seed, index, size, split, quality, kind, faces_folder, held_out_typefaces, busy = job
    out = Path(out_text)
    stem = f"r{seed}_{index:07d}"
    image_path, label_path, meta_path = _paths(out, split, stem)
    if image_path.exists() and label_path.exists() and meta_path.exists():
        return 0
    deal: FaceSwap | None = None
    marks: dict[str, str] = {}  # what the sidecar says of the faces dealt
    if faces_folder is not None:
        deal, marks = photo_deal(faces_folder, seed, index), {"faces": photo_faces(faces_folder).deck}
    elif held_out_typefaces:
        from referee.render.glyphs import held_out_fonts
        from referee.render.scenes import Retype

        retype_seed = int(np.random.default_rng([seed, index, _TYPEFACES_STREAM]).integers(2**32))
        deal, marks = Retype(held_out_fonts(), retype_seed), {"typefaces": HELD_OUT}
    rng = np.random.default_rng([seed, index])
    result = render_scene(rng, size, kind, faces=deal, busy=busy)
    jpeg_quality = quality if quality is not None else int(rng.integers(50, 96))
    ok, encoded = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for {stem}")
    meta = {"image": image_path.name, "seed": seed, "index": index, "jpeg_quality": jpeg_quality}
    meta.update(result.metadata())
    meta.update(marks)
    # Labels and sidecar first, image last: the image's presence marks a finished sample.
    _write_atomic(label_path, format_labels(result.labels).encode())
    _write_atomic(meta_path, json.dumps(meta, separators=(",", ":")).encode())
    _write_atomic(image_path, encoded.tobytes())
    return 1


def remap_roboflow_labels(text: str, source: Path) -> str:
    """Roboflow class ids → ours (``ROBOFLOW_TO_CLASS``); an unknown id is a UserError naming the file."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        try:
            class_id = ROBOFLOW_TO_CLASS[int(fields[0])]
            if len(fields) != 5:
                raise ValueError
        except (KeyError, ValueError):
            raise UserError(
                f"{source}:{number}: expected 'class cx cy w h' with a Roboflow class 0-14"
            ) from None
        rows.append(" ".join([str(class_id), *fields[1:]]) + "\n")
    return "".join(rows)


def roboflow_counts(
    synthetic_train: int, synthetic_val: int, share: float, available: dict[str, int]
) -> dict:
    """How many Roboflow photos go into each split so that they are ``share`` of it (capped by supply).

    >>> roboflow_counts(750, 100, 0.25, {"train": 2000, "val": 300})
    {'train': 250, 'val': 33}
    """
    wanted = {
        "train": math.ceil(share / (1 - share) * synthetic_train - 1e-9),
        "val": round(share / (1 - share) * synthetic_val),
    }
    return {split: min(wanted[split], available[split]) for split in SPLITS}


def copy_roboflow(root: Path, out: Path, counts: dict[str, int], seed: int) -> dict[str, int]:
    """Copy a seeded sample of the Roboflow photos with remapped labels; returns how many per split."""
    import numpy as np

    copied = {}
    for source_split, split in ROBOFLOW_SPLITS.items():
        images = sorted((root / source_split / "images").glob("*.jpg"))
        order = np.random.default_rng([seed, 7919, SPLITS.index(split)]).permutation(len(images))
        chosen = [images[k] for k in order[: counts[split]]]
        for image in chosen:
            label = root / source_split / "labels" / f"{image.stem}.txt"
            if not label.exists():
                raise UserError(f"Roboflow image {image} has no label file {label}")
            image_path, label_path, _ = _paths(out, split, f"rf_{image.stem}")
            if image_path.exists() and label_path.exists():
                continue
            _write_atomic(label_path, remap_roboflow_labels(label.read_text(), label).encode())
            shutil.copyfile(image, image_path)
        copied[split] = len(chosen)
    return copied


def faces_record(faces: PhotoFaces, training: bool = False) -> dict[str, object]:
    """What ``data.yaml`` records of a photographed deck: which deck, where, how many faces, what for."""
    return {
        "deck": faces.deck,
        "folder": str(faces.folder.resolve()),
        "photos": faces.photo_count,
        "cards": len(faces.photos),
        "use": FACES_TRAINING_USE if training else FACES_USE,
    }


def typefaces_record() -> dict[str, object]:
    """What ``data.yaml`` records of a set retyped in the held-out typefaces."""
    from referee.render.glyphs import HELD_OUT_FAMILIES, held_out_fonts

    return {
        "kind": HELD_OUT,
        "families": list(HELD_OUT_FAMILIES),
        "faces": len(held_out_fonts()),
        "use": TYPEFACES_USE,
    }


def dataset_faces(out: Path) -> dict | None:
    """What an existing set's ``data.yaml`` records of the photographed deck it was dealt (see
    :func:`faces_record`); None for a set of rendered faces, or no set at all."""
    return _data_yaml_record(out, "faces")


def dataset_typefaces(out: Path) -> dict | None:
    """What an existing set's ``data.yaml`` records of the held-out typefaces it was retyped in (see
    :func:`typefaces_record`); None for a set in the training typefaces, or no set at all."""
    return _data_yaml_record(out, "typefaces")


def _data_yaml_record(out: Path, key: str) -> dict | None:
    import yaml

    try:
        data = yaml.safe_load((out / "data.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    record = data.get(key) if isinstance(data, dict) else None
    return record if isinstance(record, dict) else None


def write_data_yaml(
    out: Path,
    faces: PhotoFaces | None = None,
    photos_of: Path | None = None,
    held_out_typefaces: bool = False,
    faces_for_training: bool = False,
) -> Path:
    """The ultralytics dataset file: absolute ``path``, split folders, our class names (and the
    photographed deck, for a set dealt with one; the held-out typefaces, for a set retyped in them).

    ``photos_of``: the real deck whose photos were mixed in; with the decks an earlier run mixed
    into this folder, and the photographed deck ``faces`` dealt, it is recorded as ``decks_seen``
    (:mod:`referee.lab.provenance`): a network trained on a set dealt a deck's faces has seen that
    deck, and its record must say so, whatever the set was made for."""
    import yaml

    from referee.lab.provenance import dataset_decks, deck_name

    path = out / "data.yaml"
    decks = set(dataset_decks(path)) if path.is_file() else set()
    if photos_of is not None:
        decks.add(deck_name(photos_of))
    if faces is not None:
        decks.add(faces.deck)
    data: dict[str, object] = {
        "path": str(out.resolve()),
        "train": "images/train",
        "val": "images/val",
        "names": dict(enumerate(CLASS_NAMES)),
    }
    if decks:
        data["decks_seen"] = sorted(decks)
    if faces is not None:
        data["faces"] = faces_record(faces, faces_for_training)
    if held_out_typefaces:
        data["typefaces"] = typefaces_record()
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def run(args: argparse.Namespace) -> int:
    """Render (and mix in) the whole set; prints a one-line summary."""
    from tqdm import tqdm

    _check(args)
    out: Path = args.out
    photo_faces.cache_clear()  # read the folder as it is now; forked workers inherit this reading
    faces = photo_faces(str(args.faces)) if args.faces is not None else None
    held_out = args.typefaces == HELD_OUT
    _refuse_mixed_faces(out, faces, held_out)
    try:
        for kind in ("images", "labels", "meta"):
            for split in SPLITS:
                (out / kind / split).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create the output folder {out}: {error.strerror}") from None
    jobs = [
        (
            str(out),
            args.seed,
            i,
            args.size,
            split_of(i, args.count, args.val_fraction),
            args.quality,
            args.kind,
            str(args.faces) if args.faces is not None else None,
            held_out,
            args.busy,
        )
        for i in range(args.count)
    ]
    rendered = 0
    progress = tqdm(total=len(jobs), unit="img", desc="render", mininterval=1.0)
    if args.workers == 1:
        for job in jobs:
            rendered += render_one(job)
            progress.update()
    else:
        with get_context("spawn" if sys.platform == "darwin" else "fork").Pool(args.workers) as pool:
            for done in pool.imap_unordered(render_one, jobs, chunksize=4):
                rendered += done
                progress.update()
    progress.close()
    mixed = {"train": 0, "val": 0}
    if args.roboflow is not None:
        synthetic = {split: sum(1 for job in jobs if job[4] == split) for split in SPLITS}
        available = {
            split: len(list((args.roboflow / source / "images").glob("*.jpg")))
            for source, split in ROBOFLOW_SPLITS.items()
        }
        counts = roboflow_counts(synthetic["train"], synthetic["val"], args.roboflow_share, available)
        mixed = copy_roboflow(args.roboflow, out, counts, args.seed)
    for_training = args.val_fraction < 1
    yaml_path = write_data_yaml(out, faces, args.roboflow, held_out, faces_for_training=for_training)
    dealt = (
        f"faces: {faces.photo_count} photos of {len(faces.photos)} cards of {faces.deck} "
        + (
            f"({FACES_TRAINING_USE}; data.yaml records it)"
            if for_training
            else "(an evaluation set: score this deck only with models that never trained on it)"
        )
        if faces is not None
        else f"numerals in {typefaces_record()['faces']} held-out faces (an evaluation set: no network "
        "trains on them)"
        if held_out
        else f"Roboflow photos: {mixed['train']} train, {mixed['val']} val"
    )
    print(f"{rendered} rendered, {len(jobs) - rendered} already there; {dealt}; dataset file {yaml_path}")
    return 0


def _refuse_mixed_faces(out: Path, faces: PhotoFaces | None, held_out_typefaces: bool) -> None:
    """One set, one deck: adding scenes with other faces to a set that has images would mix them."""
    if not any(next((out / "images" / split).glob("*.jpg"), None) for split in SPLITS):
        return

    def described(deck: object, retyped: bool) -> str:
        if deck:
            return f"the faces of {deck}"
        return "rendered faces in held-out typefaces" if retyped else "rendered faces"

    held = described((dataset_faces(out) or {}).get("deck"), dataset_typefaces(out) is not None)
    wanted = described(faces.deck if faces is not None else None, held_out_typefaces)
    if held != wanted:
        raise UserError(f"{out} already holds scenes with {held}, not {wanted}: choose another folder")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point without the package installed: same options as ``uno-referee dataset``."""
    parser = argparse.ArgumentParser(
        prog="python -m referee.render.dataset", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except UserError as error:
        print(f"uno-referee: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("uno-referee: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
