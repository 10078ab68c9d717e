"""``uno-referee run``: referee a live game from the camera over the table.

The fatal checks of ``uno-referee doctor`` run first: a missing calibration or a camera that
delivers nothing is said once, spoken and printed, before the game starts.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.table.config import add_config_argument

    parser = subparsers.add_parser("run", help="referee a live game from the camera (needs a calibration)")
    add_config_argument(parser)
    parser.add_argument("--events", metavar="FILE", help="write the event stream (JSON lines; - for stdout)")
    parser.add_argument(
        "--web", metavar="[HOST:]PORT", help="serve the live scoreboard page (default host: localhost only)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import sys

    from hardware.status_light import GpioStatusLight
    from referee.table.config import load_config
    from referee.table.controls import StatusReporter, TableControls
    from referee.table.doctor import refuse_to_start
    from referee.table.scoreboard import Scoreboard, ScoreboardServer, parse_listen
    from referee.table.session import open_live_game
    from referee.table.stream import EventSinks, open_event_stream

    config = load_config(args.config)
    players = config.require_players()
    listen = args.web if args.web is not None else config.web.listen
    address = parse_listen(listen) if listen else None  # a mistyped option first, then the devices
    reader = refuse_to_start(config)
    events = open_event_stream(args.events)
    console = sys.stderr if args.events == "-" else sys.stdout
    server = None
    try:
        if address is not None:
            server = ScoreboardServer(Scoreboard(players, config.journal.path), *address)
            events = EventSinks(events, server.board)
        game = open_live_game(config, reader=reader, events=events, console=console)
    except BaseException:
        events.close()
        if server is not None:
            server.close()
        raise
    # at a real table the buttons are all there is: long presses for new games, rounds, shutdown
    game.table_controls = TableControls(game.pipeline, game.journal, config)
    if config.led.enabled:
        game.status = StatusReporter(GpioStatusLight(config.led.pin))
    if server is not None:
        server.board.game_id = game.pipeline.app.game_id or 0
        print(f"uno-referee: scoreboard at {server.start().url}", file=sys.stderr)
    try:
        return game.play()
    finally:
        if server is not None:
            server.close()
