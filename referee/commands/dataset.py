"""``uno-referee dataset OUT --count N``: render a YOLO training set (see referee.render.dataset)."""

from __future__ import annotations

import argparse

from referee.commands import add_parser_on_demand


def register(subparsers: argparse._SubParsersAction) -> None:
    add_parser_on_demand(
        subparsers, "dataset", "referee.render.dataset", help="render a YOLO training set of UNO table scenes"
    )
