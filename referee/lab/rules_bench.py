"""``uno-referee bench rules``: simulator and referee speed, and the soak that holds them to each other.

The benchmark plays random full matches with the simulator, then replays the recorded observation
streams into fresh :class:`~referee.rules.table.Table` referees, and reports steps per CPU-second of
one core for each. ``--soak`` plays many matches across every preset and option (cycling through
them), feeds each observation to a referee and checks at every step that the referee agrees with
the simulator's ground truth and that no card is lost (:func:`first_disagreement`).

The comparison is shared with the property tests (``tests/test_properties.py``), so the soak and the
tests hold the referee to exactly the same standard.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import multiprocessing
import multiprocessing.pool
import pstats
import random
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from referee.errors import UserError
from referee.rules.observations import Observation, observation_from_dict
from referee.rules.options import CHOICES, PRESETS, Rules
from referee.rules.simulator import HABIT_PROFILES, RandomPlayer, SimStep, Simulator, Truth
from referee.rules.table import STATE_KEYS, Table

#: Seat names for simulated tables (up to the 10 players R4 allows).
SEAT_NAMES: tuple[str, ...] = ("Anna", "Ben", "Clara", "Dan", "Eva", "Finn", "Greta", "Hugo", "Ida", "Jan")
#: The referee's speed goal on one core (observations per second).
REFEREE_GOAL = 150_000
#: Match targets the soak cycles through: short matches reach the match end (R31) more often.
SOAK_TARGETS: tuple[int, ...] = (50, 150, 300)
#: The soak and the property tests also take back every so many observations and replay them (undo).
UNDO_EVERY = 7


@dataclass(frozen=True)
class GameConfig:
    """One simulated match: rules (a preset plus overrides), seats, seat habits and seed."""

    preset: str
    overrides: Mapping[str, object] = field(default_factory=dict)
    players: int = 4
    habits: str = "default"
    seed: int = 0

    def rules(self) -> Rules:
        """The preset with the overrides applied."""
        return Rules.preset(self.preset, **self.overrides)

    def names(self) -> tuple[str, ...]:
        """The seats, clockwise (the referee needs them in the same order)."""
        return SEAT_NAMES[: self.players]

    def simulator(self) -> Simulator:
        """A fresh simulated match of this configuration (the same one every time)."""
        habits = HABIT_PROFILES[self.habits]
        return Simulator({name: RandomPlayer(habits) for name in self.names()}, self.rules(), self.seed)

    def describe(self) -> str:
        """One line that names everything the match depends on."""
        overrides = ", ".join(f"{key}={value}" for key, value in sorted(self.overrides.items()))
        seats = f"players={self.players} habits={self.habits} seed={self.seed}"
        return f"preset={self.preset} {{{overrides}}} {seats}"

    @classmethod
    def parse(cls, line: str) -> GameConfig:
        """The match a :meth:`describe` line names, so a failure line can be pasted back to replay it.

        >>> config = GameConfig("official", {"jump_in": True, "target_score": 150}, 3, "sloppy", 7)
        >>> GameConfig.parse(config.describe()) == config
        True
        """
        head, _, rest = line.partition(" {")
        overrides_text, _, seats_text = rest.rpartition("} ")
        fields = dict(item.split("=", 1) for item in (head, *seats_text.split()))
        overrides = {}
        for item in filter(None, overrides_text.split(", ")):
            key, _, text = item.partition("=")
            overrides[key] = {"True": True, "False": False}.get(text, int(text) if text.isdigit() else text)
        return cls(fields["preset"], overrides, int(fields["players"]), fields["habits"], int(fields["seed"]))


def soak_config(index: int) -> GameConfig:
    """The ``index``-th soak match: presets in turn, each option overridden with a seeded random value.

    Over a few hundred matches every value of every option meets every preset, 2 to 10 players and
    every habit profile; the same index always gives the same match.

    >>> soak_config(5) == soak_config(5), soak_config(0).preset, soak_config(1).preset
    (True, 'official', 'spielhilfe')
    """
    rng = random.Random(f"soak-{index}")
    presets = list(PRESETS)
    overrides: dict[str, object] = {}
    for option, values in CHOICES.items():
        if rng.random() < 0.5:
            overrides[option] = rng.choice(values)
    overrides["target_score"] = SOAK_TARGETS[index // len(presets) % len(SOAK_TARGETS)]
    for penalty in ("misplay_penalty", "false_catch_penalty"):
        if rng.random() < 0.15:
            overrides[penalty] = rng.choice((1, 2))
    partners = overrides.get("partners", PRESETS[presets[index % len(presets)]].partners)
    return GameConfig(
        preset=presets[index % len(presets)],
        overrides=overrides,
        players=4 if partners else rng.randint(2, 10),
        habits=rng.choice(sorted(HABIT_PROFILES)),
        seed=index,
    )


@dataclass(frozen=True)
class Disagreement:
    """The referee and the ground truth disagree right after one observation."""

    step: int
    observation: Mapping[str, object]
    what: str
    referee: object
    truth: object

    def __str__(self) -> str:
        where = f"step {self.step} {dict(self.observation)}"
        return f"{where}: {self.what} referee={self.referee!r} truth={self.truth!r}"


def check_step(table: Table, step: SimStep, index: int, deck_size: int) -> Disagreement | None:
    """Feed one simulated observation to ``table``; the first way it disagrees with the truth, if any.

    Checked: the verdict (accepted, rejection code), every scenario expectation key (the active
    colour only outside a first-card flip, where none is active yet), the penalties in order, and
    that cards are conserved both physically (hands + piles = deck) and in the referee's count.
    """
    observation = step.observation
    verdict = table.observe(observation_from_dict(observation))
    if verdict.ok != step.accepted or (not verdict.ok and verdict.reason != step.reason):
        return Disagreement(
            index, observation, "verdict", (verdict.ok, verdict.reason), (step.accepted, step.reason)
        )
    disagreement = check_state(table, step.truth, index, observation, deck_size)
    if disagreement is not None:
        return disagreement
    penalties = [penalty.to_dict() for penalty in verdict.penalties]
    true_penalties = [penalty.to_dict() for penalty in step.truth.penalties]
    if penalties != true_penalties:
        return Disagreement(index, observation, "penalties", penalties, true_penalties)
    return None


def check_state(
    table: Table, truth: Truth, index: int, observation: Mapping[str, object], deck_size: int
) -> Disagreement | None:
    """The first scenario key on which ``table`` disagrees with ``truth``, or a lost card; else ``None``."""
    if truth.cards_total != deck_size:
        return Disagreement(index, observation, "cards in the simulator", truth.cards_total, deck_size)
    state = table.state()
    for key in STATE_KEYS:
        if key == "colour" and truth.waiting_for == "flip":
            continue
        actual, expected = getattr(state, key), getattr(truth, key)
        if actual != (list(expected) if expected.__class__ is tuple else expected):
            return Disagreement(index, observation, key, actual, expected)
    counted = sum(state.counts.values()) + state.draw_pile + state.discard_pile + len(truth.set_aside)
    if counted != deck_size:
        return Disagreement(index, observation, "cards counted by the referee", counted, deck_size)
    return None


def check_undo(table: Table, step: SimStep, before: Truth, index: int, deck_size: int) -> Disagreement | None:
    """Take ``step``'s observation back (the state must be ``before`` again), then observe it once more."""
    undo = {"undo": True}
    verdict = table.observe(observation_from_dict(undo))
    if not verdict.ok:
        return Disagreement(index, undo, "verdict", (verdict.ok, verdict.reason), (True, None))
    disagreement = check_state(table, before, index, undo, deck_size)
    if disagreement is not None:
        return disagreement
    return check_step(table, step, index, deck_size)


