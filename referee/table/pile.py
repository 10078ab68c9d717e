"""The pile watcher: discard-zone crops in, "a card landed" events out — cheaply, and never a guess.

Frigate-style, a cheap **motion gate** decides when the expensive reader runs at all. Each crop
is shrunk to a 64×64 grey picture and compared with the previous one (after compensating the
overall brightness, so light drifting across the room is not motion). While the zone is still
and nothing has happened since the last settled picture, a frame costs a resize and a subtraction.
After motion stops for ``settle_s`` the settled picture is compared with the last settled one: a
hand that came and went changes nothing and is forgotten without a read; otherwise the reader
runs on a few settled frames until it has seen the same thing twice:

* a card that was not on the pile before (a new name, or the same name in a new pose — the
  identical card replayed) → :class:`CardLanded`; the app maps it to a flip or a play, it knows
  which it expects;
* the old top card still where it was and nothing new beside it (cards slid from under it for
  a reshuffle) → nothing;
* the picture from before the top card landed is back → :class:`CardTakenBack` (a refused card);
* nothing readable where cards were, and the zone looks like the empty table → :class:`PileCleared`;
* a change the reader cannot read for ``unreadable_after_s`` (a card half off the pile, reads
  that keep disagreeing), or a still "arm" over a new card for ``hand_patience_s``, or a new card
  (or a change that nothing explains and no arm reaches into) still undecided when the zone moves
  again → one :class:`CardUnreadable` ("please straighten
  the card"), never a guess, never silence, and not again until the zone moves.

Every second read of a change looks at the crop turned by 90°, so the two agreeing reads are two
views and a detector's misread of one view must repeat in the other. While a hand moves in the
zone, the watcher notes where the change crosses the zone's edge: each landing reports from which
side the arm reached in, which tells the app who played (:mod:`referee.table.seats`).

The reader is injected (:class:`ReadsCards`): the product passes the vision
:class:`~referee.vision.reader.CardReader`, tests and the bench pass the table video's
:class:`~referee.lab.video.OracleReader`.

>>> import numpy as np
>>> gate = MotionGate()
>>> table = np.full((400, 400, 3), 90, np.uint8)
>>> brighter = (table * 1.05).astype(np.uint8)               # the light drifts: not a change
>>> gate.changed_share(gate.shrink(table), gate.shrink(brighter))
0.0
>>> card = table.copy(); card[150:320, 150:260] = 230         # a card lands
>>> gate.changed_share(gate.shrink(table), gate.shrink(card)) > 0.1
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np


class IndexLike(Protocol):
    """A corner index the reader found: where it is and how big (crop pixels)."""

    @property
    def centre(self) -> tuple[float, float]: ...

    @property
    def size(self) -> float: ...


class CardReading(Protocol):
    """One physical card the reader saw (the vision reader's :class:`~referee.vision.reader.Card` fits)."""

    name: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: Sequence[IndexLike]


class ReadsCards(Protocol):
    """Crop in, cards out: the vision reader, or an oracle in tests and benchmarks.

    ``turned``: look at the crop turned by 90° (a second opinion), answer in the crop's pixels.
    """

    def read(self, image_bgr: np.ndarray, *, turned: bool = False) -> Sequence[CardReading]: ...


# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardLanded:
    """A card came to rest on top of the pile; ``replayed``: it has the name of the card it covers."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]  # crop pixels
    index_centres: tuple[tuple[float, float], ...]  # its corner indices, crop pixels: its pose
    timestamp: float
    replayed: bool
    #: Where the arm that brought it crossed the zone's edge, as an angle around the zone's centre
    #: (degrees in crop pixels: 0 = right edge, 90 = bottom edge); None when no arm was seen.
    reached_from_deg: float | None = None


@dataclass(frozen=True)
class CardUnreadable:
    """Something new lies on the pile and cannot be read: ask the table to straighten the card."""

    timestamp: float


@dataclass(frozen=True)
class CardTakenBack:
    """The top card was lifted off again (a refused card going back): the pile looks as before it landed."""

    card: str
    timestamp: float
    top: str | None  # the card on top again


@dataclass(frozen=True)
class PileCleared:
    """The discard zone is empty again (the pile was gathered up for a new round)."""

    timestamp: float


PileEvent = CardLanded | CardUnreadable | CardTakenBack | PileCleared


# --- the motion gate ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GateSettings:
    """Thresholds of the motion gate; pixel values are grey levels of the 64×64 picture."""

    size: int = 64
    pixel_threshold: float = 10.0  # a small-picture pixel changed by more than this has changed
    motion_share: float = 0.002  # share of changed pixels between two frames that is motion
    change_share: float = 0.005  # share changed against the last settled picture worth a read
    settle_s: float = 0.12  # no motion for this long: settled
    white_level: float = 235.0  # grey values above this count as the same clipped white


class MotionGate:
    """Cheap change detection on a downscaled grey picture, insensitive to overall brightness."""

    def __init__(self, settings: GateSettings | None = None) -> None:
        self.settings = settings or GateSettings()

    def shrink(self, image_bgr: np.ndarray) -> np.ndarray:
        """The crop as a ``size``×``size`` float32 grey picture (area-averaged: noise mostly cancels)."""
        size = self.settings.size
        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
        return cv2.resize(grey, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32)

    def changed(self, before: np.ndarray, after: np.ndarray) -> np.ndarray:
        """Pixels that changed beyond the threshold once a global gain is divided out.

        The gain is the median brightness ratio, which an object covering less than half the
        zone does not move: lamps dimming, clouds and auto-exposure are not changes, a card is.
        """
        lit = before > 8
        gain = float(np.median(after[lit] / before[lit])) if lit.any() else 1.0
        # Above the white level the sensor clips: a brighter room cannot make white cards whiter.
        white = self.settings.white_level
        predicted = np.minimum(before * gain, white)
        return np.abs(np.minimum(after, white) - predicted) > self.settings.pixel_threshold

    def changed_share(self, before: np.ndarray, after: np.ndarray) -> float:
        """Share of pixels that changed (see :meth:`changed`)."""
        return float(np.count_nonzero(self.changed(before, after))) / before.size


# --- the watcher -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WatcherSettings:
    """How sure the watcher must be before it speaks, and how hard it tries to read."""

    gate: GateSettings = field(default_factory=GateSettings)
    confirm_reads: int = 2  # the same verdict on this many settled reads in a row
    fast_reads: int = 4  # reads on consecutive frames after settling, then one every slow_read_s
    slow_read_s: float = 0.25
    unreadable_after_s: float = 1.2  # settled, changed, nothing readable this long: ask to straighten
    #: … and what looks like a still arm over a new card this long (a settled change is asked about
    #: within 2 s of the motion stopping, whatever the reads make of it).
    hand_patience_s: float = 1.8
    #: A new card read but not confirmed this long (sooner, it may be the hand that laid it,
    #: lingering a moment over it), or a change nothing explains lying wholly inside the zone, is
    #: asked about when the zone moves again before the patience runs out.
    undecided_after_s: float = 0.4
    pose_tolerance: float = 0.45  # an index moved by more than this × its size: a new pose
    #: … by less than this: not moved at all. The upright and the turned read of one untouched card
    #: differed by up to 0.17 in the traced simulated games.
    still_tolerance: float = 0.2
    arm_card_margin: float = 0.15  # the new card's box grown by this × its side, for the arm test
    arm_share_beyond_card: float = 0.5  # change from the zone's edge mostly beyond the card: an arm
    #: Every second read looks at the crop turned by 90°. Reads of consecutive frames see nearly
    #: the same picture and repeat a detector's misread; a turned view seldom repeats it.
    turn_every_second_read: bool = True
    arm_edge_pixels: int = 3  # changed pixels on the zone's edge (64×64 picture) that make an arm
    arm_memory: float = 0.7  # per moving frame, how much of the arm directions seen so far is kept
    #: A card read where a known identical one lay is new when the picture changed at all its
    #: corners and over this share of its box (0.89 for a red +2 laid turned by 190° over an older
    #: one in a simulated game; a nudge changes a card's edges only).
    laid_anew_share: float = 0.6
    #: Two lone corners of one name, both where the picture changed, this far apart (in index sizes,
    #: the span the vision reader pairs corners over) are one card whose corners the reader did not
    #: pair; the pair nearest the typical spacing goes first.
    corner_spacing: tuple[float, float] = (2.2, 11.0)
    typical_corner_spacing: float = 5.5


@dataclass(frozen=True)
class _Seen:
    """A card read on the pile: its name, where its visible corner indices were, and the reading."""

    name: str
    points: tuple[tuple[float, float], ...]
    tolerance: float  # crop pixels an index may move and still be the same card
    still: float  # crop pixels an index of an untouched card wobbles between reads
    confidence: float = 1.0
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    scale: float = 1.0  # crop pixels: the size of its corner indices


def _as_seen(reading: CardReading, tolerance: float, still: float) -> _Seen:
    """Pose points of a reading: its index centres, or the corners of its box for index-less readers."""
    indices = list(getattr(reading, "indices", ()) or ())
    if indices:
        points = tuple((float(i.centre[0]), float(i.centre[1])) for i in indices)
        scale = float(np.median([i.size for i in indices]))
    else:
        x1, y1, x2, y2 = reading.box
        points = ((x1, y1), (x2, y2))
        scale = 0.15 * max(x2 - x1, y2 - y1)
    box = tuple(float(v) for v in reading.box)
    return _Seen(
        reading.name,
        points,
        max(2.0, tolerance * scale),
        max(2.0, still * scale),
        float(reading.confidence),
        box,  # type: ignore[arg-type]
        scale,
    )


def _same_card(seen: _Seen, known: _Seen) -> bool:
    """Same name, same pose: both corner indices where they were, or — when only one of them is
    seen now or was seen then (covered, or missed by the reader) — that one where one of them was."""
    if seen.name != known.name:
        return False
    limit = max(seen.tolerance, known.tolerance)
    near = [any(math.dist(p, q) <= limit for q in known.points) for p in seen.points]
    return all(near) if len(seen.points) > 1 and len(known.points) > 1 else any(near)


def _same_landing(seen: _Seen, earlier: _Seen) -> bool:
    """Two reads of one new card: the same name with a corner in common. Looser than
    :func:`_same_card`: where two identical cards lie, the upright and the turned view may pair
    their corners differently, and each pairing is a fair reading of the one card that landed."""
    limit = max(seen.tolerance, earlier.tolerance)
    return seen.name == earlier.name and any(
        math.dist(p, q) <= limit for p in seen.points for q in earlier.points
    )


def _merged(seen: _Seen, known: _Seen) -> _Seen:
    """``seen`` with the known card's other index positions added (one read may miss one corner)."""
    limit = max(seen.tolerance, known.tolerance)
    extra = tuple(q for q in known.points if all(math.dist(p, q) > limit for p in seen.points))
    return replace(seen, points=seen.points + extra)


def _one_card(first: _Seen, second: _Seen) -> _Seen:
    """Two readings of one card as one: all their corners, the box around both, the surer reading."""
    boxes = np.asarray([first.box, second.box])
    return _Seen(
        first.name,
        first.points + second.points,
        max(first.tolerance, second.tolerance),
        max(first.still, second.still),
        max(first.confidence, second.confidence),
        (*boxes[:, :2].min(axis=0).tolist(), *boxes[:, 2:].max(axis=0).tolist()),  # type: ignore[arg-type]
        (first.scale + second.scale) / 2,
    )


@dataclass(frozen=True)
class _Snapshot:
    """The watcher's picture and beliefs just before a card landed, to recognise it being taken back."""

    picture: np.ndarray
    top: _Seen | None
    seen: tuple[list[_Seen], list[_Seen]]


class PileWatcher:
    """Feeds discard-zone crops through the motion gate and the reader; returns pile events.

    Call :meth:`feed` with every crop and its timestamp (seconds, any monotonic clock). The
    watcher assumes it starts on an empty pile unless cards are read on its first settled frame.

    A card counts as new when it was not visible in the last two accounted-for states (so a card
    uncovered by a hand, or missed by one read, is not new) and one of its indices lies where the
    picture changed (so an old card peeking out from under the pile is never new, whatever the
    reader missed earlier — while a card landing in the very pose of a buried twin is).
    """

    def __init__(self, reader: ReadsCards, settings: WatcherSettings | None = None) -> None:
        self.reader = reader
        self.settings = settings or WatcherSettings()
        self.gate = MotionGate(self.settings.gate)
        self.reads = 0  # reader calls so far (the expensive part)
        self._resume_top: str | None = None
        self._resumed_older: frozenset[str] = frozenset()
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None  # the last settled picture that was accounted for
        self._empty: np.ndarray | None = None  # the empty zone, learnt on the first settled frame
        self._seen: tuple[list[_Seen], list[_Seen]] = ([], [])  # readings of the last two readable states
        self._top: _Seen | None = None
        self._before_landings: list[_Snapshot] = []
        self._last_motion = -math.inf
        self._dirty = True  # something moved since the last accounted-for picture
        self._undecided = False  # this change showed a new card (or an unexplained one) not decided yet
        self._reading_since: float | None = None
        self._next_read = -math.inf
        self._reads_this_change = 0
        self._streak: tuple[tuple[str | None, _Seen | None], int] = ((None, None), 0)
        self._arm = np.zeros(2)  # sum of unit vectors towards where arms crossed the zone's edge
        size = self.settings.gate.size
        self._edge = np.ones((size, size), bool)  # the small picture's outer two pixels
        self._edge[2:-2, 2:-2] = False

    def resume_on(self, top: str, older: Iterable[str] = ()) -> None:
        """A resumed game: the cards on the pile at the first settled read are already judged.

        Without this a watcher started over a pile reports its top card as a new landing; with
        it, the first read that shows ``top`` is taken in silently as the pile the journal left.
        ``older`` names the cards played earlier in the round: one of them that comes to light
        later showing a single corner lies *under* something — an old card, not a new play.
        """
        self._resume_top = top
        self._resumed_older = frozenset(older)

    @property
    def top_card(self) -> str | None:
        """The card the watcher believes is on top of the pile."""
        return self._top.name if self._top is not None else None

    def feed(self, crop_bgr: np.ndarray, timestamp: float) -> list[PileEvent]:
        """One discard-zone crop; returns the events it completes (usually none)."""
        small = self.gate.shrink(crop_bgr)
        previous, self._previous = self._previous, small
        gate = self.settings.gate
        if previous is None or self.gate.changed_share(previous, small) > gate.motion_share:
            # A new card seen but not yet confirmed, and the zone moves again (the next hand comes
            # sooner than the watcher's patience runs out): ask now, or that card is never mentioned.
            events: list[PileEvent] = [CardUnreadable(timestamp)] if self._undecided else []
            self._undecided = False
            self._last_motion = timestamp
            self._dirty = True
            self._reading_since = None
            self._track_arm(small)
            return events
        if not self._dirty or timestamp - self._last_motion < gate.settle_s:
            return []
        if self._reading_since is None:
            if self._reference is not None and self._matches(self._reference, small):
                self._settle(small)  # a hand or a shadow came and went: nothing to read
                return []
            self._reading_since, self._next_read = timestamp, timestamp
            self._reads_this_change, self._streak = 0, ((None, None), 0)
        if timestamp < self._next_read:
            return []
        return self._read(crop_bgr, small, timestamp)

    # --- one settled read ---------------------------------------------------------------------

    def _read(self, crop_bgr: np.ndarray, small: np.ndarray, timestamp: float) -> list[PileEvent]:
        settings = self.settings
        turned = settings.turn_every_second_read and self._reads_this_change % 2 == 1
        cards = self.reader.read(crop_bgr, turned=turned)
        readings = [_as_seen(card, settings.pose_tolerance, settings.still_tolerance) for card in cards]
        moved = self._moved(small)
        changed = _grown(moved)
        readings = self._one_reading_per_card(readings, changed, crop_bgr.shape[:2])
        readings = self._uncrossed(readings, changed, crop_bgr.shape[:2])
        self.reads += 1
        if self._resume_top is not None:
            top = next((seen for seen in readings if seen.name == self._resume_top), None)
            if top is not None:
                self._top, self._resume_top = top, None
                self._accept(readings, small)
                return []
        self._reads_this_change += 1
        fast = self._reads_this_change < settings.fast_reads
        self._next_read = timestamp if fast else timestamp + settings.slow_read_s
        verdict, subject = self._verdict(readings, small, crop_bgr.shape[:2], moved)
        (last_verdict, last_subject), count = self._streak
        same = last_verdict == verdict
        if same and subject is not None:
            same = last_subject is not None and _same_landing(subject, last_subject)
        self._streak = ((verdict, subject), count + 1 if same else 1)
        if not self._undecided:
            # A change nothing explains that no arm reaches into, or a new card not confirmed for a
            # while (at first it may be the hand that laid it, lingering over it).
            lasted = timestamp - (self._reading_since or timestamp)
            # … unless an arm may be what reaches in: a card slid in from the zone's edge uncovers
            # the table there, and is still to be asked about.
            unexplained = verdict == "unreadable" and not _reaches_the_edge(
                self._unlike_the_table(changed, small)
            )
            self._undecided = unexplained or (verdict == "new" and lasted >= settings.undecided_after_s)
        if self._streak[1] >= settings.confirm_reads:
            if verdict == "new":
                return [self._landed(subject, readings, small, timestamp)]  # type: ignore[arg-type]
            if verdict == "same":
                self._accept(readings, small)
                return []
            if verdict == "taken-back":
                taken = self._top.name if self._top is not None else ""
                before = self._before_landings.pop()
                self._top, self._seen = before.top, before.seen
                self._settle(small)
                return [CardTakenBack(taken, timestamp, self.top_card)]
            if verdict == "empty":
                had_cards = self._top is not None
                self._top, self._empty = None, small
                self._before_landings.clear()
                # Nothing can lie hidden on an empty table: forget what the last states showed, or
                # a round's first card turned up where its last top card lay is taken for that card.
                self._seen = ([], [])
                self._accept([], small)
                return [PileCleared(timestamp)] if had_cards else []
        # A still hand over the pile half-covers cards, and its skin tints their corners: no read under
        # it counts, and it gets longer before the question. Yet a card read by one corner by the
        # zone's edge looks the same, so the watcher asks in the end: never silence.
        waited = timestamp - (self._reading_since or timestamp)
        patience = settings.hand_patience_s if verdict == "hand" else settings.unreadable_after_s
        # Unreadable, or reads that keep disagreeing: keep trying for a while, then ask — never guess.
        if waited >= patience:
            self._settle(small)  # asked once; the next motion in the zone starts afresh
            return [CardUnreadable(timestamp)]
        return []

    def _verdict(
        self, readings: list[_Seen], small: np.ndarray, crop_shape: tuple[int, ...], moved: np.ndarray
    ) -> tuple[str, _Seen | None]:
        """new (with the card), same (old top in place), taken-back, empty, or unreadable; ``moved``:
        :meth:`_moved` of ``small``."""
        top_in_place = self._top is not None and any(_same_card(seen, self._top) for seen in readings)
        if (
            not top_in_place
            and self._before_landings
            and self._matches(self._before_landings[-1].picture, small)
        ):
            return "taken-back", None
        changed = _grown(moved)
        untouched = self._untouched(small, moved)
        (last_verdict, last_subject), _ = self._streak
        previous = last_subject if last_verdict == "new" else None
        new = [
            seen
            for seen in readings
            if not self._was_visible(seen, changed, crop_shape)
            and any(_inside(point, changed, crop_shape) for point in seen.points)
            and not (len(seen.points) < 2 and seen.name in self._resumed_older)
            and not self._pairs_corners_of_older_cards(seen, untouched, crop_shape)
            and not (
                self._holds_an_untouched_corner(seen, untouched, crop_shape)
                and not (previous is not None and _same_landing(seen, previous))
            )
        ]
        if new:
            # Several at once (a misread old card, a pile the watcher never saw): the card on top is
            # a whole card (two corners) with neither corner exactly where an identical card had one
            # (not a half-covered corner misread as an older card's symbol and paired with that
            # card's unmoved corner), then the one that lies wholly where the picture changed, then
            # the most complete, then the one whose face changed most (a card that landed changed the
            # picture over its whole face; an older card's corner come to light lies on a card that
            # mostly did not move), then the surest. A lone corner does not count as whole: when the
            # reader crosses the corners of an identical card laid on another, every pairing holds
            # an unmoved corner, and a stray lone corner must not win over them. Among readings of
            # the card so named, the one the previous read also took for the new card goes first
            # (where two identical cards lie, each view may pair their four corners differently);
            # a previous read does not choose the name: a first read, half under the hand, may
            # have found only an older card's misread corners.

            def rank(seen: _Seen) -> tuple[bool, float, int, float, float]:
                inside = sum(_inside(point, changed, crop_shape) for point in seen.points)
                corners = _nearest_known_corners(seen, self._known(seen.name))
                whole_and_fresh = len(seen.points) > 1 and all(
                    distance > seen.still for distance, _ in corners
                )
                face_changed = float(changed[_cells(seen.box, changed.shape, crop_shape)].mean())
                return (
                    whole_and_fresh,
                    inside / len(seen.points),
                    len(seen.points),
                    face_changed,
                    seen.confidence,
                )

            ranks = {seen: rank(seen) for seen in new}  # each once: both choices below use them
            name = max(new, key=ranks.__getitem__).name
            landed = max(
                (seen for seen in new if seen.name == name),
                key=lambda seen: (previous is not None and _same_landing(seen, previous), *ranks[seen]),
            )
            # A lone corner's card box is a guess; the other view's reading of the same card, with
            # more corners, tells better where the card lies (and so what change is beyond it).
            fuller = previous if previous is not None and _same_landing(landed, previous) else landed
            whole = max(landed, fuller, key=lambda seen: len(seen.points))
            reaching = self._unlike_the_table(changed, small)
            if self._arm_in_zone(reaching, whole, crop_shape) or self._top_misread_under_arm(whole, reaching):
                return "hand", None
            return "new", landed
        if top_in_place:
            # The top card did not move. If what changed now differs from the empty table too,
            # something new lies in the zone (a card off the pile's edge); else cards went away.
            novel = self._empty is not None and self._novel_share(small) > self.settings.gate.change_share
            return ("unreadable" if novel else "same"), None
        if not readings and self._looks_empty(small):
            return "empty", None
        return "unreadable", None

    def _one_reading_per_card(
        self, readings: list[_Seen], changed: np.ndarray, crop_shape: tuple[int, ...]
    ) -> list[_Seen]:
        """Readings of a card that just landed, joined where the reader saw it twice: two lone corners
        of one name as far apart as a card's corners (the reader did not pair them: a yellow 7 read
        as two yellow 7s).

        Only corners where the picture changed are joined: one card lands per change, so two new
        corners of one name belong to it, while an old card's corner beside a new twin stays apart."""
        low, high = self.settings.corner_spacing
        typical = self.settings.typical_corner_spacing
        lone = [
            seen
            for seen in readings
            if len(seen.points) == 1 and _inside(seen.points[0], changed, crop_shape)
        ]
        pairs = []
        for i, first in enumerate(lone):
            for second in lone[i + 1 :]:
                spacing = _corner_spacing(first, second)
                if first.name == second.name and low <= spacing <= high:
                    pairs.append((abs(math.log(spacing / typical)), first, second))
        joined: list[_Seen] = []
        used: list[_Seen] = []
        for _, first, second in sorted(pairs, key=lambda pair: pair[0]):
            if not any(seen is first or seen is second for seen in used):
                used += [first, second]
                joined.append(_one_card(first, second))
        return [seen for seen in readings if not any(seen is other for other in used)] + joined

    def _uncrossed(
        self, readings: list[_Seen], changed: np.ndarray, crop_shape: tuple[int, ...]
    ) -> list[_Seen]:
        """Two readings of one name that each pair a known identical card's corner with a fresh one,
        re-paired: the two known corners are that card, the two fresh ones the card laid on it.

        Seen in a simulated game: a red reverse laid on a red reverse, the reader crossing their
        corners. Neither crossed pair is a whole, fresh card, so a half-covered older corner misread
        as a red 0, alone where the picture changed, was taken for the card that landed."""
        low, high = self.settings.corner_spacing
        halves: list[tuple[_Seen, _Seen, _Seen]] = []  # (reading, its known corner, its fresh corner)
        for seen in readings:
            known = self._known(seen.name)
            if len(seen.points) != 2 or not known:
                continue
            gaps = [distance for distance, _ in _nearest_known_corners(seen, known)]
            stale = [distance <= seen.still for distance in gaps]
            if sum(stale) == 1:
                old, fresh = (0, 1) if stale[0] else (1, 0)
                if _inside(seen.points[fresh], changed, crop_shape):
                    halves.append(
                        (
                            seen,
                            replace(seen, points=(seen.points[old],)),
                            replace(seen, points=(seen.points[fresh],)),
                        )
                    )
        for i, (first, first_old, first_fresh) in enumerate(halves):
            for second, second_old, second_fresh in halves[i + 1 :]:
                if first.name != second.name or not low <= _corner_spacing(first_fresh, second_fresh) <= high:
                    continue
                rest = [seen for seen in readings if seen is not first and seen is not second]
                return [*rest, _one_card(first_old, second_old), _one_card(first_fresh, second_fresh)]
        return readings

    def _arm_in_zone(self, changed: np.ndarray, card: _Seen, crop_shape: tuple[int, ...]) -> bool:
        """Whether the change reaches in from the zone's edge and lies mostly beyond the new card:
        an arm, not a card that landed (which changes the picture only where it lies)."""
        if self._reference is None:
            return False  # the first picture: everything counts as changed, nothing to compare
        if not _reaches_the_edge(changed):
            return False  # nothing reaches in from the zone's edge
        x1, y1, x2, y2 = card.box
        grow = self.settings.arm_card_margin * max(x2 - x1, y2 - y1)
        beyond = changed.copy()
        beyond[_cells((x1 - grow, y1 - grow, x2 + grow, y2 + grow), changed.shape, crop_shape)] = False
        return np.count_nonzero(beyond) > self.settings.arm_share_beyond_card * np.count_nonzero(changed)

    def _was_visible(self, seen: _Seen, changed: np.ndarray, crop_shape: tuple[int, ...]) -> bool:
        """Seen before as a whole, or corner by corner: a reader may pair one corner of a card with
        the twin corner of an identical card beside it, a "new pose" that is no new card.

        An identical card laid almost where a known one lay (turned by 180°, its corners took each
        other's places) is new all the same: its corners moved, if by less than the pose tolerance,
        and the picture changed at each of them and over most of its face. A known card uncovered
        (a coin lifted off a corner) or with a card laid across it did not move; one nudged by a few
        millimetres changed at its edges, not over its face. Nor is it new while the change reaches
        in from the zone's edge: an arm paused over the pile (reaching for the draw pile) changes
        the picture over the whole card and lets the reader find a corner it had missed, a "new
        pose" of the same card (a wild read twice in a game filmed with photographed faces); a card
        laid anew is confirmed once the hand has left."""
        known = self._known(seen.name)
        corners = _nearest_known_corners(seen, known)
        corner_by_corner = len(seen.points) > 1 and all(slack <= 0 for _, slack in corners)
        if not corner_by_corner and not any(_same_card(seen, card) for card in known):
            return False
        return not (
            len(seen.points) > 1
            and not _reaches_the_edge(changed)
            and any(distance > seen.still for distance, _ in corners)
            and all(_inside(p, changed, crop_shape) for p in seen.points)
            and float(changed[_cells(seen.box, changed.shape, crop_shape)].mean())
            >= self.settings.laid_anew_share
        )

    def _top_misread_under_arm(self, seen: _Seen, changed: np.ndarray) -> bool:
        """Whether the reading lies in the top card's pose under another name while the change
        reaches in from the zone's edge: the top card half-covered by an arm and misread, not a card
        that landed. Seen in a filmed game: a red 7 read as a 1 by both corners while an arm reached
        across it for the draw pile; the turned read paired the two, and their card-sized box hid
        the arm from :meth:`_arm_in_zone`. A card truly laid in that pose is read once the arm left."""
        top = self._top
        if top is None or seen.name == top.name or not _reaches_the_edge(changed):
            return False
        limit = max(seen.tolerance, top.tolerance)
        return all(any(math.dist(p, q) <= limit for q in top.points) for p in seen.points)

    def _pairs_corners_of_older_cards(
        self, seen: _Seen, untouched: np.ndarray, crop_shape: tuple[int, ...]
    ) -> bool:
        """Whether each corner of the reading lies where a known card of another name had one, no
        one such card had them all, and one of them lies on pixels that did not change: the reader
        paired two older cards' corners (a green 2's with a blue 9's misread as 2, seen in a
        simulated game as a blue 7 landed on its twin). A card that lands square on one older card
        keeps its corners on that card's; one laid on a compact pile may come to lie with each
        corner by another older card's, but it changes the picture under both."""
        if len(seen.points) < 2 or not any(_inside(p, untouched, crop_shape) for p in seen.points):
            return False
        # An identical card's corner is the twin rules' to judge (a replay laid on its twin).
        known = [card for card in self._every_known() if card.name != seen.name]
        holders = [
            {k for k, card in enumerate(known) if any(math.dist(p, q) <= seen.still for q in card.points)}
            for p in seen.points
        ]
        return all(holders) and not set.intersection(*holders)

    def _every_known(self) -> list[_Seen]:
        """Every card seen on the accounted-for pictures, and the top card."""
        top = [self._top] if self._top is not None else []
        return [card for state in self._seen for card in state] + top

    def _known(self, name: str) -> list[_Seen]:
        """The cards called ``name`` seen on the accounted-for picture (corners of earlier reads too)."""
        return [card for state in self._seen for card in state if card.name == name]

    def _unlike_the_table(self, changed: np.ndarray, small: np.ndarray) -> np.ndarray:
        """The changed region less where the empty table shows again: a card straightened off the
        zone's edge uncovers the table there, a change that reaches the edge but is no arm."""
        if self._empty is None:
            return changed
        return changed & _grown(self.gate.changed(self._empty, small))

    def _untouched(self, small: np.ndarray, moved: np.ndarray) -> np.ndarray:
        """Where the picture did not change since the last accounted-for state (``moved``: where it
        did), or since just before the last card landed (an arm that lingered over the pile while
        that card was confirmed is in the one picture, not in the other)."""
        untouched = ~moved
        if self._before_landings:
            untouched |= ~self.gate.changed(self._before_landings[-1].picture, small)
        return untouched

    def _holds_an_untouched_corner(
        self, seen: _Seen, untouched: np.ndarray, crop_shape: tuple[int, ...]
    ) -> bool:
        """Whether one of the reading's corners lies, unmoved, where an identical card had one, on
        pixels that did not change: an older card's corner, which the reader paired with a new
        corner (a green 8's corner misread as 4 beside a green 4). A card that lands changes the
        picture under each of its corners, even one that comes to lie where a buried twin's lay;
        so such a reading names a new card only where another view found that card (the
        watcher's previous read: an identical card laid across its twin, corners crossed)."""
        corners = _nearest_known_corners(seen, self._known(seen.name))
        return any(
            distance <= seen.still and _inside(point, untouched, crop_shape)
            for point, (distance, _) in zip(seen.points, corners, strict=True)
        )

    def _moved(self, small: np.ndarray) -> np.ndarray:
        """Where the picture changed since the last accounted-for state (everywhere before the
        first); :func:`_grown` of it is the region where new cards are looked for."""
        if self._reference is None:
            return np.ones(small.shape, bool)
        return self.gate.changed(self._reference, small)

    def _novel_share(self, small: np.ndarray) -> float:
        """Share of the zone that changed since the last settled picture into something not the table."""
        if self._reference is None or self._empty is None:
            return 0.0
        novel = self.gate.changed(self._reference, small) & self.gate.changed(self._empty, small)
        return float(np.count_nonzero(novel)) / small.size

    def _looks_empty(self, small: np.ndarray) -> bool:
        if self._empty is None:
            # The first settled picture with nothing readable on it is taken for the empty table.
            return not any(self._seen) and self._top is None
        return self._matches(self._empty, small)

    def _matches(self, picture: np.ndarray, small: np.ndarray) -> bool:
        return self.gate.changed_share(picture, small) <= self.settings.gate.change_share

    def _landed(self, card: _Seen, readings: list[_Seen], small: np.ndarray, timestamp: float) -> CardLanded:
        replayed = self._top is not None and self._top.name == card.name
        if self._reference is not None:
            snapshot = _Snapshot(self._reference, self._top, self._seen)
            self._before_landings = [*self._before_landings[-7:], snapshot]
        reached_from = math.degrees(math.atan2(self._arm[1], self._arm[0])) if self._arm.any() else None
        self._top = card
        self._accept(readings, small)
        return CardLanded(
            card.name, card.confidence, card.box, card.points, timestamp, replayed, reached_from
        )

    def _accept(self, readings: list[_Seen], small: np.ndarray) -> None:
        """The settled picture is accounted for: remember what was visible on it (with the corners
        earlier reads saw of the same cards)."""
        earlier = self._every_known()
        merged = []
        for seen in readings:
            match = next((known for known in earlier if _same_card(seen, known)), None)
            merged.append(_merged(seen, match) if match is not None else seen)
        if self._top is not None:
            self._top = next((seen for seen in merged if _same_card(seen, self._top)), self._top)
        self._seen = (merged, self._seen[0])
        self._settle(small)

    def _track_arm(self, small: np.ndarray) -> None:
        """Note where a change crosses the zone's edge (an arm reaching in), as a direction from the
        zone's centre weighted by how much of the edge it covers; the landing reports the sum, the
        latest frames weighted most."""
        if self._reference is None:
            return
        changed = self.gate.changed(self._reference, small)
        rows, columns = np.nonzero(changed & self._edge)
        if len(rows) < self.settings.arm_edge_pixels:
            return
        centre_y, centre_x = (changed.shape[0] - 1) / 2, (changed.shape[1] - 1) / 2
        direction = np.array([columns.mean() - centre_x, rows.mean() - centre_y])
        length = float(np.hypot(*direction))
        if length > 0:
            # The latest frames count most: the arm that leaves last is the one that laid the card.
            self._arm = self.settings.arm_memory * self._arm + len(rows) * direction / length

    def _settle(self, small: np.ndarray) -> None:
        self._reference = small
        self._dirty = False
        self._reading_since = None
        self._undecided = False
        self._arm = np.zeros(2)


def _reaches_the_edge(mask: np.ndarray) -> bool:
    """Whether a change mask of the small picture touches the zone's edge (an arm reaching in)."""
    return bool(mask[[0, -1], :].any() or mask[:, [0, -1]].any())


def _grown(mask: np.ndarray) -> np.ndarray:
    """A change mask of the small picture grown by two pixels (6 mm): an index at a change's edge
    counts as inside it."""
    return cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)


