"""Procedural UNO card faces and backs, with the geometry of everything the detector must find.

Print families (``design``), each jittered per card (print colours, font, stroke widths, index
placement and size, corner radius, oval angle), because the detector has to work on decks and
cameras we never saw. Why these: they are the prints in circulation in the homes and clubs this
referee is for (the model card says more):

* ``classic`` — the older Mattel deck: wide white border, a *filled* white tilted oval, the centre
  numeral in card colour with a black outline and shadow, white outlined corner indices;
* ``modern`` — the 2000s–2010s Mattel deck (as in the shared Roboflow photos): thin white border, a
  white oval *ring* on the coloured field, white centre numeral with a heavy black shadow, white
  indices with a black shadow;
* ``recent`` — the current Mattel print: white symbols with a deep drop shadow, thin oval ring,
  italic numerals, the 1 with a long flag, 6 and 9 underlined, the reverse as two arrows along the
  diagonal (entwined into an S in the middle, as Mattel prints it today, or straight side by side),
  ``+2``/``+4`` indices, a round four-colour wild index and a "WILD" oval, and the draw pictures as
  plain cards (two white ones for the draw two, one of each colour heaped for the wild draw four);
* ``offbrand`` — copies and travel decks: a white face inside a coloured border, symbols printed
  in the card colour on white.

``variety=True`` (what the dataset asks for) draws numerals from every heavy Latin face installed
(:func:`~referee.render.glyphs.numeral_fonts`), slants some, varies outline and shadow, and adds
ColorADD-style colour marks under the index on some decks (printed, never labelled), and records a
third of the prints' black (a wild's field) as a camera exposed for a bright table may: a warm or
cool grey (:func:`_camera_black`). Without it the two original prints render exactly as before, so
the simulated table stays comparable across sessions. The big centre symbol is always drawn and
never labelled.

Colour-blind editions add ● ★ ▲ ■ (RULES.md R3) next to each corner index and sometimes in the
centre. Every labelled symbol comes back as a :class:`LabelRegion` (class id and convex hull in
sprite pixels), so a compositor can follow it through any homography.

>>> sprite = render_card("red-7", "classic", colourblind=True, height=160, rng=np.random.default_rng(1))
>>> sprite.bgr.shape[0], sorted({CLASS_NAMES[r.class_id] for r in sprite.regions})
(160, ['7', 'cb-circle'])
>>> len(deck_card_names(108)), len(deck_card_names(112)), len(set(deck_card_names(112)))
(108, 112, 56)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from PIL import Image, ImageDraw

from referee.render.glyphs import (
    CARD_FONTS,
    InkStyle,
    StyledGlyph,
    flagged_one_mask,
    font,
    hollow_glyph,
    numeral_fonts,
    pictogram_mask,
    style_glyph,
    text_mask,
)
from referee.vision.classes import CLASS_NAMES, COLOURBLIND_CLASSES, COLOURS, SYMBOL_CLASSES, card_name

#: The prints the simulated table deals (kept to the original two: its figures compare across sessions).
DESIGNS: tuple[str, ...] = ("classic", "modern")
#: Every print family the renderer draws (the training data's mix).
PRINT_FAMILIES: tuple[str, ...] = (*DESIGNS, "recent", "offbrand")
#: Width / height of a standard UNO card (56 × 87 mm).
CARD_ASPECT = 56 / 87

#: OpenCV HSV ranges (hue 0..180) of the four print colours over print runs and cameras.
_HUE_RANGES: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "red": ((-8, 6), (170, 245), (165, 245)),
    "yellow": ((18, 30), (165, 245), (205, 255)),
    "green": ((38, 78), (130, 235), (115, 205)),
    "blue": ((98, 116), (140, 245), (120, 215)),
}
_WILD_SYMBOLS = ("wild", "wild-draw4", "wild-swap", "wild-shuffle", "wild-custom")


def deck_card_names(size: int = 112) -> list[str]:
    """All cards of a 108-card deck, plus wild-swap, 3 × wild-custom for the 112-card deck."""
    if size not in (108, 112):
        raise ValueError("UNO decks have 108 or 112 cards")
    names: list[str] = []
    for colour in COLOURS:
        names.append(card_name("0", colour))
        for symbol in [str(d) for d in range(1, 10)] + ["skip", "reverse", "draw2"]:
            names += [card_name(symbol, colour)] * 2
    names += ["wild"] * 4 + ["wild-draw4"] * 4
    if size == 112:
        names += ["wild-swap"] + ["wild-custom"] * 3
    return names


#: Every distinct card face we can render (the 112 deck plus wild-shuffle from the 2018 edition).
ALL_CARD_NAMES: tuple[str, ...] = (*dict.fromkeys(deck_card_names(112)), "wild-shuffle")


def parse_card_name(name: str) -> tuple[str, str | None]:
    """``"red-draw2"`` → ``("draw2", "red")``; ``"wild-draw4"`` → ``("wild-draw4", None)``."""
    if name in _WILD_SYMBOLS:
        return name, None
    colour, _, symbol = name.partition("-")
    if colour not in COLOURS or symbol not in SYMBOL_CLASSES or symbol in _WILD_SYMBOLS:
        raise ValueError(f"unknown card name {name!r} (expected e.g. red-7, blue-skip, wild-draw4)")
    return symbol, colour


def print_colour(colour: str, rng: np.random.Generator) -> tuple[int, int, int]:
    """A BGR print colour for one of the four card colours, jittered like real print runs."""
    (h0, h1), (s0, s1), (v0, v1) = _HUE_RANGES[colour]
    hsv = np.uint8([[[rng.uniform(h0, h1) % 180, rng.uniform(s0, s1), rng.uniform(v0, v1)]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


@dataclass
class LabelRegion:
    """One labelled symbol on a card: detector class and convex hull (N × 2, sprite pixels)."""

    class_id: int
    hull: np.ndarray

    @property
    def class_name(self) -> str:
        return CLASS_NAMES[self.class_id]


@dataclass
class CardSprite:
    """A rendered card: BGR, alpha (uint8; rounded corners are transparent) and label geometry."""

    name: str
    design: str
    colourblind: bool
    face_up: bool
    bgr: np.ndarray
    alpha: np.ndarray
    regions: list[LabelRegion] = field(default_factory=list)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.bgr.shape[1], self.bgr.shape[0]

    @property
    def corners(self) -> np.ndarray:
        """The card outline as 4 corners (top-left, top-right, bottom-right, bottom-left)."""
        w, h = self.size
        return np.float32([(0, 0), (w, 0), (w, h), (0, h)])


@dataclass(frozen=True)
class _Look:
    """Per-card print parameters (drawn once from the rng, so a sprite is fully seeded)."""

    design: str
    font_name: str
    border: float
    radius: float
    oval_angle: float
    oval_axes: tuple[float, float]
    ring: float
    index_height: float
    index_x: float
    index_y: float
    index_style: InkStyle
    cb_scale: float
    cb_below: bool
    cb_centre: bool
    white: tuple[int, int, int]
    dark: tuple[int, int, int]
    shear: float = 0.0  # italic slant of the numerals
    flagged_one: bool = False  # the 1 drawn with a long flag (recent decks)
    #: The reverse's print: "hooked" (two L-tailed arrows), "diagonal" (two straight arrows side by
    #: side) or "entwined" (the recent Mattel print's: two arrows along the diagonal whose tails
    #: hook round each other).
    reverse_print: str = "hooked"
    round_wild_index: bool = False  # the wild's index a four-colour circle, not an oval
    hollow_draw4: bool = False  # the wild draw four's "+4" printed hollow: black inside a white rim
    colour_marks: bool = False  # ColorADD-style marks printed under the index (not labelled)
    centre_shadow: float = 0.0  # the centre symbol's drop shadow (0: the family's default)


def _draw_look(
    design: str, rng: np.random.Generator, variety: bool = False, fonts: tuple[str, ...] = ()
) -> _Look:
    if design in ("recent", "offbrand") or variety or fonts:
        return _varied_look(design, rng, fonts)
    white_v = rng.uniform(228, 255)
    white = tuple(int(np.clip(white_v + rng.uniform(-8, 8), 0, 255)) for _ in range(3))
    dark_v = int(rng.uniform(8, 45))
    dark = (dark_v, dark_v, dark_v)
    if design == "classic":
        index_style = InkStyle(white, outline=rng.uniform(0.05, 0.1), shadow=rng.uniform(0.0, 0.06))
        border = rng.uniform(0.045, 0.07)
        font_name = CARD_FONTS[rng.choice([0, 1, 1, 3])]
    else:
        index_style = InkStyle(white, outline=rng.uniform(0.0, 0.05), shadow=rng.uniform(0.04, 0.1))
        border = rng.uniform(0.025, 0.045)
        font_name = CARD_FONTS[rng.choice([0, 0, 2, 1])]
    return _Look(
        design=design,
        font_name=font_name,
        border=border,
        radius=rng.uniform(0.035, 0.075),
        oval_angle=rng.uniform(22, 42),
        oval_axes=(rng.uniform(0.4, 0.47), rng.uniform(0.21, 0.26)),
        ring=rng.uniform(0.01, 0.022),
        index_height=rng.uniform(0.1, 0.15),
        index_x=rng.uniform(0.05, 0.1),
        index_y=rng.uniform(0.04, 0.075),
        index_style=index_style,
        cb_scale=rng.uniform(0.45, 0.65),
        cb_below=bool(rng.random() < 0.7),
        cb_centre=bool(rng.random() < 0.5),
        white=white,  # type: ignore[arg-type]
        dark=dark,
    )


def _varied_look(design: str, rng: np.random.Generator, fonts: tuple[str, ...] = ()) -> _Look:
    """A card look drawn from the whole variety of prints: any installed heavy face (or one of
    ``fonts``), slants, weights, the recent deck's glyph shapes (see the module docstring)."""
    fonts = fonts or numeral_fonts()
    white_v = rng.uniform(225, 255)
    white = tuple(int(np.clip(white_v + rng.uniform(-10, 10), 0, 255)) for _ in range(3))
    dark = _camera_black(rng)
    recent = design == "recent"
    if design == "classic":
        index_style = InkStyle(white, outline=rng.uniform(0.03, 0.11), shadow=rng.uniform(0.0, 0.07))
        border = rng.uniform(0.04, 0.075)
    elif design == "offbrand":
        index_style = InkStyle(white, outline=rng.uniform(0.0, 0.06), shadow=rng.uniform(0.0, 0.05))
        border = rng.uniform(0.05, 0.1)
    else:
        index_style = InkStyle(white, outline=rng.uniform(0.0, 0.06), shadow=rng.uniform(0.03, 0.14))
        border = rng.uniform(0.02, 0.05)
    return _Look(
        design=design,
        font_name=str(fonts[int(rng.integers(len(fonts)))]),
        border=border,
        radius=rng.uniform(0.03, 0.08),
        oval_angle=rng.uniform(18, 45),
        oval_axes=(rng.uniform(0.38, 0.48), rng.uniform(0.2, 0.27)),
        ring=rng.uniform(0.008, 0.025),
        index_height=rng.uniform(0.09, 0.16),
        index_x=rng.uniform(0.04, 0.11),
        index_y=rng.uniform(0.035, 0.08),
        index_style=index_style,
        cb_scale=rng.uniform(0.45, 0.65),
        cb_below=bool(rng.random() < 0.7),
        cb_centre=bool(rng.random() < 0.5),
        white=white,  # type: ignore[arg-type]
        dark=dark,
        shear=float(rng.uniform(0.12, 0.28)) if rng.random() < (0.7 if recent else 0.3) else 0.0,
        flagged_one=bool(rng.random() < (0.85 if recent else 0.25)),
        reverse_print=_reverse_print(float(rng.random()), recent),
        round_wild_index=bool(rng.random() < (0.85 if recent else 0.15)),
        hollow_draw4=bool(rng.random() < (0.8 if recent else 0.15)),
        colour_marks=bool(rng.random() < 0.15),
        centre_shadow=float(rng.uniform(0.08, 0.16)) if recent else 0.0,
    )


