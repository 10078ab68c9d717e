"""The referee against rule scenarios: the public suite (shared/) and the project's own (tests/scenarios/).

One pytest case per file, so that a failure names its scenario; plus the runner's own contract:
malformed files are failures with file and step (never a traceback), and the CLI's summary and exit codes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.cli import main
from referee.rules.options import CHOICES, Rules
from referee.scenarios import find_scenarios, run_scenario, run_scenario_data

REPO = Path(__file__).resolve().parent.parent
OWN = REPO / "tests" / "scenarios"


def _public_names() -> list[str]:
    """File names of the public suite, found at collection time (the ``shared`` fixture skips if absent)."""
    folder = Path(os.environ.get("UNO_SHARED_DIR", REPO.parent / "shared")) / "rules" / "scenarios"
    names = sorted(path.name for path in folder.glob("*.yaml")) if folder.is_dir() else []
    return names or ["shared-scenarios-not-found"]


def _assert_passes(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, "\n".join(str(failure) for failure in result.failures)


@pytest.mark.parametrize("name", _public_names())
def test_public_scenario(shared: Path, name: str) -> None:
    _assert_passes(shared / "rules" / "scenarios" / name)


@pytest.mark.parametrize("path", sorted(OWN.rglob("*.yaml")), ids=lambda path: path.name)
def test_own_scenario(path: Path) -> None:
    _assert_passes(path)


def _own_suite() -> list[dict]:
    return [yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(OWN.rglob("*.yaml"))]


def test_own_suite_names_every_rule() -> None:
    """Every rule R1–R39 is the subject of a scenario (its ``name`` cites it); R3 is only printed."""
    cited = {int(number) for data in _own_suite() for number in re.findall(r"\bR(\d+)\b", data["name"])}
    assert set(range(1, 40)) - {3} <= cited


def test_own_suite_plays_every_option_value() -> None:
    """Every value of every option with a fixed set of values is played by at least one scenario."""
    played = {
        (option, value)
        for data in _own_suite()
        for option, value in Rules.from_spec(data.get("rules")).to_dict().items()
    }
    missing = [
        (option, value)
        for option, values in CHOICES.items()
        for value in values
        if (option, value) not in played
    ]
    assert not missing
    assert any(value for (option, value) in played if option == "misplay_penalty")
    assert any(value for (option, value) in played if option == "false_catch_penalty")
    assert any(value != 500 for (option, value) in played if option == "target_score")
    assert 60 <= len(_own_suite()) <= 120


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """
name: good
players: [Anna, Ben]
top: red-5
turn: Anna
steps:
  - play: red-6
    expect: {verdict: ok, turn: Ben}
"""


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("players: [Anna, Ben\nsteps: [", "bad.yaml", "malformed YAML at line"),
        ("players: [Anna, Ben]\nsteps:\n  - play: red-77\n", "bad.yaml:1", "unknown card 'red-77'"),
        (
            "players: [Anna, Ben]\nsteps:\n  - flip: red-5\n  - play: red-6\n    by: Zoe\n",
            "bad.yaml:2",
            "unknown player",
        ),
        ("players: [Anna, Ben]\nstep: []\n", "bad.yaml", "unknown key 'step'"),
        ("players: [Anna, Ben]\n", "bad.yaml", "steps: missing"),
        ("players: [Anna, Ben]\nsteps:\n  - draw: one\n", "bad.yaml:1", "draw: expected a whole number"),
        (
            "players: [Anna, Ben]\nsteps:\n  - flip: red-5\n    expect: {turns: Ben}\n",
            "bad.yaml:1",
            "unknown expectation",
        ),
        (
            "players: [Anna, Ben]\nsteps:\n  - flip: red-5\n    expect: {counts: {Anna: many}}\n",
            "bad.yaml:1",
            "whole number",
        ),
        (
            "players: [Anna, Ben]\nsteps:\n  - flip: red-5\n    play: red-6\n",
            "bad.yaml:1",
            "exactly one observation",
        ),
        ("players: Anna\nsteps: []\n", "bad.yaml", "players"),
        ("- just a list\n", "bad.yaml", "a scenario must be a mapping"),
        (
            "players: [Anna, Ben]\nrules: {preset: official, stacking: always}\nsteps: []\n",
            "bad.yaml",
            "stacking",
        ),
    ],
)
def test_malformed_scenario_is_a_failure_with_its_place(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    result = run_scenario(_write(tmp_path, "bad.yaml", text))
    assert not result.passed
    shown = str(result.failures[0])
    assert shown.startswith(str(tmp_path / where)), shown
    assert message in shown, shown
    assert "Traceback" not in shown


def test_failure_names_step_observation_and_both_values(tmp_path: Path) -> None:
    path = _write(tmp_path, "wrong.yaml", GOOD.replace("turn: Ben}", "turn: Anna, counts: {Anna: 9}}"))
    failures = [str(failure) for failure in run_scenario(path).failures]
    assert failures == [
        f"{path}:1 {{play: red-6}}: turn: expected Anna, got Ben",
        f"{path}:1 {{play: red-6}}: counts.Anna: expected 9, got 6",
    ]


def test_penalties_compare_as_a_list_of_draws() -> None:
    data = {
        "players": ["Anna", "Ben", "Clara"],
        "top": "red-5",
        "turn": "Anna",
        "steps": [
            {"play": "red-draw2", "expect": {"penalties": [{"player": "Ben", "cards": 4, "reason": "draw2"}]}}
        ],
    }
    failures = [str(failure) for failure in run_scenario_data(data, "p.yaml").failures]
    assert failures == ["p.yaml:1 {play: red-draw2}: penalties: expected [Ben 4 draw2], got [Ben 2 draw2]"]


def test_cli_summary_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "good.yaml", GOOD)
    assert main(["scenarios", str(good)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"
    (tmp_path / "sub").mkdir()
    _write(tmp_path, "sub/bad.yml", "players: [Anna, Ben\n")
    assert main(["scenarios", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 1 failed"
    assert out[0].startswith(f"FAIL {tmp_path / 'sub' / 'bad.yml'}: malformed YAML")
    assert main(["scenarios", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_find_scenarios_recurses_and_sorts(tmp_path: Path) -> None:
    for name in ("b.yaml", "a/c.yml", "a/skip.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(GOOD)
    assert [path.relative_to(tmp_path).as_posix() for path in find_scenarios([tmp_path])] == [
        "a/c.yml",
        "b.yaml",
    ]


def test_cli_runs_as_a_module_without_traceback(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.yaml", "players: [Anna]\nsteps: []\n")
    out = subprocess.run(
        [sys.executable, "-m", "referee", "scenarios", str(bad)], capture_output=True, text=True, cwd=REPO
    )
    assert out.returncode == 1
    assert "Traceback" not in out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "0 passed, 1 failed"
