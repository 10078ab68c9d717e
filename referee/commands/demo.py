"""``uno-referee demo``: a simulated game refereed end to end on a machine with no camera."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="referee a simulated table: video → vision → rules → voice, compared with the truth"
    )
    parser.add_argument("--language", choices=["de", "nl", "en"], default="en")
    parser.add_argument("--rules", default="official", help="rules preset (official, spielhilfe, …)")
    parser.add_argument(
        "--jump-in",
        action="store_true",
        help="play with the jump-in rule: the referee tells who jumped in by the side the arm came from",
    )
    parser.add_argument("--seed", type=int, default=1, help="which simulated game")
    parser.add_argument("--no-speech", action="store_true", help="console only")
    parser.add_argument(
        "--speed", type=float, help="video pace: 1 = real time (default with speech), 0 = as fast as possible"
    )
    parser.add_argument("--journal", type=Path, help="also journal the game into this SQLite file")
    parser.add_argument("--quick", action="store_true", help="a smaller, lower-rate camera (a smoke test)")
    parser.add_argument(
        "--plays",
        type=int,
        metavar="N",
        help="stop after the first N cards played: a smoke test where reading is slow (emulation)",
    )
    parser.add_argument("--model", help="ONNX detector (default: the shipped model)")
    parser.add_argument("--backend", default="onnxruntime", help="onnxruntime or opencv-dnn")
    parser.add_argument("--events", metavar="FILE", help="write the event stream (JSON lines; - for stdout)")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="VIDEO",
        help="also write the refereed video (.mp4 or .avi) with what it saw",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from hardware.speaker import open_speaker
    from referee.errors import UserError
    from referee.lab.demo import run_demo
    from referee.lab.demo_video import DemoFilm
    from referee.lab.video import VideoSettings
    from referee.rules import Rules
    from referee.table.journal import Journal
    from referee.table.session import card_reader
    from referee.table.stream import open_event_stream

    Rules.preset(args.rules)  # a wrong preset name is a one-line error before anything starts
    if args.plays is not None and args.plays < 1:
        raise UserError(f"--plays must be at least 1, not {args.plays}")
    film = DemoFilm(args.save) if args.save else None
    reader = card_reader(None, args.model or "", args.backend)
    console = sys.stderr if args.events == "-" else sys.stdout
    speaker = open_speaker(not args.no_speech, args.language, console=console)
    speaking = speaker.voice is not None
    speed = args.speed if args.speed is not None else (1.0 if speaking else 0.0)
    journal = Journal.open(args.journal) if args.journal else None
    events = open_event_stream(args.events)
    try:
        report = run_demo(
            reader,
            speaker,
            language=args.language,
            preset=args.rules,
            jump_in=args.jump_in,
            seed=args.seed,
            journal=journal,
            speed=speed or None,
            events=events,
            console=console,
            film=film,
            settings=VideoSettings(frame_size=(640, 480), fps=10.0, px_per_mm=1.6) if args.quick else None,
            plays=args.plays,
        )
        if speaking:
            speaker.wait_until_quiet(timeout=30)
    finally:
        speaker.close()
        events.close()
        if film is not None:
            film.close()
        if journal is not None:
            journal.close()
    return 0 if report.plays_true and report.plays_recognised else 1