def _reverse_print(draw: float, recent: bool) -> str:
    """The reverse's print for a uniform ``draw``: mostly the entwined or straight diagonal arrows on
    recent decks, mostly the hooked arrows on others."""
    entwined, diagonal = (0.55, 0.9) if recent else (0.1, 0.2)
    return "entwined" if draw < entwined else "diagonal" if draw < diagonal else "hooked"


def _camera_black(rng: np.random.Generator) -> tuple[int, int, int]:
    """The print's black (a wild card's field, dark ink) as a camera may record it: ink black mostly,
    but a third of the time a warm or cool grey up to a mid tone, as a matte print under a bright
    lamp, an exposure set for the white table or a phone's tone curve leave it. A detector that knows
    wilds only on deep black misses them there (error analysis on the unseen photographed deck's
    table scenes)."""
    if rng.random() < 0.67:
        value = int(rng.uniform(8, 50))
        return (value, value, value)
    value = rng.uniform(45, 125)
    tint = rng.uniform(-0.15, 0.15)  # < 0 warm (red over blue), > 0 cool
    return tuple(int(np.clip(value * (1 + k * tint), 0, 255)) for k in (1.0, 0.0, -1.0))  # type: ignore[return-value]


def _rounded_rect(inset: float, size: tuple[int, int], radius: float) -> np.ndarray:
    """Outline points (float, N × 2) of a rounded rectangle inset from a w × h box."""
    w, h = size
    x0, y0, x1, y1 = inset, inset, w - inset, h - inset
    r = min(max(0.5, radius), (x1 - x0) / 2, (y1 - y0) / 2)
    steps = np.linspace(0, math.pi / 2, 7)
    points = []
    for cx, cy, start in (
        (x1 - r, y0 + r, -math.pi / 2),
        (x1 - r, y1 - r, 0.0),
        (x0 + r, y1 - r, math.pi / 2),
    ):
        points += [(cx + r * math.cos(start + t), cy + r * math.sin(start + t)) for t in steps]
    points += [(x0 + r + r * math.cos(math.pi + t), y0 + r + r * math.sin(math.pi + t)) for t in steps]
    return np.asarray(points)


