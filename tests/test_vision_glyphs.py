"""The glyph classifier read in several quarter turns: the mean of the turned crops' answers, the
upright crop's embedding (which a learnt deck matches)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.render.cards import CardSprite, render_card
from referee.vision.classes import CLASS_NAMES
from referee.vision.glyphs import GLYPH_CLASSES, glyph_crop, load_glyph_classifier

Box = tuple[float, float, float, float]


def _lay(sprite: CardSprite, picture: np.ndarray, x: int, y: int) -> list[tuple[Box, str]]:
    """Blend a rendered card onto ``picture`` with its top-left corner at (x, y); each labelled
    region's box (xyxy, picture pixels) and class name: what the detector hands the classifier."""
    height, width = sprite.bgr.shape[:2]
    alpha = sprite.alpha[..., None] / 255.0
    window = picture[y : y + height, x : x + width]
    window[:] = (sprite.bgr * alpha + window * (1 - alpha)).astype(np.uint8)
    return [
        (
            (
                float(r.hull[:, 0].min() + x),
                float(r.hull[:, 1].min() + y),
                float(r.hull[:, 0].max() + x),
                float(r.hull[:, 1].max() + y),
            ),
            CLASS_NAMES[r.class_id],
        )
        for r in sprite.regions
    ]


@pytest.fixture(scope="module")
def card_picture() -> tuple[np.ndarray, list[Box]]:
    """A rendered red 7 on a grey table, with its two corner indices' boxes."""
    sprite = render_card("red-7", height=160, rng=np.random.default_rng(4))
    picture = np.full((220, 180, 3), 90, np.uint8)
    return picture, [box for box, _ in _lay(sprite, picture, 30, 20)]


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


@pytest.fixture(scope="module")
def entwined_seeds() -> list[int]:
    """The first 40 seeds whose recent-print look draws the entwined reverse."""
    from referee.render.cards import _draw_look

    looks = ((s, _draw_look("recent", np.random.default_rng(s))) for s in range(400))
    return [s for s, look in looks if look.reverse_print == "entwined"][:40]


@pytest.mark.parametrize("symbol", ["reverse", "4"])
def test_the_shipped_classifier_tells_the_entwined_reverse_from_a_4(entwined_seeds, symbol):
    """The recent Mattel print's reverse (two arrows entwined on the diagonal) was read as a 4 by the
    classifier before the thirty-third session (33 of these 80 corners right); the 4s beside it
    must stay 4s. Cards 70–160 px tall, as the table camera sees them, read in four quarter turns."""
    glyphs = load_glyph_classifier()
    rng = np.random.default_rng(33)
    said = []
    for k, seed in enumerate(entwined_seeds):
        colour = ("red", "yellow", "green", "blue")[k % 4]
        sprite = render_card(
            f"{colour}-{symbol}",
            design="recent",
            height=int(rng.integers(70, 160)),
            rng=np.random.default_rng(seed),
        )
        height, width = sprite.bgr.shape[:2]
        picture = np.full((height + 40, width + 40, 3), rng.integers(40, 200, 3), np.uint8)
        boxes = [box for box, name in _lay(sprite, picture, 20, 20) if not name.startswith("cb-")]
        said += [GLYPH_CLASSES[i] for i in glyphs.read(picture, boxes, 4).probabilities.argmax(1)]
    assert len(said) == 80
    assert said.count(symbol) >= 78, {name: said.count(name) for name in set(said)}
