"""``uno-referee service install [--user] | uninstall | status``: start the referee with the Pi."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.table.config import add_config_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "service",
        help="start the referee with the Pi: a systemd unit (install, uninstall, status)",
        description="Install a systemd unit that runs `uno-referee run` at boot, waits for the camera and "
        "the sound card, restarts it after a failure and logs to journald (docs/hardware.md §11).",
    )
    parser.add_argument("action", choices=["install", "uninstall", "status"])
    parser.add_argument(
        "--user",
        action="store_true",
        help="a user service (no sudo; systemctl --user) instead of a system one",
    )
    add_config_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.table.config import load_config
    from referee.table.service import ServiceManager

    manager = ServiceManager(user_service=args.user)
    if args.action == "install":
        config = load_config(args.config)
        config.require_players()
        told = manager.install(Path(args.config) if args.config else None, config.camera.source)
    elif args.action == "uninstall":
        told = manager.uninstall()
    else:
        told = manager.status()
    print("\n".join(told))
    return 0
