"""Card colour read from pixels: the coloured field around a corner index, in CIE Lab.

The detector finds *symbols*; colour is a property of the field the index is printed on, and it
shifts with the room's light. So colour is a tiny nearest-centre model in Lab: one reference
centre per print colour, a chroma floor under which a pixel is "not a print colour", and a
lightness ceiling under which it is the black field of a wild card. Calibration re-measures the
centres under the table's own lamp with :meth:`ColourModel.from_samples` and saves them as JSON.

Lab values use OpenCV's 8-bit scale (L, a, b each 0…255; a = b = 128 is grey).

>>> import numpy as np
>>> model = ColourModel.default()
>>> red_field = np.full((20, 20, 3), (40, 40, 200), np.uint8)  # BGR
>>> reading = model.read(model.votes(red_field, (5, 5, 15, 15)))
>>> reading.colour, reading.confidence > model.strong
('red', True)
>>> ColourModel.from_json(model.to_json()) == model
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from referee.errors import UserError
from referee.vision.classes import COLOURS

#: The field of wild cards; not a playable colour, so not in COLOURS.
BLACK = "black"

#: Print colours measured on the shared real-deck photos (median Lab of the field around the corner
#: indices, 80 validation images) — the defaults before a room is calibrated.
DEFAULT_CENTRES: dict[str, tuple[float, float, float]] = {
    "red": (150.0, 180.0, 158.0),
    "yellow": (212.0, 132.0, 176.0),
    "green": (148.0, 106.0, 165.0),
    "blue": (150.0, 140.0, 94.0),
}

_LIGHT, _DARK, _OTHER = len(COLOURS), len(COLOURS) + 1, len(COLOURS) + 2
_LUT_SHIFT = 2  # colour lookup table resolution: 256 >> 2 = 64 levels per channel


#: A wild's black, lifted to grey by the camera, is at most this share of the white ink's lightness
#: (:meth:`ColourModel.dark_share`).
BLACK_LIGHTNESS = 0.5


#: A crop whose typical pixel is tinted at most this much ((max − min) / max of its channels) and at
#: least this share as bright as its brightest tenth lies on a card's white face: a lamp tints white
#: by 0.1 or so, a pale print colour (a washed-out yellow: 0.3 and more) by far more.
FACE_WHITE_TINT = (0.2, 0.8)

#: The most a crop's brightest tenth may be tinted and still be a white reference (ink or face).
WHITE_INK_TINT = 0.55

#: The least chroma floor: under it a lamp's tint on white ink and a print colour are not told apart
#: (:meth:`ColourModel.from_samples`, :meth:`ColourModel.votes`).
LEAST_CHROMA_FLOOR = 10.0

#: A print colour's pixel is this much more coloured than the white ink beside it, at least.
INK_TINT_MARGIN = 4.0

#: The print colours whose fields are never as light as a card's white: their indices tell whether a
#: print's glyphs lie on the white face (:func:`on_white_face`). A yellow field can be that light.
DARK_PRINT_COLOURS: tuple[str, ...] = ("red", "green", "blue")


@dataclass(frozen=True)
class ColourVotes:
    """Pixel counts around one index (or both indices of a card): evidence, not yet a decision."""

    colours: tuple[int, ...] = (0,) * len(COLOURS)  # in COLOURS order
    dark: int = 0
    light: int = 0
    total: int = 0

    def __add__(self, other: ColourVotes) -> ColourVotes:
        return ColourVotes(
            tuple(a + b for a, b in zip(self.colours, other.colours, strict=True)),
            self.dark + other.dark,
            self.light + other.light,
            self.total + other.total,
        )

    @property
    def coloured(self) -> int:
        return sum(self.colours)

    @classmethod
    def of_labels(cls, labels: np.ndarray) -> ColourVotes:
        """The votes of per-pixel labels (:meth:`ColourModel.classify`'s)."""
        counts = np.bincount(labels, minlength=_OTHER + 1)
        return cls(
            tuple(int(n) for n in counts[: len(COLOURS)]),
            int(counts[_DARK]),
            int(counts[_LIGHT]),
            int(counts.sum()),
        )


@dataclass(frozen=True)
class ColourReading:
    """The model's verdict on some votes: a colour of COLOURS, ``"black"``, or None (no evidence)."""

    colour: str | None
    confidence: float  # 0…1; compare with ColourModel.strong / .weak
    coverage: float  # share of pixels that carry a print colour
    dark_share: float


@dataclass(frozen=True)
class ColourModel:
    """Nearest-centre colour classification in Lab, adaptable to a room's light."""

    centres: dict[str, tuple[float, float, float]] = field(default_factory=lambda: dict(DEFAULT_CENTRES))
    min_chroma: float = 22.0  # below: white glyph, grey, black — not a print colour
    max_dark_lightness: float = 80.0  # a low-chroma pixel this dark belongs to a black (wild) field
    min_light_lightness: float = 170.0  # a low-chroma pixel this light is white ink (index glyph, border)
    max_distance: float = 60.0  # further than this from every centre: not a card colour (wood, skin)
    lightness_weight: float = 0.25  # light changes L far more than a/b: trust L little
    strong: float = 0.6  # confidence from which hue alone decides
    weak: float = 0.3  # below: no usable hue (then only a colour-blind symbol can tell)
    full_coverage: float = 0.2  # a share of print-colour pixels this large counts as full evidence
    min_dark_share: float = 0.15  # the share of dark pixels that makes a field black
    #: Scale each index's surroundings so its white ink becomes neutral white, which undoes a lamp's
    #: tint, a dim room and the lamp's drift. Calibration measures the deck's colours the same way,
    #: so its centres describe the print, not one moment's light.
    auto_white: bool = True
    #: The most tint a light field may show and still be taken for the card's white face, which is
    #: balanced to neutral (:data:`FACE_WHITE_TINT`). Where the deck or the calibration shows a
    #: white-faced print (coloured glyphs on the face's white, as off-brand decks print them), no
    #: print field is light, so a light field is that face under whatever lamp: :meth:`from_samples`
    #: raises the limit to :data:`WHITE_INK_TINT`, and a lamp's strong cast is no longer read as the
    #: card's colour.
    face_white_tint: float = FACE_WHITE_TINT[0]

    def __post_init__(self) -> None:
        missing = [colour for colour in COLOURS if colour not in self.centres]
        if missing:
            raise UserError(f"colour model lacks a centre for {', '.join(missing)}: recalibrate colours")

    @classmethod
    def default(cls) -> ColourModel:
        return cls()

    @classmethod
    def from_samples(
        cls,
        samples: Mapping[str, np.ndarray | Sequence[np.ndarray]],
        base: ColourModel | None = None,
        on_white: Sequence[bool] = (),
    ) -> ColourModel:
        """A model re-centred on pixels sampled under the room's light (what calibration calls).

        ``samples`` maps each of red/yellow/green/blue (and optionally ``"black"``, a wild card's
        field) to BGR uint8 pixels of that card colour — any shape ending in 3, or a list of such
        crops, e.g. the field around each corner index as :meth:`field` takes it (balanced as a
        read balances it; a crop taken otherwise is balanced on its own here). White and black
        pixels among them are ignored. The chroma floor follows the weakest colour seen, the
        darkness ceiling the black samples. ``on_white``: for each index of
        :data:`DARK_PRINT_COLOURS` sampled, whether it is printed on the card's white face
        (:func:`on_white_face`); where most are, the print is white-faced and
        :attr:`face_white_tint` is raised.
        """
        white_faced = 2 * sum(on_white) > len(on_white) > 0
        base = replace(
            base or cls.default(), face_white_tint=WHITE_INK_TINT if white_faced else FACE_WHITE_TINT[0]
        )
        centres: dict[str, tuple[float, float, float]] = {}
        weakest_chroma = np.inf
        whites: list[np.ndarray] = []
        for colour in COLOURS:
            if colour not in samples:
                raise UserError(f"colour samples lack {colour}: show a {colour} card during calibration")
            lab = np.concatenate([_to_lab(base.balanced(crop)) for crop in _crops(samples[colour])])
            chroma = _chroma(lab)
            # The field is the most coloured thing sampled; white ink picks up some chroma from
            # blur and the lamp, and around a small index it can outnumber the field's pixels.
            usable = lab[chroma >= max(10.0, 0.5 * float(np.percentile(chroma, 90)))]
            if len(usable) < 20:
                raise UserError(
                    f"the {colour} samples hold only {len(usable)} coloured pixels: "
                    "show the card closer or under more light"
                )
            field_pixels = _dominant_cluster(usable)
            centres[colour] = tuple(float(v) for v in np.median(field_pixels, axis=0))
            field_chroma = _chroma(field_pixels)
            field_weak = float(np.percentile(field_chroma, 10))
            weakest_chroma = min(weakest_chroma, field_weak)
            # White ink: light, lighter than the field and less coloured than nearly all of it.
            lightness = lab[:, 0]
            ink = (lightness >= base.min_light_lightness) & (chroma < field_weak)
            ink &= lightness > np.percentile(field_pixels[:, 0], 90) + 5
            whites.append(chroma[ink])
        # Below the floor a pixel is white, grey or black. A pale print lowers it from the base's
        # (other print runs vary, so it is never raised), but not into the tint the white ink
        # itself shows here (a warm lamp, blur at the glyph edges).
        ink_chroma = np.concatenate(whites)
        white_chroma = float(np.percentile(ink_chroma, 90)) if len(ink_chroma) else 0.0
        floor = max(0.6 * weakest_chroma, min(white_chroma + INK_TINT_MARGIN, 0.9 * weakest_chroma))
        changes: dict[str, object] = {
            "centres": centres,
            "min_chroma": float(np.clip(floor, LEAST_CHROMA_FLOOR, base.min_chroma)),
        }
        if base.auto_white:
            # Every read is balanced to its own white ink, so white and black sit where the base
            # model expects them; the room's light only ever moved the print colours.
            return replace(base, **changes)
        # White ink is lighter than the lightest print colour (yellow) in any light.
        changes["min_light_lightness"] = float(0.8 * max(lab[0] for lab in centres.values()))
        if BLACK in samples:
            # A wild card's field is mostly black, with a four-colour oval and white print on it:
            # the neutral pixels' lower majority is the black, and the ceiling sits a bit above it.
            black = np.concatenate([_to_lab(crop) for crop in _crops(samples[BLACK])])
            neutral = black[_chroma(black) < 20]
            if len(neutral) < 20:
                raise UserError("the black samples hold no black field: show a wild card face up")
            ceiling = np.percentile(neutral[:, 0], 60) + 20
            changes["max_dark_lightness"] = float(
                np.clip(ceiling, 40.0, 0.8 * min(c[0] for c in centres.values()))
            )
        else:  # in a dim room the darkest print colour (blue) must not pass for a black field
            darkest = min(lab[0] for lab in centres.values())
            changes["max_dark_lightness"] = float(min(base.max_dark_lightness, 0.6 * darkest))
        return replace(base, **changes)

    # --- reading pixels -------------------------------------------------------------------------

    def classify(self, lab: np.ndarray) -> np.ndarray:
        """Per pixel (N × 3 Lab float32): 0…3 = COLOURS, 4 = white, 5 = black, 6 = anything else."""
        centres = np.asarray([self.centres[c] for c in COLOURS], np.float32)
        chroma = _chroma(lab)
        # A pale pixel is compared at each centre's chroma: glare, a veil or a washed-out print take
        # a colour's chroma, not its hue, and at its own chroma a pale yellow lies nearer green's
        # (and a pale green nearer blue's), the paler centres.
        boost = np.maximum(1.0, _chroma(centres)[None, :] / np.maximum(chroma[:, None], 1e-3))
        hue_gap = (lab[:, None, 1:] - 128) * boost[..., None] + 128 - centres[None, :, 1:]
        light_gap = (lab[:, None, 0] - centres[None, :, 0]) * self.lightness_weight
        distances = np.sqrt(light_gap**2 + (hue_gap**2).sum(axis=2))
        labels = distances.argmin(axis=1)
        labels[distances.min(axis=1) > self.max_distance] = _OTHER
        neutral = chroma < self.min_chroma
        lightness = lab[neutral, 0]
        labels[neutral] = np.select(
            [lightness <= self.max_dark_lightness, lightness >= self.min_light_lightness],
            [_DARK, _LIGHT],
            _OTHER,
        )
        return labels

    @cached_property
    def _bgr_table(self) -> np.ndarray:
        """:meth:`classify` for every BGR colour at 6 bits a channel: the per-frame path is a lookup.

        Built once per model (~30 ms); a pixel then costs an index instead of a Lab conversion
        and four distances, which keeps the reader's colour work far below the network's time.
        """
        levels = 256 >> _LUT_SHIFT
        grid = (np.indices((levels,) * 3).reshape(3, -1).T << _LUT_SHIFT) + (1 << _LUT_SHIFT) // 2
        labels = self.classify(_to_lab(grid.astype(np.uint8)))
        return labels.astype(np.uint8).reshape((levels,) * 3)

    def field(
        self,
        image_bgr: np.ndarray,
        box: tuple[float, ...],
        margin: float = 0.2,
        light: Callable[[], np.ndarray | None] | None = None,
    ) -> np.ndarray:
        """The pixels of ``box`` grown by ``margin`` of its longer side, as this model compares them.

        Balanced to the index's own white ink; where that ink is no reference (too pale a field
        beside it, a bluish ink on a washed-out yellow), to the white around it, the card's border
        within :data:`WHITE_REFERENCE_MARGIN`; where neither is, with the gains ``light()`` gives
        (the same lamp measured at another index, :func:`white_gains_at`; asked only then).
        Calibration samples fields the same way."""
        if self.auto_white:
            return balanced_field(image_bgr, box, margin, light, self.face_white_tint)
        return field_crop(image_bgr, box, margin)

    def votes(
        self,
        image_bgr: np.ndarray,
        box: tuple[float, ...],
        margin: float = 0.2,
        light: Callable[[], np.ndarray | None] | None = None,
        *,
        pale: bool = False,
        keep: np.ndarray | None = None,
    ) -> ColourVotes:
        """Count the pixels in ``box`` grown by ``margin`` of its longer side (the index and its field);
        ``light``: gains for a field with no white of its own (:meth:`field`).

        ``pale``: with the chroma floor lowered to this field's own white. A field washed out by glare
        or a veil keeps its hue but loses its chroma, so that every pixel falls under
        :attr:`min_chroma` and counts as white ink. The floor is then the tint the index's ink shows
        here (the 90th percentile chroma of the crop's brightest tenth) plus a margin, never under the
        least a calibration may set (:data:`LEAST_CHROMA_FLOOR`), never above the model's own.

        ``keep``: a mask of the window's shape (:func:`field_window`); only its pixels are counted
        (the white they are balanced to is still the whole window's)."""
        crop = self.field(image_bgr, box, margin, light)
        if crop.size == 0:
            return ColourVotes()
        if keep is not None:
            crop = crop[keep]
            if crop.size == 0:
                return ColourVotes()
        if pale:
            lab = _to_lab(crop)
            chroma = _chroma(lab)
            ink = lab[:, 0] >= np.percentile(lab[:, 0], 90)
            floor = max(LEAST_CHROMA_FLOOR, float(np.percentile(chroma[ink], 90)) + INK_TINT_MARGIN)
            if floor < self.min_chroma:
                return ColourVotes.of_labels(replace(self, min_chroma=floor).classify(lab))
        levels = (crop >> _LUT_SHIFT).reshape(-1, 3).astype(np.int32)
        flat = (levels[:, 0] * (256 >> _LUT_SHIFT) + levels[:, 1]) * (256 >> _LUT_SHIFT) + levels[:, 2]
        return ColourVotes.of_labels(self._bgr_table.ravel()[flat])

    def dark_share(
        self, image_bgr: np.ndarray, box: tuple[float, ...], margin: float, lightness: float = BLACK_LIGHTNESS
    ) -> float:
        """The share of pixels around ``box`` that are grey and at most ``lightness`` × as light as
        the white ink beside them: a wild card's black field, relative to the print's own white. A
        webcam that brightens a dark picture makes that black a mid grey, which the absolute darkness
        of :meth:`classify` no longer counts."""
        crop = field_crop(image_bgr, box, margin)
        if crop.size == 0:
            return 0.0
        lab = _to_lab(crop.reshape(-1, 3))
        white = float(np.percentile(lab[:, 0], 90))
        grey = (_chroma(lab) < self.min_chroma) & (lab[:, 0] <= lightness * white)
        return float(grey.mean())

    def balanced(self, pixels_bgr: np.ndarray) -> np.ndarray:
        """Pixels as this model compares them: scaled so their white ink is neutral (``auto_white``)."""
        return _balance_to_white(pixels_bgr, self.face_white_tint) if self.auto_white else pixels_bgr

    def read(self, votes: ColourVotes) -> ColourReading:
        """Decide: black field, one print colour (with a confidence), or no evidence at all."""
        if votes.total == 0:
            return ColourReading(None, 0.0, 0.0, 0.0)
        coverage = votes.coloured / votes.total
        dark_share = votes.dark / votes.total
        if dark_share >= self.min_dark_share and votes.dark >= votes.coloured:
            return ColourReading(
                BLACK, min(1.0, dark_share / (2 * self.min_dark_share)), coverage, dark_share
            )
        if votes.coloured == 0:
            return ColourReading(None, 0.0, coverage, dark_share)
        best = int(np.argmax(votes.colours))
        share = votes.colours[best] / votes.coloured
        confidence = share * min(1.0, coverage / self.full_coverage)
        return ColourReading(COLOURS[best], float(confidence), coverage, dark_share)

    # --- persistence ----------------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps({"format": "uno-referee colour model 1", **asdict(self)}, indent=2)

    @classmethod
    def from_json(cls, text: str) -> ColourModel:
        try:
            data = json.loads(text)
            data.pop("format", None)
            data["centres"] = {name: tuple(float(v) for v in lab) for name, lab in data["centres"].items()}
            return cls(**data)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise UserError(f"colour model JSON is malformed ({error}): recalibrate colours") from error

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str) -> ColourModel:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise UserError(
                f"cannot read colour model {path} ({error.strerror}): recalibrate colours"
            ) from error
        return cls.from_json(text)


