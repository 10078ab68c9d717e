"""The ``uno-referee`` command line: one dispatcher, one module per sub-command."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from referee import __version__
from referee.commands import OnDemandParsers
from referee.dependencies import install_hint
from referee.errors import UserError

# Modules under referee.commands, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "run",
    "doctor",
    "service",
    "watch",
    "resume",
    "calibrate",
    "history",
    "report",
    "scores",
    "detect",
    "deck",
    "scenarios",
    "bench",
    "dataset",
    "train",
    "eval",
)


class OneLineErrorParser(argparse.ArgumentParser):
    """A mistyped option is bad input like any other: one line that says what to fix, no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"uno-referee: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="uno-referee",
        description="A referee for real UNO games: camera, rules, buttons and voice.",
    )
    parser.add_argument("--version", action="version", version=f"uno-referee {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show full tracebacks for unexpected errors (for bug reports)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", action=OnDemandParsers)
    for name in COMMAND_MODULES:
        importlib.import_module(f"referee.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a usage error already printed on one line
        return stop.code if isinstance(stop.code, int) else 2
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    debug = args.debug or os.environ.get("UNO_REFEREE_DEBUG") == "1"
    try:
        return int(args.handler(args) or 0)
    except UserError as error:
        print(f"uno-referee: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("uno-referee: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except ImportError as error:  # a library missing on this machine (libxcb on a Pi OS Lite, …)
        hint = install_hint(error)
        if hint is None:
            return _internal_error(error, debug)
        print(f"uno-referee: error: {hint}", file=sys.stderr)
        return 2
    except Exception as error:
        return _internal_error(error, debug)


def _internal_error(error: Exception, debug: bool) -> int:
    """A bug, not bad input: still one line unless asked for more (``--debug`` re-raises)."""
    if debug:
        raise error
    print(
        f"uno-referee: internal error: {type(error).__name__}: {error} (run with --debug and report it)",
        file=sys.stderr,
    )
    return 3
