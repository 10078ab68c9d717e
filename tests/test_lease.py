"""Packing for a GPU lease: subset faces keep what the renderer draws, photos shrink with their labels."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from fontTools.ttLib import TTFont

from referee.errors import UserError
from referee.lab.lease import pack, sample_photos, subset_font
from referee.render.glyphs import FONT_DIR, text_mask

REPO = Path(__file__).resolve().parents[1]
FACE = FONT_DIR / "DejaVuSans-Bold.ttf"


def test_a_subset_face_keeps_the_numerals_and_drops_the_rest(tmp_path: Path) -> None:
    target = tmp_path / "fonts" / FACE.name
    written = subset_font(FACE, target)
    assert written == target.stat().st_size < FACE.stat().st_size / 3
    cmap = TTFont(str(target)).getBestCmap()
    assert all(ord(character) in cmap for character in "0123456789+:WILD€")
    assert 0x0436 not in cmap  # Cyrillic: never drawn by the renderer
    # The renderer draws the same "7" from the subset as from the full face.
    assert np.array_equal(text_mask("7", 40, str(target)), text_mask("7", 40, FACE.name))


def test_a_damaged_face_is_a_one_line_error(tmp_path: Path) -> None:
    broken = tmp_path / "Broken-Bold.ttf"
    broken.write_bytes(b"not a font")
    with pytest.raises(UserError, match="cannot read the font"):
        subset_font(broken, tmp_path / "out.ttf")


def _photo_set(root: Path, count: int) -> Path:
    for split in ("train", "valid"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
        for index in range(count):
            picture = np.full((416, 416, 3), 40 * index % 255, np.uint8)
            cv2.imwrite(str(root / split / "images" / f"p{index}.jpg"), picture)
            (root / split / "labels" / f"p{index}.txt").write_text(f"{index} 0.5 0.5 0.1 0.1\n")
    (root / "README.md").write_text("licence\n")
    return root


def test_photos_are_sampled_shrunk_and_keep_their_labels(tmp_path: Path) -> None:
    source = _photo_set(tmp_path / "uno-cards-roboflow", 5)
    summary = pack(tmp_path / "pack", fonts=[str(FACE)], roboflow=source, train=3, val=2, size=320)
    target = tmp_path / "pack" / "uno-cards-roboflow"  # the deck's name is kept: it is recorded as seen
    assert summary["train"] == 3 and summary["valid"] == 2 and summary["fonts"] == 1
    images = sorted((target / "train" / "images").glob("*.jpg"))
    assert len(images) == 3 and cv2.imread(str(images[0])).shape == (320, 320, 3)
    for image in images:
        label = target / "train" / "labels" / f"{image.stem}.txt"
        assert label.read_text() == (source / "train" / "labels" / label.name).read_text()
    assert (target / "README.md").read_text() == "licence\n"
    assert summary["bytes"] == sum(p.stat().st_size for p in (tmp_path / "pack").rglob("*") if p.is_file())
    # Seeded: packing again picks the same photos.
    again = tmp_path / "again"
    sample_photos(source, again, {"train": 3}, size=320, quality=78, seed=5)
    assert sorted(p.name for p in (again / "train" / "images").iterdir()) == [p.name for p in images]


def test_a_photo_without_its_label_is_a_one_line_error(tmp_path: Path) -> None:
    source = _photo_set(tmp_path / "set", 2)
    for label in (source / "train" / "labels").iterdir():
        label.unlink()
    with pytest.raises(UserError, match="no label file"):
        sample_photos(source, tmp_path / "out", {"train": 2}, size=320, quality=78, seed=5)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("script", ["lease_train.sh", "lease_glyphs.sh"])
def test_the_lease_scripts_parse(script: str) -> None:
    result = subprocess.run(
        ["bash", "-n", str(REPO / "referee" / "lab" / script)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_a_photographed_deck_travels_whole_under_its_name(tmp_path: Path) -> None:
    deck = tmp_path / "uno-cards-crafted"
    (deck / "images").mkdir(parents=True)
    (deck / "images" / "0.jpg").write_bytes(b"jpg")
    (deck / "labels.jsonl").write_text('{"image": "images/0.jpg", "card": "red-7"}\n')
    pack(tmp_path / "pack", fonts=[str(FACE)], roboflow=None, train=0, val=0, faces=deck)
    carried = tmp_path / "pack" / "uno-cards-crafted" / "labels.jsonl"
    assert carried.read_text() == (deck / "labels.jsonl").read_text()
    with pytest.raises(UserError, match=r"holds no labels\.jsonl"):
        pack(tmp_path / "other", fonts=[str(FACE)], roboflow=None, train=0, val=0, faces=deck / "images")
