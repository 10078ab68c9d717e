"""The scenario runner: replay YAML scenarios (SCENARIOS.md) through the table referee and check them.

A scenario that cannot be read (bad YAML, unknown card, player or key, a missing key, a wrong type)
is a failure reported with its file and step, never a traceback: the suite keeps running.

>>> result = run_scenario_data({
...     "players": ["Anna", "Ben"], "top": "red-5", "turn": "Anna",
...     "steps": [{"play": "red-reverse", "expect": {"verdict": "ok", "turn": "Ben"}}],
... }, "two.yaml")
>>> result.passed, [str(failure) for failure in result.failures]
(False, ['two.yaml:1 {play: red-reverse}: turn: expected Ben, got Anna'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from referee.errors import UserError
from referee.rules.cards import parse_card, parse_colour
from referee.rules.observations import observation_from_dict
from referee.rules.setup import DIRECTIONS, SETUP_KEYS, Setup
from referee.rules.table import STATE_KEYS, WAITING_FOR, Table, TableState
from referee.rules.verdict import PENALTY_REASONS, REJECTION_CODES, Verdict

SCENARIO_SUFFIXES = (".yaml", ".yml")
HEADER_KEYS: tuple[str, ...] = ("name", "steps", *SETUP_KEYS)
EXPECT_KEYS: tuple[str, ...] = ("verdict", "reason", "penalties", *STATE_KEYS)


class ScenarioError(UserError):
    """A scenario that cannot be read; ``step`` is its 1-based step number, or ``None`` for the header."""

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


@dataclass(frozen=True)
class Failure:
    """One reason a scenario failed: where (file, step, observation) and what differed."""

    path: str
    step: int | None
    observation: str
    message: str

    def __str__(self) -> str:
        where = self.path if self.step is None else f"{self.path}:{self.step}"
        return (
            f"{where} {self.observation}: {self.message}" if self.observation else f"{where}: {self.message}"
        )


@dataclass
class ScenarioResult:
    """The outcome of one scenario file."""

    path: str
    name: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def find_scenarios(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files named by ``paths``: files as given, folders searched recursively, sorted.

    Raises :class:`UserError` for a path that does not exist, or when no scenario file is found.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{raw}: no such file or folder")
    if not found:
        raise UserError(f"no scenario files (*.yaml, *.yml) under {', '.join(map(str, paths))}")
    return found


def run_scenario(path: str | Path) -> ScenarioResult:
    """Load and run one scenario file."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return _broken(shown, f"cannot read the file: {error}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        return _broken(shown, f"malformed YAML{where}: {problem}")
    return run_scenario_data(data, shown)


def _broken(path: str, message: str, step: int | None = None) -> ScenarioResult:
    return ScenarioResult(path, Path(path).stem, [Failure(path, step, "", message)])


def run_scenario_data(data: object, path: str = "<scenario>") -> ScenarioResult:
    """Run a scenario already read from YAML; ``path`` names it in failures."""
    if not isinstance(data, Mapping):
        return _broken(path, "a scenario must be a mapping with players, rules and steps")
    name = str(data.get("name", Path(path).stem))
    result = ScenarioResult(path, name)
    try:
        table, steps = _load(data)
    except UserError as error:
        result.failures.append(Failure(path, getattr(error, "step", None), "", str(error)))
        return result
    for number, step in enumerate(steps, 1):
        shown = _show_step(step)
        try:
            observation, expect = _read_step(step, table)
            verdict = table.observe(observation)
            mismatches = check_expectations(expect, verdict, table.state(), table.rules.partners)
        except UserError as error:
            result.failures.append(Failure(path, number, shown, str(error)))
            return result
        for mismatch in mismatches:
            result.failures.append(Failure(path, number, shown, mismatch))
        if mismatches:
            return result  # later steps would only repeat the same difference
    return result


def _load(data: Mapping[str, Any]) -> tuple[Table, list[Any]]:
    unknown = [str(key) for key in data if key not in HEADER_KEYS]
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; a scenario has {', '.join(HEADER_KEYS)}")
    if "steps" not in data:
        raise ScenarioError("steps: missing; give the list of observations")
    steps = data["steps"]
    if not isinstance(steps, list):
        raise ScenarioError(f"steps: expected a list of steps, got {type(steps).__name__}")
    setup = Setup.from_dict({key: value for key, value in data.items() if key in SETUP_KEYS})
    return Table(setup), steps


def _show_step(step: object) -> str:
    if not isinstance(step, Mapping):
        return repr(step)
    shown = ", ".join(f"{key}: {_plain(value)}" for key, value in step.items() if key != "expect")
    return "{" + shown + "}"


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_plain(item) for item in value) + "]"
    return str(value)


def _read_step(step: object, table: Table) -> tuple[Any, dict[str, Any]]:
    if not isinstance(step, Mapping):
        raise ScenarioError(f"a step must be a mapping like {{play: red-7}}, got {step!r}")
    expect = step.get("expect", {})
    if expect is None:
        expect = {}
    if not isinstance(expect, Mapping):
        raise ScenarioError(f"expect: must be a mapping of expectation keys, got {expect!r}")
    observation = observation_from_dict({key: value for key, value in step.items() if key != "expect"})
    players = table.players
    by = step.get("by")
    if by is not None and by not in players:
        raise ScenarioError(f"by: unknown player {by!r}; players are {', '.join(players)}")
    return observation, _validate_expect(dict(expect), players)


def _player(key: str, value: object, players: tuple[str, ...], allow_none: bool = False) -> object:
    if value is None and allow_none:
        return None
    if value not in players:
        raise ScenarioError(f"expect {key}: unknown player {value!r}; players are {', '.join(players)}")
    return value


