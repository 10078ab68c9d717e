"""The event stream: what the referee saw and decided, one JSON object a line (docs/events.md).

The session owns one :class:`EventSink`; the pile watcher's events, button presses, verdicts,
round scores and camera outages reach it through the referee app, each stamped with where the game
stands in its stream (:class:`Moment`: seconds since the stream started — video time for a
recording — and the frame index). Writing a line flushes it, so a tool reading the stream (or a
crash) sees every event as it happens. Tests and the bench use :class:`NullEvents` or
:class:`CollectedEvents`.

>>> import io
>>> out = io.StringIO()
>>> events = JsonLinesEvents(out)
>>> events.emit(Moment(12.4, 186), "cleared")
>>> out.getvalue()
'{"v":1,"t":12.4,"frame":186,"event":"cleared"}\\n'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from referee.errors import UserError

#: The schema version every line carries as ``v``; docs/events.md describes each version.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Moment:
    """Where a game stands in its stream: ``t`` seconds since it started, at frame ``frame``
    (-1 before the first frame)."""

    t: float = 0.0
    frame: int = -1


class EventSink(Protocol):
    """What the referee app reports to: a JSON-lines file, a collector in tests, or nothing."""

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None: ...

    def close(self) -> None: ...


class NullEvents:
    """No stream asked for: events are dropped."""

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        """Nothing to write."""

    def close(self) -> None:
        """Nothing to release."""


class CollectedEvents:
    """Keeps every event as the dictionary a JSON line would hold (for tests and the report)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        self.lines.append(event_line(moment, event, fields))

    def close(self) -> None:
        """Nothing to release: the lines stay readable."""


class EventSinks:
    """Several sinks as one (the JSON-lines file and the live scoreboard), in the order given."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = sinks

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        for sink in self.sinks:
            sink.emit(moment, event, fields)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


def event_line(moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One event as its JSON object: version, time, frame and name first, then its own fields."""
    head = {"v": SCHEMA_VERSION, "t": round(moment.t, 3), "frame": moment.frame, "event": event}
    return {**head, **(fields or {})}


class JsonLinesEvents:
    """Writes each event as one JSON line and flushes it at once."""

    def __init__(self, out: TextIO, *, owned: bool = False) -> None:
        self._out = out
        self._owned = owned

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        line = json.dumps(event_line(moment, event, fields), ensure_ascii=False, separators=(",", ":"))
        self._out.write(line + "\n")
        self._out.flush()

    def close(self) -> None:
        if self._owned:
            self._out.close()


def open_event_stream(target: str | None) -> EventSink:
    """The stream ``--events`` names: ``-`` for standard output, a file (created or replaced), or none."""
    if not target:
        return NullEvents()
    if target == "-":
        return JsonLinesEvents(sys.stdout)
    path = Path(target).expanduser()
    try:
        return JsonLinesEvents(path.open("w", encoding="utf-8"), owned=True)
    except OSError as error:
        raise UserError(f"cannot write the event stream to {path}: {error.strerror}") from None
