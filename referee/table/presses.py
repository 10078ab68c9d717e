"""Button presses replayed at their recorded times: a recording plus its presses is refereed again exactly.

The file is JSON lines, one press a line: ``{"t": 41.2, "button": "GREEN"}`` (``t``: seconds since
the stream started, video time for a recording; ``button``: a name of
:class:`~hardware.buttons.ButtonName`, any case). ``uno-referee history --game N --presses`` writes
a journalled game's presses in this form; the journal keeps each press with the time of the frame
after which the referee took it in, and :class:`PressReplay` hands it over after the first frame
at or past that time, which is exactly when the live referee took it in.

>>> replay = PressReplay([RecordedPress(1.0, ButtonName.DRAW), RecordedPress(2.5, ButtonName.RED)])
>>> [press.button.name for press in replay.due(1.2)], replay.due(2.0), len(replay.due(9.0))
(['DRAW'], [], 1)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.buttons import ButtonName, ButtonPress, ButtonQueue
from referee.errors import UserError
from referee.table.config import read_text_file


@dataclass(frozen=True)
class RecordedPress:
    t: float
    button: ButtonName


def parse_press(data: Any, where: str) -> RecordedPress:
    """One line's press, or a one-line error naming the line and what a press looks like."""
    example = 'write presses like {"t": 41.2, "button": "GREEN"}'
    if not isinstance(data, dict) or "t" not in data or "button" not in data:
        raise UserError(f"{where} is not a button press: {example}")
    t, name = data["t"], data["button"]
    if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0:
        raise UserError(f"{where}: t must be seconds (a number from 0), got {t!r}")
    try:
        button = ButtonName[str(name).upper()]
    except KeyError:
        known = ", ".join(button.name for button in ButtonName)
        raise UserError(f"{where}: unknown button {name!r} (known: {known})") from None
    return RecordedPress(float(t), button)


def load_presses(path: Path) -> list[RecordedPress]:
    """The presses of a JSON-lines file in time order (blank lines are skipped)."""
    text = read_text_file(path, "presses file")
    presses = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise UserError(f"{path} line {number} is not JSON ({error.msg})") from None
        presses.append(parse_press(data, f"{path} line {number}"))
    return sorted(presses, key=lambda press: press.t)


def presses_as_lines(presses: Iterable[dict[str, Any]]) -> list[str]:
    """A journal's presses (:meth:`~referee.table.journal.Journal.presses`) as the file's lines."""
    return [json.dumps({"t": press["t"], "button": press["button"]}) for press in presses]


class PressReplay(ButtonQueue):
    """The buttons of a replay: :meth:`drain` gives every press whose time has come by ``clock()``.

    ``clock`` is the stream time of the frame just refereed (the session passes its pipeline's).
    """

    def __init__(self, presses: Iterable[RecordedPress], clock: Callable[[], float] = lambda: 0.0) -> None:
        super().__init__(bounce_s=0.0, clock=clock)
        self._waiting = sorted(presses, key=lambda press: press.t)
        self._next = 0
        self.stream_clock = clock

    def due(self, now: float) -> list[ButtonPress]:
        """The presses recorded at or before ``now`` that were not handed out yet, in order."""
        start = self._next
        while self._next < len(self._waiting) and self._waiting[self._next].t <= now:
            self._next += 1
        return [ButtonPress(press.button, press.t) for press in self._waiting[start : self._next]]

    def drain(self) -> list[ButtonPress]:
        return self.due(self.stream_clock())

    @property
    def left(self) -> int:
        """Presses still to come (a replay that ends with some left was cut short)."""
        return len(self._waiting) - self._next
