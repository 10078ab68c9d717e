"""One refereed game: camera frames and button presses in, verdicts and speech out.

``run`` (live camera), ``watch`` (a recorded video), ``resume`` (after a crash) and ``demo`` (a
simulated table) all drive the same :class:`Pipeline`, so what the demo and the benchmarks
measure is exactly what runs over a real table.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from calibration.profile import CalibrationProfile
from calibration.table_view import TableView
from hardware.buttons import ButtonName, ButtonQueue, open_buttons
from hardware.camera import CameraBack, CameraLost, Frame, FrameSource, ResilientCamera, open_source
from hardware.speaker import Speaker, open_speaker
from referee.errors import UserError
from referee.rules import Setup, Table, Verdict, observation_from_dict
from referee.table.app import HAND_OWED, RefereeApp
from referee.table.config import RefereeConfig
from referee.table.controls import StatusReporter, TableControls
from referee.table.journal import Journal, SavedGame
from referee.table.phrases import PhraseBook
from referee.table.pile import PileWatcher, ReadsCards, bare_cover, read_laid_out
from referee.table.stream import EventSink, Moment, NullEvents
from referee.vision.reader import CardReader

#: A hand laid out for counting is read on this many pictures: the latest frame and earlier ones at
#: least ``SCORING_LOOK_SPACING_S`` apart, kept while a hand is owed. Each card counts as often as
#: most of them saw it (:func:`read_laid_out`), so a glare spot or a hand still over the cards in one
#: picture does not change a score.
SCORING_LOOKS = 3
SCORING_LOOK_SPACING_S = 0.3


@dataclass
class Pipeline:
    """Table view → pile watcher → referee app, for one camera."""

    view: TableView
    watcher: PileWatcher
    app: RefereeApp
    #: Reads hands laid out in the scoring zone (the watcher's own reader when None): a wide crop
    #: of many cards, read rarely, with every look the reader has.
    scoring_reader: ReadsCards | None = None
    last_frame: np.ndarray | None = None
    #: The source time the stream starts at: 0 for a recording (its own video time), None for a
    #: live camera (its first frame's time).
    origin: float | None = None
    #: Where long presses go (new game, next round, end of match, shut down): :class:`TableControls`.
    on_hold: Callable[[ButtonName], None] | None = None
    #: While True (a match ended from the buttons) the pile is still watched but means nothing.
    paused: bool = False
    #: Between a ``CameraLost`` and the ``CameraBack`` (for the status LED).
    camera_lost: bool = False
    #: Earlier pictures of the scoring zone (time, frame) while a hand is owed (``SCORING_LOOKS``).
    _scoring_looks: deque[tuple[float, np.ndarray]] = field(
        default_factory=lambda: deque(maxlen=SCORING_LOOKS), repr=False
    )
    #: The scoring zone when hands first became owed, before any was laid out, kept while hands are
    #: owed; judged once, at the first hand read, into the table's bare cover (:func:`bare_cover`:
    #: None where the reader found cards there).
    _cover_look: np.ndarray | None = field(default=None, repr=False)
    _cover_judged: bool = field(default=False, repr=False)
    _bare: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.app.read_scoring_zone is None:
            self.app.read_scoring_zone = self.read_scoring_zone

    def feed(self, item: Frame | CameraLost | CameraBack) -> list[Verdict]:
        """One frame (or camera outage event); returns the verdicts it produced."""
        if isinstance(item, (CameraLost, CameraBack)):
            self.camera_lost = isinstance(item, CameraLost)
            self.app.on_camera(item)
            return []
        if self.origin is None:
            self.origin = item.timestamp
        self.app.moment = Moment(item.timestamp - self.origin, item.index)
        self._keep_scoring_look(item)
        self.last_frame = item.image
        crop = self.view.crop(item.image, "discard")
        verdicts = []
        for event in self.watcher.feed(crop, item.timestamp):
            if self.paused:
                continue
            verdict = self.app.on_pile(event, crop)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def press(self, buttons: ButtonQueue) -> list[Verdict]:
        """Every button pressed since the last call, in order."""
        verdicts = []
        for press in buttons.drain():
            if press.held:
                if self.on_hold is not None:
                    self.on_hold(press.button)
                continue
            if self.paused:
                continue
            verdict = self.app.on_button(press.button)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def read_scoring_zone(self) -> list[str]:
        """The cards laid out in the scoring zone (hands shown for counting), read on the latest
        frame and the earlier looks kept since the hand was owed."""
        if self.last_frame is None:
            return []
        reader = self.scoring_reader or self.watcher.reader
        earlier = [frame for _, frame in self._scoring_looks if frame is not self.last_frame]
        pictures = [*earlier[-(SCORING_LOOKS - 1) :], self.last_frame]
        self._scoring_looks.clear()  # the next hand is laid out anew
        if self._cover_look is not None and not self._cover_judged:
            self._bare = bare_cover(reader, self.view.crop(self._cover_look, "scoring"))
            self._cover_judged = True
        crops = [self.view.crop(picture, "scoring") for picture in pictures]
        return read_laid_out(reader, crops, self._bare)

    def _keep_scoring_look(self, item: Frame) -> None:
        """While a hand is owed, keep a frame as a look at the scoring zone when it comes at least
        ``SCORING_LOOK_SPACING_S`` after the last look kept (frames are never reused by the camera,
        so a reference is enough)."""
        if self.app.table.waiting_for not in HAND_OWED:
            self._scoring_looks.clear()
            self._cover_look, self._cover_judged, self._bare = None, False, None
            return
        if self._cover_look is None:
            self._cover_look = item.image
        looks = self._scoring_looks
        if not looks or item.timestamp - looks[-1][0] >= SCORING_LOOK_SPACING_S:
            looks.append((item.timestamp, item.image))


def card_reader(
    profile: CalibrationProfile | None,
    model: str = "",
    backend: str = "onnxruntime",
    threads: int = 2,
    deck: str = "",
    glyph_model: str = "",
    symbols: frozenset[str] | None = None,
    corner_model: str = "",
    pair_model: str = "",
    centre_model: str = "",
) -> CardReader:
    """The vision reader: detector, glyph classifier, the room's colour profile (or the learnt deck's
    colours, or the defaults), the user's learnt deck, if any, and the symbols the game's deck
    prints (:func:`referee.vision.classes.symbols_in_play`); the card-corner check where installed
    (``corner_model`` "none": without it), and the pair check and the centre reader likewise
    (``pair_model``, ``centre_model``)."""
    from referee.vision.backends import load_detector
    from referee.vision.centres import load_centre_reader
    from referee.vision.corners import load_corner_check
    from referee.vision.deck import LearntDeck
    from referee.vision.glyphs import load_glyph_classifier
    from referee.vision.pairs import load_pair_check

    detector = load_detector(model or None, backend, threads=threads)
    # Colours measured in this room come first; then the learnt deck's; then the defaults.
    measured = profile is not None and profile.colour_model is not None
    colour_model = profile.load_colour_model() if measured else None
    glyphs = load_glyph_classifier(Path(glyph_model) if glyph_model else None)
    learnt = LearntDeck.load(Path(deck).expanduser()) if deck else None
    corners = load_corner_check(corner_model)
    pairs = load_pair_check(pair_model)
    centres = load_centre_reader(centre_model)
    return CardReader(
        detector,
        colour_model,
        glyphs=glyphs,
        deck=learnt,
        symbols=symbols,
        corners=corners,
        pairs=pairs,
        centres=centres,
    )


def configured_reader(
    config: RefereeConfig,
    profile: CalibrationProfile | None = None,
    deck: str = "",
    symbols: frozenset[str] | None = None,
) -> CardReader:
    """:func:`card_reader` over the config's detector (``[detector]``) and networks (``[vision]``), so
    that a deck learnt at the table lies in the embedding of the glyph classifier that reads the game."""
    detector, vision = config.detector, config.vision
    return card_reader(
        profile,
        detector.model_path(),
        detector.backend,
        detector.threads,
        deck,
        vision.glyph_model,
        symbols,
        vision.corner_model,
        vision.pair_model,
        vision.centre_model,
    )


def table_reader(config: RefereeConfig, profile_path: Path, profile: CalibrationProfile | None) -> CardReader:
    """The reader a game reads with (``run``, ``watch``, and ``doctor`` checks it): the configured one,
    with the learnt deck (``[vision] deck``, else one learnt at the table with ``calibrate --deck``,
    which lies beside the profile) and the symbols the game's deck prints."""
    from calibration.profile import deck_beside
    from referee.vision.classes import symbols_in_play

    beside = deck_beside(profile_path)
    deck = config.vision.deck or (str(beside) if beside.is_file() else "")
    return configured_reader(config, profile, deck, symbols_in_play(config.rules.build()))


