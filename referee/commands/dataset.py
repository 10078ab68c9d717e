"""``uno-referee dataset OUT --count N``: render a YOLO training set (see referee.render.dataset)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.render import dataset

    parser = subparsers.add_parser("dataset", help="render a YOLO training set of UNO table scenes")
    dataset.add_arguments(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from referee.render import dataset

    return dataset.run(args)
