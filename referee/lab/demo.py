"""``uno-referee demo``: a simulated table refereed end to end, then compared with the truth.

A full-information game from the rules simulator is filmed by the table video simulator; the
product's own pipeline watches it — table view, motion gate, detector, card reader, pile watcher,
rules core, phrases, speaker — and the steps a camera cannot see (draws, passes, colours, UNO
calls, catches, challenges) arrive as button presses from a patient player who waits for the
referee's prompt, exactly as at a real table. At the end the referee's account of the game is
compared with what really happened.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from hardware.buttons import BUTTON_COLOUR, ButtonName
from hardware.speaker import Announcer
from referee.lab.demo_video import DemoFilm
from referee.lab.video import OracleReader, TableVideo, VideoSettings
from referee.rules import Rules, Table
from referee.rules.simulator import Habits, RandomPlayer, SimStep, Simulator
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import PileWatcher, ReadsCards, read_laid_out
from referee.table.session import Pipeline, pile_reader
from referee.table.stream import EventSink, EventSinks

#: Seat names per language, so that the spoken demo sounds like a family at the table.
DEMO_PLAYERS: dict[str, tuple[str, ...]] = {
    "de": ("Anna", "Ben", "Clara", "David"),
    "nl": ("Sanne", "Daan", "Emma", "Lucas"),
    "en": ("Alice", "Bob", "Carol", "Dave"),
}
#: Seconds a patient player waits for the referee to take in the last card before pressing anyway.
PATIENCE_S = 4.0
#: ``plays``: how long after the last card's hand left the pile the video still runs, for the referee
#: to read that card (it needs a fraction of a second; the next card landing cuts it shorter).
READ_GRACE_S = 2.0


def simulate_round(players: tuple[str, ...], rules: Rules, seed: int) -> list[SimStep]:
    """One round of careful players (no deliberate misplays), up to its scoring."""
    habits = Habits(forget_uno=0.2, misplay=0.0)
    simulator = Simulator({name: RandomPlayer(habits) for name in players}, rules, seed=seed)
    steps: list[SimStep] = []
    for step in simulator:
        steps.append(step)
        if step.truth.waiting_for in ("next_round", "match_over"):
            break
    return steps


def presses_for(observation: Mapping[str, object], app: RefereeApp) -> list[ButtonName]:
    """The buttons a player presses to tell the referee about a step the camera cannot see."""
    if "colour" in observation:
        colour = str(observation["colour"])
        return [button for button, name in BUTTON_COLOUR.items() if name == colour]
    if "target" in observation:
        candidates = [p for p in app.table.players if p != app.table.owed_by]
        steps = candidates.index(str(observation["target"])) if observation["target"] in candidates else 0
        return [ButtonName.RED] + [ButtonName.BLUE] * steps + [ButtonName.GREEN]
    if "catch" in observation:
        catchable = app.table.state().catchable
        culprit = str(observation["catch"])
        picks = (
            [ButtonName.BLUE] * catchable.index(culprit) + [ButtonName.GREEN] if len(catchable) > 1 else []
        )
        return [ButtonName.CATCH, *(picks if culprit in catchable else [])]
    simple = {
        "draw": ButtonName.DRAW,
        "pass": ButtonName.DRAW,
        "accept": ButtonName.DRAW,
        "reveal": ButtonName.DRAW,
        "uno": ButtonName.UNO,
        "challenge": ButtonName.CHALLENGE,
        "undo": ButtonName.UNDO,
    }
    return [button for key, button in simple.items() if key in observation][:1]


@dataclass
class DemoReport:
    """How the referee's account compares with the truth."""

    plays_true: int = 0
    plays_recognised: int = 0
    plays_missed: list[str] = field(default_factory=list)
    false_plays: list[str] = field(default_factory=list)
    buttons: int = 0
    rejected: list[str] = field(default_factory=list)
    final_counts_match: bool = False
    scores_match: bool = False
    video_s: float = 0.0
    wall_s: float = 0.0
    #: The demo was stopped after this many plays (``run_demo(plays=…)``); None: the whole round.
    stopped_after: int | None = None

    def lines(self) -> list[str]:
        recognised = f"{self.plays_recognised}/{self.plays_true}"
        if self.stopped_after is not None:
            end = f"stopped after {self.stopped_after} plays as asked: hand sizes and scores not compared"
        else:
            end = (
                f"hand sizes at the end agree with the truth: {'yes' if self.final_counts_match else 'no'}; "
                f"scores agree: {'yes' if self.scores_match else 'no'}"
            )
        return [
            f"cards on the pile recognised: {recognised}"
            + (f" (missed: {_some(self.plays_missed)})" if self.plays_missed else ""),
            f"cards seen that were never played: {len(self.false_plays)}"
            + (f" ({_some(self.false_plays)})" if self.false_plays else ""),
            f"button presses: {self.buttons}; observations the referee refused: {len(self.rejected)}"
            + (f" ({'; '.join(self.rejected[:5])})" if self.rejected else ""),
            end,
            f"{self.video_s:.0f} s of table video refereed in {self.wall_s:.0f} s",
        ]