def _fill(image: np.ndarray, points: np.ndarray, colour) -> None:
    """Antialiased sub-pixel polygon fill straight into a uint8 image (pixel edges at integers)."""
    fixed = np.round((np.asarray(points) - 0.5) * 16).astype(np.int32)
    cv2.fillPoly(image, [fixed], colour if np.ndim(colour) else int(colour), cv2.LINE_AA, shift=4)


def _colour(bgr) -> tuple[float, float, float]:
    return tuple(float(c) for c in bgr)  # type: ignore[return-value]


def _paste(canvas: np.ndarray, glyph: StyledGlyph, x: float, y: float) -> tuple[int, int]:
    """Alpha-blend a glyph with its ink-box top-left near (x, y); returns the offset used."""
    h, w = glyph.alpha.shape
    x0, y0 = round(x), round(y)
    ch, cw = canvas.shape[:2]
    sx0, sy0 = max(0, -x0), max(0, -y0)
    sx1, sy1 = min(w, cw - x0), min(h, ch - y0)
    if sx1 <= sx0 or sy1 <= sy0:
        return x0, y0
    a = glyph.alpha[sy0:sy1, sx0:sx1, None]
    region = canvas[y0 + sy0 : y0 + sy1, x0 + sx0 : x0 + sx1]
    blended = region.astype(np.float32) * (1 - a) + glyph.bgr[sy0:sy1, sx0:sx1] * a
    region[:] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)
    return x0, y0


