"""The colour profile: one card of each colour laid in the discard zone under the room's light.

The card is found the way the referee will see it during play: the detector finds its corner
indices, and the field around each index — exactly the pixels the reader colours an index by —
is the sample. A patterned cloth, a lamp's hot spot or a second object in the zone therefore
cannot pass for the card, as a "largest region unlike the table" could (that way mistook a light
cloth for the card on 3 of 20 simulated tables, and the calibrated colours then read blue cards
as yellow). The samples go to :meth:`~referee.vision.colour.ColourModel.from_samples`, which owns
what a colour reference is, and the new model must read every sample as its own colour before it
is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from calibration.table_view import TableView
from referee.errors import UserError

if TYPE_CHECKING:
    from referee.vision.colour import ColourModel
    from referee.vision.reader import CardReader

#: Colours calibration asks for; ``black`` (a wild card's field) is optional.
SAMPLE_COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "black")
#: Detections weaker than this are not trusted to be the card's indices.
MIN_INDEX_SCORE = 0.4


def index_fields(crop_bgr: np.ndarray, reader: CardReader, card: str = "the card") -> list[np.ndarray]:
    """The fields around the card's corner indices in a discard-zone crop (BGR crops, one per index,
    :func:`index_boxes`), as the reader's colour model takes them."""
    boxes, margin = index_boxes(crop_bgr, reader, card)
    return [reader.colour_model.field(crop_bgr, box, margin) for box in boxes]


def index_boxes(
    crop_bgr: np.ndarray, reader: CardReader, card: str = "the card"
) -> tuple[list[tuple[float, float, float, float]], float]:
    """The card's corner-index boxes in a discard-zone crop, and the margin its field is read with.

    The card's symbol is the one the detector is surest of; its largest glyph is left out when it
    is much larger than the others (the classic deck's big numeral in the middle, on a white oval).
    A one-line error says what to fix when no card is in view.
    """
    from referee.vision.classes import SYMBOL_CLASSES, WILD_SYMBOLS

    found = [
        d
        for d in reader.detector.detect(crop_bgr)
        if d.class_name in SYMBOL_CLASSES and d.score >= MIN_INDEX_SCORE
    ]
    if not found:
        raise UserError(f"no card found in the discard zone: lay {card} flat and face up in the middle of it")
    symbol = max(found, key=lambda d: d.score).class_name
    indices = [d for d in found if d.class_name == symbol]
    smallest = min(d.size for d in indices)
    settings = reader.settings
    corners = [d for d in indices if d.size <= settings.pair_size_ratio * smallest]
    margin = settings.wild_field_margin if symbol in WILD_SYMBOLS else settings.field_margin
    return [d.box for d in corners], margin


def colour_model_from_cards(
    view: TableView, pictures: Mapping[str, np.ndarray], reader: CardReader
) -> ColourModel:
    """A :class:`~referee.vision.colour.ColourModel` from one camera picture per card colour.

    ``pictures`` maps red, yellow, green and blue (and optionally black, a wild card) to a frame
    from the calibrated camera with that card alone in the discard zone; ``reader`` finds the
    card's indices (its colour model is the base the new one starts from).
    """
    from referee.vision.colour import DARK_PRINT_COLOURS, ColourModel, on_white_face

    unknown = sorted(set(pictures) - set(SAMPLE_COLOURS))
    if unknown:
        raise UserError(f"unknown card colour {unknown[0]!r}: use {', '.join(SAMPLE_COLOURS)}")
    samples = {}
    on_white: list[bool] = []  # indices of DARK_PRINT_COLOURS printed on the face's white (off-brand)
    for colour, picture in pictures.items():
        card = "a wild card" if colour == "black" else f"a {colour} card"
        crop = view.crop(picture, "discard")
        boxes, margin = index_boxes(crop, reader, card)
        samples[colour] = [reader.colour_model.field(crop, box, margin) for box in boxes]
        if colour in DARK_PRINT_COLOURS:
            on_white += [on_white_face(crop, box) for box in boxes]
    model = ColourModel.from_samples(samples, base=reader.colour_model, on_white=on_white)
    for colour, fields in samples.items():
        if colour == "black":
            continue
        votes = [model.votes(field, (0, 0, field.shape[1], field.shape[0]), 0.0) for field in fields]
        reading = model.read(sum(votes[1:], votes[0]))
        if reading.colour != colour or reading.confidence < model.strong:
            seen = reading.colour or "no colour"
            raise UserError(
                f"the {colour} card reads as {seen} with the measured colours: light the table evenly "
                "and calibrate the colours again, or calibrate without them to keep the default ones"
            )
    return model
