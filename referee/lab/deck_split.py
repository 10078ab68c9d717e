"""Split a deck of labelled one-card photos for measuring ``deck learn``: one photo per face to learn
from, every other photo to score on.

``python -m referee.lab.deck_split ../shared/data/uno-cards-criscard OUT`` writes ``OUT/learn/<face>/``
(the first photo of each face, in ``labels.jsonl`` order) and ``OUT/held/`` (the remaining photos with
their own ``labels.jsonl``). Then::

    uno-referee deck learn OUT/learn --out OUT/deck.json
    uno-referee eval --real OUT/held --deck OUT/deck.json

scores the deck on photos it did not learn from. Files are copied (licences travel with the data:
keep the source's notice beside any copy you share).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from referee.errors import UserError
from referee.lab.evaluate import card_photos


def split(deck: Path, out: Path) -> tuple[int, int]:
    """Write the learn and held-out folders; returns (faces learnt from, photos held out)."""
    learn, held = out / "learn", out / "held"
    (held / "images").mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    lines = []
    for photo in card_photos(deck):
        face = photo.named.name
        if face not in seen:
            seen.add(face)
            (learn / face).mkdir(parents=True, exist_ok=True)
            shutil.copy2(photo.path, learn / face / photo.path.name)
        else:
            shutil.copy2(photo.path, held / "images" / photo.path.name)
            lines.append(json.dumps({"image": f"images/{photo.path.name}", "card": face}))
    (held / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(seen), len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.deck_split", description=__doc__.splitlines()[0]
    )
    parser.add_argument("deck", type=Path, help="a folder of one-card photos with labels.jsonl")
    parser.add_argument("out", type=Path, help="output folder (learn/ and held/ are written into it)")
    args = parser.parse_args(argv)
    try:
        faces, held = split(args.deck, args.out)
    except UserError as error:
        print(f"deck_split: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.out}: {faces} faces to learn from (learn/), {held} photos held out (held/)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