def field_window(
    shape: tuple[int, ...], box: tuple[float, ...], margin: float = 0.2
) -> tuple[int, int, int, int]:
    """``box`` grown by ``margin`` × its longer side, clipped to a picture of ``shape``: (left, top,
    right, bottom) in whole pixels."""
    x1, y1, x2, y2 = box[:4]
    grow = margin * max(x2 - x1, y2 - y1)
    height, width = shape[:2]
    left, top = max(0, int(x1 - grow)), max(0, int(y1 - grow))
    return left, top, min(width, int(np.ceil(x2 + grow))), min(height, int(np.ceil(y2 + grow)))


def field_crop(image_bgr: np.ndarray, box: tuple[float, ...], margin: float = 0.2) -> np.ndarray:
    """The pixels of ``box`` grown by ``margin`` × its longer side, clipped to the image (a view)."""
    left, top, right, bottom = field_window(image_bgr.shape, box, margin)
    return image_bgr[top:bottom, left:right]


def balanced_field(
    image_bgr: np.ndarray,
    box: tuple[float, ...],
    margin: float = 0.2,
    light: Callable[[], np.ndarray | None] | None = None,
    face_tint: float = FACE_WHITE_TINT[0],
) -> np.ndarray:
    """:func:`field_crop` balanced to the index's white ink, or else to the white around it, or else
    with the gains ``light()`` gives (a new array; a calibration or deck sample is taken so, as
    :meth:`ColourModel.votes` reads); ``face_tint``: :attr:`ColourModel.face_white_tint`."""
    crop = field_crop(image_bgr, box, margin)
    if crop.size == 0:
        return crop
    gains = white_gains_at(image_bgr, box, margin, face_tint)
    if gains is None and light is not None:
        gains = light()
    return _scaled(crop, gains)