def _number(key: str, value: object) -> int:
    if type(value) is not int:
        raise ScenarioError(f"expect {key}: expected a whole number, got {value!r}")
    return value


def _choice(key: str, value: object, choices: Iterable[str]) -> str:
    choices = tuple(choices)
    if value not in choices:
        raise ScenarioError(f"expect {key}: {value!r} is not one of {', '.join(dict.fromkeys(choices))}")
    return str(value)


def _per_player(key: str, value: object, players: tuple[str, ...]) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"expect {key}: expected a mapping like {{Anna: 3}}, got {value!r}")
    return {
        str(_player(key, name, players)): _number(f"{key}.{name}", number) for name, number in value.items()
    }


def _validate_expect(expect: dict[str, Any], players: tuple[str, ...]) -> dict[str, Any]:
    """Check every expectation's key and type so that a typo fails loudly instead of passing."""
    unknown = [str(key) for key in expect if key not in EXPECT_KEYS]
    if unknown:
        raise ScenarioError(f"unknown expectation {unknown[0]!r}; expect takes {', '.join(EXPECT_KEYS)}")
    readers: dict[str, Callable[[str, Any], Any]] = {
        "verdict": lambda k, v: _choice(k, v, ("ok", "rejected")),
        "reason": lambda k, v: _choice(k, v, REJECTION_CODES),
        "turn": lambda k, v: _player(k, v, players, allow_none=True),
        "colour": lambda k, v: v if v in ("choose", None) else parse_colour(v).label,
        "direction": lambda k, v: _choice(k, v, DIRECTIONS),
        "top": lambda k, v: None if v is None else parse_card(v).name,
        "counts": lambda k, v: _per_player(k, v, players),
        "scores": lambda k, v: _per_player(k, v, players),
        "draw_pile": _number,
        "pending_draw": _number,
        "points": lambda k, v: None if v is None else _number(k, v),
        "waiting_for": lambda k, v: _choice(k, v, WAITING_FOR),
        "round_winner": lambda k, v: _player(k, v, players, allow_none=True),
        "match_winner": lambda k, v: _player(k, v, players, allow_none=True),
        "penalties": lambda k, v: _penalties(v, players),
        "eliminated": lambda k, v: _players_list(k, v, players),
    }
    return {key: readers[key](key, value) for key, value in expect.items()}


def _players_list(key: str, value: object, players: tuple[str, ...]) -> list[str]:
    if not isinstance(value, list):
        raise ScenarioError(f"expect {key}: expected a list of players, got {value!r}")
    return [str(_player(key, name, players)) for name in value]


def _penalties(value: object, players: tuple[str, ...]) -> list[tuple[str, int, str]]:
    if not isinstance(value, list):
        raise ScenarioError(
            f"expect penalties: give a list like [{{player: Ben, cards: 2, reason: draw2}}], not {value!r}"
        )
    read = []
    for item in value:
        if not isinstance(item, Mapping) or set(item) != {"player", "cards", "reason"}:
            raise ScenarioError(
                f"expect penalties: each entry has exactly player, cards, reason; got {item!r}"
            )
        read.append(
            (
                str(_player("penalties.player", item["player"], players)),
                _number("penalties.cards", item["cards"]),
                _choice("penalties.reason", item["reason"], PENALTY_REASONS),
            )
        )
    return read


def _same_side(expected: object, actual: str | None, partners: bool, players: tuple[str, ...]) -> bool:
    if expected == actual:
        return True
    if not partners or expected is None or actual is None:
        return False
    return players.index(str(expected)) % 2 == players.index(actual) % 2


def check_expectations(
    expect: Mapping[str, Any], verdict: Verdict, state: TableState, partners: bool
) -> list[str]:
    """Every difference between validated expectations and the referee's verdict and state, one line each."""
    players = tuple(state.counts)
    mismatches: list[str] = []

    def differ(key: str, expected: object, actual: object) -> None:
        mismatches.append(f"{key}: expected {_plain(expected)}, got {_plain(actual)}")

    for key, expected in expect.items():
        if key == "verdict":
            actual: object = "ok" if verdict.ok else "rejected"
            if expected != actual:
                differ(key, expected, f"{actual} ({verdict.reason})" if verdict.reason else actual)
        elif key == "reason":
            if expected != verdict.reason:
                differ(key, expected, verdict.reason)
        elif key in ("counts", "scores"):
            values = getattr(state, key)
            for name, number in expected.items():
                if values[name] != number:
                    differ(f"{key}.{name}", number, values[name])
        elif key == "penalties":
            actual_penalties = [(p.player, p.cards, p.reason) for p in verdict.penalties]
            if Counter(expected) != Counter(actual_penalties):
                differ(key, _show_penalties(expected), _show_penalties(actual_penalties))
        elif key in ("round_winner", "match_winner"):
            actual = getattr(state, key)
            if not _same_side(expected, actual, partners, players):
                differ(key, expected, actual)
        elif key == "eliminated":
            if sorted(expected) != sorted(state.eliminated):
                differ(key, expected, state.eliminated)
        else:
            actual = getattr(state, key)
            if expected != actual:
                differ(key, expected, actual)
    return mismatches


def _show_penalties(penalties: list[tuple[str, int, str]]) -> str:
    return "[" + ", ".join(f"{player} {cards} {reason}" for player, cards, reason in penalties) + "]"


def run_paths(
    paths: Iterable[str | Path], write: Callable[[str], None] = print, verbose: bool = False
) -> int:
    """Run every scenario under ``paths``, write failures and the summary line; the exit status (0 or 1)."""
    passed = failed = 0
    for path in find_scenarios(paths):
        result = run_scenario(path)
        if result.passed:
            passed += 1
            if verbose:
                write(f"ok   {result.path}")
        else:
            failed += 1
            for failure in result.failures:
                write(f"FAIL {failure}")
    write(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
