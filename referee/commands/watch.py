"""``uno-referee watch VIDEO``: referee a recorded game, with the keyboard as the buttons, or unattended.

Unattended (standard input is not a terminal, or ``--presses`` replays a game's presses) nothing
waits for a person: see docs/events.md for what the referee assumes when nobody presses a button.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.table.config import LANGUAGES, add_config_argument

    parser = subparsers.add_parser("watch", help="referee a recorded game (video file or folder of frames)")
    parser.add_argument("video", type=Path, help="the recording")
    parser.add_argument(
        "--profile",
        type=Path,
        help="calibration for this recording (default: VIDEO.calibration.json beside it, else the config's)",
    )
    add_config_argument(parser)
    parser.add_argument("--players", metavar="A,B,C", help="the seats clockwise, instead of the config's")
    parser.add_argument("--rules", metavar="PRESET", help="rules preset (official, spielhilfe, …) instead")
    parser.add_argument("--language", choices=LANGUAGES, help="announcement language instead of the config's")
    parser.add_argument("--journal", type=Path, help="journal the game into this SQLite file instead")
    parser.add_argument("--no-speech", action="store_true", help="console only")
    parser.add_argument("--fast", action="store_true", help="flat out (default: at the recording's pace)")
    parser.add_argument(
        "--presses", type=Path, metavar="FILE", help='replay presses: lines {"t": 41.2, "button": "GREEN"}'
    )
    parser.add_argument("--events", metavar="FILE", help="write the event stream (JSON lines; - for stdout)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from hardware.buttons import ButtonQueue
    from hardware.camera import open_source
    from referee.errors import UserError
    from referee.table.config import load_config, with_command_line
    from referee.table.presses import PressReplay, load_presses
    from referee.table.session import at_frame_rate, check_picture_size, load_profile, open_live_game
    from referee.table.stream import open_event_stream

    if not args.video.exists():
        raise UserError(f"recording {args.video} not found")
    config = with_command_line(
        load_config(args.config),
        players=args.players,
        preset=args.rules,
        language=args.language,
        speech=False if args.no_speech else None,
        journal=args.journal,
    )
    config.require_players()
    beside = args.video.with_suffix(".calibration.json")
    profile_path = args.profile or (beside if beside.is_file() else config.calibration.profile)
    source = open_source(str(args.video))
    check_picture_size(source, load_profile(profile_path))
    replay = PressReplay(load_presses(args.presses)) if args.presses else None
    attended = replay is None and sys.stdin.isatty()
    buttons = replay if replay is not None else (None if attended else ButtonQueue())
    console = sys.stderr if args.events == "-" else sys.stdout
    events = open_event_stream(args.events)
    try:
        game = open_live_game(
            config,
            source=source,
            profile_path=profile_path,
            buttons=buttons,
            events=events,
            unattended=not attended and replay is None,
            console=console,
        )
    except BaseException:
        events.close()
        raise
    if replay is not None:
        replay.stream_clock = lambda: game.pipeline.app.moment.t
    if not args.fast:
        game.frames = at_frame_rate(game.frames)
    game.play()
    print(game.summary(), file=console)
    return 0
