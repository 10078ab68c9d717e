"""``uno-referee bench table``: simulated games through the camera pipeline, scored against the truth.

Each game comes from the rules simulator (one round, seeded), is filmed by
:class:`~referee.lab.video.TableVideo`, cut into discard-zone crops by the matching
:class:`~calibration.table_view.TableView` and watched by the :class:`~referee.table.pile.PileWatcher`
with the vision card reader (the shipped model) or, with ``--reader oracle``, a perfect reader
that isolates the watcher's own logic (``--oracle-errors P`` makes it miss, misread and wobble
on purpose, to see how the watcher copes with an imperfect detector). The output ends with
exactly one line::

    plays_recognised=0.998 false_plays_per_1000_turns=0.4 verdict_latency_p95_s=0.31 idle_cpu_share=0.06

* ``plays_recognised``: share of cards that landed on the pile (plays and dealer flips) that the
  watcher reported once, with the right name;
* ``false_plays_per_1000_turns``: reported landings that did not happen (wrong card, twice, or
  out of nothing: hands, shadows, tidying), per 1,000 turns of the games;
* ``verdict_latency_p95_s``: 95th percentile, in video time, of report time − the moment the
  hand left the discard zone;
* ``idle_cpu_share``: process CPU time / wall time (one core = 1.0) while the pipeline (zone crop,
  motion gate, watcher) is fed a still table at the camera's frame rate.

The details also count the straighten requests (for cards off the pile, for landings not
recognised, spurious) and the *silent misses*: landings after which the watcher said nothing (no
card, right or wrong, and no question) before the next card landed — it must never have one. A card
taken back unread before the watcher's question was due (:attr:`WatcherSettings.unreadable_after_s`
after the hand left it) is no silent miss: the change it made is undone, and nothing is left to ask
about. Those are counted apart.
``--faces FOLDER`` films photographed card faces instead of rendered ones
(:mod:`referee.lab.photo_faces`). ``--typefaces held-out`` films each game with a deck no network
saw: one print family of any kind, its numerals in one held-out typeface family
(:data:`referee.render.glyphs.HELD_OUT_FAMILIES`), the same game, table and camera as without it.

Details (per game, identical-card replays, straighten requests, reveals, reader calls) go to
stderr, so that the one line is all that stdout holds.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hardware.camera import DEFAULT_SIZE
from referee.errors import UserError
from referee.lab.photo_faces import PhotoFaces
from referee.lab.video import (
    PRINT_STREAM,
    OracleReader,
    PileEventTruth,
    ReaderErrors,
    TableVideo,
    VideoSettings,
    with_table_colours,
)
from referee.render.dataset import HELD_OUT
from referee.render.glyphs import require_held_out_fonts
from referee.render.scenes import family_name, typeface_families
from referee.rules.options import PRESETS, Rules
from referee.rules.simulator import Habits, RandomPlayer, SimStep, Simulator
from referee.table.pile import (
    CardLanded,
    CardTakenBack,
    CardUnreadable,
    PileCleared,
    PileEvent,
    PileWatcher,
    ReadsCards,
    WatcherSettings,
    bare_cover,
    read_laid_out,
)
from referee.table.seats import SeatDirections
from referee.table.session import pile_reader
from referee.vision.options import add_detector_arguments, add_reader_arguments, model_from_args
from referee.vision.reader import CardReader

READERS = ("auto", "vision", "oracle")
#: Share of turns where a simulated player lays down a card that does not fit (it is taken back).
MISPLAY_SHARE = 0.02
#: ``--quick`` films only the first steps of one round.
QUICK_STEPS = 30
DEFAULT_PLAYERS = ("Anna", "Ben", "Clara", "Dan")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=3, help="simulated rounds to film and watch (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; game k uses seed + k")
    parser.add_argument(
        "--quick", action="store_true", help="one short game and a short idle stretch (a smoke test, ~20 s)"
    )
    parser.add_argument(
        "--reader",
        choices=READERS,
        default="auto",
        help="vision: the detector model; oracle: a perfect reader from the video's truth (the watcher's "
        "logic alone); auto (default): vision when the model file exists, else oracle",
    )
    parser.add_argument(
        "--oracle-errors",
        type=float,
        default=0.0,
        metavar="P",
        help="with --reader oracle: miss each corner index with probability P, misread a card with P/5, "
        "and let index positions wobble by 1.5 px (default 0: a perfect reader)",
    )
    parser.add_argument("--players", type=int, default=4, help="players per game, 2 to 10 (default 4)")
    parser.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="official",
        help="rules preset of the simulated games (default official); jump-in is always on, so that "
        "identical cards land on each other often",
    )
    parser.add_argument("--fps", type=float, default=15.0, help="camera frame rate (default 15)")
    parser.add_argument(
        "--size",
        default="{}x{}".format(*DEFAULT_SIZE),
        help="camera picture WIDTHxHEIGHT in pixels (default {}x{}, as a live camera)".format(*DEFAULT_SIZE),
    )
    parser.add_argument(
        "--calibrate-colours",
        action="store_true",
        help="calibrate each simulated table's colours first, as `uno-referee calibrate` does "
        "(default: the reader's own colours, white-balanced per index)",
    )
    parser.add_argument(
        "--off-pile",
        type=float,
        default=0.02,
        help="share of plays landing off the pile first (default 0.02)",
    )
    parser.add_argument(
        "--idle-seconds",
        type=float,
        default=5.0,
        help="length of the still-table CPU measurement (default 5)",
    )
    parser.add_argument(
        "--faces",
        type=Path,
        metavar="FOLDER",
        help="film photographed card faces instead of rendered ones: a folder with labels.jsonl naming "
        'each flattened, upright photo of one card ({"image": "images/….jpg", "card": "red-7"}, as '
        "../shared/data/uno-cards-criscard); cards without a photo are rendered (default: all rendered)",
    )
    parser.add_argument(
        "--typefaces",
        choices=("training", HELD_OUT),
        default="training",
        help="the games' decks: the two original prints (default), or, per game, a print of any family "
        "with its numerals in a typeface family no network trains on (a deck the eye never saw; needs "
        "Debian's held-out font packages, see the model card)",
    )
    parser.add_argument(
        "--table",
        choices=("plain", "busy"),
        default="plain",
        help="the table's cover: a plain one (wood, felt, cloth, laminate, paint; default) or a busy print "
        "(zebra and marble bands, honeycomb and crackle cells, grass and scribbled strokes)",
    )
    parser.add_argument(
        "--save", type=Path, help="also write the first game as VIDEO.mp4/.avi with its truth log VIDEO.json"
    )
    add_detector_arguments(parser, threads=1)
    add_reader_arguments(parser)
    parser.add_argument(
        "--pile-imgsz",
        type=int,
        default=0,
        help="network input for the discard zone, read once per look "
        "(default 0: the model's own, with the finer second look, as the referee)",
    )


# --- scoring ------------------------------------------------------------------------------------


@dataclass
class Score:
    """Counts over one or more games."""

    games: int = 0
    frames: int = 0
    video_s: float = 0.0
    turns: int = 0
    landings: int = 0
    recognised: int = 0
    replays: int = 0
    replays_recognised: int = 0
    false_plays: int = 0
    latencies: list[float] = field(default_factory=list)
    off_pile: int = 0
    straighten_asked: int = 0
    straighten_unrecognised: int = 0  # asked while a card that landed was not recognised
    straighten_spurious: int = 0
    silent_misses: int = 0  # landings with nothing said (no card, no question) before the next landing
    withdrawn_unread: int = 0  # … taken back before the question was due: nothing left to ask about
    clears: int = 0
    clears_seen: int = 0
    take_backs: int = 0
    take_backs_seen: int = 0
    reveals: int = 0
    reveals_exact: int = 0
    reveal_cards: int = 0
    reveal_cards_missed: int = 0
    reveal_cards_extra: int = 0
    turn_plays: int = 0  # plays by the player on turn, with an arm direction
    turn_plays_given_away: int = 0  # … that the arm's direction gave to another player (replays only)
    out_of_turn: int = 0  # plays by another player (jump-ins), with an arm direction
    out_of_turn_named: int = 0  # … that the arm's direction gave to the right player
    reads: int = 0
    false_examples: list[str] = field(default_factory=list)
    missed_examples: list[str] = field(default_factory=list)
    silent_examples: list[str] = field(default_factory=list)
    withdrawn_examples: list[str] = field(default_factory=list)
    reveal_examples: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)

    @property
    def recognised_share(self) -> float:
        return self.recognised / self.landings if self.landings else 1.0

    @property
    def false_per_1000_turns(self) -> float:
        return 1000 * self.false_plays / self.turns if self.turns else 0.0

    @property
    def latency_p95(self) -> float:
        return float(np.percentile(self.latencies, 95)) if self.latencies else math.nan


def count_turns(steps: Sequence[dict]) -> int:
    """Turns in a step stream: each play and each pass ends one, and so does a draw not followed by either."""
    turns = 0
    for index, step in enumerate(steps):
        if "play" in step or "pass" in step:
            turns += 1
        elif "draw" in step:
            following = steps[index + 1] if index + 1 < len(steps) else {}
            turns += not ("play" in following or "pass" in following)
    return turns


def score_game(
    video: TableVideo,
    events: Sequence[PileEvent],
    reveals_read: Sequence[list[str]],
    turns: Sequence[str | None] | None = None,
) -> Score:
    """Compare the watcher's events with the video's truth (see the module docstring).

    ``turns``: the player on turn before each step (the simulator's truth); with it, the arm
    directions of the recognised plays are scored as the app uses them to tell who played.
    """
    truth = video.truth
    score = Score(games=1, frames=video.frame_count, video_s=video.duration_s, turns=count_turns(video.steps))
    landings = truth.pile_events
    matched = [False] * len(landings)
    recognised: list[tuple[PileEventTruth, CardLanded]] = []
    score.landings = len(landings)
    score.replays = sum(event.identical_replay for event in landings)
    landed_times = [event.landed_s for event in landings]
    asked: list[float] = []
    for event in events:
        if isinstance(event, CardLanded):
            slot = int(np.searchsorted(landed_times, event.timestamp + 1e-9)) - 1
            expected = landings[slot] if slot >= 0 else None
            if expected is not None and not matched[slot] and expected.card == event.card:
                matched[slot] = True
                recognised.append((expected, event))
                score.latencies.append(event.timestamp - expected.hand_left_s)
            else:
                score.false_plays += 1
                want = f"{expected.kind} {expected.card}" if expected else "nothing"
                score.false_examples.append(
                    f"seed {video.seed} t={event.timestamp:.2f}s: {event.card} (truth: {want})"
                )
        elif isinstance(event, CardUnreadable):
            asked.append(event.timestamp)
        elif isinstance(event, PileCleared):
            score.clears_seen += 1
        elif isinstance(event, CardTakenBack):
            score.take_backs_seen += 1
    score.recognised = sum(matched)
    # A card that landed and was not recognised is "asked about" when a straighten request came
    # between its landing and the next landing; with neither that nor a (wrong) card reported, the
    # watcher missed it in silence.
    following = [*landed_times[1:], math.inf]
    unrecognised = [
        (e.landed_s, until) for m, e, until in zip(matched, landings, following, strict=True) if not m
    ]
    for at in asked:
        if any(e.off_pile_since_s is not None and e.off_pile_since_s <= at < e.landed_s for e in landings):
            score.straighten_asked += 1
        elif any(start <= at < until for start, until in unrecognised):
            score.straighten_unrecognised += 1
        else:
            score.straighten_spurious += 1
    spoke = [event.timestamp for event in events if isinstance(event, CardLanded | CardUnreadable)]
    taken_back = [video.timestamp(d.start_frame) for d in truth.disturbances if d.kind == "take-back"]
    due_after = WatcherSettings().unreadable_after_s
    for m, e, until in zip(matched, landings, following, strict=True):
        if not m and not any(e.landed_s <= at < until for at in spoke):
            example = f"seed {video.seed} t={e.landed_s:.2f}s: {e.kind} {e.card}"
            if any(e.hand_left_s <= at < min(until, e.hand_left_s + due_after) for at in taken_back):
                score.withdrawn_unread += 1
                score.withdrawn_examples.append(example)
            else:
                score.silent_misses += 1
                score.silent_examples.append(example)
    score.replays_recognised = sum(m for m, e in zip(matched, landings, strict=True) if e.identical_replay)
    score.missed_examples = [
        f"seed {video.seed} t={e.landed_s:.2f}s: {e.kind} {e.card}"
        for m, e in zip(matched, landings, strict=True)
        if not m
    ]
    score.off_pile = sum(e.off_pile_since_s is not None for e in landings)
    score.clears = sum(d.kind == "clear-pile" for d in truth.disturbances)
    score.take_backs = sum(d.kind == "take-back" for d in truth.disturbances)
    score.reveals = len(truth.reveals)
    for reveal, read in zip(truth.reveals, reveals_read, strict=True):
        missed, extra = Counter(reveal.cards) - Counter(read), Counter(read) - Counter(reveal.cards)
        score.reveals_exact += sorted(reveal.cards) == read
        score.reveal_cards += len(reveal.cards)
        score.reveal_cards_missed += missed.total()
        score.reveal_cards_extra += extra.total()
        if missed or extra:
            score.reveal_examples.append(
                f"seed {video.seed} frame {reveal.laid_frame}: {len(reveal.cards)} cards, "
                f"missed {sorted(missed.elements()) or 'none'}, extra {sorted(extra.elements()) or 'none'}"
            )
    if turns is not None:
        _score_who_played(score, recognised, turns, video.players)
    return score


def _score_who_played(
    score: Score,
    recognised: Sequence[tuple[PileEventTruth, CardLanded]],
    turns: Sequence[str | None],
    players: Sequence[str],
) -> None:
    """Replay the app's use of arm directions (:meth:`RefereeApp._play`) over the recognised plays."""
    seats = SeatDirections(players)
    for truth, event in recognised:
        on_turn = turns[truth.step]
        if truth.kind != "play" or truth.by is None or on_turn is None or event.reached_from_deg is None:
            continue
        by = seats.who_played(event.reached_from_deg, on_turn, possible_jump_in=truth.identical_replay)
        named = by or on_turn
        if truth.by == on_turn:
            score.turn_plays += 1
            score.turn_plays_given_away += named != on_turn
        else:
            score.out_of_turn += 1
            score.out_of_turn_named += named == truth.by
        if named == on_turn:
            seats.learn(on_turn, event.reached_from_deg)


# --- running ------------------------------------------------------------------------------------


ReaderFactory = Callable[[TableVideo, str], ReadsCards]


def watch_video(
    video: TableVideo, make_reader: ReaderFactory
) -> tuple[list[PileEvent], list[list[str]], int]:
    """The product's path over every frame: zone crop → watcher; then each laid-out hand read.

    Returns the watcher's events, the cards read for each reveal, and the reader calls made.
    """
    view = video.view
    reader = make_reader(video, "discard")
    watcher = PileWatcher(reader)
    events: list[PileEvent] = []
    for frame in video.frames():
        if isinstance(reader, OracleReader):
            reader.show(frame.index)
        events += watcher.feed(view.crop(frame.image, "discard"), frame.timestamp)
    scoring_reader = make_reader(video, "scoring")
    reveals_read = []
    for reveal in video.truth.reveals:
        # Three pictures while the hand lies there, the first a few frames after the hand left.
        first, last = reveal.laid_frame + 2, max(reveal.laid_frame + 2, reveal.removed_frame - 2)
        indices = sorted({round(v) for v in np.linspace(first, last, 3)})
        # As the table keeps one: the zone just before the hand reached in to lay the cards out.
        before = _reaching_in(video, reveal.laid_frame) - 1
        bare = bare_cover(scoring_reader, next(_scoring_crops(video, scoring_reader, [before])))
        crops = _scoring_crops(video, scoring_reader, indices)
        reveals_read.append(read_laid_out(scoring_reader, crops, bare))
    return events, reveals_read, watcher.reads


def _reaching_in(video: TableVideo, laid_frame: int) -> int:
    """The first frame of the hand that laid out the hand shown at ``laid_frame``."""
    return max(
        (
            d.start_frame
            for d in video.truth.disturbances
            if d.kind == "reveal" and d.start_frame <= laid_frame
        ),
        default=0,
    )


def _scoring_crops(video: TableVideo, reader: ReadsCards, indices: Sequence[int]):
    """Scoring-zone crops of the given frames; the oracle is moved to each frame just before it is read."""
    for index in indices:
        if isinstance(reader, OracleReader):
            reader.show(index)
        yield video.view.crop(video.render(index), "scoring")


def measure_idle_cpu(video: TableVideo, make_reader: ReaderFactory, seconds: float) -> tuple[float, int]:
    """CPU share of one core for crop + gate + watcher over a still table, paced at the camera rate.

    The still pictures are rendered first (the renderer is not part of the product); then the
    watcher sees them in real time. Returns (share, reader calls during the measurement).
    """
    fps = video.settings.fps
    last = video.frame_count - 1
    count = max(2, round(seconds * fps))
    start_s = video.duration_s
    pictures = [video.render(last, at_s=start_s + k / fps) for k in range(min(count, round(3 * fps)))]
    reader = make_reader(video, "discard")
    if isinstance(reader, OracleReader):
        reader.show(last)
    watcher = PileWatcher(reader)
    view = video.view
    warmup = round(fps)  # the first second: the watcher learns the table and reads what lies there
    for k in range(warmup):
        watcher.feed(view.crop(pictures[k % len(pictures)], "discard"), k / fps)
    reads_before = watcher.reads
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    for k in range(count):
        delay = wall_start + k / fps - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        watcher.feed(view.crop(pictures[(warmup + k) % len(pictures)], "discard"), (warmup + k) / fps)
    wall = time.perf_counter() - wall_start
    return (time.process_time() - cpu_start) / wall, watcher.reads - reads_before


def _reader_factory(args: argparse.Namespace) -> tuple[str, ReaderFactory]:
    """The reader the options ask for: a vision reader built once, or an oracle per video and zone."""
    choice = args.reader
    if choice == "auto":
        choice = "vision" if model_from_args(args).is_file() else "oracle"
    if choice == "oracle":
        p = args.oracle_errors
        if not 0 <= p <= 1:
            raise UserError("--oracle-errors is a probability: 0 to 1")
        if not p:
            return "oracle", lambda video, zone: OracleReader(video, zone)
        errors = ReaderErrors(miss_index=p, misread=p / 5, jitter_px=1.5)
        name = f"oracle with errors (index missed {p:.0%}, card misread {p / 5:.1%}, ±1.5 px)"
        return name, lambda video, zone: OracleReader(video, zone, errors, seed=video.seed)
    from referee.vision.options import reader_from_args

    if getattr(args, "cards_of", None) is None:  # as a game does: read only the cards its deck holds
        args.cards_of = args.rules
    vision = reader_from_args(args)
    pile_input = f", discard zone at {args.pile_imgsz} px, one look" if args.pile_imgsz else ""
    name = f"vision ({vision.detector.info.path.name}{pile_input}"
    if args.colours or not args.calibrate_colours:  # a given colour model, or the default one
        pile = pile_reader(vision, args.pile_imgsz)
        return f"{name})", lambda video, zone: pile if zone == "discard" else vision
    last: list[tuple[TableVideo, CardReader]] = []  # the discard and scoring zones share one calibration

    def calibrated_reader(video: TableVideo, zone: str) -> ReadsCards:
        """The reader with the colours each table's calibration learns, as a user calibrates first."""
        if not last or last[0][0] is not video:
            last[:] = [(video, with_table_colours(vision, video))]
        return pile_reader(last[0][1], args.pile_imgsz) if zone == "discard" else last[0][1]

    return f"{name}, colours calibrated per table)", calibrated_reader


def _parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text!r}: write WIDTHxHEIGHT, e.g. 960x720") from None
    return width, height


