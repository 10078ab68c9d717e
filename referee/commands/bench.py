"""``uno-referee bench TARGET``: measured figures for the closing notes.

Each target lives next to the code it measures and exposes ``add_arguments(parser)`` and
``run(args) -> int``; it is imported only when chosen (``bench table`` needs OpenCV, ``--help``
must not), and a target whose module is not present here is not offered.
"""

from __future__ import annotations

import argparse

from referee.commands import OnDemandParsers, add_parser_on_demand

TARGETS: dict[str, tuple[str, str]] = {
    "rules": ("referee.lab.rules_bench", "random full games: simulator and referee steps per second; --soak"),
    "vision": ("referee.lab.vision_bench", "detector latency per backend on a discard-zone crop"),
    "table": ("referee.lab.table_bench", "simulated games through vision and referee: recognition, latency"),
    "speech": (
        "referee.lab.speech_bench",
        "a fast simulated game spoken by espeak-ng: how far speech trails",
    ),
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="benchmarks (rules, vision, table)")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True, action=OnDemandParsers)
    for name, (module_name, help_text) in TARGETS.items():
        # a figure is only comparable with the machine it came from (a Pi is several times slower)
        after = None if name == "rules" else "referee.lab.machine:print_machine"
        add_parser_on_demand(targets, name, module_name, after=after, help=help_text)
