"""Symbol shapes printed on UNO cards, as greyscale masks, and their printed styling.

A glyph is drawn as a *shape mask* (uint8, 255 = ink) at the size asked for; styling (fill colour,
black outline, drop shadow) is applied afterwards so that every symbol gets the same print effects.
Digits and ``+2``/``+4`` come from TrueType faces (Pillow): the vendored DejaVu faces always, and,
where a dataset is rendered, every heavy Latin face the machine has installed (:func:`numeral_fonts`;
Debian's font packages, listed in the model card). Pictograms (skip, both reverse prints, swap,
shuffle, pencil, colour-blind shapes, the flagged 1 of recent decks) are drawn with OpenCV polygons.
Nothing here is downloaded, and the runtime never renders cards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.errors import UserError

FONT_DIR = Path(__file__).resolve().parent / "fonts"

#: Bold faces that look like the numerals of the decks we know; the choice is jittered per card.
CARD_FONTS: tuple[str, ...] = (
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSerif-Bold.ttf",
)
#: Plain face for printed distractors (receipts, score sheets, poker cards).
PRINT_FONT = "DejaVuSansMono-Bold.ttf"

SUPERSAMPLE = 3  # pictograms are drawn this much larger, then shrunk: cheap antialiasing


#: Where a dataset machine's font packages put their faces (Debian; see the model card).
SYSTEM_FONT_DIR = Path("/usr/share/fonts")
#: Latin families whose heavy weights print numerals like real decks do (sans, geometric, humanist,
#: slab and serif faces). Script-only faces (most of Noto) and monospaced ones are left out.
NUMERAL_FAMILIES: tuple[str, ...] = (
    "Lato-", "OpenSans-", "Carlito-", "Caladea-", "FreeSans", "FreeSerif", "DejaVuSans-",
    "DejaVuSansCondensed-", "DejaVuSerif", "Liberation", "Roboto", "Comfortaa-", "LeagueSpartan-",
    "Cantarell-", "NimbusSans", "NimbusRoman", "URWGothic-", "URWBookman-", "C059-", "P052-",
    "NotoSans-", "NotoSerif-", "NotoSansDisplay-", "NotoSerifDisplay-", "texgyreheros", "texgyreadventor",
)  # fmt: skip
_HEAVY_WEIGHTS = ("bold", "black", "heavy", "demi")
#: Families no network is ever trained on: a deck printed in them is a deck in typefaces the
#: networks never saw, the rendered stand-in for a real deck we do not have
#: (``uno-referee dataset --typefaces held-out``). Grotesque, humanist, geometric, rounded and
#: serif faces from the Debian packages of :data:`HELD_OUT_PACKAGES`. None of them may ever start
#: like a :data:`NUMERAL_FAMILIES` name (a test checks).
HELD_OUT_FAMILIES: tuple[str, ...] = (
    "Inter-", "InterDisplay-", "B612-", "Cabin-", "Karla-", "ClearSans-", "Go-Bold", "Dosis-",
    "BetecknaGS", "Manrope-", "Quicksand-", "Oxygen-Sans", "Mplus1-", "Mplus2-", "AveriaSansGWF-",
    "Rasa-", "Yrsa-",
)  # fmt: skip
#: The packages that install them, for the one-line error where none is installed.
HELD_OUT_PACKAGES = (
    "fonts-inter fonts-b612 fonts-cabin fonts-karla fonts-clear-sans fonts-go fonts-dosis fonts-beteckna "
    "fonts-manrope fonts-quicksand fonts-oxygen fonts-mplus fonts-averia-sans-gwf fonts-yrsa-rasa"
)


def _installed_faces(families: tuple[str, ...]) -> tuple[str, ...]:
    """Every heavy, not monospaced face of these families installed here (sorted absolute paths)."""
    if not SYSTEM_FONT_DIR.is_dir():
        return ()
    return tuple(
        sorted(
            str(path)
            for pattern in ("*.ttf", "*.otf")
            for path in SYSTEM_FONT_DIR.rglob(pattern)
            if path.name.startswith(families)
            and any(weight in path.name.lower() for weight in _HEAVY_WEIGHTS)
            and "mono" not in path.name.lower()
        )
    )


@lru_cache(maxsize=1)
def numeral_fonts() -> tuple[str, ...]:
    """Faces for numerals: the vendored ones, then every heavy Latin face installed (absolute paths).

    Only where datasets are rendered does this find more than the vendored faces; the result is
    sorted, so a seeded scene is the same on two machines with the same fonts.
    """
    return CARD_FONTS + _installed_faces(NUMERAL_FAMILIES)


@lru_cache(maxsize=1)
def held_out_fonts() -> tuple[str, ...]:
    """Faces of :data:`HELD_OUT_FAMILIES` installed here: for evaluation sets only (none may be empty
    where such a set is rendered; :mod:`referee.render.dataset` says what to install)."""
    return _installed_faces(HELD_OUT_FAMILIES)


def require_held_out_fonts() -> tuple[str, ...]:
    """:func:`held_out_fonts`, or a one-line error naming the packages where none is installed."""
    faces = held_out_fonts()
    if not faces:
        raise UserError(
            f"--typefaces held-out: no held-out face is installed: apt-get install {HELD_OUT_PACKAGES}"
        )
    return faces


def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    """A TrueType font at a pixel size: a vendored face by file name, or any face by absolute path
    (cached: loading a face costs ~1 ms)."""
    path = Path(name) if Path(name).is_absolute() else FONT_DIR / name
    return ImageFont.truetype(str(path), max(4, size))


@lru_cache(maxsize=16384)
def text_mask(
    text: str, height: int, font_name: str, width_scale: float = 1.0, shear: float = 0.0
) -> np.ndarray:
    """Ink mask of ``text`` cropped to its ink, scaled so the ink is ``height`` pixels tall;
    ``shear`` slants it like an italic (x moves right by ``shear`` × height from bottom to top).

    Cached (a pure function of its arguments; the same few symbols recur in every scene): callers
    must not modify the returned array.
    """
    face = font(font_name, int(height * 1.45))
    left, top, right, bottom = face.getbbox(text)
    canvas = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), text, font=face, fill=255)
    mask = _crop_to_ink(np.asarray(canvas))
    if shear:
        mask = _sheared(mask, shear)
    scale = height / max(1, mask.shape[0])
    size = (max(1, round(mask.shape[1] * scale * width_scale)), max(1, height))
    resized = cv2.resize(mask, size, interpolation=cv2.INTER_AREA)
    resized.flags.writeable = False
    return resized


def _sheared(mask: np.ndarray, shear: float) -> np.ndarray:
    """An italic slant: the top moves right by ``shear`` × height against the bottom."""
    height, width = mask.shape
    extra = round(abs(shear) * height) + 2
    offset = extra if shear < 0 else 0
    matrix = np.float32([[1, -shear, shear * height + offset if shear > 0 else offset], [0, 1, 0]])
    slanted = cv2.warpAffine(mask, matrix, (width + extra, height), flags=cv2.INTER_LINEAR)
    return _crop_to_ink(slanted)


def flagged_one_mask(height: int, rng: np.random.Generator, shear: float = 0.0) -> np.ndarray:
    """The 1 of recent Mattel decks: a heavy stem with a long flag reaching down-left, sometimes a
    foot. Several decks print it; a model that only saw plain 1s reads it as a 7."""
    s = height * SUPERSAMPLE
    stem = rng.uniform(0.2, 0.28)
    flag_drop = rng.uniform(0.25, 0.45)  # how far down the flag's tip reaches
    flag_reach = rng.uniform(0.3, 0.45)  # how far left of the stem it reaches
    w = round(s * (stem + flag_reach + 0.08))
    mask = np.zeros((s, w), np.uint8)
    x_stem = w - stem * s - 0.04 * s
    cv2.fillPoly(
        mask,
        [
            np.int32([(x_stem, 0), (x_stem + stem * s, 0), (x_stem + stem * s, s), (x_stem, s)]),
            np.int32(
                [
                    (x_stem, 0),
                    (x_stem + stem * s * 0.6, 0),
                    (x_stem - flag_reach * s + stem * s * 0.35, flag_drop * s + stem * s * 0.55),
                    (x_stem - flag_reach * s, flag_drop * s),
                ]
            ),
        ],
        255,
        cv2.LINE_AA,
    )
    if rng.random() < 0.3:  # a foot
        foot = round(s * rng.uniform(0.09, 0.13))
        cv2.rectangle(mask, (round(x_stem - 0.18 * s), s - foot), (w - 1, s - 1), 255, -1)
    mask = _sheared(mask, shear) if shear else mask
    mask = _crop_to_ink(mask)
    out_w = max(1, round(mask.shape[1] * height / max(1, mask.shape[0])))
    return cv2.resize(mask, (out_w, height), interpolation=cv2.INTER_AREA)


def _crop_to_ink(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 20)
    if len(xs) == 0:
        return mask
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _poly(points: list[tuple[float, float]], scale: float) -> np.ndarray:
    return np.round(np.asarray(points, dtype=np.float64) * scale).astype(np.int32)


def _arrow(
    tail: tuple[float, float], head: tuple[float, float], shaft: float, head_size: float
) -> np.ndarray:
    """Polygon of a straight arrow from ``tail`` to ``head`` (unit-free coordinates)."""
    (x0, y0), (x1, y1) = tail, head
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    px, py = -uy, ux
    neck = (x1 - ux * head_size, y1 - uy * head_size)
    half, wing = shaft / 2, head_size * 0.75
    return np.asarray(
        [
            (x0 + px * half, y0 + py * half),
            (neck[0] + px * half, neck[1] + py * half),
            (neck[0] + px * wing, neck[1] + py * wing),
            (x1, y1),
            (neck[0] - px * wing, neck[1] - py * wing),
            (neck[0] - px * half, neck[1] - py * half),
            (x0 - px * half, y0 - py * half),
        ]
    )


def _entwined_arrows(s: int, rng: np.random.Generator) -> np.ndarray:
    """An s × s mask of two thick arrows on the rising diagonal, pointing apart, their tails curled
    into an S in the middle and parted by a thin gap (the second drawn over the first)."""
    mask = np.zeros((s, s), np.uint8)
    shaft = rng.uniform(0.12, 0.15)  # widths and lengths in mask sides
    head = rng.uniform(0.15, 0.18)  # the head's half width
    bowl = rng.uniform(0.1, 0.14)  # how far each tail curls out to the side
    tail = [(0.52, 0.6), (0.5 - bowl, 0.57), (0.48 - bowl, 0.47), (0.46, 0.4), (0.62, 0.3)]
    base, reach = np.array(tail[-1]), 0.17  # the head sits on the shaft's end
    along, across = np.array([1.0, -1.0]) / math.sqrt(2.0), np.array([1.0, 1.0]) / math.sqrt(2.0)
    wing = [base + head * across, base + reach * math.sqrt(2.0) * along, base - head * across]
    for turned in (False, True):  # the second arrow is the first turned half round the centre
        path, point = np.array(tail), np.array(wing)
        if turned:
            path, point = 1.0 - path, 1.0 - point
            bowl_line = np.round(path[1:] * s).astype(np.int32)  # its tail's end tucks under the first
            cv2.polylines(mask, [bowl_line], False, 0, round((shaft + 0.05) * s), cv2.LINE_AA)
        cv2.polylines(mask, [np.round(path * s).astype(np.int32)], False, 255, round(shaft * s), cv2.LINE_AA)
        cv2.fillPoly(mask, [np.round(point * s).astype(np.int32)], 255, cv2.LINE_AA)
    return mask


def pictogram_mask(symbol: str, height: int, rng: np.random.Generator, variant: str = "") -> np.ndarray:
    """Ink mask of a drawn (non-text) symbol, ``height`` pixels tall; shapes are jittered by ``rng``.

    ``variant`` picks another print of a symbol: for the reverse of recent decks ``"diagonal"`` (two
    straight arrows side by side along the diagonal) or ``"entwined"`` (two arrows along one diagonal
    whose tails hook round each other, the recent Mattel print's)."""
    s = height * SUPERSAMPLE
    if symbol == "reverse" and variant == "entwined":
        w = s
        mask = _entwined_arrows(s, rng)
    elif symbol == "reverse" and variant == "diagonal":
        w = round(s * rng.uniform(0.8, 0.95))
        mask = np.zeros((s, w), np.uint8)
        shaft, head = s * rng.uniform(0.14, 0.19), s * rng.uniform(0.3, 0.38)
        apart = s * rng.uniform(0.1, 0.16)  # each arrow's offset from the diagonal
        for sign in (1, -1):
            tail = (
                w / 2 - sign * 0.05 * w + sign * apart * 0.7,
                s / 2 + sign * 0.05 * s + sign * apart * 0.7,
            )
            tip = (w / 2 + sign * 0.46 * w, s / 2 - sign * 0.46 * s)
            tail = (tail[0] - sign * 0.25 * w, tail[1] + sign * 0.25 * s)
            arrow = _arrow(tail, (tip[0] - sign * apart * 0.3, tip[1] - sign * apart * 0.3), shaft, head)
            cv2.fillPoly(mask, [np.round(arrow).astype(np.int32)], 255, cv2.LINE_AA)
    elif symbol in ("skip",):
        w = s
        mask = np.zeros((s, w), np.uint8)
        share = rng.uniform(0.13, 0.2)
        # Half the skips are the classic Mattel print's open ring: a thin ring the card shows through
        # (an outline round a thick one fills its hole) with a flatter bar. Drawn from the one number
        # above, so a scene draws the numbers it drew before and its other cards stay as they were.
        look = np.random.default_rng(int(share * 2**40))
        if look.random() < 0.5:
            share *= look.uniform(0.5, 0.7)
            angle = math.radians(look.uniform(20, 40))
            reach = 1.0
        else:
            angle, reach = math.pi / 4, 0.72 * math.sqrt(2)
        thick = max(2, round(s * share))
        radius = s // 2 - thick // 2 - 1
        cv2.circle(mask, (w // 2, s // 2), radius, 255, thick, cv2.LINE_AA)
        dx, dy = radius * reach * math.cos(angle), radius * reach * math.sin(angle)
        ends = (round(w / 2 + dx), round(s / 2 - dy)), (round(w / 2 - dx), round(s / 2 + dy))
        cv2.line(mask, *ends, 255, thick)
    elif symbol == "reverse":
        w = round(s * rng.uniform(0.85, 1.0))
        mask = np.zeros((s, w), np.uint8)
        shaft = rng.uniform(0.16, 0.22)
        unit = min(w, s)
        # Two hooked arrows: an L-shaped tail bent into a diagonal head, point-symmetric.
        cx, cy = w / 2, s / 2
        for sign in (1, -1):

            def at(x: float, y: float, sign: int = sign) -> tuple[float, float]:
                return (cx + sign * x * unit, cy + sign * y * unit)

            bar = np.asarray(
                [at(-0.32, 0.08), at(0.08, 0.08), at(0.08, 0.08 + shaft), at(-0.32, 0.08 + shaft)]
            )
            head = _arrow(at(-0.02, 0.12), at(0.42, -0.36), shaft * unit, 0.24 * unit)
            cv2.fillPoly(mask, [np.round(bar).astype(np.int32), np.round(head).astype(np.int32)], 255)
    elif symbol == "wild-swap":
        w = round(s * rng.uniform(1.0, 1.2))
        mask = np.zeros((s, w), np.uint8)
        shaft, head = s * 0.16, s * 0.3
        top = _arrow((0.08 * w, 0.28 * s), (0.94 * w, 0.28 * s), shaft, head)
        bottom = _arrow((0.92 * w, 0.72 * s), (0.06 * w, 0.72 * s), shaft, head)
        cv2.fillPoly(mask, [np.round(top).astype(np.int32), np.round(bottom).astype(np.int32)], 255)
        for x in (0.08 * w, 0.92 * w):  # the two "hands" holding the ends
            cv2.circle(mask, (round(x), round(0.5 * s)), round(s * 0.1), 255, -1, cv2.LINE_AA)
    elif symbol == "wild-shuffle":
        w = s
        mask = np.zeros((s, w), np.uint8)
        radius = s * 0.36
        thick = max(2, round(s * 0.14))
        for k in range(3):
            start = k * 120 + 15
            cv2.ellipse(
                mask, (w // 2, s // 2), (round(radius), round(radius)), 0, start, start + 75, 255, thick
            )
            end = math.radians(start + 95)
            tail = math.radians(start + 70)
            head = _arrow(
                (w / 2 + radius * math.cos(tail), s / 2 + radius * math.sin(tail)),
                (w / 2 + radius * math.cos(end), s / 2 + radius * math.sin(end)),
                thick,
                s * 0.26,
            )
            cv2.fillPoly(mask, [np.round(head).astype(np.int32)], 255)
    elif symbol == "wild-custom":  # a pencil: "write your own rule"
        w = round(s * 0.7)
        mask = np.zeros((s, w), np.uint8)
        body = _poly([(0.25, 0.0), (0.75, 0.0), (0.75, 0.7), (0.5, 1.0), (0.25, 0.7)], 1.0)
        body = np.round(np.asarray(body, np.float64) * [w, s]).astype(np.int32)
        cv2.fillPoly(mask, [body], 255)
        cv2.line(
            mask, (round(0.25 * w), round(0.15 * s)), (round(0.75 * w), round(0.15 * s)), 0, max(1, s // 14)
        )
    elif symbol in COLOURBLIND_SHAPES:
        w = s
        mask = np.zeros((s, w), np.uint8)
        COLOURBLIND_SHAPES[symbol](mask)
    else:
        raise ValueError(f"no pictogram for symbol {symbol!r}")
    return cv2.resize(mask, (max(1, round(w / SUPERSAMPLE)), height), interpolation=cv2.INTER_AREA)


def _circle(mask: np.ndarray) -> None:
    s = mask.shape[0]
    cv2.circle(mask, (s // 2, s // 2), s // 2 - 1, 255, -1, cv2.LINE_AA)


def _star(mask: np.ndarray) -> None:
    s = mask.shape[0]
    points = []
    for k in range(10):
        radius = (s / 2 - 1) * (1.0 if k % 2 == 0 else 0.42)
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((s / 2 + radius * math.cos(angle), s / 2 + 0.06 * s + radius * math.sin(angle)))
    cv2.fillPoly(mask, [np.round(points).astype(np.int32)], 255, cv2.LINE_AA)


def _triangle(mask: np.ndarray) -> None:
    s = mask.shape[0]
    cv2.fillPoly(mask, [np.int32([(s / 2, 1), (s - 1, s - 2), (1, s - 2)])], 255, cv2.LINE_AA)


def _square(mask: np.ndarray) -> None:
    s = mask.shape[0]
    cv2.rectangle(mask, (round(s * 0.08), round(s * 0.08)), (round(s * 0.92), round(s * 0.92)), 255, -1)


COLOURBLIND_SHAPES = {"cb-circle": _circle, "cb-star": _star, "cb-triangle": _triangle, "cb-square": _square}


@dataclass(frozen=True)
class InkStyle:
    """How a glyph is printed: fill, black outline width and drop-shadow offset (fractions of height)."""

    fill_bgr: tuple[int, int, int]
    outline: float = 0.0
    shadow: float = 0.0
    outline_bgr: tuple[int, int, int] = (20, 20, 20)


@dataclass
class StyledGlyph:
    """A printed glyph: colour, coverage, and the ink+outline mask that the label box is taken from."""

    bgr: np.ndarray  # (h, w, 3) float32
    alpha: np.ndarray  # (h, w) float32 in 0..1, fill + outline + shadow
    label_mask: np.ndarray  # (h, w) bool, fill + outline (the shadow is not part of the symbol)


def _dilated(layer: np.ndarray, px: int) -> np.ndarray:
    """``layer`` grown by a round pen ``px`` pixels wide (itself for 0)."""
    if px <= 0:
        return layer
    return cv2.dilate(layer, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * px + 1, 2 * px + 1)))


def style_glyph(mask: np.ndarray, style: InkStyle, fill_image: np.ndarray | None = None) -> StyledGlyph:
    """Apply fill, outline and shadow to an ink mask; ``fill_image`` replaces the flat fill colour."""
    height = mask.shape[0]
    outline_px = round(style.outline * height)
    shadow_px = round(style.shadow * height)
    pad = outline_px + shadow_px + 2
    ink = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0).astype(np.float32) / 255
    outer = _dilated(ink, outline_px)
    if shadow_px > 0:
        shift = np.float32([[1, 0, shadow_px], [0, 1, shadow_px]])
        shadow = cv2.warpAffine(outer, shift, (outer.shape[1], outer.shape[0])) * 0.85
    else:
        shadow = np.zeros_like(outer)
    dark = np.maximum(outer, shadow)
    fill = np.empty((*ink.shape, 3), np.float32)
    if fill_image is not None:
        fill[:] = cv2.resize(fill_image, (ink.shape[1], ink.shape[0]), interpolation=cv2.INTER_NEAREST)
    else:
        fill[:] = style.fill_bgr
    outline_colour = np.float32(style.outline_bgr)
    bgr = fill * ink[..., None] + outline_colour * (1 - ink[..., None])
    alpha = np.maximum(ink, dark)
    return StyledGlyph(bgr=bgr, alpha=alpha, label_mask=np.maximum(ink, outer) > 0.5)


def hollow_glyph(
    mask: np.ndarray,
    field_bgr: tuple[int, int, int],
    rim_bgr: tuple[int, int, int],
    rim: float,
    hairline: float = 0.0,
    plate: float = 0.0,
) -> StyledGlyph:
    """A glyph printed hollow, as the recent deck's "+4": the field colour inside a rim of ``rim_bgr``,
    optionally set on a plate of the rim colour, parted from the rim by a hairline of the field colour
    (widths are fractions of the height)."""
    height = mask.shape[0]
    rim_px, hair_px, plate_px = (round(share * height) for share in (rim, hairline, plate))
    pad = rim_px + hair_px + plate_px + 2
    ink = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0).astype(np.float32) / 255
    rimmed = _dilated(ink, max(1, rim_px))
    haired = _dilated(rimmed, hair_px) if plate_px > 0 else rimmed
    plated = _dilated(haired, plate_px)
    field, rim_colour = np.float32(field_bgr), np.float32(rim_bgr)
    bgr = np.empty((*ink.shape, 3), np.float32)
    bgr[:] = rim_colour
    for layer, colour in ((haired, field), (rimmed, rim_colour), (ink, field)):
        bgr = bgr * (1 - layer[..., None]) + colour * layer[..., None]
    return StyledGlyph(bgr=bgr, alpha=plated, label_mask=plated > 0.5)
