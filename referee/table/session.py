"""One refereed game: camera frames and button presses in, verdicts and speech out.

``run`` (live camera), ``watch`` (a recorded video), ``resume`` (after a crash) and ``demo`` (a
simulated table) all drive the same :class:`Pipeline`, so what the demo and the benchmarks
measure is exactly what runs over a real table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.profile import CalibrationProfile
from calibration.table_view import TableView
from hardware.buttons import ButtonQueue
from hardware.camera import CameraBack, CameraLost, Frame
from referee.errors import UserError
from referee.rules import Verdict
from referee.table.app import RefereeApp
from referee.table.pile import PileWatcher
from referee.vision.reader import CardReader


@dataclass
class Pipeline:
    """Table view → pile watcher → referee app, for one camera."""

    view: TableView
    watcher: PileWatcher
    app: RefereeApp
    last_frame: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.app.read_scoring_zone is None:
            self.app.read_scoring_zone = self.read_scoring_zone

    def feed(self, item: Frame | CameraLost | CameraBack) -> list[Verdict]:
        """One frame (or camera outage event); returns the verdicts it produced."""
        if isinstance(item, (CameraLost, CameraBack)):
            self.app.on_camera(item)
            return []
        self.last_frame = item.image
        crop = self.view.crop(item.image, "discard")
        verdicts = []
        for event in self.watcher.feed(crop, item.timestamp):
            verdict = self.app.on_pile(event)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def press(self, buttons: ButtonQueue) -> list[Verdict]:
        """Every button pressed since the last call, in order."""
        verdicts = []
        for press in buttons.drain():
            verdict = self.app.on_button(press.button)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def read_scoring_zone(self) -> list[str]:
        """The cards laid out in the scoring zone on the latest frame (hands shown for counting)."""
        if self.last_frame is None:
            return []
        return self.watcher.read_reveal([self.view.crop(self.last_frame, "scoring")])


def card_reader(
    profile: CalibrationProfile | None, model: str = "", backend: str = "onnxruntime", threads: int = 2
) -> CardReader:
    """The vision reader with the room's colour profile (or the default colours without one)."""
    from referee.vision.backends import load_detector

    detector = load_detector(model or None, {"opencv": "opencv-dnn"}.get(backend, backend), threads=threads)
    colour_model = profile.load_colour_model() if profile is not None else None
    return CardReader(detector, colour_model)


def load_profile(path: Path) -> CalibrationProfile:
    """The calibration profile, or a one-line error that says how to make it."""
    if not path.is_file():
        raise UserError(f"no calibration profile at {path}: run `uno-referee calibrate` first")
    return CalibrationProfile.load(path)


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