def pile_reader(reader: ReadsCards, imgsz: int = 0) -> ReadsCards:
    """What the pile watcher reads the discard zone with: for a smaller ``imgsz`` than the model's
    own, the vision reader looking once at that size (:meth:`CardReader.at_one_view`: less work per
    read, fewer plays recognised); else, and for any other reader (an oracle, a test double), the
    reader as it is."""
    if imgsz and isinstance(reader, CardReader) and imgsz != reader.detector.imgsz:
        return reader.at_one_view(imgsz)
    return reader


def load_profile(path: Path) -> CalibrationProfile:
    """The calibration profile, or a one-line error that says how to make it."""
    if not path.is_file():
        raise UserError(f"no calibration profile at {path}: run `uno-referee calibrate` first")
    return CalibrationProfile.load(path)


def check_picture_size(source: FrameSource, profile: CalibrationProfile) -> None:
    """A recording must have the picture size its calibration was made for: the zones are pixels of it.

    Reads the first frame (the source is closed again, so the game starts from the beginning).
    """
    source.open()
    try:
        frame = source.read()
    finally:
        source.close()
    if frame is None:
        raise UserError(f"{source.description} holds no picture: is it a recording of the table?")
    height, width = frame.image.shape[:2]
    expected_width, expected_height = profile.frame_size
    if (width, height) != (expected_width, expected_height):
        raise UserError(
            f"the calibration is for {expected_width}x{expected_height} pictures, {source.description} has "
            f"{width}x{height}: give the profile made for this camera (--profile), or calibrate on one "
            "of its frames (uno-referee calibrate --image FRAME)"
        )