#: The least share of an index box's inner edge that is as light as the white around it where the
#: glyph is printed on the card's white face. Measured: 0.4–0.75 on white-faced (off-brand) stand-in
#: decks; 0.15 and less on prints whose glyphs lie on coloured fields (the recent and classic
#: stand-ins, criscard's photos), where white ink reaches the box's edge only at its strokes' ends.
FACE_BACKGROUND_SHARE = 0.3


def on_white_face(image_bgr: np.ndarray, box: tuple[float, ...]) -> bool:
    """Whether the index in ``box`` is a coloured glyph on the card's white face (an off-brand print)
    rather than a white glyph on a coloured field. A tight index box's inner edge is the glyph's
    background: on a white face it is mostly as light as the brightest tenth around the index."""
    inside = field_crop(image_bgr, box, 0.0).astype(np.float32).mean(axis=2)
    around = field_crop(image_bgr, box).astype(np.float32).mean(axis=2)
    height, width = inside.shape
    if height < 5 or width < 5:
        return False
    band_y, band_x = max(1, round(0.1 * height)), max(1, round(0.1 * width))
    edge = np.ones((height, width), bool)
    edge[band_y : height - band_y, band_x : width - band_x] = False
    white = float(around[around >= np.percentile(around, 90)].mean())
    return float((inside[edge] >= FACE_WHITE_TINT[1] * white).mean()) >= FACE_BACKGROUND_SHARE


