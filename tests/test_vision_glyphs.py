"""The glyph classifier read in several quarter turns: the mean of the turned crops' answers, the
upright crop's embedding (which a learnt deck matches)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.render.cards import render_card
from referee.vision.glyphs import glyph_crop, load_glyph_classifier


@pytest.fixture(scope="module")
def card_picture() -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A rendered red 7 on a grey table, with its two corner indices' boxes."""
    sprite = render_card("red-7", height=160, rng=np.random.default_rng(4))
    picture = np.full((220, 180, 3), 90, np.uint8)
    height, width = sprite.bgr.shape[:2]
    alpha = sprite.alpha[..., None] / 255.0
    window = picture[20 : 20 + height, 30 : 30 + width]
    window[:] = (sprite.bgr * alpha + window * (1 - alpha)).astype(np.uint8)
    boxes = []
    for region in sprite.regions:
        xs, ys = region.hull[:, 0] + 30, region.hull[:, 1] + 20
        boxes.append((float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())))
    return picture, boxes


@pytest.mark.parametrize("views", [2, 4])
def test_quarter_turn_views_average_the_turned_crops(card_picture, views):
    picture, boxes = card_picture
    glyphs = load_glyph_classifier()
    crops = np.stack([glyph_crop(picture, box) for box in boxes])
    turned = [np.ascontiguousarray(np.rot90(crops, turn, axes=(1, 2))) for turn in range(views)]
    each = [glyphs.read_crops(crops) for crops in turned]
    read = glyphs.read(picture, boxes, views)
    mean = np.mean([r.probabilities for r in each], axis=0)
    np.testing.assert_allclose(read.probabilities, mean, atol=1e-5)
    np.testing.assert_allclose(read.embeddings, each[0].embeddings, atol=1e-5)
    assert not np.allclose(each[0].probabilities, each[1].probabilities)  # the turns are other looks


def test_one_view_is_the_upright_crop(card_picture):
    picture, boxes = card_picture
    glyphs = load_glyph_classifier()
    upright = glyphs.read_crops(np.stack([glyph_crop(picture, box) for box in boxes]))
    np.testing.assert_allclose(glyphs.read(picture, boxes).probabilities, upright.probabilities, atol=1e-6)
    with pytest.raises(ValueError, match="views"):
        glyphs.read(picture, boxes, 3)


def test_every_look_is_kept_for_a_learnt_deck(card_picture):
    picture, boxes = card_picture
    glyphs = load_glyph_classifier()
    four = glyphs.read(picture, boxes, 4)
    assert four.every_look.shape == (len(boxes), 4, four.embeddings.shape[1])
    np.testing.assert_allclose(four.every_look[:, 0], four.embeddings)
    one = glyphs.read(picture, boxes)
    assert one.looks is None and one.every_look.shape == (len(boxes), 1, one.embeddings.shape[1])