def at_frame_rate(
    items: Iterable[Frame | CameraLost | CameraBack], sleep: Callable[[float], None] = time.sleep
) -> Iterator[Frame | CameraLost | CameraBack]:
    """A recording played at its own pace: each frame is handed on when its video time has come."""
    started: float | None = None
    first = 0.0
    for item in items:
        if isinstance(item, Frame):
            if started is None:
                started, first = time.monotonic(), item.timestamp
            delay = started + (item.timestamp - first) - time.monotonic()
            if delay > 0:
                sleep(delay)
        yield item


def referee_stream(
    items: Iterable[Frame | CameraLost | CameraBack],
    pipeline: Pipeline,
    buttons: ButtonQueue | None = None,
    *,
    until: Callable[[], bool] | None = None,
) -> None:
    """Feed frames and button presses until the stream ends or ``until()`` says the game is over."""
    for item in items:
        pipeline.feed(item)
        if buttons is not None:
            pipeline.press(buttons)
        if until is not None and until():
            return


@dataclass
class LiveGame:
    """Everything a game at a real table holds open: close it to release camera, buttons and speech.

    With ``table_controls`` (``run``: a Pi with nothing but the buttons) a won match does not end
    the program: long presses start a new game, remind the table of the next round, end the match
    and shut the Pi down (:class:`referee.table.controls.TableControls`).
    """

    pipeline: Pipeline
    frames: Iterable[Frame | CameraLost | CameraBack]
    buttons: ButtonQueue | None
    speaker: Speaker
    journal: Journal
    events: EventSink = field(default_factory=NullEvents)
    table_controls: TableControls | None = None
    #: The status LED's driver, where there is one (``[led] enabled``).
    status: StatusReporter | None = None

    def play(self) -> int:
        """Referee until the match is won (or, with table controls, until shut down) or the frames
        end; the journal keeps every step."""
        controls = self.table_controls
        if controls is not None:
            self.pipeline.on_hold = controls.hold
        try:
            referee_stream(self.frames, self.pipeline, self.buttons, until=self._over)
        finally:
            self.close()
        if controls is not None and controls.shutdown_asked:
            controls.power_off()
        return 0

    def _over(self) -> bool:
        if self.status is not None:
            self.status.update(self.pipeline)
        if self.table_controls is not None:
            return self.table_controls.finished()
        return self.pipeline.app.table.state().match_winner is not None

    def close(self) -> None:
        if self.buttons is not None:
            self.buttons.close()
        if self.status is not None:
            self.status.light.close()
        self.speaker.close()
        self.journal.close()
        self.events.close()

    def summary(self) -> str:
        """One line on the whole run: what the watcher saw and what the referee decided."""
        app = self.pipeline.app
        plays = [verdict for observation, verdict in app.verdicts if observation.key in ("play", "flip")]
        refused = sum(1 for _, verdict in app.verdicts if not verdict.ok)
        state = app.table.state()
        scores = ", ".join(f"{name} {total}" for name, total in state.scores.items())
        return (
            f"game #{app.game_id}: {sum(v.ok for v in plays)} cards taken in, {len(app.verdicts)} "
            f"observations, {refused} refused; {app.moment.t:.1f} s over {app.moment.frame + 1} frames; "
            f"waiting for {state.waiting_for}; scores: {scores}"
        )