def white_gains_at(
    image_bgr: np.ndarray, box: tuple[float, ...], margin: float = 0.2, face_tint: float = FACE_WHITE_TINT[0]
) -> np.ndarray | None:
    """The gains that balance the field around ``box`` (its ink's white, else its card border's
    within :data:`WHITE_REFERENCE_MARGIN`), or None where neither is a white reference: the light of
    the lamp at that index, which another index of the same picture without a white of its own can
    borrow (a pale yellow field under a warm lamp, whose ink no longer stands out from it)."""
    crop = field_crop(image_bgr, box, margin)
    if crop.size == 0:
        return None
    gains = _white_gains(crop, face_tint)
    if gains is None:
        gains = _white_gains(field_crop(image_bgr, box, max(margin, WHITE_REFERENCE_MARGIN)), face_tint)
    return gains


#: White ink is scaled to this level; the default centres were measured with white ink about here.
WHITE_LEVEL = 240.0


#: How far (in index sizes) around an index the card's white is looked for when the ink is no reference.
WHITE_REFERENCE_MARGIN = 0.6


def _balance_to_white(crop_bgr: np.ndarray, face_tint: float = FACE_WHITE_TINT[0]) -> np.ndarray:
    """The crop with its brightest tenth (the index's white ink) scaled to neutral ``WHITE_LEVEL``,
    where that is a white reference (:func:`_white_gains`)."""
    return _scaled(crop_bgr, _white_gains(crop_bgr, face_tint))


