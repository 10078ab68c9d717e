"""Whole games through the product's pipeline: demo, live game over a recording, crash and resume."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from hardware.buttons import ButtonQueue
from hardware.camera import Frame
from hardware.speaker import RecordingSpeaker
from referee.lab.demo import DEMO_PLAYERS, run_demo, simulate_round
from referee.lab.video import OracleReader, TableVideo, VideoSettings
from referee.rules import Rules
from referee.table.config import parse_config
from referee.table.journal import Journal
from referee.table.session import latest_unfinished, open_live_game, resume_table

SMALL = VideoSettings(frame_size=(640, 480), fps=10.0, px_per_mm=1.6)
PLAYERS = ["Anna", "Ben", "Clara"]
STEPS = [
    {"flip": "red-4"},
    {"play": "red-9", "by": "Anna"},
    {"play": "green-9", "by": "Ben"},
    {"play": "green-2", "by": "Clara"},
    {"play": "green-2", "by": "Anna"},  # the identical card, replayed on itself
    {"play": "blue-2", "by": "Ben"},
    {"play": "blue-skip", "by": "Clara"},
    {"play": "blue-7", "by": "Ben"},
]
#: What the camera reports: the card, not who played it (the referee knows whose turn it is).
SEEN = [{key: value for key, value in step.items() if key != "by"} for step in STEPS]


class VideoCamera:
    """A frame source over a simulated video that keeps its oracle on the frame being shown."""

    description = "simulated camera"

    def __init__(
        self, video: TableVideo, oracle: OracleReader, start: int = 0, stop: int | None = None
    ) -> None:
        self.frames = video.frames(start, stop)
        self.oracle = oracle
        self.exhausted = False

    def open(self) -> None:
        pass

    def read(self) -> Frame | None:
        frame = next(self.frames, None)
        if frame is None:
            self.exhausted = True
            return None
        self.oracle.show(frame.index)
        return frame

    def close(self) -> None:
        pass


def test_demo_referees_a_simulated_round_like_the_truth():
    speaker = RecordingSpeaker()
    report = run_demo(None, speaker, seed=3, settings=SMALL)
    assert report.plays_true > 5
    assert report.plays_recognised == report.plays_true and not report.false_plays
    assert report.final_counts_match and report.scores_match
    assert any("turn" in text for text, _ in speaker.said)


def test_demo_with_jump_ins_names_who_jumped_in_by_the_arms_side():
    """Two jump-ins in this round: given to the player on turn, hand sizes and scores would drift."""
    report = run_demo(None, RecordingSpeaker(), seed=1, settings=SMALL, jump_in=True)
    assert report.plays_recognised == report.plays_true and not report.rejected
    assert report.final_counts_match and report.scores_match


def test_demo_stopped_after_three_plays_compares_those_three():
    """``demo --plays 3``: a smoke test for where every read takes seconds (a Pi, an emulator)."""
    out = io.StringIO()
    report = run_demo(None, RecordingSpeaker(), seed=3, settings=SMALL, plays=3, console=out)
    assert report.stopped_after == 3 and report.plays_true == report.plays_recognised == 3
    assert not report.false_plays and not report.plays_missed and not report.rejected
    steps = simulate_round(DEMO_PLAYERS["en"], Rules.preset("official"), seed=3)
    whole = TableVideo.from_simulation(steps, DEMO_PLAYERS["en"], seed=3, settings=SMALL)
    assert 0 < report.video_s < whole.duration_s / 4
    assert "stopped after 3 plays as asked: hand sizes and scores not compared" in out.getvalue()


@pytest.fixture
def table_setup(tmp_path):
    video = TableVideo(STEPS, PLAYERS, seed=5, settings=SMALL)
    profile = video.calibration.save(tmp_path / "calibration.json")
    config_text = textwrap.dedent(f"""
        players = ["Anna", "Ben", "Clara"]
        language = "de"
        [calibration]
        profile = "{profile}"
        [journal]
        path = "{tmp_path / "journal.sqlite3"}"
        [speech]
        enabled = false
    """)
    return video, parse_config(config_text)


def test_live_game_over_a_recording_then_resumed_after_a_crash(table_setup):
    video, config = table_setup
    oracle = OracleReader(video)
    half = video.truth.pile_events[4].hand_left_frame + 12  # the replayed green-2 has been seen
    game = open_live_game(
        config, source=VideoCamera(video, oracle, 0, half), buttons=ButtonQueue(0), reader=oracle
    )
    game.play()  # the frames stop here, as if the power went
    with Journal.open(config.journal.path) as journal:
        game_id = latest_unfinished(journal)
        first_part = [record["observation"] for record in journal.records(game_id)]
    assert first_part == SEEN[:5]

    resumed = open_live_game(
        config, source=VideoCamera(video, oracle, half), buttons=ButtonQueue(0), reader=oracle, resume=game_id
    )
    assert resumed.pipeline.app.table.top.name == "green-2"
    resumed.play()
    with Journal.open(config.journal.path) as journal:
        saved = journal.load(game_id)
    assert saved.observations == SEEN
    table = resume_table(saved)
    assert table.top.name == "blue-7" and table.turn == "Clara"


CHILD = """
import sys
from hardware.speaker import RecordingSpeaker
from referee.lab.demo import run_demo
from referee.table.journal import Journal
from referee.lab.video import VideoSettings
journal = Journal.open(sys.argv[1])
run_demo(None, RecordingSpeaker(), seed=4, journal=journal, speed=3.0,
         settings=VideoSettings(frame_size=(640, 480), fps=10.0, px_per_mm=1.6))
