"""Points clicked in a preview window: the table corners without markers, or the zones by hand.

:class:`PointCollector` is the pure part (which point is asked for next, undo, done) and is
tested; :func:`click_points` is the thin OpenCV window around it. Left click sets a point,
right click or Backspace takes the last one back, Enter accepts, Esc cancels.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

import numpy as np

from referee.errors import UserError

CORNER_PROMPTS: tuple[str, ...] = (
    "click the TOP LEFT corner of the play area",
    "click the TOP RIGHT corner",
    "click the BOTTOM RIGHT corner",
    "click the BOTTOM LEFT corner",
)
ZONE_PROMPTS: tuple[str, ...] = (
    "DISCARD zone: click one corner",
    "DISCARD zone: click the opposite corner",
    "SCORING zone: click one corner",
    "SCORING zone: click the opposite corner",
)


class PointCollector:
    """Collects one point per prompt, in order.

    >>> points = PointCollector(["first", "second"])
    >>> points.click(3, 4); points.prompt
    'second'
    >>> points.undo(); points.click(5, 6); points.click(7, 8); points.done, points.points
    (True, [(5.0, 6.0), (7.0, 8.0)])
    """

    def __init__(self, prompts: Sequence[str]) -> None:
        self.prompts = tuple(prompts)
        self.points: list[tuple[float, float]] = []

    @property
    def done(self) -> bool:
        return len(self.points) == len(self.prompts)

    @property
    def prompt(self) -> str:
        return (
            "press Enter to accept, Backspace to redo the last point"
            if self.done
            else self.prompts[len(self.points)]
        )

    def click(self, x: float, y: float) -> None:
        if not self.done:
            self.points.append((float(x), float(y)))

    def undo(self) -> None:
        if self.points:
            self.points.pop()


def require_display() -> None:
    """A preview window needs a screen; on a headless Pi say which non-interactive path to use."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise UserError(
            "no screen for the preview window: on a headless Pi use the printed markers "
            "(uno-referee calibrate --markers), or run it on the Pi's desktop or with ssh -X"
        )


def click_points(
    image_bgr: np.ndarray, prompts: Sequence[str], title: str = "uno-referee calibrate"
) -> np.ndarray:
    """Let the user click one point per prompt on ``image_bgr``; the points in its pixels (N × 2)."""
    import cv2

    require_display()
    collector = PointCollector(prompts)
    scale = min(1.0, 1280 / image_bgr.shape[1], 800 / image_bgr.shape[0])
    shown = cv2.resize(image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)

    def on_mouse(event: int, x: int, y: int, _flags: int, _param: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN:
            collector.click(x / scale, y / scale)
        elif event == cv2.EVENT_RBUTTONDOWN:
            collector.undo()

    try:
        cv2.namedWindow(title, cv2.WINDOW_AUTOSIZE)
        cv2.setMouseCallback(title, on_mouse)
        while True:
            canvas = shown.copy()
            for number, (x, y) in enumerate(collector.points, start=1):
                centre = (round(x * scale), round(y * scale))
                cv2.drawMarker(canvas, centre, (0, 0, 255), cv2.MARKER_CROSS, 24, 2)
                cv2.putText(canvas, str(number), centre, cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
            cv2.rectangle(canvas, (0, 0), (canvas.shape[1], 36), (0, 0, 0), -1)
            cv2.putText(canvas, collector.prompt, (10, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
            cv2.imshow(title, canvas)
            key = cv2.waitKey(30) & 0xFF
            if key == 27:
                raise UserError("calibration cancelled (Esc): nothing was saved")
            if key in (8, 127):
                collector.undo()
            if key in (10, 13) and collector.done:
                return np.float32(collector.points)
    except cv2.error as error:
        raise UserError(f"cannot open the preview window ({error.err}): use --markers instead") from None
    finally:
        with contextlib.suppress(cv2.error):
            cv2.destroyWindow(title)
