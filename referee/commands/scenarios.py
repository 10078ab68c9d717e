"""``uno-referee scenarios PATH...``: replay rule scenarios through the referee and report differences."""

from __future__ import annotations

import argparse

from referee.scenarios import run_paths


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scenarios",
        help="check the referee against YAML rule scenarios (files or folders)",
        description=(
            "Run rule scenarios (SCENARIOS.md format). Prints every failure as FILE:STEP, the observation "
            "and expected vs actual, then 'N passed, M failed'. Exit status 1 when any scenario fails."
        ),
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="scenario files, or folders searched recursively"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that pass")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_paths(args.paths, verbose=args.verbose)