def first_disagreement(config: GameConfig, undo_every: int = UNDO_EVERY) -> tuple[Disagreement | None, int]:
    """Play ``config`` against a fresh referee: the first disagreement (or ``None``) and the steps checked.

    Every ``undo_every``-th recorded observation is also taken back and observed again (0: never).
    """
    simulator = config.simulator()
    deck_size = simulator.rules.deck_size
    table = Table.deal(config.names(), simulator.rules)
    before: Truth | None = None
    index = -1
    for index, step in enumerate(simulator):
        disagreement = check_step(table, step, index, deck_size)
        recorded = step.accepted or step.truth.penalties
        if (
            disagreement is None
            and undo_every
            and index % undo_every == 0
            and before is not None
            and recorded
        ):
            disagreement = check_undo(table, step, before, index, deck_size)
        if disagreement is not None:
            return disagreement, index + 1
        before = step.truth
    return None, index + 1


@dataclass
class SoakResult:
    """What one soak match gave: steps checked, and a failure line if it failed."""

    index: int
    steps: int = 0
    error: str | None = None
    violation: str | None = None


def soak_one(index: int) -> SoakResult:
    """Play and check soak match ``index``; an exception is an error, a disagreement a violation."""
    config = soak_config(index)
    result = SoakResult(index)
    try:
        disagreement, result.steps = first_disagreement(config)
    except Exception as error:  # a crash anywhere (simulator or referee) is a finding, not the end
        result.error = f"game {index} [{config.describe()}]: {type(error).__name__}: {error}"
        return result
    if disagreement is not None:
        result.violation = f"game {index} [{config.describe()}] {disagreement}"
    return result


