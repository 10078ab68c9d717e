"""``uno-referee scores``: every player's games, wins and points over the whole journal."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.table.config import add_config_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scores",
        help="standings over all recorded games",
        description="Standings over all games in the journal: games played and won, rounds won, points.",
    )
    add_config_argument(parser)
    parser.add_argument("--journal", type=Path, help="journal file (default: [journal] path)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.commands.history import journal_from_args

    journal = journal_from_args(args)
    if journal is None:
        return 0
    with journal:
        standings = journal.standings()
    if not standings:
        print("no games recorded yet")
        return 0
    width = max(6, *(len(s.player) for s in standings))
    print(f"{'player':<{width}}  games  won  rounds won  points")
    for s in standings:
        print(f"{s.player:<{width}}  {s.games:>5}  {s.games_won:>3}  {s.rounds_won:>10}  {s.points:>6}")
    return 0