"""


def _recorded(path: Path) -> int:
    try:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT count(*) FROM observations").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_sigkill_mid_game_loses_no_observation(tmp_path):
    killed = tmp_path / "killed.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(killed)], env=env)
    deadline = time.monotonic() + 240
    while _recorded(killed) < 12 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.2)
    assert child.poll() is None, "the game ended before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait()

    whole = tmp_path / "whole.sqlite3"
    with Journal.open(whole) as journal:
        run_demo(None, RecordingSpeaker(), seed=4, journal=journal, settings=SMALL)
        complete = journal.records(latest_unfinished_or_last(journal))
    with Journal.open(killed) as journal:
        game_id = latest_unfinished(journal)
        survived = journal.records(game_id)
        table = resume_table(journal.load(game_id))
    assert len(survived) >= 12
    assert [r["observation"] for r in survived] == [r["observation"] for r in complete[: len(survived)]]
    assert table.can_undo and sum(table.counts.values()) > 0


def latest_unfinished_or_last(journal: Journal) -> int:
    return journal.history()[0].game_id


class FlakyVideoCamera(VideoCamera):
    """Delivers nothing for a stretch of reads in the middle of the game, then recovers."""

    def __init__(self, video: TableVideo, oracle: OracleReader, gap_at: int, gap_reads: int) -> None:
        super().__init__(video, oracle)
        self.reads, self.gap_at, self.gap_reads = 0, gap_at, gap_reads

    def read(self) -> Frame | None:
        self.reads += 1
        if self.gap_at <= self.reads < self.gap_at + self.gap_reads:
            return None
        return super().read()


def test_camera_outage_is_announced_and_the_game_goes_on(table_setup):
    video, config = table_setup
    oracle = OracleReader(video)
    gap_at = video.truth.pile_events[2].hand_left_frame + 15  # after Ben's green-9 was seen
    camera = FlakyVideoCamera(video, oracle, gap_at, gap_reads=7)  # lost after 5, back on the 2nd retry
    game = open_live_game(config, source=camera, buttons=ButtonQueue(0), reader=oracle)
    said = []
    game.pipeline.app.say = lambda sentence, **_how: said.append(sentence)
    game.play()
    phrases = game.pipeline.app.phrases
    assert phrases.message("camera_lost") in said and phrases.message("camera_back") in said
    assert said.index(phrases.message("camera_lost")) < said.index(phrases.message("camera_back"))
    with Journal.open(config.journal.path) as journal:
        observations = journal.load(latest_unfinished(journal)).observations
    assert observations == SEEN  # nothing missed across the outage


def test_the_discard_zone_is_read_once_at_its_own_input_and_hands_at_the_models(table_setup, shipped_imgsz):
    """Given a smaller ``detector.pile_imgsz``, the watcher's reader looks once at it; the scoring
    zone keeps the full reader (the model's own input and the finer second look), sharing one loaded
    network. By default (0) the pile is read by the full reader too."""
    from referee.table.session import card_reader

    _, config = table_setup
    config = replace(config, detector=replace(config.detector, pile_imgsz=224))
    reader = card_reader(None, threads=1)
    game = open_live_game(
        config, source=VideoCamera(*_video_and_oracle()), buttons=ButtonQueue(0), reader=reader
    )
    try:
        pile, scoring = game.pipeline.watcher.reader, game.pipeline.scoring_reader
        assert (pile.detector.imgsz, pile.one_view) == (224, True)
        assert scoring is reader and (reader.detector.imgsz, reader.one_view) == (shipped_imgsz, False)
        assert pile.detector.session is reader.detector.session
    finally:
        game.close()
    game = open_live_game(
        config_default := replace(config, detector=replace(config.detector, pile_imgsz=0)),
        source=VideoCamera(*_video_and_oracle()),
        buttons=ButtonQueue(0),
        reader=reader,
    )
    try:
        assert config_default.detector.pile_imgsz == 0 and game.pipeline.watcher.reader is reader
    finally:
        game.close()


def _video_and_oracle() -> tuple[TableVideo, OracleReader]:
    video = TableVideo(STEPS[:2], PLAYERS, seed=5, settings=SMALL)
    return video, OracleReader(video)
