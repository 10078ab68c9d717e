"""The pile watcher: motion gate, one event per card, replays, hands, unreadable cards, idle cost."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np
import pytest

from referee.lab.video import OracleReader, ReaderErrors, TableVideo, VideoSettings
from referee.render.cards import parse_card_name
from referee.table.pile import (
    CardLanded,
    CardUnreadable,
    MotionGate,
    PileCleared,
    PileEvent,
    PileWatcher,
    bare_cover,
    read_laid_out,
)
from referee.table.seats import angle_between
from referee.vision.classes import SYMBOL_CLASSES
from referee.vision.detection import Detection
from referee.vision.reader import Card

PLAYERS = ["Anna", "Ben", "Clara", "Dan"]
GAME = [
    {"flip": "blue-5"},
    {"play": "blue-8", "by": "Anna"},
    {"play": "blue-8", "by": "Ben"},  # identical card replayed
    {"draw": 1, "by": "Clara"},
    {"pass": True, "by": "Clara"},
    {"play": "green-8", "by": "Dan"},
    {"play": "wild-draw4", "by": "Anna"},
    {"colour": "yellow"},
    {"play": "yellow-draw2", "by": "Ben"},
    {"play": "yellow-draw2", "by": "Clara"},  # and again
]
SMALL = dict(frame_size=(640, 480))


def watch(
    video: TableVideo,
    watcher_reader: Callable[[OracleReader], object] | None = None,
    errors: ReaderErrors | None = None,
    seed: int = 0,
):
    """Every frame of the video through crop → watcher with the oracle (making ``errors``, seeded);
    returns (events, watcher)."""
    oracle = OracleReader(video, errors=errors, seed=seed)
    watcher = PileWatcher(watcher_reader(oracle) if watcher_reader else oracle)
    events: list[PileEvent] = []
    for frame in video.frames():
        oracle.show(frame.index)
        events += watcher.feed(video.view.crop(frame.image, "discard"), frame.timestamp)
    return events, watcher


@pytest.fixture(scope="module")
def busy_game() -> tuple[TableVideo, list[PileEvent]]:
    """A hand hovers over the pile before every play; draws reach across the table."""
    video = TableVideo(GAME, PLAYERS, seed=11, settings=VideoSettings(feint_share=1.0, **SMALL))
    events, _ = watch(video)
    return video, events


def test_every_card_reported_once_with_its_name_soon_after_the_hand_left(busy_game) -> None:
    video, events = busy_game
    truth = video.truth.pile_events
    landed = [event for event in events if isinstance(event, CardLanded)]
    assert [event.card for event in landed] == [event.card for event in truth]
    assert [event.replayed for event in landed] == [event.identical_replay for event in truth]
    assert sum(event.replayed for event in landed) == 2
    following = [event.landed_s for event in truth[1:]] + [video.duration_s]
    for reported, expected, next_landing in zip(landed, truth, following, strict=True):
        assert expected.hand_left_s < reported.timestamp <= expected.hand_left_s + 0.5 < next_landing
    assert not [event for event in events if not isinstance(event, CardLanded)]


def test_an_imperfect_reader_still_reports_each_card_once(busy_game) -> None:
    """Missed corners (15 %), confusable names (5 %) and wobbling boxes: two agreeing reads filter them
    (with one read enough, this very game gets a green-8 twice)."""
    video, _ = busy_game
    errors = ReaderErrors(miss_index=0.15, misread=0.05, jitter_px=1.5)
    oracle = OracleReader(video, errors=errors, seed=1)
    watcher = PileWatcher(oracle)
    events: list[PileEvent] = []
    for frame in video.frames():
        oracle.show(frame.index)
        events += watcher.feed(video.view.crop(frame.image, "discard"), frame.timestamp)
    landed = [(event.card, event.replayed) for event in events if isinstance(event, CardLanded)]
    assert landed == [(event.card, event.identical_replay) for event in video.truth.pile_events]


def test_hands_over_the_pile_report_nothing(busy_game) -> None:
    video, events = busy_game
    feints = [d for d in video.truth.disturbances if d.kind == "feint" and d.over_discard]
    assert len(feints) == 6
    for feint in feints:
        start, end = feint.start_frame / video.settings.fps, feint.end_frame / video.settings.fps + 0.5
        assert not [event for event in events if start <= event.timestamp <= end]


def test_unreadable_card_asks_once_then_reads_it_when_straightened() -> None:
    video = TableVideo(GAME[:3], PLAYERS, seed=4, settings=VideoSettings(off_pile_share=1.0, **SMALL))
    events, _ = watch(video)
    truth = video.truth.pile_events
    assert [e.off_pile_since_s is not None for e in truth] == [False, True, True]
    asked = [event for event in events if isinstance(event, CardUnreadable)]
    assert len(asked) == 2
    for request, card in zip(asked, truth[1:], strict=True):
        assert card.off_pile_since_s < request.timestamp < card.landed_s
    assert [e.card for e in events if isinstance(e, CardLanded)] == ["blue-5", "blue-8", "blue-8"]


def test_motion_gate_ignores_noise_and_drift_but_fires_on_a_card_landing(busy_game) -> None:
    video, _ = busy_game
    gate, view = MotionGate(), video.view
    last = video.frame_count - 1
    still = [gate.shrink(view.crop(video.render(last, at_s=t), "discard")) for t in np.arange(0, 90, 0.5)]
    assert max(gate.changed_share(a, b) for a, b in itertools.pairwise(still)) == 0.0
    assert max(gate.changed_share(still[0], later) for later in still) <= gate.settings.change_share
    before, after = video.truth.pile_events[1], video.truth.pile_events[2]  # blue-8 on blue-8
    settled_before = gate.shrink(view.crop(video.render(before.hand_left_frame + 3), "discard"))
    settled_after = gate.shrink(view.crop(video.render(after.hand_left_frame + 3), "discard"))
    assert gate.changed_share(settled_before, settled_after) > 10 * gate.settings.change_share


class CountingReader:
    """Wraps a reader and counts its calls."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, 0

    def read(self, image_bgr, *, turned=False):
        self.calls += 1
        return self.inner.read(image_bgr, turned=turned)


