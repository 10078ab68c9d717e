"""``watch`` referees any recording unattended; presses replayed at their times referee it again exactly."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hardware.camera import Frame
from hardware.speaker import RecordingSpeaker
from referee.lab.demo import DEMO_PLAYERS, run_demo
from referee.lab.video import OracleReader, TableVideo, VideoSettings
from referee.table.config import parse_config
from referee.table.journal import Journal
from referee.table.presses import PressReplay, load_presses
from referee.table.session import at_frame_rate, open_live_game
from referee.table.stream import CollectedEvents

SMALL = VideoSettings(frame_size=(640, 480), fps=10.0, px_per_mm=1.6)
PLAYERS = ("Anna", "Ben", "Clara")
#: A wild whose colour nobody presses: before, every later card was refused "colour first".
STEPS = [
    {"flip": "red-4"},
    {"play": "red-9", "by": "Anna"},
    {"play": "wild", "by": "Ben"},
    {"play": "green-2", "by": "Clara"},
    {"play": "green-5", "by": "Anna"},
]


def uno_referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("recording")
    TableVideo(STEPS, PLAYERS, seed=1, settings=SMALL).write(folder / "game.avi")
    return folder / "game.avi"


def test_watch_referees_a_recording_unattended_into_the_event_stream(recording, tmp_path):
    result = uno_referee(
        "watch", str(recording), "--players", ",".join(PLAYERS), "--rules", "official", "--no-speech",
        "--fast", "--events", "-", "--journal", str(tmp_path / "j.sqlite3"), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(line["v"] == 1 for line in lines)
    landed = [line["card"] for line in lines if line["event"] == "landed"]
    assert landed == [str(step.get("flip") or step.get("play")) for step in STEPS]
    verdicts = [line for line in lines if line["event"] == "verdict"]
    assert all(line["ok"] for line in verdicts)
    assert [line["observation"] for line in verdicts] == [
        {"flip": "red-4"}, {"play": "red-9"}, {"play": "wild"}, {"colour": "green"}, {"play": "green-2"},
        {"play": "green-5"},
    ]  # fmt: skip
    times = [line["t"] for line in lines]
    assert times == sorted(times) and 0 < times[0] < times[-1] < 30
    summary = result.stderr.strip().splitlines()[-1]  # the console goes to stderr when the stream is stdout
    assert summary.startswith("game #1: 5 cards taken in, 6 observations, 0 refused")
    with Journal.open(tmp_path / "j.sqlite3") as journal:  # a picture of every landing, with its verdict
        pictures = journal.pictures(1)
        seqs = [r["seq"] for r in journal.records(1) if {"play", "flip"} & r["observation"].keys()]
    assert [picture.observation_seq for picture in pictures] == seqs
    assert all(len(picture.sighting.jpeg) <= 30_000 for picture in pictures)


def test_watch_rejects_a_profile_for_another_picture_size(recording, tmp_path):
    profile = json.loads(recording.with_suffix(".calibration.json").read_text())
    profile["frame_size"] = [1920, 1080]
    (tmp_path / "other.json").write_text(json.dumps(profile))
    result = uno_referee(
        "watch", str(recording), "--profile", str(tmp_path / "other.json"), "--players", "Anna,Ben", "--fast",
        "--no-speech", "--journal", str(tmp_path / "j.sqlite3"), cwd=tmp_path,
    )  # fmt: skip
    assert_one_line_error(result, "1920x1080", "640x480")
    assert not (tmp_path / "j.sqlite3").exists()  # nothing was started


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "Anna"], ["--players", "2 to 10"]),
        (["--players", "Anna,Ben", "--rules", "offical"], ["--rules"]),
        (["--players", "Anna,Ben", "--presses", "missing.jsonl"], ["presses file", "not found"]),
        (["--players", "Anna,Ben", "--profile", "broken.json"], ["broken.json"]),
        (["--players", "Anna,Ben", "--events", "no/such/dir/events.jsonl"], ["event stream"]),
    ],
)
def test_watch_bad_input_is_one_line(recording, tmp_path, args, words):
    (tmp_path / "broken.json").write_text("{not json")
    result = uno_referee("watch", str(recording), "--fast", "--no-speech", *args, cwd=tmp_path)
    assert_one_line_error(result, *words)


def test_a_bad_presses_line_names_the_line(tmp_path):
    from referee.errors import UserError

    path = tmp_path / "presses.jsonl"
    path.write_text('{"t": 1.0, "button": "GREEN"}\n\n{"t": 2.0, "button": "PURPLE"}\n')
    with pytest.raises(UserError, match="line 3: unknown button 'PURPLE'"):
        load_presses(path)
    path.write_text('{"t": 1.0}\n')
    with pytest.raises(UserError, match="line 1 is not a button press"):
        load_presses(path)


def test_history_presses_needs_a_game(tmp_path):
    assert_one_line_error(uno_referee("history", "--presses", cwd=tmp_path), "--game")


def assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-referee: error: "), result.stderr
    for word in words:
        assert word in lines[0]


class _Camera:
    """A frame source over a simulated video that shows each frame to both zones' oracles."""

    description = "simulated camera"

    def __init__(self, video: TableVideo, oracles: tuple[OracleReader, ...]) -> None:
        self.frames = video.frames()
        self.oracles = oracles
        self.exhausted = False

    def open(self) -> None:
        """Nothing to open."""

    def read(self) -> Frame | None:
        frame = next(self.frames, None)
        if frame is None:
            self.exhausted = True
            return None
        for oracle in self.oracles:
            oracle.show(frame.index)
        return frame

    def close(self) -> None:
        """Nothing to release."""


