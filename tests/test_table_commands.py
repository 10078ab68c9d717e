"""The table commands through the command line: one-line errors for every set-up mistake."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def uno_referee(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-referee: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


def write_config(tmp_path: Path, extra: str = "") -> Path:
    config = tmp_path / "referee.toml"
    config.write_text(
        f'players = ["Anna", "Ben"]\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n'
        f'[calibration]\nprofile = "{tmp_path / "missing-profile.json"}"\n{extra}'
    )
    return config


def test_demo_with_a_missing_model_says_which_file(tmp_path):
    assert_one_line_error(
        uno_referee("demo", "--no-speech", "--model", str(tmp_path / "none.onnx")), "none.onnx"
    )


def test_demo_with_an_unknown_preset(tmp_path):
    assert_one_line_error(uno_referee("demo", "--no-speech", "--rules", "offical"), "offical")


@pytest.mark.parametrize("plays", ["0", "three"])
def test_demo_with_no_plays_to_stop_after(plays):
    assert_one_line_error(uno_referee("demo", "--no-speech", "--plays", plays), "--plays")


def test_run_without_a_config_file_says_how_to_make_one(tmp_path):
    assert_one_line_error(uno_referee("run", "--config", str(tmp_path / "nope.toml")), "nope.toml")


def test_run_without_calibration_says_to_calibrate(tmp_path):
    assert_one_line_error(uno_referee("run", "--config", str(write_config(tmp_path))), "calibrate")


def test_run_with_a_broken_config_names_the_key(tmp_path):
    config = write_config(tmp_path, "[speech]\nenabeld = true\n")
    assert_one_line_error(uno_referee("run", "--config", str(config)), "enabeld")


def test_watch_a_missing_recording(tmp_path):
    assert_one_line_error(uno_referee("watch", str(tmp_path / "game.mp4")), "game.mp4")


def test_resume_with_nothing_to_resume(tmp_path):
    assert_one_line_error(
        uno_referee("resume", "--config", str(write_config(tmp_path))), "no unfinished game"
    )


@pytest.mark.slow
def test_quick_demo_runs_the_whole_pipeline_and_reports():
    result = uno_referee("demo", "--no-speech", "--quick", "--seed", "2")
    assert result.returncode in (0, 1), result.stderr
    assert "cards on the pile recognised:" in result.stdout
    assert "hand sizes at the end agree with the truth:" in result.stdout
    assert "Traceback" not in result.stderr