def _scaled(crop_bgr: np.ndarray, gains: np.ndarray | None) -> np.ndarray:
    """The crop scaled channel by channel by ``gains`` (None: as it is)."""
    if gains is None:
        return crop_bgr
    pixels = crop_bgr.reshape(-1, 3).astype(np.float32)
    return np.clip(pixels * gains, 0, 255).astype(np.uint8).reshape(crop_bgr.shape)


def _white_gains(
    crop_bgr: np.ndarray, face_tint: float = FACE_WHITE_TINT[0], min_level: float = 60.0
) -> np.ndarray | None:
    """Per-channel gains that make the crop's brightest tenth a neutral ``WHITE_LEVEL``, or None.

    Only where that brightest tenth looks like ink on a card: bright enough, nearly neutral, and
    clearly more neutral or clearly brighter than the crop's typical pixel (a coloured or black
    field), or where the typical pixel is that white itself (an off-brand print's coloured glyph on
    the face's white, tinted by the lamp at most ``face_tint``: :data:`FACE_WHITE_TINT`, and
    :attr:`ColourModel.face_white_tint` for a white-faced deck). A felt table or a yellow field
    with no white in view stay as they are, so a print colour is never "balanced" away; the gains
    are limited to 0.5–2.5 per channel.
    """
    pixels = crop_bgr.reshape(-1, 3).astype(np.float32)
    # Channel by channel rather than reduced along the short axis: the same values, and the reader's
    # colour work (every index's field, twice) takes 0.23 ms a crop instead of 0.58.
    blue, green, red = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    highest = np.maximum(np.maximum(blue, green), red)
    tint = (highest - np.minimum(np.minimum(blue, green), red)) / np.maximum(highest, 1.0)
    brightness = (blue + green + red) / np.float32(3)  # not the highest channel: a red field is not "bright"
    white = pixels[brightness >= np.percentile(brightness, 90)].mean(axis=0)
    white_tint = (white.max() - white.min()) / max(float(white.max()), 1.0)
    typical_tint, typical_brightness = float(np.median(tint)), float(np.median(brightness))
    looks_like_ink = white.max() >= min_level and white_tint <= WHITE_INK_TINT
    stands_out = typical_tint - white_tint >= 0.1 or white.mean() >= 1.25 * typical_brightness
    on_white = typical_tint <= face_tint and typical_brightness >= FACE_WHITE_TINT[1] * white.mean()
    if not (looks_like_ink and (stands_out or on_white)):
        return None
    return np.clip(WHITE_LEVEL / np.maximum(white, 1.0), 0.5, 2.5)