def _corner_spacing(first: _Seen, second: _Seen) -> float:
    """How far apart two lone corners are, in index sizes (the span the reader pairs corners over)."""
    return math.dist(first.points[0], second.points[0]) / ((first.scale + second.scale) / 2)


def _nearest_known_corners(seen: _Seen, known: list[_Seen]) -> list[tuple[float, float]]:
    """For each corner of ``seen``: the distance to the nearest corner of a ``known`` card, and the
    smallest distance less the pose tolerance (≤ 0: that corner is where a known card had one)."""
    corners = []
    for p in seen.points:
        gaps = [(math.dist(p, q), max(seen.tolerance, card.tolerance)) for card in known for q in card.points]
        corners.append(
            (min(d for d, _ in gaps), min(d - t for d, t in gaps)) if gaps else (math.inf, math.inf)
        )
    return corners


def _cells(
    box: tuple[float, float, float, float], small_shape: tuple[int, ...], crop_shape: tuple[int, ...]
) -> tuple[slice, slice]:
    """The rows and columns of the small picture that a crop-pixel box covers (at least one each)."""
    height, width = crop_shape[:2]
    rows, columns = small_shape[:2]
    x1, y1, x2, y2 = box
    top, left = (
        min(rows - 1, max(0, int(y1 * rows / height))),
        min(columns - 1, max(0, int(x1 * columns / width))),
    )
    bottom = max(top + 1, math.ceil(y2 * rows / height))
    right = max(left + 1, math.ceil(x2 * columns / width))
    return slice(top, bottom), slice(left, right)


