"""The journal: every game, observation and verdict in SQLite, safe through a power cut.

The referee records each observation *before* it announces the verdict, and every record is its
own committed transaction in WAL mode with ``synchronous=FULL``: when the Pi loses power the
journal holds every observation the table has heard about, and ``resume`` replays them into a
fresh rules ``Table``. ``history`` and ``scores`` read the same file (WAL lets them read while a
game is being written).

Round and match results are not written separately: they are the ``RoundWon`` and ``MatchWon``
events in the recorded verdicts, read back with undo applied, so they can never disagree with
what was announced.

>>> from referee.rules.observations import Play
>>> from referee.rules.cards import parse_card
>>> from referee.rules.verdict import Verdict
>>> journal = Journal.open(":memory:")
>>> game = journal.start_game({"players": ["Anna", "Ben"], "rules": {}}, language="de")
>>> journal.record(game, Play(parse_card("red-7"), "Anna"), Verdict(True))
1
>>> journal.load(game).observations
[{'play': 'red-7', 'by': 'Anna'}]
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.rules.cards import Card, Colour
from referee.rules.events import MatchWon, RoundWon
from referee.table.config import JournalConfig, user_data_dir

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id           INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL,
    abandoned_at TEXT,            -- ended without a winner (the table stopped playing)
    language     TEXT NOT NULL,
    players      TEXT NOT NULL,   -- JSON list, seats clockwise (a copy of setup.players, for queries)
    setup        TEXT NOT NULL,   -- JSON: the rules core's Setup.to_dict(), rules included
    config       TEXT NOT NULL    -- JSON: the config file as it was
);
CREATE TABLE IF NOT EXISTS observations (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    observation TEXT NOT NULL,    -- JSON: the observation's to_dict() (the scenario step form)
    replay      INTEGER NOT NULL, -- 1: it changed the state (Verdict.recorded), resume replays it
    verdict     TEXT NOT NULL,    -- JSON: ok, reason, penalties, events (each with its "type")
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS presses (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    t           REAL NOT NULL,    -- seconds since the stream started (video time for a recording)
    frame       INTEGER NOT NULL, -- the frame after which the press was taken in (-1: before the first)
    button      TEXT NOT NULL,    -- hardware.buttons.ButtonName's name: DRAW, UNO, RED, ...
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS pictures (
    id              INTEGER PRIMARY KEY,
    game_id         INTEGER NOT NULL REFERENCES games(id),
    observation_seq INTEGER NOT NULL, -- landed: the verdict it shows; unreadable: the last one before it
    kind            TEXT NOT NULL,    -- "landed" (accepted or refused) or "unreadable"
    t               REAL NOT NULL,    -- seconds since the stream started
    confidence      REAL,             -- the reader's confidence in the card it read (landed)
    jpeg            BLOB NOT NULL     -- the discard zone, referee.table.pictures.small_jpeg
);
CREATE INDEX IF NOT EXISTS pictures_of_game ON pictures (game_id, observation_seq);
"""

#: Default cap on all pictures in one journal together (the oldest go first): ``[journal] pictures_mb``.
PICTURES_CAP_BYTES = JournalConfig().pictures_mb * 1024 * 1024


@dataclass(frozen=True)
class Sighting:
    """What the camera saw when a card landed (or could not be read): the picture kept with the verdict."""

    jpeg: bytes
    t: float  # seconds since the stream started
    confidence: float | None = None  # the reader's, for a card it read


@dataclass(frozen=True)
class Picture:
    """One kept picture of the discard zone, with the record it belongs to."""

    game_id: int
    observation_seq: int  # landed: the verdict it shows; unreadable: the last verdict before it (0: none)
    kind: str  # "landed" or "unreadable"
    sighting: Sighting


def default_journal_path() -> Path:
    return user_data_dir() / "journal.sqlite3"