def _crops(sample: np.ndarray | Sequence[np.ndarray]) -> list[np.ndarray]:
    """A calibration sample as a list of crops: one array of pixels, or several."""
    return [sample] if isinstance(sample, np.ndarray) else list(sample)


def _chroma(lab: np.ndarray) -> np.ndarray:
    """Distance from grey in the a/b plane: how coloured each pixel (N × 3 Lab) is."""
    return np.hypot(lab[:, 1] - 128, lab[:, 2] - 128)


def _dominant_cluster(lab: np.ndarray, radius: float = 20.0) -> np.ndarray:
    """The pixels around the most common (a, b) chromaticity: the card's field, not the glyph.

    Under a tinted lamp white ink picks up chroma too; the field, the larger area, wins the vote.
    """
    bins = np.floor(lab[:, 1:] / 8).astype(np.int64)
    keys, counts = np.unique(bins[:, 0] * 64 + bins[:, 1], return_counts=True)
    peak = keys[counts.argmax()]
    peak_ab = np.float32([peak // 64, peak % 64]) * 8 + 4
    near = np.hypot(*(lab[:, 1:] - peak_ab).T) <= radius
    return lab[near]


def _to_lab(pixels_bgr: np.ndarray) -> np.ndarray:
    pixels = np.ascontiguousarray(np.asarray(pixels_bgr, np.uint8).reshape(-1, 1, 3))
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