def simulated_round(
    players: Sequence[str], seed: int, rules: Rules, max_steps: int | None = None
) -> list[SimStep]:
    """The first round of a simulated match between random players who now and then misplay."""
    seats = {name: RandomPlayer(Habits(misplay=MISPLAY_SHARE)) for name in players}
    steps: list[SimStep] = []
    for step in Simulator(seats, rules, seed=seed):
        if step.truth.round_number > 1 or (max_steps is not None and len(steps) >= max_steps):
            break
        steps.append(step)
    return steps


def run(args: argparse.Namespace) -> int:

    if args.games < 1:
        raise UserError("--games must be at least 1")
    if not 2 <= args.players <= 10:
        raise UserError("--players must be 2 to 10")
    games = 1 if args.quick else args.games
    idle_seconds = min(args.idle_seconds, 2.0) if args.quick else args.idle_seconds
    settings = VideoSettings(
        fps=args.fps,
        frame_size=_parse_size(args.size),
        off_pile_share=args.off_pile,
        busy_table=args.table == "busy",
    )
    if args.typefaces == HELD_OUT and args.faces is not None:
        raise UserError("--typefaces held-out prints rendered faces: leave out --faces")
    families = typeface_families(require_held_out_fonts()) if args.typefaces == HELD_OUT else []
    faces = PhotoFaces.load(args.faces) if args.faces is not None else None
    reader_name, make_reader = _reader_factory(args)
    rules = Rules.preset(args.rules, jump_in=True)
    players = (
        DEFAULT_PLAYERS[: args.players]
        if args.players <= 4
        else tuple(f"P{k + 1}" for k in range(args.players))
    )
    total = Score()
    started = time.perf_counter()
    video = None
    rendered_faces: set[str] = set()
    for game in range(games):
        seed = args.seed + game
        steps = simulated_round(players, seed, rules, max_steps=QUICK_STEPS if args.quick else None)
        typefaces = deck_typefaces(families, seed)
        video = TableVideo.from_simulation(
            steps, players, seed=seed, settings=settings, faces=faces, typefaces=typefaces
        )
        if game == 0 and args.save:
            truth_path, calibration_path = video.write(args.save)
            print(f"wrote {args.save}, {truth_path} and {calibration_path}", file=sys.stderr)
        events, reveals_read, reads = watch_video(video, make_reader)
        rendered_faces |= video.rendered_faces
        turns = [None, *(step.truth.turn for step in steps[:-1])]
        score = score_game(video, events, reveals_read, turns)
        score.reads = reads
        total.add(score)
        deck = f", {video.design} print in {family_name(typefaces[0])}" if typefaces else ""
        print(
            f"game {game + 1}/{games} seed {seed}: {score.recognised}/{score.landings} landings recognised, "
            f"{score.false_plays} false, {score.turns} turns, {video.duration_s:.0f} s video, {reads} reads"
            f"{deck}",
            file=sys.stderr,
        )
    assert video is not None
    idle_share, idle_reads = measure_idle_cpu(video, make_reader, idle_seconds)
    _report_details(total, reader_name, idle_reads, time.perf_counter() - started)
    if faces is not None:
        print(faces_line(faces, rendered_faces), file=sys.stderr)
    print(
        f"plays_recognised={total.recognised_share:.3f} "
        f"false_plays_per_1000_turns={total.false_per_1000_turns:.1f} "
        f"verdict_latency_p95_s={total.latency_p95:.2f} "
        f"idle_cpu_share={idle_share:.3f}"
    )
    return 0


