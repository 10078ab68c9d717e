"""``uno-referee report [GAME] --html FILE``: one game from the journal as a self-contained web page."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.table.config import add_config_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a game's report: timeline with pictures, verdicts, scores (one HTML file)",
        description="One self-contained HTML page of a journalled game (pictures inlined; opens offline).",
    )
    parser.add_argument("game", type=int, nargs="?", metavar="GAME", help="game id (default: the newest)")
    parser.add_argument("--html", type=Path, required=True, metavar="FILE", help="where to write the page")
    add_config_argument(parser)
    parser.add_argument("--journal", type=Path, help="journal file (default: [journal] path)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from referee.errors import UserError
    from referee.table.config import load_config
    from referee.table.journal import existing_journal
    from referee.table.report import game_report

    path = args.journal if args.journal is not None else load_config(args.config).journal.path
    journal = existing_journal(path)
    if journal is None:
        raise UserError(f"no journal at {path}: referee a game first (uno-referee run or watch)")
    with journal:
        game_id = args.game if args.game is not None else journal.latest_game()
        page = game_report(journal, game_id)
    try:
        args.html.write_text(page, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write the report to {args.html}: {error.strerror}") from None
    print(f"game #{game_id}: report written to {args.html} ({len(page) // 1024} KB)")
    return 0
