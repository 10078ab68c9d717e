"""Pack what one short GPU lease needs to render and train the detector there, within its carry limit.

Why: a lent GPU machine is bare and offline, holds one call of at most ten minutes, and takes at most
64 MiB beside the working tree. Rendering there on 16 cores is fast, but the renderer's numerals come
from Debian font packages the machine lacks, and the only real photos in the training mix (Roboflow's)
are 97 MB. This packs both small enough: every heavy numeral face installed here, subset to the
characters the renderer draws (3.2 MB for 69 faces, each glyph drawn as from the full face), and a
seeded sample of the Roboflow photos shrunk to the training size. ``referee/lab/lease_train.sh`` then
runs on the machine: it installs the carried faces and the ultralytics wheel (``pip download`` it
into the pack's ``whl/``), renders, fine-tunes for the time left and sends the checkpoints back (the model
card's "Thirteenth session" section has the commands and the figures of one such run).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from referee.errors import UserError

#: What the renderer draws with numeral faces: ASCII, Latin-1, dashes/quotes, euro, minus, bullets.
DRAWN_CHARACTERS: tuple[int, ...] = (
    *range(0x20, 0x7F),
    *range(0xA0, 0x100),
    *range(0x2010, 0x203B),
    0x20AC,
    0x2212,
    0x25CF,
)
#: The device tool's carry limit (working tree + carried paths), bytes.
CARRY_LIMIT = 64 * 1024 * 1024


def subset_font(source: Path, target: Path) -> int:
    """Write ``source`` cut to :data:`DRAWN_CHARACTERS` (same file name kept: the renderer picks faces
    by name); returns the bytes written."""
    from fontTools import subset

    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    try:
        font = subset.load_font(str(source), options)
    except Exception as error:  # fontTools raises many kinds for a damaged file
        raise UserError(f"cannot read the font {source}: {error}") from None
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=DRAWN_CHARACTERS)
    subsetter.subset(font)
    target.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(target), options)
    return target.stat().st_size


def sample_photos(
    source: Path, target: Path, counts: dict[str, int], *, size: int, quality: int, seed: int
) -> dict[str, int]:
    """Copy a seeded sample of a YOLO photo set (``split/images``, ``split/labels``), each photo
    resized to ``size`` × ``size`` (the labels are normalised, so they stay as they are)."""
    import cv2
    import numpy as np

    copied: dict[str, int] = {}
    for number, (split, count) in enumerate(counts.items()):
        images = sorted((source / split / "images").glob("*.jpg"))
        if not images:
            raise UserError(f"{source / split / 'images'} holds no .jpg photos: point at the Roboflow folder")
        order = np.random.default_rng([seed, number]).permutation(len(images))[:count]
        (target / split / "images").mkdir(parents=True, exist_ok=True)
        (target / split / "labels").mkdir(parents=True, exist_ok=True)
        for index in sorted(order):
            image = images[index]
            label = source / split / "labels" / f"{image.stem}.txt"
            picture = cv2.imread(str(image))
            if picture is None or not label.is_file():
                raise UserError(f"{image} is unreadable or has no label file: repair the photo set")
            picture = cv2.resize(picture, (size, size), interpolation=cv2.INTER_AREA)
            written = target / split / "images" / image.name
            cv2.imwrite(str(written), picture, [cv2.IMWRITE_JPEG_QUALITY, quality])
            shutil.copyfile(label, target / split / "labels" / label.name)
        copied[split] = len(order)
    readme = source / "README.md"
    if readme.is_file():  # the licence travels with the photos
        shutil.copyfile(readme, target / "README.md")
    return copied


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def pack(
    out: Path,
    *,
    fonts: Sequence[str],
    roboflow: Path | None,
    train: int,
    val: int,
    size: int = 320,
    quality: int = 78,
    seed: int = 5,
    faces: Path | None = None,
) -> dict[str, int]:
    """Fill ``out`` with ``fonts/`` (subset faces), ``uno-cards-roboflow/`` (shrunk sample) and a
    photographed deck's face folder (``faces``, copied whole: ``lease_train.sh`` deals it into scenes
    with ``FACES=``). Each deck's folder keeps its name, since that is what the training records as seen."""
    if faces is not None:
        if not (faces / "labels.jsonl").is_file():
            raise UserError(f"{faces} holds no labels.jsonl: point --faces at a photographed deck's folder")
        shutil.copytree(faces, out / faces.resolve().name, dirs_exist_ok=True)
    font_bytes = sum(subset_font(Path(face), out / "fonts" / Path(face).name) for face in fonts)
    photos = {"train": 0, "valid": 0}
    if roboflow is not None:
        photos = sample_photos(
            roboflow, out / roboflow.resolve().name, {"train": train, "valid": val},
            size=size, quality=quality, seed=seed,
        )  # fmt: skip
    return {"fonts": len(fonts), "font_bytes": font_bytes, **photos, "bytes": folder_bytes(out)}


def main(argv: Sequence[str] | None = None) -> int:
    from referee.render.glyphs import numeral_fonts

    parser = argparse.ArgumentParser(prog="python -m referee.lab.lease", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to carry (ignore it in .git/info/exclude)")
    parser.add_argument("--roboflow", type=Path, help="the shared uno-cards-roboflow folder")
    parser.add_argument("--train", type=int, default=800, help="Roboflow training photos (default 800)")
    parser.add_argument("--val", type=int, default=60, help="Roboflow validation photos (default 60)")
    parser.add_argument("--size", type=int, default=320, help="photo side in pixels (the training size)")
    parser.add_argument("--quality", type=int, default=78, help="JPEG quality of the shrunk photos")
    parser.add_argument(
        "--faces",
        type=Path,
        help="a photographed deck's face folder to carry (../shared/data/uno-cards-criscard)",
    )
    args = parser.parse_args(argv)
    installed = [face for face in numeral_fonts() if Path(face).is_absolute()]
    try:
        if not installed:
            raise UserError("no numeral faces are installed: install the font packages the model card lists")
        summary = pack(
            args.out, fonts=installed, roboflow=args.roboflow, train=args.train, val=args.val,
            size=args.size, quality=args.quality, faces=args.faces,
        )  # fmt: skip
    except UserError as error:
        print(f"lease: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{summary['fonts']} faces ({summary['font_bytes'] / 1e6:.1f} MB), Roboflow {summary['train']} train "
        f"+ {summary['valid']} valid photos; {summary['bytes'] / 2**20:.1f} MiB in {args.out} "
        f"(the working tree and this must stay under {CARRY_LIMIT // 2**20} MiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
