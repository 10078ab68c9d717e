"""A picture of every play: the journal keeps a small JPEG of the discard zone with each landing's verdict."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone

import cv2
import numpy as np

from hardware.speaker import RecordingSpeaker
from referee.rules import Table
from referee.table.app import RefereeApp
from referee.table.journal import Journal, Sighting
from referee.table.phrases import PhraseBook
from referee.table.pictures import MAX_BYTES, small_jpeg
from referee.table.pile import CardLanded, CardUnreadable

NOISE = np.random.default_rng(7).integers(0, 256, (900, 700, 3), dtype=np.uint8)


def landed(card: str) -> CardLanded:
    return CardLanded(card, 0.9, (0, 0, 50, 80), ((5, 5), (45, 75)), 0.0, False)


def test_a_picture_is_a_small_jpeg_even_of_pure_noise():
    jpeg = small_jpeg(NOISE)
    assert len(jpeg) <= MAX_BYTES
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None and max(decoded.shape[:2]) <= 320


def test_every_landing_refusal_and_unreadable_card_keeps_its_picture():
    with Journal.open(":memory:") as journal:
        table = Table.deal(["Anna", "Ben"], "official")
        game = journal.start_game(table.setup, language="en")
        app = RefereeApp(table, RecordingSpeaker(), PhraseBook("en"), journal=journal, game_id=game)
        app.on_pile(landed("red-4"), NOISE)
        app.on_pile(landed("blue-9"), NOISE)  # refused
        app.on_pile(CardUnreadable(0.0), NOISE)
        app.on_pile(landed("red-5"))  # no picture given: none kept
        pictures = journal.pictures(game)
        records = journal.records(game)
    assert [(p.kind, p.observation_seq) for p in pictures] == [
        ("landed", 1),
        ("landed", 2),
        ("unreadable", 2),
    ]
    assert [p.sighting.confidence for p in pictures] == [0.9, 0.9, None]
    assert records[1]["verdict"]["ok"] is False
    assert all(len(p.sighting.jpeg) <= MAX_BYTES for p in pictures)


def test_the_pictures_stay_within_the_cap_oldest_first():
    with Journal.open(":memory:") as journal:
        game = journal.start_game({"players": ["Anna", "Ben"]}, language="en")
        journal.pictures_cap_bytes = 2500
        for t in range(5):
            journal.record_unreadable(game, Sighting(bytes(1000), float(t)))
        assert [p.sighting.t for p in journal.pictures(game)] == [3.0, 4.0]


def test_history_prunes_the_pictures_of_old_games(tmp_path):
    path = tmp_path / "journal.sqlite3"
    now = datetime.now(timezone.utc)
    with Journal.open(path, clock=lambda: now - timedelta(days=40)) as journal:
        old = journal.start_game({"players": ["Anna", "Ben"]}, language="en")
        journal.record_unreadable(old, Sighting(small_jpeg(NOISE), 1.0))
    with Journal.open(path) as journal:
        recent = journal.start_game({"players": ["Anna", "Ben"]}, language="en")
        journal.record_unreadable(recent, Sighting(small_jpeg(NOISE), 1.0))
    result = subprocess.run(
        [sys.executable, "-m", "referee", "history", "--journal", str(path), "--prune-pictures", "30"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stdout.strip() == "deleted 1 picture of games older than 30 days"
    with Journal.open(path) as journal:
        assert journal.pictures(old) == [] and len(journal.pictures(recent)) == 1
