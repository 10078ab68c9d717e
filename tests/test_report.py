"""The game report: one self-contained HTML page with the timeline, pictures, verdicts and scores."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import numpy as np

from hardware.buttons import ButtonName
from hardware.speaker import RecordingSpeaker
from referee.rules import Table
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import CardLanded, CardUnreadable
from referee.table.report import game_report, timeline

B = ButtonName
ZONE = np.full((200, 160, 3), (90, 140, 60), np.uint8)


def landed(card: str, confidence: float = 0.87) -> CardLanded:
    return CardLanded(card, confidence, (0, 0, 50, 80), ((5, 5), (45, 75)), 0.0, False)


def referee_a_round(journal: Journal) -> int:
    """Anna, Ben and Clara play red twos until Ben goes out; along the way a refusal, an
    unreadable card, a draw, an UNO call and a catch (of Clara). The others show action cards."""
    table = Table.deal(["Anna", "Ben", "Clara"], "official")
    game = journal.start_game(table.setup, language="en", config={"rules": {"preset": "official"}})
    app = RefereeApp(table, RecordingSpeaker(), PhraseBook("en"), journal=journal, game_id=game)
    app.read_scoring_zone = lambda: ["blue-skip"] * table.count(table.state().to_reveal[0])
    app.on_pile(landed("red-4", 0.91), ZONE)
    app.on_pile(landed("blue-9"), ZONE)  # refused: no match
    app.on_pile(CardUnreadable(0.0), ZONE)
    app.on_button(B.DRAW)  # Anna draws, then passes
    app.on_button(B.DRAW)
    for _ in range(60):  # bounded: a bug must fail the test, not hang it
        if table.waiting_for != "play":
            break
        if table.count(table.turn) == 2 and table.turn == "Ben":
            app.on_pile(landed("red-2"), ZONE)
            app.on_button(B.UNO)
            continue
        app.on_pile(landed("red-2"), ZONE)
        if table.state().catchable:
            app.on_button(B.CATCH)
    for _ in range(3):
        app.on_button(B.DRAW)
    return game


def test_the_report_shows_every_record_with_its_picture_reading_verdict_and_the_scores(tmp_path):
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        game = referee_a_round(journal)
        entries = timeline(journal, game)
        page = game_report(journal, game)
        records = journal.records(game)
    assert len(entries) == len(records)
    items = re.findall(r"<li class=(\w+)>(.*?)</li>", page)
    assert len(items) == len(records) + 1  # and the unreadable card
    kinds = [kind for kind, _ in items]
    assert {"ok", "refused", "unreadable", "draw", "uno", "catch"} <= set(kinds)
    first = items[0][1]
    assert (
        "flip red-4" in first and "read with 91% confidence" in first and "data:image/jpeg;base64," in first
    )
    refused = items[kinds.index("refused")][1]
    assert "play blue-9" in refused and "refused: no_match" in refused and "<img" in refused
    assert items[kinds.index("refused") + 1][0] == "unreadable"  # in the timeline where it happened
    catch = items[kinds.index("catch")][1]
    assert "catch Clara" in catch and "Clara +2" in catch
    # The spoken sentences are those of the game, replayed from the journal.
    assert "“Ben plays the red two." in page
    # Scores: one round, its winner and totals.
    assert "<tr><td>1</td><td>Ben</td><td>100</td><td>0</td><td>100</td><td>0</td></tr>" in page
    # Self-contained: nothing to fetch, and every picture decodes.
    assert (
        not re.search(r"(src|href)=\"?(https?:|//)", page) and "<script" not in page and "<link" not in page
    )
    for data in re.findall(r"data:image/jpeg;base64,([A-Za-z0-9+/=]+)", page):
        assert base64.b64decode(data)[:2] == b"\xff\xd8"


def test_report_command_writes_the_newest_game_and_names_a_missing_one(tmp_path):
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        referee_a_round(journal)
    out = tmp_path / "report.html"
    command = [sys.executable, "-m", "referee", "report", "--journal", str(path), "--html", str(out)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("game #1: report written")
    assert out.read_text().startswith("<!doctype html>")
    missing = subprocess.run([*command[:4], "7", *command[4:]], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.strip().splitlines() == [
        "uno-referee: error: there is no game 7 in the journal: see uno-referee history"
    ]
    nothing = subprocess.run(
        [*command[:5], str(tmp_path / "none.sqlite3"), "--html", str(out)], capture_output=True, text=True
    )
    assert nothing.returncode == 2 and "no journal at" in nothing.stderr