def deck_typefaces(families: Sequence[tuple[str, ...]], seed: int) -> tuple[str, ...]:
    """The typeface family a game's deck prints its numerals in (none: the original prints).

    >>> deck_typefaces([("Inter-Bold.otf",), ("Karla-Bold.ttf",)], 700) == deck_typefaces(
    ...     [("Inter-Bold.otf",), ("Karla-Bold.ttf",)], 700)
    True
    >>> deck_typefaces([], 700)
    ()
    """
    if not families:
        return ()
    return families[int(np.random.default_rng([seed, PRINT_STREAM]).integers(len(families)))]


def faces_line(faces: PhotoFaces, rendered: set[str]) -> str:
    """What the games were filmed with: the photos, and which cards had none and were rendered."""
    line = f"faces: {faces.photo_count} photos of {len(faces.photos)} cards from {faces.folder}; "
    if not rendered:
        return line + "every card filmed had a photo"
    return (
        line + f"{len(rendered)} cards filmed had no photo and were rendered: {', '.join(sorted(rendered))}"
    )


def _report_details(total: Score, reader_name: str, idle_reads: int, elapsed_s: float) -> None:
    median = float(np.median(total.latencies)) if total.latencies else math.nan
    lines = [
        f"reader: {reader_name}; {total.games} games, {total.frames} frames ({total.video_s:.0f} s of video) "
        f"in {elapsed_s:.0f} s",
        f"landings {total.recognised}/{total.landings}, identical-card replays {total.replays_recognised}/"
        f"{total.replays}, false {total.false_plays} in {total.turns} turns",
        f"latency after the hand left: median {median:.2f} s, "
        f"max {max(total.latencies, default=math.nan):.2f} s",
        f"straighten requests: {total.straighten_asked} for {total.off_pile} cards off the pile, "
        f"{total.straighten_unrecognised} for {total.landings - total.recognised} landings not recognised, "
        f"{total.straighten_spurious} spurious",
        f"silent misses (a landing with no card reported and no question asked): {total.silent_misses}"
        + (
            f"; {total.withdrawn_unread} card(s) taken back unread before a question was due, not counted"
            if total.withdrawn_unread
            else ""
        ),
        f"'pile cleared' {total.clears_seen} for {total.clears} clears; "
        f"'taken back' {total.take_backs_seen} for {total.take_backs} cards taken back",
        f"reveals read exactly: {total.reveals_exact}/{total.reveals} ({total.reveal_cards} cards: "
        f"{total.reveal_cards_missed} missed, {total.reveal_cards_extra} extra)",
        f"who played, from the arm's side: {total.out_of_turn_named}/{total.out_of_turn} out-of-turn plays "
        f"named, {total.turn_plays_given_away}/{total.turn_plays} turn plays given to another player",
        f"reader calls {total.reads} ({total.reads / max(1, total.frames):.3f} per frame), "
        f"{idle_reads} while idle",
    ]
    lines += [f"false: {text}" for text in total.false_examples[:5]]
    lines += [f"missed: {text}" for text in total.missed_examples[:5]]
    lines += [f"missed in silence: {text}" for text in total.silent_examples[:5]]
    lines += [f"taken back unread: {text}" for text in total.withdrawn_examples[:5]]
    lines += [f"reveal read wrong: {text}" for text in total.reveal_examples[:5]]
    print("\n".join(lines), file=sys.stderr)