def run_demo(
    reader: ReadsCards | None,
    speaker: Announcer,
    *,
    language: str = "en",
    preset: str = "official",
    jump_in: bool = False,
    seed: int = 1,
    settings: VideoSettings | None = None,
    journal: Journal | None = None,
    speed: float | None = None,
    console: TextIO = sys.stdout,
    events: EventSink | None = None,
    film: DemoFilm | None = None,
    plays: int | None = None,
) -> DemoReport:
    """Referee one simulated round; ``speed`` paces the video (1.0 = real time, None = flat out).

    ``reader`` None reads with the video's oracle (a perfect detector): it checks everything
    but the vision, which is what tests of the table logic need. ``film``: also write the refereed
    video with what the referee saw and said drawn in. ``plays``: stop once that many cards were
    played and had time to be read (a smoke test where every read is slow, e.g. under emulation);
    only those plays are compared with the truth.
    """
    players = DEMO_PLAYERS[language]
    rules = Rules.preset(preset, jump_in=True) if jump_in else Rules.preset(preset)
    steps = simulate_round(players, rules, seed)
    video = TableVideo.from_simulation(steps, players, seed=seed, settings=settings)
    table = Table.deal(players, rules, dealer=players[-1])
    game_id = journal.start_game(table.setup, language=language) if journal is not None else None
    if film is not None:
        film.start(video.view, video.settings.fps, video.settings.frame_size)
        events = EventSinks(events, film) if events is not None else film
    app = RefereeApp(table, speaker, PhraseBook(language), journal=journal, game_id=game_id, events=events)
    oracles = (OracleReader(video, "discard"), OracleReader(video, "scoring")) if reader is None else ()
    watcher = PileWatcher(pile_reader(reader) if reader is not None else oracles[0])
    pipeline = Pipeline(video.view, watcher, app, scoring_reader=reader)
    if oracles:
        app.read_scoring_zone = lambda: read_laid_out(
            oracles[1], [video.view.crop(pipeline.last_frame, "scoring")]
        )
    schedule = _ButtonSchedule(steps, video)
    shown, stop_s = _cut(steps, video, plays)
    report = DemoReport(
        plays_true=sum(1 for step in shown if "play" in step.observation and step.accepted),
        stopped_after=plays if len(shown) < len(steps) else None,
    )
    started = time.monotonic()
    for frame in video.frames():
        if frame.timestamp >= stop_s:
            break
        if speed:
            _pace(started, frame.timestamp / speed)
        for oracle in oracles:
            oracle.show(frame.index)
        pipeline.feed(frame)
        for button in schedule.due(frame.timestamp, app):
            report.buttons += 1
            app.on_button(button)
        if film is not None:
            film.frame(frame.image, app.moment.t)
    report.video_s = min(video.duration_s, stop_s)
    report.wall_s = time.monotonic() - started
    _compare(report, shown, app)
    for line in report.lines():
        print(line, file=console)
    return report


def _cut(steps: list[SimStep], video: TableVideo, plays: int | None) -> tuple[list[SimStep], float]:
    """The steps up to the ``plays``-th accepted play and the video time to stop at: long enough to
    read that card, never as long as the next card needs to come to rest."""
    played = [i for i, step in enumerate(steps) if "play" in step.observation and step.accepted]
    if plays is None or len(played) <= plays:
        return steps, float("inf")
    last = played[plays - 1]
    stop_s = video.truth.step_s[last] + READ_GRACE_S
    later = [event.landed_s for event in video.truth.pile_events if event.step > last]
    return steps[: last + 1], min([stop_s, *later])


class _ButtonSchedule:
    """Presses each step's buttons once its moment in the video has come and the referee has caught up."""

    def __init__(self, steps: list[SimStep], video: TableVideo) -> None:
        self.steps = steps
        self.times = video.truth.step_s
        self.pile_steps_seen = 0
        self.next = 0
        self.queue: list[ButtonName] = []
        self.waiting_since: float | None = None

    def due(self, now: float, app: RefereeApp) -> Iterator[ButtonName]:
        while self.queue:
            yield self.queue.pop(0)
        while self.next < len(self.steps) and self.times[self.next] <= now:
            observation = self.steps[self.next].observation
            if "flip" in observation or "play" in observation:
                self.next += 1
                continue
            if not self._caught_up(now, app):
                return
            self.next += 1
            presses = presses_for(observation, app)
            if presses:
                yield presses[0]
                self.queue.extend(presses[1:])
            while self.queue:
                yield self.queue.pop(0)

    def _caught_up(self, now: float, app: RefereeApp) -> bool:
        """Has the referee taken in every card played before this step (or has patience run out)?"""
        expected = sum(1 for step in self.steps[: self.next] if {"flip", "play"} & step.observation.keys())
        seen = sum(
            1 for observation, verdict in app.verdicts if observation.key in ("flip", "play") and verdict.ok
        )
        if seen >= expected:
            self.waiting_since = None
            return True
        self.waiting_since = self.waiting_since if self.waiting_since is not None else now
        if now - self.waiting_since >= PATIENCE_S:
            self.waiting_since = None
            return True
        return False


def _some(names: list[str], shown: int = 8) -> str:
    """A short list for a summary line: the first few names, then how many more."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _pace(started: float, at_s: float) -> None:
    delay = started + at_s - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def _compare(report: DemoReport, steps: list[SimStep], app: RefereeApp) -> None:
    true_cards = [
        str(step.observation["play"]) for step in steps if "play" in step.observation and step.accepted
    ]
    seen_cards = [
        observation.to_dict()["play"] for observation, verdict in app.verdicts if observation.key == "play"
    ]
    remaining = list(seen_cards)
    for card in true_cards:
        if card in remaining:
            remaining.remove(card)
            report.plays_recognised += 1
        else:
            report.plays_missed.append(card)
    report.false_plays = remaining
    report.rejected = [
        f"{observation.to_dict()}: {verdict.reason}"
        for observation, verdict in app.verdicts
        if not verdict.ok
    ]
    if report.stopped_after is not None:
        return  # the hands and scores of a round cut short are nobody's
    truth = steps[-1].truth
    state = app.table.state()
    report.final_counts_match = state.counts == truth.counts
    report.scores_match = state.scores == dict(truth.scores)
