"""``demo --save``: the refereed video with the discard zone, the cards read and the verdicts drawn in."""

from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np

from hardware.speaker import RecordingSpeaker
from referee.lab.demo import run_demo
from referee.lab.demo_video import DemoFilm
from referee.lab.video import VideoSettings
from referee.table.stream import Moment

SMALL = VideoSettings(frame_size=(640, 480), fps=10.0, px_per_mm=1.6)


def test_the_film_holds_every_frame_written(tmp_path):
    from referee.lab.video import simulated_calibration

    film = DemoFilm(tmp_path / "demo.avi")
    film.start(simulated_calibration(SMALL).table_view(), SMALL.fps, SMALL.frame_size)
    for index in range(12):
        film.frame(np.full((480, 640, 3), 10 * index, np.uint8), index / SMALL.fps)
    film.close()
    capture = cv2.VideoCapture(str(tmp_path / "demo.avi"))
    frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    capture.release()
    assert frames == film.frames == 12


def test_the_demo_films_what_it_referees(tmp_path):
    """The demo hands each frame and its events to the film (one short simulated round)."""
    film = DemoFilm(tmp_path / "demo.avi")
    report = run_demo(
        None,
        RecordingSpeaker(),
        seed=1,
        settings=VideoSettings(frame_size=(320, 240), fps=5.0, px_per_mm=0.8),
        film=film,
    )
    film.close()
    assert film.frames == round(report.video_s * 5.0)


def test_an_annotated_frame_carries_the_zone_the_card_and_the_sentences(tmp_path):
    from referee.lab.video import simulated_calibration

    film = DemoFilm(tmp_path / "demo.mp4")
    film.start(simulated_calibration(SMALL).table_view(), SMALL.fps, SMALL.frame_size)
    table = np.full((480, 640, 3), 120, np.uint8)
    bare = film.annotate(table, 0.0)
    film.emit(Moment(1.0, 10), "landed", {"card": "red-7", "confidence": 0.93})
    film.emit(
        Moment(1.0, 10), "verdict", {"ok": True, "observation": {"play": "red-7"}, "said": ["Ben's turn."]}
    )
    shown = film.annotate(table, 1.5)
    later = film.annotate(table, 9.0)
    film.close()
    changed = np.any(shown != bare, axis=2)
    assert changed[-60:].sum() > 500  # the sentence band at the bottom
    assert changed[:-60].sum() > 200  # the card's name above the zone
    assert np.array_equal(later, bare)  # after a few seconds both are gone; the zone stays
    assert np.any(bare != table)


def test_a_film_needs_a_video_name(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "referee", "demo", "--no-speech", "--save", str(tmp_path / "demo.txt")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "name the video .mp4 or .avi" in result.stderr
    assert result.stderr.count("\n") == 1
