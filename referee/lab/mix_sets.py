"""One training set from several rendered ones, for a detector that learns from a real deck's faces.

Why: ``uno-referee dataset --faces FOLDER`` deals a photographed deck's faces into rendered scenes,
and refuses to add them to a set of rendered faces (one set, one deck: an evaluation set must stay
pure). A detector that should *learn* from such scenes needs both in one set. This writes a
``data.yaml`` whose ``train`` lists every set's training folder (ultralytics reads the list as one
set, nothing is copied), whose ``val`` is the first set's, and whose ``decks_seen`` holds every real
deck any of the sets mixed in or was dealt (:mod:`referee.lab.provenance`), so the network trained
on it records that it has seen them.

    python -m referee.lab.mix_sets OUT RENDERED_SET FACES_SET [...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from referee.errors import UserError
from referee.lab.provenance import dataset_decks
from referee.vision.classes import CLASS_NAMES


def mix(out: Path, sets: Sequence[Path]) -> Path:
    """Write ``out/data.yaml`` over ``sets`` (each a folder with ``data.yaml`` and ``images/train``)."""
    import yaml

    if not sets:
        raise UserError("name at least one data set to mix")
    decks: set[str] = set()
    train: list[str] = []
    for folder in sets:
        description = folder / "data.yaml"
        if not description.is_file():
            raise UserError(f"{folder} holds no data.yaml: make it with `uno-referee dataset` first")
        if not next((folder / "images" / "train").glob("*.jpg"), None):
            raise UserError(f"{folder}/images/train holds no pictures: render it with --val-fraction below 1")
        decks |= set(dataset_decks(description))
        train.append(str((folder / "images" / "train").resolve()))
    data: dict[str, object] = {
        "path": str(out.resolve()),
        "train": train,
        "val": str((sets[0] / "images" / "val").resolve()),
        "names": dict(enumerate(CLASS_NAMES)),
    }
    if decks:
        data["decks_seen"] = sorted(decks)
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "data.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {out}/data.yaml: {error.strerror}") from None
    return path


def main(argv: Sequence[str] | None = None) -> int:
    summary = __doc__.splitlines()[0]
    parser = argparse.ArgumentParser(prog="python -m referee.lab.mix_sets", description=summary)
    parser.add_argument("out", type=Path, help="folder for the mixed data.yaml")
    parser.add_argument("sets", type=Path, nargs="+", help="data sets to mix (the first gives val)")
    args = parser.parse_args(argv)
    try:
        path = mix(args.out, args.sets)
        decks = dataset_decks(path)
    except UserError as error:
        print(f"mix_sets: error: {error}", file=sys.stderr)
        return 2
    print(f"{path}: {len(args.sets)} training folders; real decks seen: {', '.join(decks) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