def existing_journal(path: str | os.PathLike[str] | None) -> Journal | None:
    """The journal at ``path`` if one was written there, without creating it (for read-only commands)."""
    target = Path(path).expanduser() if path is not None else default_journal_path()
    return Journal.open(target) if target.exists() else None


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def to_plain(value: Any) -> Any:
    """JSON-able data from the rules core's typed objects.

    Cards become their names and colours their labels (the scenario spelling); objects with
    ``to_dict`` use it; other dataclasses (the events) keep their class name as ``"type"``.

    >>> from referee.rules.events import ColourChosen
    >>> to_plain(ColourChosen("Ben", Colour.RED))
    {'type': 'ColourChosen', 'player': 'Ben', 'colour': 'red'}
    """
    if isinstance(value, Card):
        return value.name
    if isinstance(value, Colour):
        return value.label
    if hasattr(value, "to_dict"):
        return to_plain(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {item.name: to_plain(getattr(value, item.name)) for item in dataclasses.fields(value)}
        return {"type": type(value).__name__, **fields}
    if isinstance(value, enum.Enum):
        return to_plain(value.value)
    if isinstance(value, Mapping):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value


def verdict_to_plain(verdict: Any) -> dict[str, Any]:
    """The rules core's ``Verdict`` (a slotted class, not a dataclass) as JSON-able data."""
    if isinstance(verdict, Mapping):
        return to_plain(verdict)
    return {
        "ok": bool(verdict.ok),
        "reason": verdict.reason,
        "penalties": to_plain(verdict.penalties),
        "events": to_plain(verdict.events),
    }


def _dumps(value: Any) -> str:
    return json.dumps(to_plain(value), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SavedGame:
    """What ``resume`` needs: ``Setup.from_dict(setup)``, then each observation, in order, replayed."""

    game_id: int
    setup: dict[str, Any]
    language: str
    config: dict[str, Any]
    observations: list[dict[str, Any]]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.setup["players"])


@dataclass(frozen=True)
class RoundResult:
    winner: str
    points: int
    scores: dict[str, int]  # match totals after the round


@dataclass(frozen=True)
class GameSummary:
    game_id: int
    started_at: str
    players: tuple[str, ...]
    language: str
    observations: int
    rounds: tuple[RoundResult, ...] = ()
    winner: str | None = None
    abandoned: bool = False

    @property
    def finished(self) -> bool:
        return self.winner is not None or self.abandoned

    @property
    def scores(self) -> dict[str, int]:
        """Match totals after the last finished round (empty before the first)."""
        return self.rounds[-1].scores if self.rounds else {}


@dataclass(frozen=True)
class Standing:
    """One player's record over all games in the journal."""

    player: str
    games: int = 0
    games_won: int = 0
    rounds_won: int = 0
    points: int = 0  # points scored in the rounds this player (or the team) won


@dataclass
class _Results:
    """Round and match results of one game, read from its verdicts with undo applied."""

    rounds: list[RoundResult] = field(default_factory=list)
    winner: str | None = None


def results_from_records(records: Iterable[tuple[dict[str, Any], dict[str, Any]]]) -> _Results:
    """Replay (observation, verdict) pairs as a stack: ``undo`` takes back the latest live record."""
    live: list[dict[str, Any]] = []
    for observation, verdict in records:
        if "undo" in observation:
            if live:
                live.pop()
        else:
            live.append(verdict)
    results = _Results()
    for verdict in live:
        for event in verdict.get("events", ()):
            if event.get("type") == RoundWon.__name__:
                scores = {str(name): int(total) for name, total in event["scores"]}
                results.rounds.append(RoundResult(event["player"], int(event["points"]), scores))
            elif event.get("type") == MatchWon.__name__:
                results.winner = event["player"]
    return results


class Journal:
    """One SQLite file; open it with :meth:`open`, close it (or use ``with``) when done."""

    def __init__(
        self, connection: sqlite3.Connection, path: str, clock: Callable[[], datetime] = _utc_now
    ) -> None:
        self._db = connection
        self.path = path
        self._clock = clock
        #: All pictures together stay within this many bytes; the oldest are deleted first.
        self.pictures_cap_bytes = PICTURES_CAP_BYTES

    @classmethod
    def open(
        cls, path: str | os.PathLike[str] | None = None, clock: Callable[[], datetime] = _utc_now
    ) -> Journal:
        """Open (creating if needed) the journal at ``path`` (default: the user's data folder)."""
        target = str(path) if path is not None else str(default_journal_path())
        if target != ":memory:":
            target = str(Path(target).expanduser())
            try:
                Path(target).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise UserError(
                    f"cannot create the journal's folder for {target}: {error.strerror}"
                ) from None
        try:
            connection = sqlite3.connect(target, timeout=5.0, isolation_level=None)
            connection.row_factory = sqlite3.Row
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UserError(f"journal {target} is from a newer uno-referee (schema {version}): update it")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")  # a committed record survives a power cut
            connection.execute("PRAGMA foreign_keys=ON")
            connection.executescript(_SCHEMA)
            connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise UserError(
                f"journal {target} is not usable ({error}): move it aside to start a new one"
            ) from None
        return cls(connection, target, clock)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _now(self) -> str:
        return self._clock().isoformat(timespec="seconds")

    # --- writing --------------------------------------------------------------------------------

    def start_game(self, setup: Any, *, language: str, config: Mapping[str, Any] | None = None) -> int:
        """A new game from the rules core's ``Setup`` (or its ``to_dict()``); returns the game's id."""
        plain_setup = to_plain(setup)
        if not isinstance(plain_setup, dict) or not plain_setup.get("players"):
            raise ValueError("a game's setup needs its players")
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO games (started_at, language, players, setup, config) VALUES (?, ?, ?, ?, ?)",
                (
                    self._now(),
                    language,
                    _dumps(plain_setup["players"]),
                    _dumps(plain_setup),
                    _dumps(config or {}),
                ),
            )
        return int(cursor.lastrowid)

    def record(self, game_id: int, observation: Any, verdict: Any, sighting: Sighting | None = None) -> int:
        """Commit one observation with its verdict (and the picture of what the camera saw, in the
        same transaction); returns its sequence number.

        Call it before announcing the verdict: once this returns, the record is on disk.
        Rejected observations are kept too (what the table saw), but only those that changed
        the state (``Verdict.recorded``: accepted, or rejected with a penalty) are replayed.
        """
        plain = verdict_to_plain(verdict)
        replay = getattr(verdict, "recorded", plain["ok"] or bool(plain.get("penalties")))
        with self._transaction() as db:
            self._require_game(db, game_id)
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM observations WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO observations VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seq, self._now(), _dumps(observation), int(bool(replay)), _dumps(plain)),
            )
            if sighting is not None:
                self._insert_picture(db, Picture(game_id, int(seq), "landed", sighting))
        return int(seq)

    def record_unreadable(self, game_id: int, sighting: Sighting) -> None:
        """Keep the picture of a card the reader could not read (no verdict: it follows the last one)."""
        with self._transaction() as db:
            self._require_game(db, game_id)
            last = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM observations WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            self._insert_picture(db, Picture(game_id, int(last), "unreadable", sighting))

    def _insert_picture(self, db: sqlite3.Connection, picture: Picture) -> None:
        """Insert, then delete the oldest pictures until all fit within the cap."""
        seen = picture.sighting
        db.execute(
            "INSERT INTO pictures (game_id, observation_seq, kind, t, confidence, jpeg)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (picture.game_id, picture.observation_seq, picture.kind, seen.t, seen.confidence, seen.jpeg),
        )
        total = db.execute("SELECT COALESCE(SUM(LENGTH(jpeg)), 0) FROM pictures").fetchone()[0]
        for picture_id, size in db.execute("SELECT id, LENGTH(jpeg) FROM pictures ORDER BY id").fetchall():
            if total <= self.pictures_cap_bytes:
                break
            db.execute("DELETE FROM pictures WHERE id = ?", (picture_id,))
            total -= size

    def pictures(self, game_id: int) -> list[Picture]:
        """A game's pictures in the order they were taken."""
        self._require_game(self._db, game_id)
        rows = self._db.execute(
            "SELECT * FROM pictures WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
        return [
            Picture(
                row["game_id"],
                row["observation_seq"],
                row["kind"],
                Sighting(bytes(row["jpeg"]), row["t"], row["confidence"]),
            )
            for row in rows
        ]

    def prune_pictures(self, older_than_days: float) -> int:
        """Delete the pictures of games started more than ``older_than_days`` ago; returns how many."""
        cutoff = (self._clock() - timedelta(days=older_than_days)).isoformat(timespec="seconds")
        with self._transaction() as db:
            cursor = db.execute(
                "DELETE FROM pictures WHERE game_id IN (SELECT id FROM games WHERE started_at < ?)", (cutoff,)
            )
        return cursor.rowcount

    def record_press(self, game_id: int, t: float, button: str, frame: int = -1) -> None:
        """Keep one button press with its time in the stream, so that a recording can be refereed
        again with the same presses (``history --presses``, ``watch --presses``)."""
        with self._transaction() as db:
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM presses WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            db.execute("INSERT INTO presses VALUES (?, ?, ?, ?, ?)", (game_id, seq, t, frame, button))

    def presses(self, game_id: int) -> list[dict[str, Any]]:
        """A game's presses in order, as ``watch --presses`` reads them (``t``, ``button``, ``frame``)."""
        self._require_game(self._db, game_id)
        rows = self._db.execute(
            "SELECT t, frame, button FROM presses WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [{"t": row["t"], "button": row["button"], "frame": row["frame"]} for row in rows]

    def abandon_game(self, game_id: int) -> None:
        """The table stopped without a match winner: the game leaves the unfinished list."""
        with self._transaction() as db:
            self._require_game(db, game_id)
            db.execute("UPDATE games SET abandoned_at = ? WHERE id = ?", (self._now(), game_id))

    @staticmethod
    def _require_game(db: sqlite3.Connection, game_id: int) -> sqlite3.Row:
        row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise UserError(f"there is no game {game_id} in the journal: see uno-referee history")
        return row

    # --- reading --------------------------------------------------------------------------------

    def load(self, game_id: int) -> SavedGame:
        """The set-up and the observations to replay into a fresh rules Table, in order."""
        row = self._require_game(self._db, game_id)
        observations = [
            json.loads(text)
            for (text,) in self._db.execute(
                "SELECT observation FROM observations WHERE game_id = ? AND replay ORDER BY seq", (game_id,)
            )
        ]
        return SavedGame(
            game_id=game_id,
            setup=json.loads(row["setup"]),
            language=row["language"],
            config=json.loads(row["config"]),
            observations=observations,
        )

    def records(self, game_id: int) -> list[dict[str, Any]]:
        """Every record of a game, rejected ones too: seq, recorded_at, observation, replay, verdict."""
        self._require_game(self._db, game_id)
        rows = self._db.execute("SELECT * FROM observations WHERE game_id = ? ORDER BY seq", (game_id,))
        return [
            {
                "seq": row["seq"],
                "recorded_at": row["recorded_at"],
                "observation": json.loads(row["observation"]),
                "replay": bool(row["replay"]),
                "verdict": json.loads(row["verdict"]),
            }
            for row in rows
        ]

    def history(self, limit: int | None = None) -> list[GameSummary]:
        """Games, newest first, with their rounds and winner."""
        games = self._db.execute(
            "SELECT * FROM games ORDER BY id DESC" + (" LIMIT ?" if limit else ""), (limit,) if limit else ()
        ).fetchall()
        return [self._summary(row) for row in games]

    def summary(self, game_id: int) -> GameSummary:
        """One game with its rounds and winner."""
        return self._summary(self._require_game(self._db, game_id))

    def latest_game(self) -> int:
        """The newest game's id (what a command that names no game shows)."""
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        if row[0] is None:
            raise UserError(f"no games in {self.path} yet: referee one with uno-referee run or watch")
        return int(row[0])

    def unfinished_games(self) -> list[GameSummary]:
        """Games without a match winner that were not abandoned, newest first: what ``resume`` offers."""
        return [game for game in self.history() if not game.finished]

    def standings(self) -> list[Standing]:
        """Every player's games, wins and points over the whole journal, best first."""
        table: dict[str, Standing] = {}
        for game in self.history():
            for player in game.players:
                entry = table.get(player, Standing(player))
                table[player] = dataclasses.replace(
                    entry, games=entry.games + 1, games_won=entry.games_won + (game.winner == player)
                )
            for result in game.rounds:
                entry = table.get(result.winner, Standing(result.winner))
                table[result.winner] = dataclasses.replace(
                    entry, rounds_won=entry.rounds_won + 1, points=entry.points + result.points
                )
        return sorted(
            table.values(), key=lambda s: (-s.games_won, -s.rounds_won, -s.points, s.player.casefold())
        )

    def _summary(self, row: sqlite3.Row) -> GameSummary:
        records = [
            (json.loads(observation), json.loads(verdict))
            for observation, verdict in self._db.execute(
                "SELECT observation, verdict FROM observations WHERE game_id = ? AND replay ORDER BY seq",
                (row["id"],),
            )
        ]
        count = self._db.execute(
            "SELECT COUNT(*) FROM observations WHERE game_id = ?", (row["id"],)
        ).fetchone()[0]
        results = results_from_records(records)
        return GameSummary(
            game_id=row["id"],
            started_at=row["started_at"],
            players=tuple(json.loads(row["players"])),
            language=row["language"],
            observations=count,
            rounds=tuple(results.rounds),
            winner=results.winner,
            abandoned=row["abandoned_at"] is not None,
        )