def _hull(mask: np.ndarray, x0: int, y0: int) -> np.ndarray:
    ys, xs = np.nonzero(mask)
    if len(xs) < 3:  # a glyph a few pixels tall whose ink stays below half cover: its whole box
        h, w = mask.shape
        return np.float32([(0, 0), (w, 0), (w, h), (0, h)]) + np.float32([x0, y0])
    points = np.stack([xs, ys], axis=1).astype(np.int32)
    hull = cv2.convexHull(points).reshape(-1, 2).astype(np.float32)
    # Pixel centres → pixel extents: the hull of pixel squares is the point hull grown by half a pixel.
    centre = hull.mean(axis=0)
    grow = np.sign(hull - centre) * 0.5
    return hull + grow + np.float32([x0, y0]) + 0.5


def _four_colour_fill(size: tuple[int, int], angle: float, colours: list[tuple[int, int, int]]) -> np.ndarray:
    """A (h, w, 3) image split into four quadrants along the oval's tilted axes (the wild oval)."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs -= w / 2
    ys -= h / 2
    theta = math.radians(angle)
    u = xs * math.cos(theta) + ys * math.sin(theta)
    v = -xs * math.sin(theta) + ys * math.cos(theta)
    quadrant = (u > 0).astype(np.int32) * 2 + (v > 0).astype(np.int32)
    palette = np.float32([colours[0], colours[1], colours[3], colours[2]])
    return palette[quadrant]


def _symbol_mask(symbol: str, height: int, look: _Look, rng: np.random.Generator) -> np.ndarray:
    if symbol == "1" and look.flagged_one:
        return flagged_one_mask(height, rng, look.shear)
    if symbol.isdigit():
        mask = text_mask(symbol, height, look.font_name, shear=look.shear)
        if symbol in ("6", "9"):  # underlined so that 6 and 9 can be told apart upside down
            bar = max(1, round(height * 0.09))
            mask = cv2.copyMakeBorder(mask, 0, bar * 2, 0, 0, cv2.BORDER_CONSTANT, value=0)
            mask[-bar:, :] = 255
            mask = cv2.resize(mask, (mask.shape[1], height), interpolation=cv2.INTER_AREA)
        return mask
    if symbol == "draw2":
        return text_mask("+2", height, look.font_name, shear=look.shear)
    if symbol == "wild-draw4":
        return text_mask("+4", height, look.font_name, shear=look.shear)
    if symbol == "reverse" and look.reverse_print != "hooked":
        return pictogram_mask(symbol, height, rng, look.reverse_print)
    if symbol == "wild":
        w = max(2, round(height * (0.95 if look.round_wild_index else 0.72)))
        mask = np.zeros((height * 3, w * 3), np.uint8)
        cv2.ellipse(
            mask, (w * 3 // 2, height * 3 // 2), (w * 3 // 2 - 1, height * 3 // 2 - 1), 0, 0, 360, 255, -1
        )
        return cv2.resize(mask, (w, height), interpolation=cv2.INTER_AREA)
    return pictogram_mask(symbol, height, rng)


def render_card(
    name: str,
    design: str = "modern",
    colourblind: bool = False,
    height: int = 240,
    rng: np.random.Generator | None = None,
    variety: bool = False,
    fonts: tuple[str, ...] = (),
) -> CardSprite:
    """Render one card face; all jitter comes from ``rng`` (same seed → same pixels).

    ``variety``: draw from every installed face and the varied prints (the training data's mix).
    ``fonts``: the varied prints with numerals in one of these faces instead (an evaluation deck in
    typefaces no network trained on, :func:`~referee.render.glyphs.held_out_fonts`)."""
    if design not in PRINT_FAMILIES:
        raise ValueError(f"unknown card design {design!r} (expected one of {', '.join(PRINT_FAMILIES)})")
    rng = rng if rng is not None else np.random.default_rng()
    symbol, colour = parse_card_name(name)
    look = _draw_look(design, rng, variety, fonts)
    h = int(height)
    w = max(8, round(h * CARD_ASPECT))
    colours = [print_colour(c, rng) for c in COLOURS]
    field_bgr = colours[COLOURS.index(colour)] if colour else look.dark

    alpha, canvas = _blank_card(look, (w, h), field_bgr)

    _draw_centre(canvas, symbol, colour, field_bgr, colours, look, rng)
    with_colourblind = colourblind and colour is not None
    regions = _draw_corners(
        canvas, symbol, colour if with_colourblind else None, look, rng, colour, field_bgr
    )
    if with_colourblind and look.cb_centre:
        regions.append(_draw_centre_colourblind(canvas, colour, look, rng))

    return CardSprite(name, design, colourblind, True, canvas, alpha, regions)


def _blank_card(look: _Look, size: tuple[int, int], field_bgr) -> tuple[np.ndarray, np.ndarray]:
    """Alpha (rounded card outline) and a canvas with the white border around the coloured field."""
    w, h = size
    alpha = np.zeros((h, w), np.uint8)
    _fill(alpha, _rounded_rect(0, size, look.radius * h), 255)
    canvas = np.empty((h, w, 3), np.uint8)
    outer, inner = (field_bgr, look.white) if look.design == "offbrand" else (look.white, field_bgr)
    canvas[:] = outer
    inner_radius = max(1.0, (look.radius - look.border * 0.6) * h)
    _fill(canvas, _rounded_rect(look.border * h, size, inner_radius), _colour(inner))
    return alpha, canvas


def _draw_centre(
    canvas: np.ndarray,
    symbol: str,
    colour: str | None,
    field_bgr: tuple[int, int, int],
    colours: list[tuple[int, int, int]],
    look: _Look,
    rng: np.random.Generator,
) -> None:
    h, w = canvas.shape[:2]
    centre = (w // 2, h // 2)
    axes = (round(look.oval_axes[1] * h), round(look.oval_axes[0] * h))
    # Tilted oval: OpenCV rotates the (minor, major) axes clockwise by the angle.
    is_wild = colour is None
    white = _colour(look.white)
    ring = max(1, round(look.ring * h))
    if look.design == "classic" or symbol == "wild-custom" or (look.design == "recent" and is_wild):
        cv2.ellipse(canvas, centre, axes, look.oval_angle, 0, 360, white, -1, cv2.LINE_AA)
    elif look.design == "offbrand":  # a ring in the card colour on the white face, or none
        if not is_wild and rng.random() < 0.6:
            cv2.ellipse(canvas, centre, axes, look.oval_angle, 0, 360, _colour(field_bgr), ring, cv2.LINE_AA)
    else:
        cv2.ellipse(canvas, centre, axes, look.oval_angle, 0, 360, white, ring, cv2.LINE_AA)
    if is_wild and symbol in ("wild", "wild-swap", "wild-shuffle"):
        shrink = 0.9 if look.design == "modern" else 0.94
        inner_axes = (round(axes[0] * shrink), round(axes[1] * shrink))
        for quarter, colour_bgr in enumerate(colours):  # the four-colour wild oval
            start = quarter * 90
            cv2.ellipse(
                canvas,
                centre,
                inner_axes,
                look.oval_angle,
                start,
                start + 90,
                _colour(colour_bgr),
                -1,
                cv2.LINE_AA,
            )

    big = round(h * rng.uniform(0.3, 0.4))
    if symbol == "wild":
        if look.design == "recent":  # the "WILD" lettering across the oval
            _draw_wild_lettering(canvas, look, colours, rng)
        return
    if symbol == "wild-custom":
        _draw_write_your_own(canvas, look, rng)
        return
    if symbol in ("draw2", "wild-draw4"):
        count = 2 if symbol == "draw2" else 4
        if look.design == "recent":  # plain cards, as that print draws them
            _draw_plain_mini_cards(canvas, count, colours, look, big)
        else:
            _draw_mini_cards(canvas, count, field_bgr, colours, look, big)
        return
    mask = _symbol_mask(symbol, big, look, rng)
    if look.design in ("classic", "offbrand") and not is_wild:
        style = InkStyle(field_bgr, outline=rng.uniform(0.03, 0.06), shadow=rng.uniform(0.03, 0.07))
    else:
        shadow = look.centre_shadow or rng.uniform(0.05, 0.1)
        style = InkStyle(look.white, outline=rng.uniform(0.0, 0.03), shadow=shadow)
    glyph = style_glyph(mask, style)
    gh, gw = glyph.alpha.shape
    _paste(canvas, glyph, w / 2 - gw / 2, h / 2 - gh / 2)


def _draw_mini_cards(
    canvas: np.ndarray,
    count: int,
    field_bgr: tuple[int, int, int],
    colours: list[tuple[int, int, int]],
    look: _Look,
    big: int,
) -> None:
    """The centre picture of draw-two / draw-four: small overlapping cards (not labelled)."""
    h, w = canvas.shape[:2]
    ch = big * (0.62 if count == 2 else 0.5)
    cw = ch * 0.66
    step = cw * 0.45
    order = [colours[1], colours[2], colours[3], colours[0]] if count == 4 else [field_bgr, field_bgr]
    x_start = w / 2 - (cw + step * (count - 1)) / 2
    y_start = h / 2 - ch / 2 - step * (count - 1) / 4
    for k in range(count):
        x0, y0 = x_start + k * step, y_start + k * step / 2
        pts = np.int32([(x0, y0), (x0 + cw, y0), (x0 + cw, y0 + ch), (x0, y0 + ch)])
        shadow = pts + max(1, round(ch * 0.06))
        cv2.fillPoly(canvas, [shadow], (15, 15, 15), cv2.LINE_AA)
        cv2.fillPoly(canvas, [pts], tuple(float(c) for c in look.white), cv2.LINE_AA)
        inset = max(1, round(cw * 0.12))
        inner = np.int32([(x0 + inset, y0 + inset), (x0 + cw - inset, y0 + inset)])
        inner = np.int32(
            [inner[0], inner[1], (x0 + cw - inset, y0 + ch - inset), (x0 + inset, y0 + ch - inset)]
        )
        cv2.fillPoly(canvas, [inner], tuple(float(c) for c in order[k]), cv2.LINE_AA)


#: Where the recent print heaps its plain mini cards, back to front: (colour index or None for
#: white, centre offset in mini-card heights).
_PLAIN_HEAPS: dict[int, tuple[tuple[int | None, tuple[float, float]], ...]] = {
    2: ((None, (0.3, -0.42)), (None, (-0.27, 0.18))),
    4: ((2, (0.75, -0.58)), (0, (-0.18, -0.18)), (3, (0.35, 0.35)), (1, (-0.7, 0.7))),
}


def _draw_plain_mini_cards(
    canvas: np.ndarray, count: int, colours: list[tuple[int, int, int]], look: _Look, big: int
) -> None:
    """The recent print's draw pictures (not labelled): plain rounded cards with a dark shadow, white
    for the draw two, one of each colour heaped for the wild draw four."""
    h, w = canvas.shape[:2]
    ch = big * (0.55 if count == 2 else 0.5)
    cw = ch * 0.68
    outline = _rounded_rect(0, (round(cw), round(ch)), ch * 0.08)
    shade = max(1, round(ch * 0.07))
    for colour_index, (dx, dy) in _PLAIN_HEAPS[count]:
        fill = look.white if colour_index is None else colours[colour_index]
        at = outline + np.float64([w / 2 + dx * ch - cw / 2, h / 2 + dy * ch - ch / 2])
        cv2.fillPoly(canvas, [np.int32(at + shade)], (15, 15, 15), cv2.LINE_AA)
        cv2.polylines(canvas, [np.int32(at)], True, (15, 15, 15), max(1, round(ch * 0.03)), cv2.LINE_AA)
        cv2.fillPoly(canvas, [np.int32(at)], tuple(float(c) for c in fill), cv2.LINE_AA)


def _draw_wild_lettering(
    canvas: np.ndarray, look: _Look, colours: list[tuple[int, int, int]], rng: np.random.Generator
) -> None:
    """The recent wild's centre: "WILD" in four-colour letters with a deep shadow, across the oval
    (artwork, never labelled; it keeps the centre busy as on the real card)."""
    h, w = canvas.shape[:2]
    mask = text_mask("WILD", max(4, round(h * rng.uniform(0.1, 0.14))), look.font_name, shear=0.2)
    fill = _four_colour_fill((mask.shape[1], mask.shape[0]), 80, colours)
    glyph = style_glyph(mask, InkStyle(look.white, outline=0.08, shadow=0.14), fill)
    angle = -rng.uniform(15, 30)
    gh, gw = glyph.alpha.shape
    rotation = cv2.getRotationMatrix2D((gw / 2, gh / 2), -angle, 1.0)
    side = int(math.hypot(gw, gh)) + 2
    rotation[:, 2] += (side - gw) / 2, (side - gh) / 2
    turned = StyledGlyph(
        cv2.warpAffine(glyph.bgr, rotation, (side, side)),
        cv2.warpAffine(glyph.alpha, rotation, (side, side)),
        cv2.warpAffine(glyph.label_mask.astype(np.uint8), rotation, (side, side)) > 0,
    )
    _paste(canvas, turned, w / 2 - side / 2, h / 2 - side / 2)


def _colour_mark_mask(colour: str, height: int) -> np.ndarray:
    """A ColorADD-style colour code (printed on some decks under the index): yellow a slash, blue a
    left triangle, red a right triangle, green slash and left triangle. Drawn, never labelled."""
    s = max(3, height) * 3
    mask = np.zeros((s, s), np.uint8)
    if colour in ("yellow", "green"):
        cv2.line(mask, (round(s * 0.15), s - 2), (round(s * 0.55), 1), 255, max(2, s // 6))
    if colour in ("blue", "green"):
        cv2.fillPoly(mask, [np.int32([(s * 0.45, s - 1), (s - 1, s - 1), (s - 1, s * 0.35)])], 255)
    if colour == "red":
        cv2.fillPoly(mask, [np.int32([(1, 1), (s * 0.75, 1), (1, s * 0.7)])], 255)
    return cv2.resize(mask, (s // 3, s // 3), interpolation=cv2.INTER_AREA)


def _draw_write_your_own(canvas: np.ndarray, look: _Look, rng: np.random.Generator) -> None:
    """The customizable wild: a white field with ruled lines, sometimes with a handwritten rule."""
    h, w = canvas.shape[:2]
    top, bottom = round(h * 0.3), round(h * 0.7)
    grey = tuple(float(v) for v in np.clip(np.float32(look.white) - 70, 0, 255))
    for y in np.linspace(top, bottom, int(rng.integers(3, 6))):
        cv2.line(canvas, (round(w * 0.28), round(y)), (round(w * 0.72), round(y)), grey, max(1, h // 200))
    if rng.random() < 0.4:  # someone wrote a house rule on it
        face = font(CARD_FONTS[int(rng.integers(len(CARD_FONTS)))], max(5, h // 28))
        strip = Image.new("L", (round(w * 0.44), bottom - top), 0)
        draw = ImageDraw.Draw(strip)
        words = ["alle", "tauschen", "+3", "ruil", "kaarten", "skip", "everyone", "draws"]
        for row in range(3):
            text = " ".join(rng.choice(words, 2))
            draw.text((2, row * (bottom - top) / 3), text, font=face, fill=255)
        ink = np.asarray(strip, np.float32)[..., None] / 255
        region = canvas[top:bottom, round(w * 0.28) : round(w * 0.28) + strip.width]
        pen = np.float32([120, 40, 20]) if rng.random() < 0.6 else np.float32([30, 30, 30])
        region[:] = (region * (1 - ink[: region.shape[0], : region.shape[1]]) + pen * ink).astype(np.uint8)


def _draw_corners(
    canvas: np.ndarray,
    symbol: str,
    colourblind_colour: str | None,
    look: _Look,
    rng: np.random.Generator,
    colour: str | None = None,
    field_bgr: tuple[int, int, int] | None = None,
) -> list[LabelRegion]:
    """Top-left index (+ colour-blind symbol of ``colourblind_colour``), then the same rotated by 180°."""
    h, w = canvas.shape[:2]
    regions: list[LabelRegion] = []
    index_h = max(4, round(look.index_height * h))
    mask = _symbol_mask(symbol, index_h, look, rng)
    fill_image = None
    style = look.index_style
    if look.design == "offbrand" and colour is not None and field_bgr is not None:
        style = replace(style, fill_bgr=field_bgr)  # the symbol in the card colour on the white face
    if symbol == "wild":
        fill_image = _four_colour_fill(
            (mask.shape[1], mask.shape[0]), 35, [print_colour(c, rng) for c in COLOURS]
        )
        if look.round_wild_index:  # a white rim around the round four-colour index
            style = replace(style, outline=max(style.outline, 0.08), outline_bgr=look.white)
    if symbol == "wild-draw4" and look.hollow_draw4:
        plate = rng.uniform(0.06, 0.12) if rng.random() < 0.6 else 0.0
        glyph = hollow_glyph(
            mask, field_bgr or look.dark, look.white, rng.uniform(0.05, 0.1), rng.uniform(0.02, 0.04), plate
        )
    else:
        glyph = style_glyph(mask, style, fill_image)
    pad = (glyph.alpha.shape[0] - index_h) // 2
    x0 = look.index_x * w + look.border * h * 0.5 - pad
    y0 = look.index_y * h + look.border * h * 0.5 - pad
    placed = [(glyph, round(x0), round(y0))]
    regions.append(LabelRegion(SYMBOL_CLASSES.index(symbol), _hull(glyph.label_mask, round(x0), round(y0))))
    if look.colour_marks and colour is not None and colourblind_colour is None:
        mark = style_glyph(_colour_mark_mask(colour, max(3, round(index_h * 0.45))), look.index_style)
        placed.append((mark, round(x0 + pad * 0.5), round(y0 + glyph.alpha.shape[0] - pad * 0.3)))
    if colourblind_colour is not None:
        cb_class = COLOURBLIND_CLASSES[COLOURS.index(colourblind_colour)]
        cb_h = max(3, round(index_h * look.cb_scale))
        cb_glyph = style_glyph(pictogram_mask(cb_class, cb_h, rng), look.index_style)
        glyph_h, glyph_w = glyph.alpha.shape
        if look.cb_below:
            cx, cy = x0 + glyph_w / 2 - cb_glyph.alpha.shape[1] / 2, y0 + glyph_h - pad * 0.6
        else:
            cx, cy = x0 + glyph_w - pad * 0.6, y0 + glyph_h / 2 - cb_glyph.alpha.shape[0] / 2
        placed.append((cb_glyph, round(cx), round(cy)))
        regions.append(
            LabelRegion(CLASS_NAMES.index(cb_class), _hull(cb_glyph.label_mask, round(cx), round(cy)))
        )
    for item, x, y in placed:
        _paste(canvas, item, x, y)
        # The bottom-right corner is the same print rotated by 180° about the card centre.
        gh, gw = item.alpha.shape
        flipped = StyledGlyph(item.bgr[::-1, ::-1], item.alpha[::-1, ::-1], item.label_mask[::-1, ::-1])
        _paste(canvas, flipped, w - x - gw, h - y - gh)
    rotated = [LabelRegion(r.class_id, np.float32([w, h]) - r.hull) for r in regions]
    return regions + rotated


def _draw_centre_colourblind(
    canvas: np.ndarray, colour: str, look: _Look, rng: np.random.Generator
) -> LabelRegion:
    """A larger colour-blind symbol under the centre picture (some editions print one there)."""
    h, w = canvas.shape[:2]
    cb_class = COLOURBLIND_CLASSES[COLOURS.index(colour)]
    size = max(4, round(h * rng.uniform(0.07, 0.1)))
    if look.design == "classic":  # on the white oval: dark ink
        style = InkStyle(look.dark, outline=0.0, shadow=0.0)
    else:
        style = InkStyle(look.white, outline=0.0, shadow=rng.uniform(0.06, 0.12))
    glyph = style_glyph(pictogram_mask(cb_class, size, rng), style)
    gh, gw = glyph.alpha.shape
    x0, y0 = _paste(canvas, glyph, w / 2 - gw / 2, h * rng.uniform(0.74, 0.78) - gh / 2)
    return LabelRegion(CLASS_NAMES.index(cb_class), _hull(glyph.label_mask, x0, y0))


def render_back(height: int = 240, rng: np.random.Generator | None = None) -> CardSprite:
    """A card back (black, red tilted oval, yellow "UNO" logo): an unlabelled object for draw piles."""
    rng = rng if rng is not None else np.random.default_rng()
    look = _draw_look("classic", rng)
    h = int(height)
    w = max(8, round(h * CARD_ASPECT))
    alpha, canvas = _blank_card(look, (w, h), look.dark)
    axes = (round(look.oval_axes[1] * h), round(look.oval_axes[0] * h))
    red = _colour(print_colour("red", rng))
    cv2.ellipse(canvas, (w // 2, h // 2), axes, look.oval_angle, 0, 360, red, -1, cv2.LINE_AA)
    logo = text_mask("UNO", max(4, round(h * rng.uniform(0.16, 0.22))), CARD_FONTS[int(rng.integers(4))])
    glyph = style_glyph(logo, InkStyle(print_colour("yellow", rng), outline=0.08, shadow=0.08))
    rotation = cv2.getRotationMatrix2D((glyph.alpha.shape[1] / 2, glyph.alpha.shape[0] / 2), 20, 1.0)
    size = (glyph.alpha.shape[1], glyph.alpha.shape[0])
    rotated = StyledGlyph(
        cv2.warpAffine(glyph.bgr, rotation, size),
        cv2.warpAffine(glyph.alpha, rotation, size),
        glyph.label_mask,
    )
    _paste(canvas, rotated, w / 2 - size[0] / 2, h / 2 - size[1] / 2)
    return CardSprite("back", "back", False, False, canvas, alpha, [])