def _inside(point: tuple[float, float], region: np.ndarray, crop_shape: tuple[int, ...]) -> bool:
    """Whether a crop point falls on a true pixel of the small-picture ``region``."""
    height, width = crop_shape[:2]
    size_y, size_x = region.shape
    column = min(size_x - 1, max(0, int(point[0] * size_x / width)))
    row = min(size_y - 1, max(0, int(point[1] * size_y / height)))
    return bool(region[row, column])


#: An index box correlated at least this much with the same place of the bare cover (normalised
#: cross-correlation, so a lamp that brightened or dimmed meanwhile changes nothing) still shows the
#: cover: no card was laid over it. A card laid there replaces the print under its corner.
COVER_UNCHANGED = 0.8


def bare_cover(reader: ReadsCards, crop: np.ndarray) -> np.ndarray | None:
    """``crop`` if the reader finds no card in it (a look at the zone before a hand was laid out:
    the table's bare cover), else None (cards were there already; nothing can be learnt of the cover)."""
    return None if reader.read(crop) else crop


def read_laid_out(
    reader: ReadsCards, crops: Iterable[np.ndarray], bare: np.ndarray | None = None
) -> list[str]:
    """The cards of a hand spread in the scoring zone, read on several crops.

    Each card name counts as often as the median read saw it, so one read that missed a card
    under a glare spot or doubled one does not change the count. Sorted by name.

    ``bare``: the zone before the hand was laid out (:func:`bare_cover`). A card read from one
    corner whose index still looks as the bare cover did there is the cover's own print (a blob of
    a zebra or marble oilcloth passes for a wild's corner beside the hand's cards, and the print
    does not move, so every look reads it): it is not counted. Cards read from both corners, and
    every card when there is no bare look, count as read.
    """

    def laid(card: CardReading, crop: np.ndarray) -> bool:
        if bare is None or bare.shape != crop.shape or len(card.indices) != 1:
            return True
        return not _cover_unchanged(crop, bare, card.indices[0].box)

    counts = [Counter(card.name for card in reader.read(crop) if laid(card, crop)) for crop in crops]
    if not counts:
        return []
    result: list[str] = []
    for name in sorted(set().union(*counts)):
        seen = sorted(count[name] for count in counts)
        result += [name] * seen[len(seen) // 2]
    return result


def _cover_unchanged(crop: np.ndarray, bare: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    """Whether the index ``box`` of ``crop`` shows what the bare cover showed there
    (:data:`COVER_UNCHANGED`). The box alone, without the card around it: beside the hand's row a
    margin would take in a real card's edge. A flat patch in either look (a plain cloth, a card's
    white) has no pattern to correlate: it counts as changed, and the card is kept.

    >>> rng = np.random.default_rng(0)
    >>> cover = rng.integers(0, 255, (60, 60, 3)).astype(np.uint8)
    >>> _cover_unchanged(np.clip(cover * 0.8 + 20, 0, 255).astype(np.uint8), cover, (20, 20, 40, 40))
    True
    >>> card = cover.copy(); card[10:50, 10:50] = 230; card[25:35, 25:35] = 20
    >>> _cover_unchanged(card, cover, (20, 20, 40, 40))
    False
    """
    height, width = crop.shape[:2]
    left, top = max(0, int(box[0])), max(0, int(box[1]))
    right, bottom = min(width, math.ceil(box[2])), min(height, math.ceil(box[3]))
    if right - left < 4 or bottom - top < 4:
        return False
    now = cv2.cvtColor(crop[top:bottom, left:right], cv2.COLOR_BGR2GRAY).astype(np.float32)
    before = cv2.cvtColor(bare[top:bottom, left:right], cv2.COLOR_BGR2GRAY).astype(np.float32)
    now -= now.mean()
    before -= before.mean()
    spread = float(np.sqrt((now**2).mean() * (before**2).mean()))
    if spread < 25.0:  # a standard deviation under 5 grey levels in either: no pattern to compare
        return False
    return float((now * before).mean()) / spread >= COVER_UNCHANGED
