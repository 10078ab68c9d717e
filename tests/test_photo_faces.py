"""Filmed tables with photographed faces: a face folder, its sprites, the video and bench that use it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.errors import UserError
from referee.lab.photo_faces import PhotoFaces, photo_sprite
from referee.lab.table_bench import faces_line
from referee.lab.video import OracleReader, TableVideo, VideoSettings
from referee.render.cards import render_card
from referee.table.pile import CardLanded, PileEvent, PileWatcher

PLAYERS = ["Anna", "Ben", "Clara"]
STEPS = [
    {"flip": "blue-5"},
    {"play": "blue-8", "by": "Anna"},
    {"play": "blue-8", "by": "Ben"},  # the identical card replayed
    {"play": "green-8", "by": "Clara"},
    {"play": "wild-draw4", "by": "Anna"},  # no photo of it: rendered
]
PHOTOGRAPHED = ("blue-5", "blue-8", "green-8")
#: The photos are tinted magenta all over, so a filmed photo face is told from a rendered one.
MAGENTA = np.array([255, 0, 255], np.float32)


def is_magenta(image: np.ndarray) -> np.ndarray:
    b, g, r = (image[..., k].astype(int) for k in range(3))
    return (b - g > 60) & (r - g > 60)


@pytest.fixture(scope="module")
def face_folder(tmp_path_factory) -> Path:
    """Three faces as a real face folder holds them: JPEG photos (rendered cards, tinted) and labels.jsonl."""
    folder = tmp_path_factory.mktemp("faces")
    (folder / "images").mkdir()
    lines = []
    for k, name in enumerate(PHOTOGRAPHED):
        face = render_card(name, "classic", height=240, rng=np.random.default_rng(k)).bgr
        tinted = (0.5 * face + 0.5 * MAGENTA).astype(np.uint8)
        cv2.imwrite(str(folder / "images" / f"{k}.jpg"), tinted)
        lines.append(json.dumps({"image": f"images/{k}.jpg", "card": name}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_a_photo_becomes_a_card_sprite_with_rounded_corners_and_two_corner_indices() -> None:
    photo = np.full((420, 275, 3), 200, np.uint8)
    sprite = photo_sprite("blue-reverse", photo, height=174)
    assert sprite.size == (112, 174) and sprite.face_up and sprite.design == "photo"
    assert sprite.alpha[0, 0] == 0 and sprite.alpha[0, 56] == 255 and sprite.alpha[87, 0] == 255
    top_left, bottom_right = (region.hull.mean(axis=0) for region in sprite.regions)
    assert [region.class_name for region in sprite.regions] == ["reverse", "reverse"]
    assert top_left[0] < 0.3 * 112 and top_left[1] < 0.2 * 174
    assert bottom_right == pytest.approx([112, 174] - top_left)


def test_a_table_filmed_with_photo_faces_is_watched_like_a_rendered_one(face_folder: Path) -> None:
    faces = PhotoFaces.load(face_folder)
    assert faces.photo_count == 3 and sorted(faces.photos) == sorted(PHOTOGRAPHED)
    video = TableVideo(STEPS, PLAYERS, seed=2, settings=VideoSettings(frame_size=(640, 480)), faces=faces)
    oracle, events = OracleReader(video), []
    watcher = PileWatcher(oracle)
    for frame in video.frames():
        oracle.show(frame.index)
        events += watcher.feed(video.view.crop(frame.image, "discard"), frame.timestamp)
    landed: list[PileEvent] = [event for event in events if isinstance(event, CardLanded)]
    assert [(e.card, e.replayed) for e in landed] == [
        (e.card, e.identical_replay) for e in video.truth.pile_events
    ]
    assert video.rendered_faces == {"wild-draw4"}
    deck = video.truth_json()["deck"]
    assert deck["faces"] == str(face_folder) and deck["rendered_faces"] == ["wild-draw4"]
    # The photos are what the camera films: the green 8 on top is magenta, the wild draw four is not.
    green8 = video.truth.pile_events[3]
    on_top = video.view.crop(video.render(green8.hand_left_frame), "discard")
    assert is_magenta(on_top).mean() > 0.05
    covered = video.view.crop(video.render(video.frame_count - 1), "discard")
    assert is_magenta(covered).mean() < is_magenta(on_top).mean()


def test_the_bench_says_which_cards_had_no_photo(face_folder: Path) -> None:
    faces = PhotoFaces.load(face_folder)
    assert faces_line(faces, set()).endswith("every card filmed had a photo")
    line = faces_line(faces, {"wild", "red-2"})
    assert "3 photos of 3 cards" in line and line.endswith(
        "2 cards filmed had no photo and were rendered: red-2, wild"
    )


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (None, "no labels.jsonl in"),
        ("not json\n", "line 1: write"),
        ('{"image": "images/0.jpg"}\n', "line 1: write"),
        ('{"image": "images/0.jpg", "card": "purple-7"}\n', "line 1: unknown card name 'purple-7'"),
        ('{"image": "images/missing.jpg", "card": "red-7"}\n', "line 1: cannot read the photo"),
        ("\n", "names no photos"),
    ],
)
def test_a_bad_face_folder_is_a_one_line_error(tmp_path: Path, capsys, labels, message) -> None:
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "0.jpg"), np.full((42, 28, 3), 200, np.uint8))
    if labels is not None:
        (tmp_path / "labels.jsonl").write_text(labels, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        PhotoFaces.load(tmp_path)
    assert main(["bench", "table", "--reader", "oracle", "--faces", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message.split(":")[-1].strip().split("'")[0] in err