def test_a_game_and_its_exported_presses_are_refereed_again_exactly(tmp_path):
    """The demo's patient player presses buttons while the referee watches; exported with
    ``history --presses`` and replayed over the same frames, every observation and verdict repeats."""
    first = tmp_path / "first.sqlite3"
    with Journal.open(first) as journal:
        run_demo(None, RecordingSpeaker(), seed=3, settings=SMALL, journal=journal)
    exported = subprocess.run(
        [sys.executable, "-m", "referee", "history", "--journal", str(first), "--game", "1", "--presses"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    presses_file = tmp_path / "presses.jsonl"
    presses_file.write_text(exported)
    assert len(exported.splitlines()) > 5

    from referee.lab.demo import simulate_round
    from referee.rules import Rules

    players = DEMO_PLAYERS["en"]
    video = TableVideo.from_simulation(
        simulate_round(players, Rules.preset("official"), 3), players, 3, SMALL
    )
    profile = video.calibration.save(tmp_path / "calibration.json")
    config = parse_config(
        textwrap.dedent(f"""
        players = {json.dumps(list(players))}
        [calibration]
        profile = "{profile}"
        [journal]
        path = "{tmp_path / "second.sqlite3"}"
        [speech]
        enabled = false
        """)
    )
    discard, scoring = OracleReader(video, "discard"), OracleReader(video, "scoring")
    replay = PressReplay(load_presses(presses_file))
    events = CollectedEvents()
    game = open_live_game(
        config, source=_Camera(video, (discard, scoring)), buttons=replay, reader=discard, events=events
    )
    game.pipeline.scoring_reader = scoring
    replay.stream_clock = lambda: game.pipeline.app.moment.t
    game.play()
    assert replay.left == 0
    with Journal.open(first) as one, Journal.open(tmp_path / "second.sqlite3") as two:
        before = [(r["observation"], r["verdict"]) for r in one.records(1)]
        again = [(r["observation"], r["verdict"]) for r in two.records(1)]
    assert again == before and len(before) > 20
    assert sum(line["event"] == "button" for line in events.lines) == len(exported.splitlines())


def test_a_recording_plays_at_its_own_pace_unless_fast():
    waits: list[float] = []
    frames = [Frame(None, t, i) for i, t in enumerate((0.0, 0.5, 1.5))]  # type: ignore[arg-type]
    assert list(at_frame_rate(frames, sleep=waits.append)) == frames
    # The fake sleep takes no time, so each wait is the frame's whole time since the start.
    assert len(waits) == 2 and 0.4 < waits[0] <= 0.5 and 1.4 < waits[1] <= 1.5
