"""``uno-referee train``: the offline ultralytics recipe (needs the ``train`` extra)."""

from __future__ import annotations

import argparse

from referee.commands import add_parser_on_demand


def register(subparsers: argparse._SubParsersAction) -> None:
    add_parser_on_demand(
        subparsers,
        "train",
        "referee.lab.training",
        help="train the card detector from scratch, resume it, export it to ONNX (train extra)",
    )