def open_live_game(
    config: RefereeConfig,
    *,
    source: FrameSource | None = None,
    profile_path: Path | None = None,
    resume: int | None = None,
    buttons: ButtonQueue | None = None,
    reader: ReadsCards | None = None,
    events: EventSink | None = None,
    unattended: bool = False,
    console: TextIO | None = None,
) -> LiveGame:
    """A new game from the config (or game ``resume`` from the journal) over a camera or a video.

    Everything that can be wrong with the set-up (config, calibration, model, camera, journal) is
    checked before anything is opened for long, so a mistake costs a one-line error and no state.
    A recording (``source`` given) is timed by its own video time; ``unattended``: nobody presses
    buttons (see :class:`RefereeApp`); ``console``: where the spoken sentences are printed.
    """
    chosen_profile = profile_path or config.calibration.profile
    profile = load_profile(chosen_profile)
    if reader is None:
        reader = table_reader(config, chosen_profile, profile)
    pile = pile_reader(reader, config.detector.pile_imgsz)
    journal = Journal.open(config.journal.path)
    journal.pictures_cap_bytes = config.journal.pictures_mb * 1024 * 1024
    try:
        table, game_id, language, played = _table_for(config, journal, resume)
        frames_source = source or open_source(config.camera.source, config.camera.width, config.camera.height)
        frames = ResilientCamera(frames_source)
        speaker = open_speaker(config.speech.enabled, language, config.speech.rate, console)
    except BaseException:
        journal.close()
        raise
    if buttons is None:
        buttons = open_buttons(config.buttons.input, config.buttons.pins(), config.buttons.bounce_ms / 1000)
    phrases = PhraseBook(language)
    events = events or NullEvents()
    app = RefereeApp(
        table, speaker, phrases, journal=journal, game_id=game_id, events=events, unattended=unattended
    )
    if resume is not None and table.turn is not None:
        app.announce("game_resumed", player=table.turn)
    watcher = PileWatcher(pile)
    if resume is not None and table.top is not None:
        watcher.resume_on(table.top.name, played)
    origin = 0.0 if source is not None else None
    pipeline = Pipeline(profile.table_view(), watcher, app, scoring_reader=reader, origin=origin)
    return LiveGame(pipeline, frames, buttons, speaker, journal, events)


def _table_for(
    config: RefereeConfig, journal: Journal, resume: int | None
) -> tuple[Table, int, str, list[str]]:
    """The referee, its game number, the language, and the cards already played (for a resume)."""
    if resume is None:
        table = Table.deal(config.require_players(), config.rules.build())
        game_id = journal.start_game(table.setup, language=config.language, config=config.snapshot())
        return table, game_id, config.language, []
    saved = journal.load(resume)
    played = [
        str(step.get("play") or step.get("flip"))
        for step in saved.observations
        if {"play", "flip"} & step.keys()
    ]
    return resume_table(saved), resume, saved.language, played


def resume_table(saved: SavedGame) -> Table:
    """The referee exactly as it was: the saved set-up with every accepted observation replayed."""
    return Table.replay(Setup.from_dict(saved.setup), map(observation_from_dict, saved.observations))


def latest_unfinished(journal: Journal) -> int:
    """The game ``resume`` continues when none is named."""
    games = journal.unfinished_games()
    if not games:
        raise UserError(f"no unfinished game in {journal.path}: start one with `uno-referee run`")
    return games[0].game_id
