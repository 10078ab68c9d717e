"""Pictures for `tools/pi-check`'s `detect` step, and the check of what `detect --json` said.

The arm64 root has no camera and the project ships no photos, so the table simulator films the
discard zone (what the pile watcher reads on a Pi) with one known card in it; `uno-referee detect`
must name exactly that card in each picture. Run inside the root's venv:

    python tools/pi_check_pictures.py write DIR            # DIR/red-7.png, DIR/blue-skip.png, …
    uno-referee detect --json DIR > DIR.jsonl
    python tools/pi_check_pictures.py check DIR.jsonl      # exit 1 and one line per wrong picture
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: One number, one action, one wild: three pictures keep the emulated step under a few minutes.
CARDS = ("red-7", "blue-skip", "wild-draw4")


def write(folder: Path) -> None:
    """The discard zone of a simulated table with each card alone in it, turned a little."""
    import cv2

    from referee.lab.video import TableVideo

    folder.mkdir(parents=True, exist_ok=True)
    video = TableVideo([{"flip": CARDS[0]}], ["Anna", "Ben"], seed=1)
    x_mm, y_mm = video.discard_centre()
    for card in CARDS:
        picture = video.view.crop(video.still_picture(card, x_mm, y_mm, 20.0), "discard")
        if not cv2.imwrite(str(folder / f"{card}.png"), picture):
            raise SystemExit(f"pi_check_pictures: cannot write {folder / card}.png")


def check(lines: list[str]) -> list[str]:
    """What is wrong with `detect --json`'s lines: a picture missing, or not read as its card alone."""
    problems = []
    read = {}
    for line in lines:
        record = json.loads(line)
        read[Path(record["image"]).stem] = sorted({card["card"] for card in record["cards"]})
    for card in CARDS:
        if card not in read:
            problems.append(f"{card}.png: not reported")
        elif read[card] != [card]:
            problems.append(f"{card}.png: read as {', '.join(read[card]) or 'nothing'}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        write(Path(argv[1]))
        return 0
    if len(argv) == 2 and argv[0] == "check":
        try:
            problems = check(Path(argv[1]).read_text(encoding="utf-8").splitlines())
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"pi_check_pictures: cannot read {argv[1]} as detect --json output ({error!r})")
            return 1
        for problem in problems:
            print(f"pi_check_pictures: {problem}")
        if not problems:
            print(f"pi_check_pictures: {len(CARDS)} pictures, each read as its card ({', '.join(CARDS)})")
        return 1 if problems else 0
    print("usage: pi_check_pictures.py write DIR | check DETECT.jsonl", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
