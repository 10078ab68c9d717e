"""The demo as a video you can watch: ``uno-referee demo --save demo.mp4``.

Each frame of the simulated table is written with what the referee made of it drawn in: the discard
zone's outline, the name and confidence of each card the pile watcher recognised (for a few seconds
after it landed), and the sentences the referee spoke, newest last. It learns all of that as an
:class:`~referee.table.stream.EventSink` from the same event stream ``--events`` writes, so the
film shows exactly what the stream says.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.preview import ZONE_COLOURS
from calibration.table_view import TableView
from referee.errors import UserError
from referee.table.stream import Moment

#: Seconds a recognised card's name and a spoken sentence stay on screen.
CARD_SHOWN_S = 3.0
SAID_SHOWN_S = 4.0
#: Sentences on screen at most (the newest).
SAID_LINES = 3
_CODECS = {".mp4": "mp4v", ".avi": "MJPG"}


class DemoFilm:
    """Writes the refereed video; :meth:`start` opens it, :meth:`frame` adds one, :meth:`close` ends it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if self.path.suffix.lower() not in _CODECS:
            raise UserError(f"cannot write {self.path}: name the video .mp4 or .avi")
        self._writer: cv2.VideoWriter | None = None
        self._view: TableView | None = None
        self._now = 0.0
        self._card: tuple[str, float, float, bool] | None = None  # name, confidence, when, accepted
        self._said: list[tuple[str, float, bool]] = []  # sentence, when, from a refusal
        self.frames = 0

    def start(self, view: TableView, fps: float, frame_size: tuple[int, int]) -> None:
        fourcc = cv2.VideoWriter_fourcc(*_CODECS[self.path.suffix.lower()])
        writer = cv2.VideoWriter(str(self.path), fourcc, fps, frame_size)
        if not writer.isOpened():
            raise UserError(f"cannot write the video {self.path}: is the folder writable?")
        self._writer, self._view = writer, view

    # --- EventSink ------------------------------------------------------------------------------

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        fields = fields or {}
        if event == "landed":
            self._card = (str(fields["card"]), float(fields["confidence"]), moment.t, True)
        elif event == "verdict":
            refused = not fields.get("ok")
            if refused and self._card is not None and "play" in fields.get("observation", {}):
                self._card = (*self._card[:3], False)
            self._said += [(text, moment.t, refused) for text in fields.get("said", ())]
        elif event == "message" and fields.get("spoken"):
            self._said.append((str(fields["text"]), moment.t, False))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None

    # --- frames ---------------------------------------------------------------------------------

    def frame(self, image: np.ndarray, t: float) -> None:
        """Write one frame with the overlay as of stream time ``t``."""
        if self._writer is None or self._view is None:
            raise RuntimeError("DemoFilm.start() first")
        self._writer.write(self.annotate(image, t))
        self.frames += 1

    def annotate(self, image: np.ndarray, t: float) -> np.ndarray:
        """The frame with the discard zone, the latest card read and the latest sentences."""
        assert self._view is not None
        out = image.copy()
        scale = max(0.8, out.shape[1] / 1280)  # legible on a small quick-demo picture too
        thickness = max(1, round(2 * scale))
        outline = np.int32(np.round(self._view.zone_outline("discard")))
        cv2.polylines(out, [outline], True, ZONE_COLOURS["discard"], thickness, cv2.LINE_AA)
        if self._card is not None and t - self._card[2] <= CARD_SHOWN_S:
            name, confidence, _, accepted = self._card
            colour = (80, 220, 80) if accepted else (60, 60, 235)
            x, y = (int(v) for v in outline.min(axis=0))
            _text(out, f"{name}  {confidence:.0%}", (x, max(20, y - int(10 * scale))), 0.9 * scale, colour)
        recent = [(text, refused) for text, when, refused in self._said if t - when <= SAID_SHOWN_S]
        lines = recent[-SAID_LINES:]
        line_height = int(34 * scale)
        top = out.shape[0] - line_height * len(lines) - int(12 * scale)
        if lines:
            band = out[top - int(8 * scale) :, :]
            band[:] = (band * 0.35).astype(np.uint8)
        for number, (text, refused) in enumerate(lines):
            colour = (120, 120, 255) if refused else (255, 255, 255)
            _text(
                out,
                text,
                (int(14 * scale), top + line_height * number + int(24 * scale)),
                0.75 * scale,
                colour,
            )
        return out


def _text(
    image: np.ndarray, text: str, origin: tuple[int, int], size: float, colour: tuple[int, int, int]
) -> None:
    """Text with a dark shadow, readable on the table and on the cards (OpenCV's fonts are ASCII:
    accents are dropped, ß becomes ss)."""
    text = unicodedata.normalize("NFKD", text.replace("ß", "ss")).encode("ascii", "ignore").decode()
    weight = max(1, round(2 * size))
    shadow = (origin[0] + weight, origin[1] + weight)
    cv2.putText(image, text, shadow, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), weight, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, colour, weight, cv2.LINE_AA)
