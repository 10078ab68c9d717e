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
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from hardware.status_light import GpioStatusLight
    from referee.table.config import load_config
    from referee.table.controls import StatusReporter, TableControls
    from referee.table.doctor import refuse_to_start
    from referee.table.session import open_live_game

    config = load_config(args.config)
    refuse_to_start(config)
    game = open_live_game(config)
    # at a real table the buttons are all there is: long presses for new games, rounds, shutdown
    game.table_controls = TableControls(game.pipeline, game.journal, config)
    if config.led.enabled:
        game.status = StatusReporter(GpioStatusLight(config.led.pin))
    return game.play()
