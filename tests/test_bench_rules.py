"""``uno-referee bench rules``: a tiny benchmark and a tiny soak through the command line."""

from __future__ import annotations

import re

import pytest

import referee.lab.rules_bench as bench
from referee.cli import main


def rate(text: str, name: str) -> float:
    match = re.search(rf"^{name}: ([\d,]+) steps/s", text, re.MULTILINE)
    assert match, text
    return float(match.group(1).replace(",", ""))


def test_bench_prints_both_rates(capsys):
    assert main(["bench", "rules", "--seconds", "0.2", "--players", "3", "--preset", "spielhilfe"]) == 0
    out = capsys.readouterr().out
    assert rate(out, "simulator") > 0 and rate(out, "referee") > 0
    assert "3 players, preset spielhilfe" in out


def test_bench_profile_names_the_referee_functions(capsys):
    assert main(["bench", "rules", "--seconds", "0.1", "--profile"]) == 0
    assert "table.py" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "0"], "--seconds must be positive"),
        (["--players", "11"], "2 to 10 players"),
        (["--preset", "house"], "unknown preset 'house'"),
        (["--soak", "--games", "0"], "--games must be at least 1"),
        (["--soak", "--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_bad_options_are_one_line_errors(argv, message, capsys):
    assert main(["bench", "rules", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def summary(text: str) -> dict[str, int]:
    match = re.search(
        r"^games=(\d+) steps=(\d+) errors=(\d+) invariant_violations=(\d+)$", text, re.MULTILINE
    )
    assert match, text
    return dict(zip(("games", "steps", "errors", "violations"), map(int, match.groups()), strict=True))


def test_tiny_soak_reports_games_and_failures(capsys):
    status = main(["bench", "rules", "--soak", "--games", "3", "--first-game", "4"])
    out = capsys.readouterr().out
    counts = summary(out)
    assert counts["games"] == 3 and counts["steps"] > 0
    failures = counts["errors"] + counts["violations"]
    assert status == (1 if failures else 0)
    assert len([line for line in out.splitlines() if line.startswith("game ")]) == failures


def test_soak_prints_each_failure_on_one_line(monkeypatch, capsys):
    real_check = bench.check_step

    def disagreeing(table, step, index, deck_size):
        real_check(table, step, index, deck_size)
        if index == 5:
            return bench.Disagreement(index, step.observation, "turn", "Ben", "Clara")
        return None

    monkeypatch.setattr(bench, "check_step", disagreeing)
    assert main(["bench", "rules", "--soak", "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert summary(out) == {"games": 2, "steps": 12, "errors": 0, "violations": 2}
    lines = [line for line in out.splitlines() if line.startswith("game ")]
    assert [line.split()[1] for line in lines] == ["0", "1"]
    assert all("step 5 " in line and "turn referee='Ben' truth='Clara'" in line for line in lines)
    assert "preset=official" in lines[0] and "preset=spielhilfe" in lines[1]
    assert "to replay one: uno-referee bench rules --soak --games 1 --first-game 0" in out


def test_soak_counts_a_crash_as_an_error(monkeypatch, capsys):
    def crashing(config):
        raise KeyError("boom")

    monkeypatch.setattr(bench, "first_disagreement", crashing)
    assert main(["bench", "rules", "--soak", "--games", "1", "--first-game", "7"]) == 1
    out = capsys.readouterr().out
    assert summary(out)["errors"] == 1
    assert re.search(r"^game 7 \[preset=\w+ .*\]: KeyError: 'boom'$", out, re.MULTILINE)


def test_soak_in_worker_processes_checks_the_same_games(capsys):
    main(["bench", "rules", "--soak", "--games", "2", "--first-game", "4"])
    alone = summary(capsys.readouterr().out)
    main(["bench", "rules", "--soak", "--games", "2", "--first-game", "4", "--jobs", "2"])
    assert summary(capsys.readouterr().out) == alone


def test_soak_configurations_cover_every_option_value():
    from referee.rules.options import CHOICES, PRESETS

    configs = [bench.soak_config(index) for index in range(400)]
    assert {config.preset for config in configs} == set(PRESETS)
    assert {config.players for config in configs} == set(range(2, 11))
    for option, values in CHOICES.items():
        seen = {config.rules().to_dict()[option] for config in configs}
        assert seen == set(values), option
