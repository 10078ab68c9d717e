"""``uno-referee run``: referee a live game from the camera over the table."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.table.config import add_config_argument

    parser = subparsers.add_parser("run", help="referee a live game from the camera (needs a calibration)")
    add_config_argument(parser)
    parser.add_argument("--events", metavar="FILE", help="write the event stream (JSON lines; - for stdout)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import sys

    from referee.table.config import load_config
    from referee.table.session import open_live_game
    from referee.table.stream import open_event_stream

    config = load_config(args.config)
    config.require_players()
    events = open_event_stream(args.events)
    console = sys.stderr if args.events == "-" else sys.stdout
    try:
        game = open_live_game(config, events=events, console=console)
    except BaseException:
        events.close()
        raise
    return game.play()