def test_still_table_costs_no_reads() -> None:
    video = TableVideo(GAME[:2], PLAYERS, seed=2, settings=VideoSettings(**SMALL))
    oracle = OracleReader(video)
    counting = CountingReader(oracle)
    watcher = PileWatcher(counting)
    last = video.frame_count - 1
    oracle.show(last)
    fps = 5.0
    for k in range(round(60 * fps)):  # a minute of a still table with drifting light
        t = k / fps
        watcher.feed(video.view.crop(video.render(last, at_s=video.duration_s + t), "discard"), t)
        if k == round(fps):
            settled_reads = counting.calls
            assert watcher.top_card == "blue-8"
    assert counting.calls == settled_reads <= 3


# --- the state machine on synthetic crops, with a scripted reader -----------------------------


def card(name: str, centres: Sequence[tuple[float, float]], size: float = 20.0) -> Card:
    """A vision-reader card with corner indices of ``size`` pixels at ``centres``."""
    symbol, colour = parse_card_name(name)
    indices = tuple(
        Detection((x - size / 2, y - size / 2, x + size / 2, y + size / 2), 0, SYMBOL_CLASSES[0], 0.9)
        for x, y in centres
    )
    xs, ys = [x for x, _ in centres], [y for _, y in centres]
    box = (min(xs) - size, min(ys) - size, max(xs) + size, max(ys) + size)
    return Card(
        name=name, symbol=symbol, colour=colour, confidence=0.9, box=box, colour_from="hue", indices=indices
    )


class ScriptedReader:
    """Returns the next scripted answer per call (the last one forever)."""

    def __init__(self, answers: list[list[Card]]) -> None:
        self.answers, self.calls = answers, 0

    def read(self, image_bgr, *, turned=False):
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


TABLE = np.full((200, 200, 3), 70, np.uint8)


def with_card(image: np.ndarray, x: int, y: int, value: int = 220) -> np.ndarray:
    out = image.copy()
    out[y : y + 80, x : x + 50] = value
    return out


def feed(watcher: PileWatcher, pictures: Sequence[np.ndarray], fps: float = 15.0, start: float = 0.0):
    events = []
    for k, picture in enumerate(pictures):
        events += watcher.feed(picture, start + k / fps)
    return events


def test_a_single_read_is_not_enough_and_disagreeing_reads_end_in_one_straighten_request() -> None:
    red7, red1 = card("red-7", [(80, 60), (120, 140)]), card("red-1", [(80, 60), (120, 140)])
    reader = ScriptedReader([[], [], *[[red7], [red1]] * 20])  # the empty table twice, then a flickering card
    watcher = PileWatcher(reader)
    pile = with_card(TABLE, 60, 50)
    events = feed(watcher, [TABLE] * 6 + [pile] * 60)
    assert events and all(isinstance(event, CardUnreadable) for event in events) and len(events) == 1
    reads_at_request = reader.calls
    events = feed(watcher, [pile] * 30, start=10.0)
    assert events == [] and reader.calls == reads_at_request  # asked once; nothing moved since


def test_resting_hand_that_leaves_the_top_card_visible_reports_nothing() -> None:
    red7 = card("red-7", [(80, 60), (120, 140)])
    reader = ScriptedReader([[]])
    watcher = PileWatcher(reader)
    pile = with_card(TABLE, 60, 50)
    feed(watcher, [TABLE] * 6)
    reader.answers, reader.calls = [[red7]], 0
    events = feed(watcher, [pile] * 10, start=1.0)
    assert [(type(e), e.card) for e in events] == [(CardLanded, "red-7")]
    hand = pile.copy()
    hand[0:90, 130:200] = (80, 120, 190)  # a hand rests at the edge for half a second
    events = feed(watcher, [hand] * 8 + [pile] * 10, start=3.0)
    assert events == []
    assert watcher.top_card == "red-7"


def scripted_watcher() -> tuple[PileWatcher, ScriptedReader]:
    """A watcher that has learnt the empty table (its reader saw nothing there)."""
    reader = ScriptedReader([[]])
    watcher = PileWatcher(reader)
    feed(watcher, [TABLE] * 6)
    return watcher, reader


def show(watcher: PileWatcher, reader: ScriptedReader, answer: list[Card], picture, frames=8, start=0.0):
    """``picture`` for ``frames`` frames while the reader sees ``answer`` on it; returns the events."""
    reader.answers, reader.calls = [answer], 0
    return feed(watcher, [picture] * frames, start=start)


def landings(events) -> list[tuple[str, bool]]:
    return [(e.card, e.replayed) for e in events if isinstance(e, CardLanded)]


