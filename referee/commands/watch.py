"""``uno-referee watch VIDEO``: referee a recorded game, with the keyboard as the buttons."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.table.config import add_config_argument

    parser = subparsers.add_parser("watch", help="referee a recorded game (video file or folder of frames)")
    parser.add_argument("video", type=Path, help="the recording")
    parser.add_argument(
        "--profile",
        type=Path,
        help="calibration for this recording (default: VIDEO.calibration.json beside it, else the config's)",
    )
    add_config_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from hardware.camera import open_source
    from referee.errors import UserError
    from referee.table.config import load_config
    from referee.table.session import open_live_game

    if not args.video.exists():
        raise UserError(f"recording {args.video} not found")
    beside = args.video.with_suffix(".calibration.json")
    profile = args.profile or (beside if beside.is_file() else None)
    config = load_config(args.config)
    return open_live_game(config, source=open_source(str(args.video)), profile_path=profile).play()
