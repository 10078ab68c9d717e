"""``uno-referee history``: the games in the journal, and with ``--game ID`` every observation of one.

Unfinished games (a power cut, a closed program) are marked with the command that resumes them.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path

from referee.errors import UserError
from referee.table.config import add_config_argument
from referee.table.presses import presses_as_lines


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history",
        help="list the games in the journal",
        description="List recorded games, newest first; with --game, every observation and verdict of one.",
    )
    add_config_argument(parser)
    parser.add_argument("--journal", type=Path, help="journal file (default: [journal] path)")
    parser.add_argument("--limit", type=int, default=20, help="how many games to list (default 20)")
    parser.add_argument("--game", type=int, metavar="ID", help="show every observation of game ID")
    parser.add_argument(
        "--presses",
        action="store_true",
        help="with --game: print its button presses as JSON lines, for uno-referee watch --presses",
    )
    parser.add_argument(
        "--prune-pictures",
        type=float,
        metavar="DAYS",
        help="delete the discard-zone pictures of games started more than DAYS days ago",
    )
    parser.set_defaults(handler=run)


def journal_from_args(args: argparse.Namespace):
    """The journal a reading command names (``--journal`` or the config's), or None when none exists yet."""
    from referee.table.config import load_config
    from referee.table.journal import existing_journal

    path = args.journal if args.journal is not None else load_config(args.config).journal.path
    journal = existing_journal(path)
    if journal is None:
        print(f"no games recorded yet (journal: {path})")
    return journal


def local_time(stamp: str) -> str:
    """A stored UTC timestamp as local date and time, minutes only."""
    return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")


def run(args: argparse.Namespace) -> int:
    if args.presses and args.game is None:
        raise UserError("--presses needs --game ID: the game whose presses to print (see `history`)")
    journal = journal_from_args(args)
    if journal is None:
        return 0
    with journal:
        if args.prune_pictures is not None:
            days = args.prune_pictures
            if days < 0:
                raise UserError(f"--prune-pictures takes a number of days from 0, got {days:g}")
            pruned = journal.prune_pictures(days)
            print(f"deleted {pruned} picture{'s' if pruned != 1 else ''} of games older than {days:g} days")
        elif args.presses:
            for line in presses_as_lines(journal.presses(args.game)):
                print(line)
        elif args.game is not None:
            _print_game(journal, args.game)
        else:
            _print_games(journal, args.limit)
    return 0


def _print_games(journal, limit: int) -> None:
    games = journal.history(limit)
    if not games:
        print("no games recorded yet")
    for game in games:
        scores = ", ".join(
            f"{name} {total}" for name, total in sorted(game.scores.items(), key=lambda p: -p[1])
        )
        if game.winner:
            status = f"winner {game.winner}"
        elif game.abandoned:
            status = "abandoned"
        else:
            status = f"unfinished: uno-referee resume {game.game_id}"
        rounds = f"{len(game.rounds)} round{'s' if len(game.rounds) != 1 else ''}"
        line = (
            f"#{game.game_id:<4} {local_time(game.started_at)}  {', '.join(game.players)} ({game.language})"
        )
        print(f"{line}  {rounds}  {scores or '-'}  [{status}]")


def _print_game(journal, game_id: int) -> None:
    saved = journal.load(game_id)
    print(f"game #{game_id}: {', '.join(saved.players)} ({saved.language})")
    for record in journal.records(game_id):
        observation = " ".join(f"{key}={value}" for key, value in record["observation"].items())
        verdict = record["verdict"]
        outcome = "ok" if verdict["ok"] else f"rejected: {verdict['reason']}"
        penalties = "".join(
            f"; {p['player']} +{p['cards']} ({p['reason']})" for p in verdict.get("penalties", ())
        )
        events = ", ".join(event["type"] for event in verdict.get("events", ()))
        when = local_time(record["recorded_at"])
        print(f"{record['seq']:>4} {when}  {observation:<28} {outcome}{penalties}  {events}")