def test_same_card_in_a_new_pose_is_a_replay_and_the_pile_can_be_cleared() -> None:
    first, second = card("red-7", [(80, 60), (120, 140)]), card("red-7", [(95, 70), (116, 156)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 60, 50)
    events = show(watcher, reader, [first], one, start=1.0)
    events += show(watcher, reader, [first, second], with_card(one, 75, 62, value=200), start=2.0)
    assert landings(events) == [("red-7", False), ("red-7", True)]
    events = show(watcher, reader, [], TABLE, start=3.0)
    assert [type(e) for e in events] == [PileCleared] and watcher.top_card is None


def test_after_the_pile_was_cleared_a_card_where_the_last_top_card_lay_is_a_landing() -> None:
    """A new round's first card may be the last round's top card, turned up where it lay."""
    blue3, red7 = card("blue-3", [(80, 60), (120, 140)]), card("red-7", [(95, 70), (116, 156)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 60, 50)
    two = with_card(one, 75, 62, value=200)
    events = show(watcher, reader, [blue3], one, start=1.0)
    events += show(watcher, reader, [blue3, red7], two, start=2.0)
    events += show(watcher, reader, [], TABLE, start=3.0)
    events += show(watcher, reader, [red7], with_card(TABLE, 75, 62, value=200), start=4.0)
    assert [type(e) for e in events] == [CardLanded, CardLanded, PileCleared, CardLanded]
    assert landings(events) == [("blue-3", False), ("red-7", False), ("red-7", False)]


def test_laid_out_hand_counts_each_card_as_most_reads_saw_it() -> None:
    two_sevens = [card("red-7", [(10, 10)]), card("red-7", [(60, 10)]), card("wild", [(110, 10)])]
    reader = ScriptedReader([two_sevens, two_sevens[:2], [*two_sevens, card("blue-1", [(160, 10)])]])
    assert read_laid_out(reader, [TABLE] * 3) == ["red-7", "red-7", "wild"]
    assert read_laid_out(reader, []) == []


def test_a_lone_corner_that_still_shows_the_bare_cover_is_the_covers_print_not_a_card() -> None:
    """On a zebra oilcloth a blob beside the laid-out hand passes for a wild's lone corner in every
    look (the print does not move). Where its patch looks as it did before any card was laid there,
    it is the cover's own print; a lone corner laid over the print, and a card read from both
    corners, are counted."""
    rng = np.random.default_rng(7)
    cover = cv2.GaussianBlur(rng.integers(0, 255, (200, 200, 3)).astype(np.uint8), (5, 5), 0)
    laid = cover.copy()
    laid[100:180, 20:70] = 230  # a card laid out, read from its one visible corner at (30, 110)
    laid[105:115, 25:35] = 30
    laid[100:180, 120:170] = 225  # a card read from both corners
    phantom = card("wild", [(100, 30)])  # a blob of the print above the row
    lone = card("red-7", [(30, 110)])
    whole = card("blue-2", [(130, 110), (160, 170)])
    dimmer = np.clip(laid * 0.85 + 8, 0, 255).astype(np.uint8)  # the lamp dimmed since the bare look
    reader = ScriptedReader([[phantom, lone, whole]])
    assert read_laid_out(reader, [laid, dimmer, laid], bare=cover) == ["blue-2", "red-7"]
    assert read_laid_out(reader, [laid, dimmer, laid]) == ["blue-2", "red-7", "wild"]
    # A cover with no pattern there (a plain cloth) cannot tell: the card is counted.
    plain = TABLE.copy()
    assert read_laid_out(reader, [plain], bare=plain) == ["blue-2", "red-7", "wild"]


def test_a_look_with_cards_in_it_is_no_bare_cover() -> None:
    assert bare_cover(ScriptedReader([[card("wild", [(100, 30)])]]), TABLE) is None
    assert bare_cover(ScriptedReader([[]]), TABLE) is TABLE


def test_corners_of_two_identical_cards_paired_together_are_no_new_card() -> None:
    """Two blue 8s on the pile; a hand covers one corner of each, and the reader pairs the other two
    corners into one "blue 8" in a pose nobody played (seen in a simulated game)."""
    old, new = card("blue-8", [(60, 50), (100, 130)]), card("blue-8", [(110, 60), (150, 140)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    two = with_card(one, 90, 40, value=200)
    events = show(watcher, reader, [old], one, start=1.0)
    events += show(watcher, reader, [old, new], two, start=2.0)
    assert landings(events) == [("blue-8", False), ("blue-8", True)]
    mixed = card("blue-8", [(60, 50), (150, 140)])  # the old card's first corner, the new one's second
    covered = two.copy()
    covered[40:146, 85:200] = (80, 120, 190)  # a hand resting over the right-hand side of the pile
    assert landings(show(watcher, reader, [mixed], covered, frames=10, start=3.0)) == []
    assert watcher.top_card == "blue-8"


def test_a_still_arm_over_the_pile_makes_no_play_of_what_it_half_covers() -> None:
    """Under a hovering hand the reader can misread the top card (skin tints a corner): two reads
    agreeing on that are still no play while the change reaches in from the zone's edge. Held quite
    still for three seconds, the arm is asked about once (it might be a card): never silence."""
    red7 = card("red-7", [(80, 60), (120, 140)])
    misread = card("yellow-7", [(120, 140)])  # the corner under the hand
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    show(watcher, reader, [red7], pile, start=1.0)
    arm = pile.copy()
    arm[95:200, 85:150] = (80, 120, 190)  # an arm from the front edge, its hand on the card's corner
    events = show(watcher, reader, [misread], arm, frames=45, start=2.0)  # three still seconds
    assert [type(event) for event in events] == [CardUnreadable] and events[0].timestamp >= 2.0 + 1.8
    assert watcher.top_card == "red-7"
    assert show(watcher, reader, [red7], pile, start=6.0) == []


def test_an_arm_across_the_top_card_that_makes_both_its_corners_another_symbol_is_no_play() -> None:
    """An arm reaching across the pile for the draw pile half-covers the top card; the reader takes
    both its corners for another symbol and pairs them (a red 7 read as a red 1, seen in a game
    filmed in a typeface no network saw). The misreading lies in the top card's pose and its box
    spans the arm, so only the pose tells: no play, and nothing once the arm has gone."""
    red7 = card("red-7", [(80, 60), (120, 140)])
    misread = card("red-1", [(82, 63), (121, 137)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    show(watcher, reader, [red7], pile, start=1.0)
    arm = pile.copy()
    arm[45:75, :] = (80, 120, 190)  # from the zone's left edge to its right, over the top corner
    assert landings(show(watcher, reader, [misread], arm, frames=10, start=2.0)) == []
    assert show(watcher, reader, [red7], pile, start=3.0) == []
    assert watcher.top_card == "red-7"


def test_an_arm_paused_over_the_top_card_that_shows_its_other_corner_is_no_replay() -> None:
    """A wild whose print the reader finds by one corner only; an arm reaching for the draw pile
    pauses over it, its shadow changes the whole card, and the reader now finds both corners, one
    a few pixels off (seen in a game filmed with photographed faces, reported as a second wild). The
    change reaches in from the zone's edge: no card was laid anew, and none is once the arm left."""
    seen_by_one = card("wild", [(100, 118)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    assert landings(show(watcher, reader, [seen_by_one], pile, start=1.0)) == [("wild", False)]
    shadow = pile.copy()
    shadow[40:200, 50:140] = (shadow[40:200, 50:140] * 0.6).astype(np.uint8)  # from the front edge
    both = card("wild", [(70, 62), (104, 122)])
    assert landings(show(watcher, reader, [both], shadow, frames=10, start=2.0)) == []
    assert landings(show(watcher, reader, [seen_by_one], pile, start=3.0)) == []
    assert watcher.top_card == "wild"


def test_a_card_landing_at_the_zone_edge_is_still_a_play() -> None:
    red7, red2 = card("red-7", [(80, 60), (120, 140)]), card("red-2", [(160, 135), (185, 185)], 15)
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    show(watcher, reader, [red7], pile, start=1.0)
    edge = with_card(pile, 150, 120, value=200)  # reaches the zone's bottom edge
    assert landings(show(watcher, reader, [red7, red2], edge, start=2.0)) == [("red-2", False)]


def test_an_identical_card_laid_almost_square_on_the_last_is_still_a_replay() -> None:
    """A second yellow +2 put down 6 mm and 7° off the first (seen in a simulated game): its corners
    move by about half an index — more than a read wobbles, so it is a new card."""
    first, second = card("red-7", [(80, 60), (120, 140)]), card("red-7", [(88, 66), (126, 150)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 60, 50)
    events = show(watcher, reader, [first], one, start=1.0)
    events += show(watcher, reader, [second], with_card(one, 66, 56, value=200), start=2.0)
    assert landings(events) == [("red-7", False), ("red-7", True)]


def test_an_identical_card_laid_over_the_one_corner_seen_of_an_older_one_is_a_play() -> None:
    """An older red +2 was only ever seen by one corner (a coin lies on the other); a second red +2
    laid with its corner right there is still a new card: it moved, and the picture changed at every
    corner of it and over its face."""
    older, blue3 = card("red-draw2", [(130, 120)]), card("blue-3", [(30, 30), (60, 90)])
    newer = card("red-draw2", [(95, 55), (125, 115)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 120, 110)
    one[165:195, 145:175] = (40, 60, 90)  # the coin
    two = with_card(one, 20, 20, value=180)
    events = show(watcher, reader, [older], one, start=1.0)
    events += show(watcher, reader, [older, blue3], two, start=2.0)
    events += show(watcher, reader, [blue3, newer], with_card(two, 85, 45, value=150), start=3.0)
    assert landings(events) == [("red-draw2", False), ("blue-3", False), ("red-draw2", False)]


def test_an_identical_card_laid_turned_over_an_older_one_is_a_play() -> None:
    """An older red +2 lies under a red 1, one corner in view; a second red +2 is laid turned by
    about 180° almost where the first lay, its corners within a read's wobble of the older one's
    (seen in a simulated game, where the play was missed). The picture changed at both its corners
    and over its whole face: a new card."""
    older, red1 = card("red-draw2", [(75, 65), (105, 125)]), card("red-1", [(80, 100), (110, 160)])
    newer = card("red-draw2", [(108, 128), (78, 70)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 60, 50)
    two = with_card(one, 70, 90, value=160)
    events = show(watcher, reader, [older], one, start=1.0)
    events += show(watcher, reader, [card("red-draw2", [(75, 65)]), red1], two, start=2.0)
    events += show(watcher, reader, [newer], with_card(two, 63, 55, value=200), start=3.0)
    assert landings(events) == [("red-draw2", False), ("red-1", False), ("red-draw2", False)]


def test_a_card_laid_across_the_top_card_leaves_it_the_same_card() -> None:
    """A wild the reader cannot make out lands across the middle of a red 7 whose both corners stay
    in view (seen in a simulated game). The picture changed around both corners and over most of
    the 7's face, yet the 7 did not move: no replay of it."""
    red7 = card("red-7", [(75, 65), (105, 125)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    assert landings(show(watcher, reader, [red7], pile, start=1.0)) == [("red-7", False)]
    across = pile.copy()
    across[68:122, 50:130] = 30
    wobbled = card("red-7", [(76, 64), (104, 126)])
    assert landings(show(watcher, reader, [wobbled], across, start=2.0)) == []


def test_the_top_cards_second_corner_uncovered_is_no_new_card() -> None:
    """A card lands with a coin on one of its corners; the coin is picked up and the reader now sees
    both corners: the corner seen all along did not change, so this is the same card."""
    covered, whole = card("red-7", [(80, 60)]), card("red-7", [(80, 60), (120, 140)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 60, 50)
    coin = pile.copy()
    coin[120:160, 100:140] = 150  # over the card's lower corner and the table beside it
    events = show(watcher, reader, [covered], coin, start=1.0)
    events += show(watcher, reader, [whole], pile, start=2.0)
    assert landings(events) == [("red-7", False)]
    assert not [e for e in events if isinstance(e, CardUnreadable)]


def test_each_landing_says_from_which_side_the_arm_reached_in(busy_game) -> None:
    """The simulated players sit around the table; each arm crosses the zone's edge on its seat's side."""
    video, events = busy_game
    landed = [event for event in events if isinstance(event, CardLanded)]
    seat_of = {name: seat for seat, name in enumerate(PLAYERS)}
    for event, truth in zip(landed, video.truth.pile_events, strict=True):
        if truth.by is None:
            continue
        seat_x, seat_y = video.seat_direction(seat_of[truth.by])
        seat_deg = math.degrees(math.atan2(seat_y, seat_x))
        assert event.reached_from_deg is not None
        assert angle_between(event.reached_from_deg, seat_deg) < 30, (truth.by, event.reached_from_deg)


def test_an_older_cards_untouched_corner_paired_with_a_new_corner_is_not_the_new_card() -> None:
    """Seen filming a real deck: a green 8 laid beside a green 4, whose top corner the reader pairs
    with the 8's other corner (misread as a 4). That pairing holds a corner on pixels that did not
    change, where the green 4's corner lay: an older card, not the one that landed."""
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [card("green-4", [(50, 40), (82, 100)])], one, start=1.0)) == [
        ("green-4", False)
    ]
    misread = card("green-4", [(82, 100), (96, 50)])
    eight = card("green-8", [(130, 110)])
    events = show(watcher, reader, [misread, eight], with_card(one, 88, 40, value=200), start=2.0)
    assert landings(events) == [("green-8", False)]


def test_a_first_read_does_not_name_the_card_a_better_second_read_finds() -> None:
    """Seen filming a real deck: a yellow 4 laid on a yellow 9. The first read, the hand just gone,
    found only the 9's corners re-paired; the second found both corners of the 4. The whole, fresh
    card is the one that landed, not the one the first read happened to offer."""
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    nine = card("yellow-9", [(50, 40), (82, 100)])
    assert landings(show(watcher, reader, [nine], one, start=1.0)) == [("yellow-9", False)]
    two = with_card(one, 70, 60, value=200)
    crossed_nine = card("yellow-9", [(50, 40), (100, 130)])
    four = card("yellow-4", [(80, 70), (112, 130)])
    reader.answers, reader.calls = [[crossed_nine], [crossed_nine, four]], 0
    events = feed(watcher, [two] * 10, start=2.0)
    assert landings(events) == [("yellow-4", False)]


def test_of_two_new_lone_corners_the_one_whose_face_changed_is_the_card_that_landed() -> None:
    """Seen on a filmed table with a learnt deck (forty-fourth session, seed 710): a green 9 landed,
    read by one corner, and an older wild draw four's corner by the changed region's edge, found in
    one view only, had never been accounted for. Both lone, both equally sure (a learnt deck vouches
    for each at 1.0), and the first in reading order was called. A card that landed changed the
    picture over its whole face; the older card's face mostly did not change."""
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 20, 20, value=150)
    assert landings(show(watcher, reader, [card("green-4", [(30, 30), (60, 90)])], one, start=1.0)) == [
        ("green-4", False)
    ]
    laid = with_card(one, 80, 30, value=200)
    older_corner, new_corner = card("wild-draw4", [(76, 34)]), card("green-9", [(95, 45)])
    events = show(
        watcher, reader, [card("green-4", [(30, 30), (60, 90)]), older_corner, new_corner], laid, start=2.0
    )
    assert landings(events) == [("green-9", False)]


class TwoViewReader:
    """Answers the upright and the turned view differently, as the network may."""

    def __init__(self, upright: list[Card], turned: list[Card]) -> None:
        self.upright, self.turned, self.views = upright, turned, []

    def read(self, image_bgr, *, turned=False):
        self.views.append(turned)
        return self.turned if turned else self.upright


def test_reads_alternate_views_and_a_replay_paired_differently_in_each_still_lands_once() -> None:
    """Seen in a simulated game: a red 2 on a red 2. Upright, the reader pairs each card's corners;
    turned, it pairs the old card's corners with the new card's. Both name a new red 2 with a
    corner where the new card lies: one replay, not a stalemate ending in "straighten the card"."""
    old = card("red-2", [(60, 50), (100, 130)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [old], one, start=1.0)) == [("red-2", False)]
    new = card("red-2", [(110, 60), (150, 140)])
    crossed = [card("red-2", [(60, 50), (150, 140)]), card("red-2", [(100, 130), (110, 60)])]
    two_views = TwoViewReader([old, new], crossed)
    watcher.reader = two_views
    events = feed(watcher, [with_card(one, 90, 40, value=200)] * 8, start=2.0)
    assert landings(events) == [("red-2", True)]
    assert two_views.views[:2] == [False, True]


def test_two_older_cards_corners_paired_are_no_new_card() -> None:
    """Seen in a simulated game (seed 805, t = 56.3 s): a blue 7 laid on its twin in the same pose.
    The reader paired a green 2's corner with a blue 9's corner misread as 2, and the watcher
    announced a blue 2. Corners of two different older cards, each where it was, are no card that
    landed; the watcher asks rather than names it."""
    green2, blue9 = card("green-2", [(150, 40)]), card("blue-9", [(50, 70), (80, 150)])
    blue7 = card("blue-7", [(70, 50), (100, 110)])
    watcher, reader = scripted_watcher()
    pile = with_card(with_card(TABLE, 130, 20), 40, 60, value=200)
    assert landings(show(watcher, reader, [green2, blue9], pile, start=1.0)) == [("blue-9", False)]
    with_seven = pile.copy()
    with_seven[30:120, 60:120] = 180
    events = show(watcher, reader, [green2, blue9, blue7], with_seven, start=2.0)
    assert landings(events) == [("blue-7", False)]
    again = pile.copy()
    again[30:160, 60:120] = 160  # its twin, laid in the same pose, changes the picture down to the 9
    pairing = card("blue-2", [(150, 40), (80, 150)])
    reader.answers, reader.calls = [[green2, blue9, blue7, pairing]], 0
    events = feed(watcher, [again] * 60, start=3.0)
    assert ("blue-2", False) not in landings(events)
    assert landings(events) or [e for e in events if isinstance(e, CardUnreadable)]  # never silent


def test_crossed_corners_of_a_replay_win_over_a_half_covered_corner_misread() -> None:
    """Seen in a simulated game (seed 800, t = 24.9 s): a red reverse laid on a red reverse, over
    the corner of a red 4, with both old corners still in view. The reader crosses the two
    reverses' corners and reads what is left of the 4's corner as a lone red 0. The crossed pairs,
    re-paired, are the old reverse where it lay and a whole, fresh reverse: that one landed."""
    four, old = card("red-4", [(150, 62)]), card("red-2", [(50, 40), (80, 100)])
    watcher, reader = scripted_watcher()
    with_four = with_card(TABLE, 130, 20)
    assert landings(show(watcher, reader, [four], with_four, start=1.0)) == [("red-4", False)]
    both = with_card(with_four, 40, 30, value=210)
    assert landings(show(watcher, reader, [four, old], both, start=2.0)) == [("red-2", False)]
    laid = both.copy()
    laid[50:190, 95:175] = 190  # the new card: over most of the 4, beside the old card's corners
    crossed = [card("red-2", [(50, 40), (165, 180)]), card("red-2", [(80, 100), (105, 60)])]
    misread_four = replace(card("red-0", [(152, 64)]), confidence=0.5)
    reader.answers, reader.calls = [[*crossed, misread_four]], 0
    events = feed(watcher, [laid] * 20, start=3.0)
    assert landings(events) == [("red-2", True)]
    assert not [e for e in events if isinstance(e, CardUnreadable)]


def test_a_replay_whose_views_each_pick_another_pairing_still_lands() -> None:
    """Seen in a simulated game: a blue 2 on a blue 2. Upright, the reader offers two crossed pairs
    and the surer one is old corner + new corner B; turned, it offers the other crossed pair and
    corner B alone. A read prefers the candidate the previous read chose, so the views agree."""
    old = card("red-2", [(60, 50), (100, 130)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [old], one, start=1.0)) == [("red-2", False)]
    corner_a, corner_b = (110, 60), (150, 140)
    upright = [
        card("red-2", [corner_a, (100, 130)]),
        replace(card("red-2", [corner_b, (60, 50)]), confidence=0.95),
    ]
    turned = [card("red-2", [corner_a, (100, 130)]), card("red-2", [corner_b])]
    watcher.reader = TwoViewReader(upright, turned)
    laid = one.copy()
    laid[40:150, 50:160] = 200
    events = feed(watcher, [laid] * 20, start=2.0)
    assert landings(events) == [("red-2", True)]
    assert not [e for e in events if isinstance(e, CardUnreadable)]


def a_card_by_the_zone_edge() -> tuple[PileWatcher, ScriptedReader, Card, np.ndarray]:
    """A watcher that saw a red 7 land, and the picture once a new card lies beside it reaching the
    zone's bottom edge (its corners at (115, 115) and (155, 185))."""
    red7 = card("red-7", [(60, 50), (90, 110)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [red7], pile, start=1.0)) == [("red-7", False)]
    laid = pile.copy()
    laid[100:200, 100:170] = 200
    return watcher, reader, red7, laid


def test_a_card_one_view_reads_by_a_lone_corner_is_not_taken_for_an_arm() -> None:
    """Seen in a simulated game: a yellow 3 landed by the zone's edge; the turned view read both its
    corners, the upright view one (the other misread). A lone corner's card box is a guess, and the
    change beyond it looked like an arm, so the two views never agreed twice in a row."""
    watcher, _, red7, laid = a_card_by_the_zone_edge()
    lone = [red7, card("red-5", [(115, 115)]), card("red-2", [(155, 185)])]
    whole = [red7, card("red-5", [(115, 115), (155, 185)])]
    watcher.reader = TwoViewReader(lone, whole)
    events = feed(watcher, [laid] * 20, start=2.0)
    assert landings(events) == [("red-5", False)]


def test_a_half_covered_corner_misread_as_an_older_cards_twin_is_no_new_card() -> None:
    """Seen in a simulated game: a yellow 3 landed over a green 3 and left one of its corners half
    covered. The reader took that corner for a 2 and paired it with the unmoved corner of an older
    green 2 into a surer "green 2" than the yellow 3. A new card has no corner exactly where an
    identical card had one, so the yellow 3 is the play."""
    green2 = card("green-2", [(40, 40), (80, 120)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 20, 20)
    assert landings(show(watcher, reader, [green2], one, start=1.0)) == [("green-2", False)]
    green3 = card("green-3", [(120, 60), (110, 150)])
    two = with_card(one, 90, 40, value=190)
    events = show(watcher, reader, [card("green-2", [(40, 40)]), green3], two, start=2.0)
    assert landings(events) == [("green-3", False)]
    misread = replace(card("green-2", [(40, 40), (110, 150)]), confidence=0.95)
    yellow3 = card("yellow-3", [(60, 90), (150, 110)])
    three = two.copy()
    three[20:170, 30:170] = 160  # the yellow 3 lies across most of the zone
    events = show(watcher, reader, [misread, yellow3], three, start=3.0)
    assert landings(events) == [("yellow-3", False)]


def test_a_replay_read_as_crossed_pairs_beats_a_stray_lone_corner() -> None:
    """Seen in a simulated game: a green reverse laid on a green reverse. Upright, the reader paired
    each new corner with an old one (so every pairing holds an unmoved corner) and also saw a lone,
    unsure corner of another card by the new card's edge; turned, it paired the new corners right
    and saw the stray corner again. The replay lands; the stray corner makes no play."""
    old = card("green-reverse", [(60, 50), (100, 130)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [old], one, start=1.0)) == [("green-reverse", False)]
    new_a, new_b = (120, 50), (140, 150)
    stray = replace(card("blue-1", [(165, 40)]), confidence=0.3)
    upright = [
        card("green-reverse", [new_a, (100, 130)]),
        card("green-reverse", [new_b, (60, 50)]),
        stray,
    ]
    turned = [card("green-reverse", [new_a, new_b]), old, stray]
    watcher.reader = TwoViewReader(upright, turned)
    laid = one.copy()
    laid[30:170, 100:175] = 200
    events = feed(watcher, [laid] * 20, start=2.0)
    assert landings(events) == [("green-reverse", True)]


def test_a_card_straightened_off_the_zone_edge_is_a_play_not_an_arm() -> None:
    """Seen in a simulated game: a card landed half off the zone, the watcher asked for it to be
    straightened, and it was pushed onto the pile. The table showing again where it had lain is
    change that reaches the zone's edge, but no arm: it looks like the empty table."""
    watcher, reader = scripted_watcher()
    off = TABLE.copy()
    off[20:190, 120:200] = 220  # over the zone's right edge, turned across it
    events = show(watcher, reader, [], off, frames=60, start=1.0)
    assert [type(e) for e in events] == [CardUnreadable]
    straightened = with_card(TABLE, 60, 50)
    red7 = card("red-7", [(75, 60), (105, 120)])
    events = show(watcher, reader, [red7], straightened, frames=10, start=6.0)
    assert landings(events) == [("red-7", False)]


# --- never silent: doubled cards and cards the reader cannot read ------------------------------


def lone(reading: Card) -> list[Card]:
    """``reading`` as a reader that did not pair its corners gives it: one card per corner, each
    with the box the vision reader estimates for a lone index (the index grown by 0.7 of its size)."""
    cards = []
    for index in reading.indices:
        x1, y1, x2, y2 = index.box
        margin = 0.7 * index.size
        cards.append(
            replace(reading, box=(x1 - margin, y1 - margin, x2 + margin, y2 + margin), indices=(index,))
        )
    return cards


def test_a_card_read_as_two_by_the_zone_edge_lands_once() -> None:
    """Seen on a filmed table with real faces: a yellow 7 read in every view as two yellow 7s whose
    corners were not paired. Each lone corner's box is a guess the size of an index, so the card
    reaching the zone's edge looked like an arm and the watcher said nothing at all."""
    watcher, reader, red7, laid = a_card_by_the_zone_edge()
    yellow7 = card("yellow-7", [(115, 115), (155, 185)])
    events = show(watcher, reader, [red7, *lone(yellow7)], laid, frames=30, start=2.0)
    assert landings(events) == [("yellow-7", False)]
    assert events[0].timestamp <= 2.0 + 2.0
    assert sorted(events[0].index_centres) == [(115.0, 115.0), (155.0, 185.0)]


def test_an_identical_card_read_as_two_lands_once_as_a_replay() -> None:
    """A second red 7 laid almost square on the first, read as two lone corners: each corner lies
    within a read's wobble of a corner of the older 7, yet together they are the new card."""
    first, second = card("red-7", [(72, 60), (98, 120)]), card("red-7", [(76, 64), (102, 124)])
    watcher, reader = scripted_watcher()
    one = with_card(TABLE, 60, 50)
    events = show(watcher, reader, [first], one, start=1.0)
    events += show(watcher, reader, lone(second), with_card(one, 64, 54, value=200), frames=30, start=2.0)
    assert landings(events) == [("red-7", False), ("red-7", True)]


def test_a_game_read_doubled_and_blind_to_one_print_lands_each_card_once_and_asks_for_the_rest() -> None:
    """The oracle reads every whole card as two lone corners and never sees the wild draw four (a
    print the detector does not know): each other card lands once, and the wild draw four gets
    "please straighten the card" within 2 s of the hand leaving it — never silence, never a guess."""
    video = TableVideo(GAME, PLAYERS, seed=11, settings=VideoSettings(**SMALL))
    errors = ReaderErrors(doubled=1.0, blind_to=frozenset({"wild-draw4"}))
    events, _ = watch(video, errors=errors, seed=3)
    truth = video.truth.pile_events
    assert landings(events) == [(e.card, e.identical_replay) for e in truth if e.card != "wild-draw4"]
    asked = [event for event in events if isinstance(event, CardUnreadable)]
    blind = next(e for e in truth if e.card == "wild-draw4")
    assert len(asked) == 1 and blind.hand_left_s < asked[0].timestamp <= blind.hand_left_s + 2.0


def test_a_card_read_by_one_corner_that_looks_like_an_arm_is_asked_about_within_two_seconds() -> None:
    """A card lands reaching the zone's edge and every read sees only one of its corners: the
    change lies mostly beyond that corner's small box, as an arm's would. The watcher cannot tell,
    so it must not stay silent: it asks to straighten the card, once, within 2 s."""
    watcher, reader, red7, laid = a_card_by_the_zone_edge()
    events = show(watcher, reader, [red7, card("yellow-7", [(115, 115)])], laid, frames=60, start=2.0)
    assert [type(event) for event in events] == [CardUnreadable]
    assert events[0].timestamp <= 2.0 + 2.0


def test_a_card_still_undecided_when_the_next_hand_comes_is_asked_about_then() -> None:
    """Seen on a filmed table with real faces: a green 5 whose corners the reader took for a 5 and
    a 6, the other way round in the turned view, so no two reads agreed on where the green 5 lay.
    The next player's hand came 1.1 s after it landed, before the watcher's patience ran out, and
    the green 5 was never mentioned. Motion that ends a change seen but not decided asks now."""
    red7 = card("red-7", [(60, 50), (90, 110)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [red7], pile, start=1.0)) == [("red-7", False)]
    laid = with_card(pile, 100, 90, value=200)
    corners = [(112, 100), (138, 160)]
    upright = [red7, card("green-5", corners[:1]), card("green-6", corners[1:])]
    turned = [red7, card("green-6", corners[:1]), card("green-5", corners[1:])]
    watcher.reader = TwoViewReader(upright, turned)
    assert feed(watcher, [laid] * 15, start=2.0) == []  # one undecided second
    hand = laid.copy()
    hand[150:200, 0:60] = (80, 120, 190)  # the next player's hand reaches in
    events = feed(watcher, [hand] * 3, start=3.0)
    assert [type(event) for event in events] == [CardUnreadable] and events[0].timestamp == 3.0


def test_an_unreadable_card_taken_away_before_the_question_is_asked_about_then() -> None:
    """Seen on a filmed table with real faces: a wild draw four the reader could not see was turned
    up first and taken back half a second later, before the watcher's patience ran out: nothing
    was said.
    A change that nothing explains, lying wholly inside the zone (no arm reaches in), is asked about
    when the zone moves again; a resting hand (it reaches in from the zone's edge) is not."""
    red7 = card("red-7", [(60, 50), (90, 110)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [red7], pile, start=1.0)) == [("red-7", False)]
    hand = pile.copy()
    hand[120:200, 130:190] = (80, 120, 190)  # a hand resting on the table, in from the zone's edge
    assert show(watcher, reader, [red7], hand, frames=15, start=2.0) == []
    assert show(watcher, reader, [red7], pile, frames=15, start=3.0) == []
    laid = with_card(pile, 100, 90, value=120)  # a card the reader does not see
    assert show(watcher, reader, [red7], laid, frames=6, start=4.0) == []
    events = show(watcher, reader, [red7], hand, frames=3, start=5.0)  # the dealer takes it back
    assert [type(event) for event in events] == [CardUnreadable] and events[0].timestamp == 5.0


def test_a_card_slid_onto_the_pile_from_the_zones_edge_and_not_read_is_asked_about() -> None:
    """Seen on a filmed table with an off-brand deck's faces: a blue skip laid off the pile's edge
    (asked about), then slid onto the pile over an identical blue skip; the reader saw only the old
    one, and the next player's hand came 1.3 s later: nothing was said. That change touched the
    zone's edge only where the card had lain, and the table shows there again: no arm reaches in."""
    red7 = card("red-7", [(60, 50), (90, 110)])
    watcher, reader = scripted_watcher()
    pile = with_card(TABLE, 40, 30)
    assert landings(show(watcher, reader, [red7], pile, start=1.0)) == [("red-7", False)]
    off_the_pile = with_card(pile, 150, 60, value=200)  # reaching the zone's right edge
    events = show(watcher, reader, [red7], off_the_pile, frames=30, start=2.0)
    assert [type(event) for event in events] == [CardUnreadable]  # "please straighten the card"
    slid = with_card(pile, 60, 40, value=200)  # onto the pile; the edge is bare table again
    assert show(watcher, reader, [red7], slid, frames=12, start=5.0) == []  # undecided for 0.8 s
    hand = slid.copy()
    hand[150:200, 0:60] = (80, 120, 190)  # the next player's hand reaches in
    events = feed(watcher, [hand] * 3, start=6.0)
    assert [type(event) for event in events] == [CardUnreadable] and events[0].timestamp == 6.0