# ----------------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-referee bench rules``."""
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--players", type=int, default=4, help="seats at the benchmark table (default 4)")
    parser.add_argument(
        "--preset", default="official", help="rules preset of the benchmark (default official)"
    )
    parser.add_argument("--seed", type=int, default=0, help="first seed of the benchmark matches")
    parser.add_argument("--profile", action="store_true", help="also print the referee's hottest functions")
    parser.add_argument(
        "--soak", action="store_true", help="play many matches over all options and check them"
    )
    parser.add_argument("--games", type=int, default=10_000, help="soak matches (default 10000)")
    parser.add_argument(
        "--first-game", type=int, default=0, help="index of the first soak match (to rerun one)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="soak worker processes (default 1)")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark or the soak; the exit status is 1 when the soak found a failure."""
    if args.soak:
        return _soak(args)
    return _bench(args)


def _bench(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise UserError(f"--seconds must be positive, got {args.seconds:g}")
    if not 2 <= args.players <= 10:
        raise UserError(f"--players: 2 to 10 players can play (R4), got {args.players}")
    if args.preset not in PRESETS:
        raise UserError(f"--preset: unknown preset {args.preset!r}; choose one of {', '.join(PRESETS)}")
    config = GameConfig(preset=args.preset, players=args.players, seed=args.seed)
    streams, sim_steps, sim_seconds = record_matches(config, args.seconds)
    print(f"simulator: {sim_steps / sim_seconds:,.0f} steps/s ({len(streams)} matches, {sim_steps:,} steps)")
    ref_steps, ref_seconds = replay(streams, config, args.seconds)
    rate = ref_steps / ref_seconds
    status = "meets" if rate >= REFEREE_GOAL else "misses"
    print(f"referee: {rate:,.0f} steps/s ({ref_steps:,} observations; {status} the goal of {REFEREE_GOAL:,})")
    print(
        f"(steps per CPU-second of one core; {config.players} players, preset {config.preset}, full matches)"
    )
    if args.profile:
        print(profile_replay(streams, config))
    return 0


def record_matches(config: GameConfig, seconds: float) -> tuple[list[list[Observation]], int, float]:
    """Simulate full matches for about ``seconds`` of CPU time: (typed observation streams, steps, time)."""
    streams: list[list[Observation]] = []
    steps = 0
    spent = 0.0
    seed = config.seed
    while spent < seconds:
        simulator = dataclasses.replace(config, seed=seed).simulator()
        start = time.process_time()
        observations = [step.observation for step in simulator]
        spent += time.process_time() - start
        steps += len(observations)
        streams.append([observation_from_dict(observation) for observation in observations])
        seed += 1
    return streams, steps, spent


def replay(streams: list[list[Observation]], config: GameConfig, seconds: float) -> tuple[int, float]:
    """Feed the recorded streams to fresh referees, round after round, for about ``seconds`` of CPU time."""
    names = config.names()
    rules = config.rules()
    steps = 0
    start = time.process_time()
    spent = 0.0
    while spent < seconds:
        for stream in streams:
            table = Table.deal(names, rules)
            observe = table.observe
            for observation in stream:
                observe(observation)
            steps += len(stream)
        spent = time.process_time() - start
    return steps, spent


def profile_replay(streams: list[list[Observation]], config: GameConfig, lines: int = 18) -> str:
    """The referee's hottest functions while replaying ``streams`` once (cProfile, by own time)."""
    profiler = cProfile.Profile()
    profiler.enable()
    replay(streams, config, 1e-9)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(lines)
    return out.getvalue()


def _soak(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    if args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")
    from tqdm import tqdm

    indices = range(args.first_game, args.first_game + args.games)
    results = _soak_results(indices, args.jobs)
    failures: list[str] = []
    errors = violations = steps = 0
    with tqdm(total=args.games, unit="game", desc="soak", smoothing=0.05) as progress:
        for result in results:
            steps += result.steps
            for failure in (result.error, result.violation):
                if failure:
                    failures.append(failure)
                    progress.write(
                        failure, file=sys.stderr
                    )  # seen at once; the sorted list follows at the end
            errors += result.error is not None
            violations += result.violation is not None
            progress.update()
            progress.set_postfix(errors=errors, violations=violations, refresh=False)
    for line in sorted(failures, key=_game_index):
        print(line)
    if failures:
        first = _game_index(min(failures, key=_game_index))
        print(f"to replay one: uno-referee bench rules --soak --games 1 --first-game {first}")
    print(f"games={args.games} steps={steps} errors={errors} invariant_violations={violations}")
    return 1 if failures else 0


def _soak_results(indices: range, jobs: int) -> Iterator[SoakResult]:
    if jobs == 1:
        return map(soak_one, indices)
    pool = multiprocessing.get_context("spawn").Pool(jobs)
    return _closing(pool, pool.imap_unordered(soak_one, indices, chunksize=4))


def _closing(pool: multiprocessing.pool.Pool, results: Iterable[SoakResult]) -> Iterator[SoakResult]:
    """Yield the workers' results, then shut the pool down (also when the caller stops early)."""
    with pool:
        yield from results


def _game_index(line: str) -> int:
    return int(line.split()[1])
