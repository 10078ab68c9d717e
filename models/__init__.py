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
#: Static int8 (QDQ) variant written by ``python -m referee.lab.quantize``; used only when present.
QUANTISED_MODEL_FILE = "uno_cards.int8.onnx"
#: The glyph classifier (second look at each detector box; the space decks are learnt in).
GLYPH_MODEL_FILE = "uno_glyphs.onnx"
#: The card-corner check (a wider look: is a card around the box?), used where it is installed.
CORNER_MODEL_FILE = "uno_corners.onnx"
#: Environment variable that overrides the shipped detector.
MODEL_ENV = "UNO_REFEREE_MODEL"


def model_file(name: str) -> Path:
    """A file shipped in this package (it may not exist yet: callers report that to the user)."""
    return Path(str(files(__name__).joinpath(name)))


def default_model_path() -> Path:
    """``$UNO_REFEREE_MODEL`` if set, else the shipped ``uno_cards.onnx``."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else model_file(MODEL_FILE)
