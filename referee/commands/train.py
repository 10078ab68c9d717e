"""``uno-referee train``: the offline ultralytics recipe (needs the ``train`` extra)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from referee.lab import training

    parser = subparsers.add_parser(
        "train", help="train the card detector from scratch, resume it, export it to ONNX (train extra)"
    )
    training.add_arguments(parser)
    parser.set_defaults(handler=training.run)
