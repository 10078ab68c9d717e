"""The journal: records survive a killed process, replay data round-trips, results follow the verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from referee.errors import UserError
from referee.rules.cards import Colour, parse_card
from referee.rules.events import CardPlayed, ColourChosen, MatchWon, NextTurn, RoundWon, Undone
from referee.rules.observations import ChooseColour, Draw, Play, Undo, observation_from_dict
from referee.rules.setup import Setup
from referee.rules.verdict import Penalty, Verdict
from referee.table.journal import Journal, default_journal_path, results_from_records

PLAYERS = ("Anna", "Ben", "Clara")


def setup() -> Setup:
    return Setup.from_dict({"players": list(PLAYERS), "rules": {"preset": "official", "jump_in": True}})


def won_round(winner: str, points: int, scores: dict[str, int], match: bool = False) -> Verdict:
    events = [CardPlayed(winner, parse_card("red-1")), RoundWon(winner, points, tuple(scores.items()))]
    if match:
        events.append(MatchWon(winner))
    return Verdict(True, events=tuple(events))


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.sqlite3") as opened:
        yield opened


def test_replay_data_round_trips_through_the_rules_types(journal):
    game = journal.start_game(setup(), language="nl", config={"speech": {"enabled": False}})
    plays = [
        (Play(parse_card("wild"), "Anna"), Verdict(True, events=(CardPlayed("Anna", parse_card("wild")),))),
        (ChooseColour(Colour.GREEN, "Anna"), Verdict(True, events=(ColourChosen("Anna", Colour.GREEN),))),
        (Play(parse_card("red-5"), "Ben"), Verdict(False, "no_match")),  # rejected, no penalty: not replayed
        (Play(parse_card("red-5"), "Ben"), Verdict(False, "no_match", (Penalty("Ben", 2, "misplay"),))),
        (Draw(1, "Ben"), Verdict(True, events=(NextTurn("Clara"),))),
    ]
    assert [journal.record(game, obs, verdict) for obs, verdict in plays] == [1, 2, 3, 4, 5]
    saved = journal.load(game)
    assert Setup.from_dict(saved.setup) == setup() and saved.players == PLAYERS and saved.language == "nl"
    replayed = [observation_from_dict(item) for item in saved.observations]
    assert replayed == [plays[0][0], plays[1][0], plays[3][0], plays[4][0]]
    records = journal.records(game)
    assert [r["replay"] for r in records] == [True, True, False, True, True]
    assert records[1]["verdict"]["events"] == [{"type": "ColourChosen", "player": "Anna", "colour": "green"}]
    assert records[3]["verdict"]["penalties"] == [{"player": "Ben", "cards": 2, "reason": "misplay"}]
    assert saved.config == {"speech": {"enabled": False}}


def test_results_history_and_standings_come_from_the_verdicts(journal):
    first = journal.start_game(setup(), language="de")
    journal.record(
        first, Play(parse_card("red-1"), "Anna"), won_round("Anna", 80, {"Anna": 80, "Ben": 0, "Clara": 0})
    )
    journal.record(
        first,
        Play(parse_card("blue-1"), "Ben"),
        won_round("Ben", 520, {"Anna": 80, "Ben": 520, "Clara": 0}, True),
    )
    second = journal.start_game(setup(), language="de")
    journal.record(second, Play(parse_card("red-2"), "Clara"), won_round("Clara", 30, {"Clara": 30}))
    third = journal.start_game(Setup.from_dict({"players": ["Anna", "Dan"]}), language="en")

    history = journal.history()
    assert [g.game_id for g in history] == [third, second, first]
    done = history[2]
    assert done.finished and done.winner == "Ben" and [r.points for r in done.rounds] == [80, 520]
    assert done.scores == {"Anna": 80, "Ben": 520, "Clara": 0}
    assert [g.game_id for g in journal.unfinished_games()] == [third, second]
    journal.abandon_game(third)
    assert [g.game_id for g in journal.unfinished_games()] == [second]

    standings = {s.player: s for s in journal.standings()}
    assert [s.player for s in journal.standings()] == ["Ben", "Anna", "Clara", "Dan"]
    assert (standings["Ben"].games, standings["Ben"].games_won, standings["Ben"].points) == (2, 1, 520)
    assert (standings["Anna"].games, standings["Anna"].rounds_won, standings["Anna"].points) == (3, 1, 80)
    assert standings["Dan"].games == 1 and standings["Dan"].rounds_won == 0


def test_an_undone_round_is_not_counted(journal):
    game = journal.start_game(setup(), language="en")
    journal.record(game, Play(parse_card("red-1"), "Anna"), won_round("Anna", 40, {"Anna": 40}, match=True))
    journal.record(game, Undo(), Verdict(True, events=(Undone("play"),)))
    summary = journal.history()[0]
    assert summary.rounds == () and summary.winner is None and not summary.finished
    assert journal.load(game).observations == [{"play": "red-1", "by": "Anna"}, {"undo": True}]


def test_results_from_records_undo_is_a_stack():
    records = [
        (
            {"play": "red-1"},
            {"events": [{"type": "RoundWon", "player": "A", "points": 5, "scores": [["A", 5]]}]},
        ),
        (
            {"play": "red-2"},
            {"events": [{"type": "RoundWon", "player": "B", "points": 7, "scores": [["B", 7]]}]},
        ),
        ({"undo": True}, {"events": []}),
        ({"undo": True}, {"events": []}),
        ({"undo": True}, {"events": []}),  # nothing left to take back
        ({"play": "red-3"}, {"events": [{"type": "MatchWon", "player": "C"}]}),
    ]
    results = results_from_records(records)
    assert results.rounds == [] and results.winner == "C"


def test_durability_settings_and_default_location(journal, tmp_path, monkeypatch):
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_journal_path() == tmp_path / "xdg" / "uno-referee" / "journal.sqlite3"
    with Journal.open() as default:
        default.start_game(setup(), language="de")
    assert (tmp_path / "xdg" / "uno-referee" / "journal.sqlite3").exists()


def test_bad_files_and_unknown_games_are_one_line(tmp_path, journal):
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"this is not a database, just some text" * 100)
    with pytest.raises(UserError, match="not usable"):
        Journal.open(broken).history()
    with pytest.raises(UserError, match="no game 99"):
        journal.load(99)
    with pytest.raises(UserError, match="no game 99"):
        journal.record(99, Undo(), Verdict(True))


CHILD = textwrap.dedent(
    """
    import sys
    from referee.rules.cards import parse_card
    from referee.rules.events import CardPlayed
    from referee.rules.observations import Play
    from referee.rules.setup import Setup
    from referee.rules.verdict import Verdict
    from referee.table.journal import Journal

    journal = Journal.open(sys.argv[1])
    game = journal.start_game(Setup.from_dict({"players": ["Anna", "Ben"]}), language="de")
    n = 0
    while True:
        n += 1
        card = parse_card(f"red-{n % 10}")
        journal.record(game, Play(card, "Anna"), Verdict(True, events=(CardPlayed("Anna", card),)))
        print(n, flush=True)  # only after the commit returned
    """
)


def test_killed_mid_game_loses_no_committed_observation(tmp_path):
    path = tmp_path / "journal.sqlite3"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        acknowledged = 0
        for line in child.stdout:
            acknowledged = int(line)
            if acknowledged >= 60:
                break
        os.kill(child.pid, signal.SIGKILL)  # no chance to close, checkpoint or flush anything
    finally:
        child.wait(10)
    assert child.returncode == -signal.SIGKILL and acknowledged == 60
    assert (tmp_path / "journal.sqlite3-wal").exists()  # the records were still in the write-ahead log

    with Journal.open(path) as reopened:
        (game,) = reopened.unfinished_games()
        observations = reopened.load(game.game_id).observations
        records = reopened.records(game.game_id)
    assert len(observations) >= acknowledged
    assert observations[:acknowledged] == [{"play": f"red-{n % 10}", "by": "Anna"} for n in range(1, 61)]
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert all(json.dumps(r["verdict"]) for r in records)


def test_history_and_scores_commands(tmp_path, capsys):
    from referee.cli import main

    path = tmp_path / "journal.sqlite3"
    assert main(["history", "--journal", str(path)]) == 0
    assert "no games recorded yet" in capsys.readouterr().out and not path.exists()
    with Journal.open(path) as journal:
        done = journal.start_game(setup(), language="de")
        journal.record(done, Play(parse_card("red-1"), "Anna"), won_round("Anna", 530, {"Anna": 530}, True))
        open_game = journal.start_game(setup(), language="nl")
        journal.record(open_game, Play(parse_card("red-9"), "Anna"), Verdict(False, "not_your_turn"))

    assert main(["history", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0].startswith(f"#{open_game} ") and f"[unfinished: uno-referee resume {open_game}]" in lines[0]
    )
    assert "1 round  Anna 530  [winner Anna]" in lines[1]

    assert main(["history", "--journal", str(path), "--game", str(open_game)]) == 0
    out = capsys.readouterr().out
    assert "play=red-9 by=Anna" in out and "rejected: not_your_turn" in out

    assert main(["scores", "--journal", str(path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["player", "games", "won", "rounds", "won", "points"]
    assert table[1].split() == ["Anna", "2", "1", "1", "530"]

    assert main(["history", "--journal", str(path), "--game", "42"]) == 2
    assert "no game 42" in capsys.readouterr().err
