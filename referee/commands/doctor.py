"""``uno-referee doctor``: can the referee run here? One line per check, ✔ or ✘ with the fix."""

from __future__ import annotations

import argparse

from referee.table.config import add_config_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check camera, calibration, buttons, speaker, model, journal and config",
        description="Check everything the referee needs, one line each (✔, or ✘ with what to do). Exit "
        "status 0 when the referee can run, 1 when a fatal check fails (speech and speed only warn).",
    )
    add_config_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.errors import UserError
    from referee.table.config import load_config
    from referee.table.doctor import Check, run_checks

    try:
        config = load_config(args.config)
    except UserError as error:
        print(Check("config", False, str(error)).line())
        return 1
    can_run = True
    for check in run_checks(config):
        print(check.line(), flush=True)
        can_run = can_run and (check.ok or not check.fatal)
    print("the referee can run" if can_run else "the referee cannot run: fix the ✘ lines marked above")
    return 0 if can_run else 1
