"""The live scoreboard page: read-only HTTP, server-sent events, the top card's picture."""

from __future__ import annotations

import http.client
import json
import time

import numpy as np
import pytest

from hardware.speaker import RecordingSpeaker
from referee.errors import UserError
from referee.rules import Table
from referee.table.app import RefereeApp
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import CardLanded
from referee.table.scoreboard import Scoreboard, ScoreboardServer, parse_listen

PLAYERS = ("Anna", "Ben")


@pytest.fixture
def served(tmp_path):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    table = Table.deal(list(PLAYERS), "official")
    game = journal.start_game(table.setup, language="en")
    server = ScoreboardServer(Scoreboard(PLAYERS, tmp_path / "journal.sqlite3", game), "127.0.0.1", 0).start()
    app = RefereeApp(
        table, RecordingSpeaker(), PhraseBook("en"), journal=journal, game_id=game, events=server.board
    )
    yield server, app
    server.close()
    journal.close()


def request(server: ScoreboardServer, method: str, path: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    connection.request(method, path)
    response = connection.getresponse()
    return response.status, response.getheader("Content-Type", ""), response.read()


def landed(card: str) -> CardLanded:
    return CardLanded(card, 0.9, (0, 0, 50, 80), ((5, 5), (45, 75)), 0.0, False)


def test_the_page_and_its_state_are_served_and_nothing_else_is_accepted(served):
    server, app = served
    status, kind, page = request(server, "GET", "/")
    assert status == 200 and kind.startswith("text/html") and b'new EventSource("events")' in page
    assert request(server, "GET", "/top.jpg")[0] == 404  # no card yet
    app.on_pile(landed("red-4"), np.full((120, 90, 3), 200, np.uint8))
    status, _, body = request(server, "GET", "/state")
    state = json.loads(body)
    assert status == 200 and state["top"] == "red-4" and state["turn"] == "Anna" and state["colour"] == "red"
    assert state["counts"] == {"Anna": 7, "Ben": 7} and state["scores"] == {"Anna": 0, "Ben": 0}
    assert state["said"] == ["Anna's turn."] and state["players"] == list(PLAYERS)
    status, kind, picture = request(server, "GET", "/top.jpg")
    assert status == 200 and kind == "image/jpeg" and picture[:2] == b"\xff\xd8"
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert request(server, method, "/state")[0] == 405
    assert request(server, "GET", "/admin")[0] == 404


def test_a_verdict_reaches_an_open_page_at_once(served):
    server, app = served
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    assert response.fp.readline() == b"retry: 1000\n"  # the page reconnects after a restart
    first = json.loads(response.fp.readline()[6:])
    assert first["version"] == 0 and response.fp.readline() == b"\n"
    app.on_pile(landed("red-4"))
    app.on_pile(landed("red-9"))
    sent = time.monotonic()
    versions = []
    while not versions or versions[-1]["top"] != "red-9":
        line = response.fp.readline()
        if line.startswith(b"data: "):
            versions.append(json.loads(line[6:]))
    assert time.monotonic() - sent < 0.5
    assert versions[-1]["turn"] == "Ben" and versions[-1]["said"] == [
        "Anna plays the red nine.",
        "Ben's turn.",
    ]
    server.close()  # the referee stops: the stream ends, the page will reconnect
    response.fp.read()  # returns only when the server closed the stream (else: a timeout error)


def test_listen_addresses():
    assert parse_listen("8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:8080") == ("::1", 8080)
    with pytest.raises(UserError, match=r"\[HOST:\]PORT"):
        parse_listen("localhost")


def test_a_port_in_use_is_a_one_line_error(served):
    server, _ = served
    with pytest.raises(UserError, match="cannot serve the scoreboard"):
        ScoreboardServer(Scoreboard(), *server.server_address[:2])


def test_run_with_a_bad_web_address_is_a_one_line_error(tmp_path):
    import subprocess
    import sys

    config = tmp_path / "referee.toml"
    config.write_text(f'players = ["Anna", "Ben"]\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n')
    command = [sys.executable, "-m", "referee", "run", "--config", str(config), "--web", "localhost"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (
        result.returncode == 2
        and result.stderr.count("\n") == 1
        and "--web takes [HOST:]PORT" in result.stderr
    )
    assert not (tmp_path / "j.sqlite3").exists()
