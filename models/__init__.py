"""The trained card detector shipped inside the package, found alike from a checkout or an install.

The weights are package data (``*.onnx`` plus the ``*.json`` metadata the training recipe writes),
located through :mod:`importlib.resources` so that ``pip install uno-referee`` on the Pi finds them
without a checkout. ``$UNO_REFEREE_MODEL`` points the runtime at another file (a new training run).

>>> model_file(MODEL_FILE).name, model_file(MODEL_FILE).parent.name
('uno_cards.onnx', 'models')
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

#: The detector (YOLO11n, exported to ONNX by the training recipe) and its metadata sidecar.
MODEL_FILE = "uno_cards.onnx"
METADATA_FILE = "uno_cards.json"
#: The same detector with 8-bit weights and activations (``python -m referee.lab.quantize``): about
#: 0.6 of the time on CPUs with 8-bit dot products, at the accuracy the model card measures.
QUANTISED_MODEL_FILE = "uno_cards.int8.onnx"
#: The shipped detector's precisions (``[detector] precision``, ``--precision``); the first is the default.
PRECISIONS = ("float", "int8")
#: The glyph classifier (second look at each detector box; the space decks are learnt in).
GLYPH_MODEL_FILE = "uno_glyphs.onnx"
#: The card-corner check (a wider look: is a card around the box?), used where it is installed.
CORNER_MODEL_FILE = "uno_corners.onnx"
#: The pair check (are two corner indices one card's?), used where it is installed.
PAIR_MODEL_FILE = "uno_pairs.onnx"
#: The centre reader (the big symbol in a paired card's middle), used where it is installed.
CENTRE_MODEL_FILE = "uno_centres.onnx"
#: A folder of held-out folders, one per real deck the shipped networks saw: each holds the networks
#: (of :data:`HELD_OUT_NETWORKS`) that differ from the shipped ones and never saw that deck. They are
#: not for the table: ``uno-referee eval --real`` scores every deck the shipped networks saw with each
#: folder that did not see it, so that each real deck has a leave-one-deck-out figure. Not installed.
HELD_OUT_FOLDER = "lodo"
#: The networks a held-out folder may hold; one it lacks is the shipped one.
HELD_OUT_NETWORKS = (MODEL_FILE, GLYPH_MODEL_FILE, CORNER_MODEL_FILE)
#: Environment variable that overrides the shipped detector.
MODEL_ENV = "UNO_REFEREE_MODEL"


def model_file(name: str) -> Path:
    """A file shipped in this package (it may not exist yet: callers report that to the user)."""
    return Path(str(files(__name__).joinpath(name)))


def held_out_folders() -> list[Path]:
    """The held-out folders in this checkout (none in an installed package), in name order."""
    root = model_file(HELD_OUT_FOLDER)
    if not root.is_dir():
        return []
    return [
        folder
        for folder in sorted(root.iterdir())
        if folder.is_dir() and any((folder / name).is_file() for name in HELD_OUT_NETWORKS)
    ]


def default_model_path(precision: str = PRECISIONS[0]) -> Path:
    """``$UNO_REFEREE_MODEL`` if set, else the shipped detector in ``precision`` (float or int8).

    >>> default_model_path("int8").name if MODEL_ENV not in os.environ else "uno_cards.int8.onnx"
    'uno_cards.int8.onnx'
    """
    override = os.environ.get(MODEL_ENV)
    if override:
        return Path(override)
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: choose {' or '.join(PRECISIONS)}")
    return model_file(QUANTISED_MODEL_FILE if precision == "int8" else MODEL_FILE)
