"""``uno-referee resume``: continue a game after a crash or a pulled plug, from the journal."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.table.config import add_config_argument

    parser = subparsers.add_parser("resume", help="continue an unfinished game from the journal")
    parser.add_argument("game", nargs="?", type=int, help="game number (default: the latest unfinished)")
    parser.add_argument("--video", help="continue on a recorded video instead of the camera")
    add_config_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from hardware.camera import open_source
    from referee.table.config import load_config
    from referee.table.journal import Journal
    from referee.table.session import latest_unfinished, open_live_game

    config = load_config(args.config)
    game = args.game
    if game is None:
        with Journal.open(config.journal.path) as journal:
            game = latest_unfinished(journal)
    source = open_source(args.video) if args.video else None
    return open_live_game(config, source=source, resume=game).play()
