"""A simulated UNO table filmed from above: a whole game as lazy video frames, with its ground truth.

The pile watcher and the referee app must be measured on what a camera over a real table sees,
long before anyone films hundreds of real games. :class:`TableVideo` turns the observation stream
of a game (the scenario step dicts the rules simulator emits: ``{"flip": "red-7"}``,
``{"play": "blue-skip", "by": "Ben"}``, ``{"reveal": [...], "by": "Clara"}`` …) into what a camera
40–80 cm above the table films: the discard pile with older cards peeking out, the face-down draw
pile, the scoring zone; a hand and arm sweeping in with each card and out again; identical cards
landing on each other in a new pose; hands that hover over the pile and leave; draws, tidying
the pile, clearing it for the next round; hands laid out for counting; cards that land off the
pile and are straightened later; lighting that drifts, sensor noise and mild blur.

It also gives the calibration profile (and its :class:`~calibration.table_view.TableView`) that
matches the simulated camera, so that exactly the product's pipeline (zone crop → pile watcher →
reader) runs on these frames, and an :class:`OracleReader` that reads the true visible cards of a
frame for testing the watcher's logic without a trained detector.

Frames are rendered lazily and deterministically: the whole timeline (every pose, every hand
position, every lighting value) is fixed from the seed when the video is built, and a frame is
the cached table state plus what moves — the per-frame cost is a copy, at most one hand and one
card composited, a gain map, a 3×3 blur and a noise pattern from a bank.

>>> video = TableVideo([{"flip": "red-7"}, {"play": "red-3", "by": "Ben"}], ["Anna", "Ben"], seed=1,
...                    settings=VideoSettings(frame_size=(320, 240)))
>>> [(event.kind, event.card) for event in video.truth.pile_events]
[('flip', 'red-7'), ('play', 'red-3')]
>>> frame = next(iter(video.frames()))
>>> frame.image.shape, frame.timestamp
((240, 320, 3), 0.0)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.markers import MARKER_IDS, marker_image
from calibration.profile import CalibrationProfile
from calibration.table_view import CARD_MM, Zone, default_zones
from hardware.camera import DEFAULT_SIZE, Frame
from referee.errors import UserError
from referee.lab.photo_faces import PhotoFaces
from referee.render.cards import (
    DESIGNS,
    PRINT_FAMILIES,
    CardSprite,
    parse_card_name,
    render_back,
    render_card,
)
from referee.render.compose import Scene, Sprite, place, pose_homography, transform_points
from referee.render.objects import hand_sprite
from referee.render.scenes import FAMILY_SHARES
from referee.render.surfaces import BUSY_SURFACES, table_surface
from referee.vision.classes import COLOURS, SYMBOL_CLASSES
from referee.vision.detection import Detection
from referee.vision.reader import Card, CardReader, ReaderSettings

if TYPE_CHECKING:
    from referee.rules.simulator import SimStep

#: Table surfaces a game is plausibly played on (the renderer's "clutter" is a photo background, not a table).
TABLE_KINDS: tuple[str, ...] = ("wood", "felt", "tablecloth", "laminate", "solid")
#: Steps that put a card on the discard pile.
PILE_STEPS: tuple[str, ...] = ("flip", "play")
#: A hand's shadow: darkness, and offset from the hand in card heights (the lamp is behind and left).
HAND_SHADOW = 0.35
SHADOW_SHIFT = np.float64([0.07, 0.1])
#: Side of a printed table marker and its white quiet zone, millimetres.
MARKER_MM, MARKER_QUIET_MM = 50.0, 8.0


@dataclass(frozen=True)
class VideoSettings:
    """Camera, table, timing and image-quality knobs of a simulated game."""

    fps: float = 15.0
    frame_size: tuple[int, int] = DEFAULT_SIZE  # width, height: the camera the product asks for
    table_size_mm: tuple[float, float] = (700.0, 500.0)  # the marker rectangle
    camera_height_mm: float = 600.0
    camera_tilt_deg: float = 8.0  # the camera looks down from slightly in front of the table centre
    px_per_mm: float = 2.0  # resolution of the calibration's zone crops
    noise_sigma: float = 2.5  # sensor noise, grey levels
    blur_sigma: float = 0.6  # optics
    lighting_drift: float = 0.06  # amplitude of the slow light changes (share of brightness)
    think_s: tuple[float, float] = (0.3, 1.0)  # idle time between observations
    feint_share: float = 0.1  # turns where a hand hovers over the pile and leaves without playing
    off_pile_share: float = 0.0  # plays that land off the pile (unreadable) and are straightened later
    busy_table: bool = False  # the table covered by a busy print (zebra, honeycomb, grass …), not a plain one
    hand_in_s: tuple[float, float] = (0.35, 0.6)
    hand_out_s: tuple[float, float] = (0.3, 0.5)

    def __post_init__(self) -> None:
        if not 1 <= self.fps <= 60:
            raise UserError(f"a simulated camera runs at 1 to 60 fps, not {self.fps:g}")
        width, height = self.frame_size
        if not (160 <= width <= 4096 and 120 <= height <= 4096):
            raise UserError(f"frame size {width}x{height} is outside 160x120 … 4096x4096")


@dataclass(frozen=True)
class CardPose:
    """Where a card lies on the table: centre in millimetres from marker 0, rotation in degrees."""

    x_mm: float
    y_mm: float
    angle_deg: float


@dataclass(frozen=True)
class PileEventTruth:
    """A card that landed on the discard pile, and when the watcher could first have seen it."""

    kind: str  # "flip" or "play"
    card: str
    by: str | None
    step: int  # index of the observation in the step stream
    landed_frame: int  # first frame with the card at rest in its final pose
    landed_s: float
    hand_left_frame: int  # first frame after landing with no hand pixel in the discard zone
    hand_left_s: float
    pose: CardPose
    identical_replay: bool  # same card as the one it covers (red-7 on red-7)
    off_pile_since_s: float | None = None  # landed off the pile (unreadable) then; straightened at landed_s


@dataclass(frozen=True)
class RevealTruth:
    """A hand laid out in the scoring zone to be counted (or to settle a challenge)."""

    by: str | None
    cards: tuple[str, ...]
    step: int
    laid_frame: int  # first frame with no hand pixel in the scoring zone after laying out
    laid_s: float
    removed_frame: int  # first frame the cards are gone again (or the video's end)
    removed_s: float


@dataclass(frozen=True)
class DisturbanceTruth:
    """Hand activity that is not a card landing: the watcher must stay silent through it."""

    kind: str  # feint, draw, tidy, clear-pile, clear-scoring, take-back, straighten, reveal
    start_frame: int
    end_frame: int
    over_discard: bool  # some frame had hand pixels inside the discard zone


@dataclass
class VideoTruth:
    """Everything that happened on the table, in video time."""

    pile_events: list[PileEventTruth] = field(default_factory=list)
    reveals: list[RevealTruth] = field(default_factory=list)
    disturbances: list[DisturbanceTruth] = field(default_factory=list)
    #: Per step, when its observation is complete in the video: a landing once the hand left the
    #: pile, a reveal once the hand left the scoring zone, anything else (buttons) after its action.
    step_s: list[float] = field(default_factory=list)


# --- the camera --------------------------------------------------------------------------------


def camera_homography(settings: VideoSettings) -> np.ndarray:
    """Table millimetres → image pixels for a pinhole camera over the table, mildly tilted.

    The camera hangs ``camera_height_mm`` above a point in front of the table centre and is tilted
    back by ``camera_tilt_deg`` to look at it, so the near side of the table appears wider (the
    mild perspective of a real clamp-mounted camera). The focal length is chosen so that the
    marker rectangle plus the markers fills the frame with a small margin.
    """
    width_mm, height_mm = settings.table_size_mm
    tilt = math.radians(settings.camera_tilt_deg)
    reach = MARKER_MM / 2 + MARKER_QUIET_MM + 12.0
    corners = np.float64(
        [
            [-reach, -reach],
            [width_mm + reach, -reach],
            [width_mm + reach, height_mm + reach],
            [-reach, height_mm + reach],
        ]
    )
    centre = np.float64([width_mm / 2, height_mm / 2 + settings.camera_height_mm * math.tan(tilt)])
    # Camera axes: x right, y down the table (towards the near players), z into the table.
    rotation, _ = cv2.Rodrigues(np.float64([-tilt, 0.0, 0.0]))
    position = np.float64([centre[0], centre[1], -settings.camera_height_mm])
    points = np.column_stack([corners, np.zeros(4)])
    camera_points = (rotation @ (points - position).T).T
    normalised = camera_points[:, :2] / camera_points[:, 2:3]
    frame_w, frame_h = settings.frame_size
    span = normalised.max(axis=0) - normalised.min(axis=0)
    scale = min(frame_w * 0.97 / span[0], frame_h * 0.97 / span[1])
    image = (normalised - normalised.min(axis=0)) * scale
    image += (np.float64([frame_w, frame_h]) - image.max(axis=0)) / 2
    table = np.float32([[-reach, -reach], [width_mm + reach, -reach], [width_mm + reach, height_mm + reach]])
    table = np.vstack([table, [[-reach, height_mm + reach]]]).astype(np.float32)
    return cv2.getPerspectiveTransform(table, image.astype(np.float32)).astype(np.float64)


def simulated_calibration(settings: VideoSettings) -> CalibrationProfile:
    """The calibration profile a perfect marker calibration would save for this simulated camera."""
    width_mm, height_mm = settings.table_size_mm
    table_corners = [(0.0, 0.0), (width_mm, 0.0), (width_mm, height_mm), (0.0, height_mm)]
    image_corners = transform_points(camera_homography(settings), table_corners)
    return CalibrationProfile(
        frame_size=settings.frame_size,
        table_size_mm=settings.table_size_mm,
        image_corners=tuple((float(x), float(y)) for x, y in image_corners),
        zones=default_zones(settings.table_size_mm),
        px_per_mm=settings.px_per_mm,
        method="simulated",
        created_at="1970-01-01T00:00:00Z",  # no wall-clock time: the same seed writes the same files
    )


def assumed_piles(steps: Sequence[Mapping[str, object]]) -> list[tuple[str, ...]]:
    """The discard pile after each step, for step lists without the simulator's truth.

    Plays and flips go on top; a flip after a play starts a new round on an empty pile; a Wild
    Draw Four turned up first goes back before the next flip (R9); an undo right after a play
    takes that card back.
    """
    pile: list[str] = []
    piles: list[tuple[str, ...]] = []
    last_landing: str | None = None  # flip or play
    previous: Mapping[str, object] = {}
    for step in steps:
        if "flip" in step:
            if last_landing == "play":
                pile = []
            elif last_landing == "flip" and pile and pile[-1] == "wild-draw4":
                pile.pop()
            pile.append(str(step["flip"]))
            last_landing = "flip"
        elif "play" in step:
            pile.append(str(step["play"]))
            last_landing = "play"
        elif "undo" in step and "play" in previous and pile:
            pile.pop()
        piles.append(tuple(pile))
        previous = step
    return piles


# --- the timeline ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _StaticState:
    """What lies still on the table: the discard pile bottom to top, and the scoring zone."""

    pile: tuple[tuple[str, CardPose], ...] = ()
    scoring: tuple[tuple[str, CardPose], ...] = ()


@dataclass(frozen=True)
class _FrameSpec:
    """One frame: the static state version, the hand (seat, integer top-left), a card in flight."""

    static: int
    hand: tuple[int, int, int] | None = None
    flying: tuple[str, CardPose] | None = None


@dataclass
class _SeatHand:
    """A player's hand and arm, rendered once and turned to point from the player's seat."""

    sprite: Sprite
    tip: tuple[float, float]  # fingertip point in sprite pixels
    occluding: np.ndarray  # alpha > 0.5, for "is the hand over the zone" checks
    direction_mm: tuple[float, float]  # unit vector from the table centre towards the seat
    shadow: Sprite  # the soft shadow it casts, blurred once, padded by ``shadow_pad`` on every side
    shadow_pad: int


def _ease_out(t: float) -> float:
    return 1 - (1 - t) ** 2


def _ease_in(t: float) -> float:
    return t * t


#: The random stream that draws a deck printed in other typefaces (:class:`TableVideo`'s print family
#: here, the game's typeface family in ``bench table --typefaces held-out``), apart from the one that
#: lays out the game, so that the same seed films the same game in either deck.
PRINT_STREAM = 0x7F0A7


class TableVideo:
    """A simulated game filmed from above: lazy frames, the matching calibration and the truth."""

    def __init__(
        self,
        steps: Iterable[Mapping[str, object]],
        players: Sequence[str],
        seed: int = 0,
        settings: VideoSettings | None = None,
        piles: Iterable[Sequence[str]] | None = None,
        faces: PhotoFaces | None = None,
        typefaces: tuple[str, ...] = (),
    ) -> None:
        """``piles``: the discard pile (bottom to top) right after each step, when known (the
        simulator knows it); otherwise :func:`assumed_piles` infers it from the steps.
        ``faces``: photographed card faces to film instead of rendered ones (a card with no photo
        is rendered; :attr:`rendered_faces` names those).
        ``typefaces``: font files (one family) to print every face's numerals in, in a print family
        of any kind: a deck in a typeface the networks never saw, when these are held-out faces.
        The game, the table and the camera stay those of the same seed without them."""
        self.settings = settings or VideoSettings()
        self.faces = faces
        self.typefaces = tuple(typefaces)
        #: Cards that had no photo among ``faces`` and were rendered instead.
        self.rendered_faces: set[str] = set()
        self.players = tuple(players)
        if len(self.players) < 2:
            raise UserError("a simulated game needs at least two players")
        self.seed = int(seed)
        self.steps = [dict(step) for step in steps]
        self.piles = [tuple(pile) for pile in piles] if piles is not None else assumed_piles(self.steps)
        if len(self.piles) != len(self.steps):
            raise ValueError(f"{len(self.piles)} piles for {len(self.steps)} steps")
        self.calibration = simulated_calibration(self.settings)
        self.view = self.calibration.table_view()
        self.image_from_table = np.linalg.inv(self.view.homography)
        rng = np.random.default_rng([self.seed, 0x7AB1E])
        self.design = str(rng.choice(DESIGNS))
        self.colourblind = bool(rng.random() < 0.5)
        if self.typefaces:  # its own random numbers: the rest of the video stays as without them
            print_rng = np.random.default_rng([self.seed, PRINT_STREAM])
            self.design = str(print_rng.choice(PRINT_FAMILIES, p=FAMILY_SHARES))
        self._card_px = self._card_height_px()
        self._sprite_rng_seed = int(rng.integers(2**31))
        self._sprites: dict[str, CardSprite] = {}
        self._zones = self.view.zones
        self._zone_masks = {name: self._zone_mask(zone) for name, zone in self._zones.items()}
        self._hands = [self._seat_hand(seat, rng) for seat in range(len(self.players))]
        self._base = self._render_base(rng)
        self._lighting = _Lighting(self.settings, rng)
        self._noise = _NoiseBank(self.settings, rng)
        self.truth = VideoTruth()
        self._statics: list[_StaticState] = [_StaticState()]
        self._specs: list[_FrameSpec] = []
        _Director(self, rng).run()
        self._cache: tuple[int, np.ndarray, np.ndarray] | None = None  # version, sharp, blurred

    @classmethod
    def from_simulation(
        cls,
        sim_steps: Iterable[SimStep],
        players: Sequence[str],
        seed: int = 0,
        settings: VideoSettings | None = None,
        faces: PhotoFaces | None = None,
        typefaces: tuple[str, ...] = (),
    ) -> TableVideo:
        """Film the rules simulator's steps, following its true discard pile step by step."""
        sim_steps = list(sim_steps)
        piles = [tuple(card.name for card in step.truth.discard_pile) for step in sim_steps]
        return cls([step.observation for step in sim_steps], players, seed, settings, piles, faces, typefaces)

    # --- public -------------------------------------------------------------------------------

    @property
    def frame_count(self) -> int:
        return len(self._specs)

    @property
    def duration_s(self) -> float:
        return self.frame_count / self.settings.fps

    def timestamp(self, index: int) -> float:
        return index / self.settings.fps

    def frames(self, start: int = 0, stop: int | None = None) -> Iterator[Frame]:
        """Frames ``start … stop-1`` in order, rendered one at a time (same seed → same pixels)."""
        stop = self.frame_count if stop is None else min(stop, self.frame_count)
        for index in range(start, stop):
            yield Frame(self.render(index), self.timestamp(index), index)

    def render(self, index: int, at_s: float | None = None) -> np.ndarray:
        """The camera picture of frame ``index`` (BGR uint8).

        ``at_s`` films the same table state at another time (its light, its noise): with the last
        frame and later times, a still table for as long as one likes.
        """
        spec = self._specs[index]
        image = self._static_image(spec.static).copy()
        if spec.flying is not None:
            name, pose = spec.flying
            place(
                image,
                self._sprite(name),
                self._card_homography(name, pose),
                shadow=0.45,
                shadow_offset=(6, 9),
            )
        if spec.hand is not None:
            seat, x0, y0 = spec.hand
            hand = self._hands[seat]
            shift = SHADOW_SHIFT * self._card_px - hand.shadow_pad
            place(image, hand.shadow, _translation(x0 + shift[0], y0 + shift[1]))
            place(image, hand.sprite, _translation(x0, y0))
        return self._camera_effects(image, self.timestamp(index) if at_s is None else at_s)

    def scene(self, index: int, zone: str = "discard") -> Scene:
        """The labelled scene of frame ``index`` as the zone crop shows it (for :class:`OracleReader`).

        Cards and the hand are composited into a crop-sized scene with the same geometry as
        :meth:`TableView.crop`, so the compose module's owner map says which corner indices a
        perfect reader could see (occluded by later cards, by the hand, or outside the zone).
        """
        spec = self._specs[index]
        crop_from_image = self._crop_from_image(zone)
        rect = self._zones[zone]
        size = (round(rect.height * self.settings.px_per_mm), round(rect.width * self.settings.px_per_mm))
        scene = Scene(np.zeros((*size, 3), np.uint8))
        state = self._statics[spec.static]
        laid = state.pile if zone == "discard" else state.scoring
        for position, (name, pose) in enumerate(laid):
            homography = crop_from_image @ self._card_homography(name, pose)
            scene.add_card(self._sprite(name), homography, top_of_pile=position == len(laid) - 1, shadow=0)
        if spec.flying is not None:
            name, pose = spec.flying
            scene.add_card(self._sprite(name), crop_from_image @ self._card_homography(name, pose), shadow=0)
        if spec.hand is not None:
            seat, x0, y0 = spec.hand
            scene.add_object(
                self._hands[seat].sprite, crop_from_image @ _translation(x0, y0), "hand", shadow=0
            )
        scene.finalise()
        return scene

    def truth_json(self) -> dict[str, object]:
        """The ground-truth log (and the calibration) as plain JSON data."""
        settings = self.settings
        return {
            "seed": self.seed,
            "players": list(self.players),
            "fps": settings.fps,
            "frame_size": list(settings.frame_size),
            "frames": self.frame_count,
            "deck": {
                "design": self.design,
                "colourblind": self.colourblind,
                "faces": "rendered" if self.faces is None else str(self.faces.folder),
                "rendered_faces": sorted(self.rendered_faces) if self.faces is not None else [],
                "typefaces": [Path(face).name for face in self.typefaces],
            },
            "calibration": self.calibration.to_dict(),
            "pile_events": [asdict(event) for event in self.truth.pile_events],
            "reveals": [asdict(reveal) for reveal in self.truth.reveals],
            "disturbances": [asdict(item) for item in self.truth.disturbances],
        }

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """Write the video (``.mp4`` or ``.avi``), its truth log (``.json``) and its calibration
        profile (``.calibration.json``) beside it; returns the two JSON paths."""
        path = Path(path)
        fourcc = {".mp4": "mp4v", ".avi": "MJPG"}.get(path.suffix.lower())
        if fourcc is None:
            raise UserError(f"cannot write {path}: name the video .mp4 or .avi")
        path.parent.mkdir(parents=True, exist_ok=True)
        writer = cv2.VideoWriter(
            str(path), cv2.VideoWriter_fourcc(*fourcc), self.settings.fps, self.settings.frame_size
        )
        if not writer.isOpened():
            raise UserError(f"cannot write the video {path}: is the folder writable, is the codec available?")
        try:
            for frame in self.frames():
                writer.write(frame.image)
        finally:
            writer.release()
        truth_path = path.with_suffix(".json")
        truth_path.write_text(json.dumps(self.truth_json(), indent=1), encoding="utf-8")
        return truth_path, self.calibration.save(path.with_suffix(".calibration.json"))

    # --- geometry -----------------------------------------------------------------------------

    def _card_height_px(self) -> float:
        """How tall a card appears at the discard pile, in image pixels."""
        zone = self.view.zones["discard"]
        centre = (zone.x + zone.width / 2, zone.y + zone.height / 2)
        ends = transform_points(self.image_from_table, [centre, (centre[0], centre[1] + CARD_MM[1])])
        return float(np.linalg.norm(ends[1] - ends[0]))

    def _card_homography(self, name: str, pose: CardPose) -> np.ndarray:
        sprite = self._sprite(name)
        return pose_homography(
            sprite.size, (pose.x_mm, pose.y_mm), CARD_MM[1], pose.angle_deg, camera=self.image_from_table
        )

    def _crop_from_image(self, zone: str) -> np.ndarray:
        """Image pixels → crop pixels, the inverse of the sampling in :meth:`TableView.crop`."""
        rect, scale = self._zones[zone], self.settings.px_per_mm
        crop_from_table = np.float64(
            [[scale, 0, -rect.x * scale - 0.5], [0, scale, -rect.y * scale - 0.5], [0, 0, 1]]
        )
        # TableView samples image point inverse(table) - 0.5 for each crop pixel: undo that half pixel.
        return crop_from_table @ self.view.homography @ _translation(0.5, 0.5)

    def _zone_mask(self, zone: Zone) -> np.ndarray:
        width, height = self.settings.frame_size
        mask = np.zeros((height, width), np.uint8)
        outline = transform_points(self.image_from_table, zone.corners())
        cv2.fillPoly(mask, [np.round(outline * 4).astype(np.int32)], 1, shift=2)
        return mask.astype(bool)

    def hand_over(self, zone: str, hand: tuple[int, int, int] | None) -> bool:
        """Whether any hand pixel (alpha > 0.5) lies inside the zone."""
        if hand is None:
            return False
        seat, x0, y0 = hand
        occluding = self._hands[seat].occluding
        mask = self._zone_masks[zone]
        height, width = mask.shape
        h, w = occluding.shape
        ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(width, x0 + w), min(height, y0 + h)
        if ax1 <= ax0 or ay1 <= ay0:
            return False
        window = occluding[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0]
        return bool((window & mask[ay0:ay1, ax0:ax1]).any())

    # --- assets -------------------------------------------------------------------------------

    def _sprite(self, name: str) -> CardSprite:
        """Each distinct card of the deck is made once (both copies of red-7 look alike): from its
        photo when the video films photographed faces and there is one, else rendered."""
        sprite = self._sprites.get(name)
        if sprite is None:
            height = max(48, round(self._card_px * 1.5))
            photo = None
            if self.faces is not None and name != "back":
                photo = self.faces.sprite(name, height, self._sprite_rng_seed)
            if photo is not None:
                sprite = photo
            elif name == "back":
                sprite = render_back(height, np.random.default_rng([self._sprite_rng_seed, 1]))
            else:
                if self.faces is not None:
                    self.rendered_faces.add(name)
                rng = np.random.default_rng([self._sprite_rng_seed, 0])  # one print run: same look per card
                sprite = render_card(name, self.design, self.colourblind, height, rng, fonts=self.typefaces)
            self._sprites[name] = sprite
        return sprite

    def seat_direction(self, seat: int) -> tuple[float, float]:
        """Unit vector (table mm) from the table centre towards a seat; seat 0 sits at the near side."""
        angle = math.pi / 2 + 2 * math.pi * seat / len(self.players)
        return math.cos(angle), math.sin(angle)

    def _seat_hand(self, seat: int, rng: np.random.Generator) -> _SeatHand:
        direction = self.seat_direction(seat)
        width, height = self.settings.frame_size
        side = 2 * round(math.hypot(width, height) * 0.62)
        centre = side / 2
        cropped, placing = hand_sprite(
            (side, side), (centre, centre), self._card_px * rng.uniform(0.45, 0.6), rng
        )
        x, y = round(placing[0, 2]), round(placing[1, 2])
        h, w = cropped.alpha.shape
        raw = Sprite(np.zeros((side, side, 3), np.uint8), np.zeros((side, side), np.uint8))
        raw.bgr[y : y + h, x : x + w], raw.alpha[y : y + h, x : x + w] = cropped.bgr, cropped.alpha
        # Turn the arm (the bulk of the hand's pixels) towards the seat, as seen in the image.
        ys, xs = np.nonzero(raw.alpha > 127)
        arm = math.atan2(ys.mean() - centre, xs.mean() - centre) if len(xs) else 0.0
        table_centre = np.float64(self.settings.table_size_mm) / 2
        ends = transform_points(
            self.image_from_table, [table_centre, table_centre + np.float64(direction) * 50]
        )
        wanted = math.atan2(ends[1][1] - ends[0][1], ends[1][0] - ends[0][0])
        turn = cv2.getRotationMatrix2D((centre, centre), math.degrees(arm - wanted), 1.0)
        bgr = cv2.warpAffine(raw.bgr, turn, (side, side), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(raw.alpha, turn, (side, side), flags=cv2.INTER_LINEAR)
        ys, xs = np.nonzero(alpha)
        x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
        sprite = Sprite(bgr[y0:y1, x0:x1].copy(), alpha[y0:y1, x0:x1].copy())
        pad = 2 * round(self._card_px * 0.06) + 1  # also the blur kernel: the shadow's soft edge
        cast = cv2.copyMakeBorder(sprite.alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        cast = (cv2.GaussianBlur(cast, (pad, pad), 0) * HAND_SHADOW).astype(np.uint8)
        shadow = Sprite(np.zeros((*cast.shape, 3), np.uint8), cast)
        return _SeatHand(sprite, (centre - x0, centre - y0), sprite.alpha > 127, direction, shadow, pad)

    def _render_base(self, rng: np.random.Generator) -> np.ndarray:
        """The empty table with markers and the face-down draw pile (rendered once per video)."""
        width, height = self.settings.frame_size
        kinds = tuple(BUSY_SURFACES) if self.settings.busy_table else TABLE_KINDS
        surface, _ = table_surface(height, width, rng, kind=str(rng.choice(kinds)))
        image = surface
        width_mm, height_mm = self.settings.table_size_mm
        side_px = max(40, round(self._card_px))
        for marker_id, (x, y) in zip(
            MARKER_IDS, [(0, 0), (width_mm, 0), (width_mm, height_mm), (0, height_mm)], strict=True
        ):
            quiet = round(side_px * MARKER_QUIET_MM / MARKER_MM)
            printed = cv2.copyMakeBorder(
                marker_image(marker_id, side_px), quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=255
            )
            sheet = Sprite(cv2.cvtColor(printed, cv2.COLOR_GRAY2BGR), np.full(printed.shape, 255, np.uint8))
            homography = pose_homography(
                (printed.shape[1], printed.shape[0]),
                (x, y),
                MARKER_MM + 2 * MARKER_QUIET_MM,
                0.0,
                self.image_from_table,
            )
            place(image, sheet, homography, shadow=0.15)
        back = self._sprite("back")
        draw = self.draw_pile_centre()
        for _ in range(6):
            pose = CardPose(draw[0] + rng.normal(0, 1.5), draw[1] + rng.normal(0, 1.5), 90 + rng.normal(0, 3))
            homography = pose_homography(
                back.size, (pose.x_mm, pose.y_mm), CARD_MM[1], pose.angle_deg, self.image_from_table
            )
            place(image, back, homography, shadow=0.3)
        return np.clip(image, 0, 255).astype(np.uint8)

    def colour_calibration_pictures(self) -> dict[str, np.ndarray]:
        """What `uno-referee calibrate` asks for before a game: one card of each colour alone in the
        discard zone (and a wild card for black), filmed with this table's deck, camera and light."""
        cx, cy = self.discard_centre()
        cards = {"red": "red-5", "yellow": "yellow-5", "green": "green-5", "blue": "blue-5", "black": "wild"}
        return {colour: self.still_picture(card, cx, cy) for colour, card in cards.items()}

    def still_picture(self, card: str, x_mm: float, y_mm: float, angle_deg: float = 0.0) -> np.ndarray:
        """A camera picture of the empty table with ``card`` alone on it, at t = 0."""
        image = self._base.copy()
        pose = CardPose(x_mm, y_mm, angle_deg)
        place(image, self._sprite(card), self._card_homography(card, pose), shadow=0.35)
        return self._camera_effects(self._optics(image), 0.0)

    def _optics(self, image: np.ndarray) -> np.ndarray:
        """The lens's blur of a still picture."""
        if self.settings.blur_sigma > 0:
            return cv2.GaussianBlur(image, (3, 3), self.settings.blur_sigma)
        return image

    def discard_centre(self) -> tuple[float, float]:
        zone = self._zones["discard"]
        return zone.x + zone.width / 2, zone.y + zone.height / 2

    def draw_pile_centre(self) -> tuple[float, float]:
        """Left of the discard zone, outside it (a card lies across, rotated by 90°)."""
        zone = self._zones["discard"]
        return zone.x - CARD_MM[1] / 2 - 25.0, zone.y + zone.height / 2

    # --- frames -------------------------------------------------------------------------------

    def _static_image(self, version: int) -> np.ndarray:
        """The still part of the picture (blurred by the optics) for a state version."""
        if self._cache is None or self._cache[0] != version:
            sharp = self._sharp_static(version)
            self._cache = (version, sharp, self._optics(sharp))
        return self._cache[2]

    def _sharp_static(self, version: int) -> np.ndarray:
        """The still part of the picture, built on the cached one when only cards were added."""
        state = self._statics[version]
        image, laid_pile, laid_scoring = self._base, 0, 0
        if self._cache is not None:
            previous = self._statics[self._cache[0]]
            grew_pile = state.pile[: len(previous.pile)] == previous.pile
            grew_scoring = state.scoring[: len(previous.scoring)] == previous.scoring
            if grew_pile and grew_scoring:
                image, laid_pile, laid_scoring = self._cache[1], len(previous.pile), len(previous.scoring)
        image = image.copy()
        for name, pose in state.pile[laid_pile:] + state.scoring[laid_scoring:]:
            place(image, self._sprite(name), self._card_homography(name, pose), shadow=0.35)
        return image

    def _camera_effects(self, image: np.ndarray, at_s: float) -> np.ndarray:
        """Light (colour cast, drift, vignetting) and sensor noise, all in uint8."""
        gain_map, brightness = self._lighting.at(at_s)
        lit = cv2.multiply(image, gain_map, scale=brightness / 128)
        return self._noise.apply(lit, np.random.default_rng([self.seed, round(at_s * 1000)]))


def with_table_colours(reader: CardReader, video: TableVideo) -> CardReader:
    """``reader`` with the colour model that calibration learns at this simulated table.

    Where the colour step cannot single out the card (a busy cloth around it), a user would be told
    so and play with the default colours; so does this.
    """
    from calibration.colours import colour_model_from_cards

    try:
        model = colour_model_from_cards(video.view, video.colour_calibration_pictures(), reader)
    except UserError:
        return reader
    return reader.with_colours(model)


def _translation(x: float, y: float) -> np.ndarray:
    return np.float64([[1, 0, x], [0, 1, y], [0, 0, 1]])


class _Lighting:
    """A colour cast, vignetting and a slow drift of brightness and of a light gradient."""

    GRID = (16, 12)
    MAP_STEP_S = 0.5

    def __init__(self, settings: VideoSettings, rng: np.random.Generator) -> None:
        self.size = settings.frame_size
        self.drift = settings.lighting_drift
        warmth = rng.uniform(-0.08, 0.1)
        self.cast = np.float32([1 - warmth, 1.0, 1 + warmth]) * rng.uniform(0.9, 1.05)
        gw, gh = self.GRID
        ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
        xs, ys = xs / (gw - 1) * 2 - 1, ys / (gh - 1) * 2 - 1
        angle = rng.uniform(0, 2 * math.pi)
        self.gradient = (xs * math.cos(angle) + ys * math.sin(angle)) / math.sqrt(2)
        self.vignette = rng.uniform(0.05, 0.18) * (xs**2 + ys**2) / 2
        self.periods = rng.uniform([30, 7, 20], [90, 15, 60])
        self.phases = rng.uniform(0, 2 * math.pi, 3)
        self._map: tuple[int, np.ndarray] | None = None

    def at(self, t: float) -> tuple[np.ndarray, float]:
        """The light at time ``t``: a per-pixel gain map × 128 (uint8) and an overall brightness.

        Use as ``cv2.multiply(image, map, scale=brightness / 128)``. The map (cast, vignetting and
        the drifting gradient) changes slowly and is recomputed every ``MAP_STEP_S`` seconds only;
        the brightness follows every frame.
        """
        waves = np.sin(2 * math.pi * t / self.periods + self.phases)
        brightness = 1 + self.drift * (0.6 * waves[0] + 0.4 * waves[1])
        step = round(t / self.MAP_STEP_S)
        if self._map is None or self._map[0] != step:
            phase = 2 * math.pi * step * self.MAP_STEP_S / self.periods[2] + self.phases[2]
            gain = 1 + self.drift * math.sin(phase) * self.gradient - self.vignette
            small = np.clip(gain[..., None] * self.cast * 128, 0, 255).astype(np.uint8)
            self._map = (step, cv2.resize(small, self.size, interpolation=cv2.INTER_LINEAR))
        return self._map[1], float(brightness)


class _NoiseBank:
    """A few frames of Gaussian sensor noise, drawn once and picked per frame (saturating uint8 adds)."""

    def __init__(self, settings: VideoSettings, rng: np.random.Generator, size: int = 5) -> None:
        width, height = settings.frame_size
        self.patterns: list[tuple[np.ndarray, np.ndarray]] = []
        if settings.noise_sigma <= 0:
            return
        for _ in range(size):
            noise = rng.standard_normal((height, width, 3), dtype=np.float32) * settings.noise_sigma
            self.patterns.append(
                (np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8))
            )

    def apply(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if not self.patterns:
            return image
        positive, negative = self.patterns[int(rng.integers(len(self.patterns)))]
        return cv2.subtract(cv2.add(image, positive), negative)


@dataclass(frozen=True)
class _OpenReveal:
    """A hand lying in the scoring zone, until it is swept away."""

    by: str | None
    cards: tuple[str, ...]
    step: int
    laid_frame: int


class _Director:
    """Turns the step stream into a frame timeline: hand actions, idle time, state versions, truth."""

    def __init__(self, video: TableVideo, rng: np.random.Generator) -> None:
        self.video = video
        self.rng = rng
        self.settings = video.settings
        self.fps = video.settings.fps
        self.seat_of = {name: seat for seat, name in enumerate(video.players)}
        self.next_seat = 0
        self.open_reveal: _OpenReveal | None = None

    # --- state --------------------------------------------------------------------------------

    @property
    def state(self) -> _StaticState:
        return self.video._statics[-1]

    def _push_state(self, state: _StaticState) -> int:
        self.video._statics.append(state)
        return len(self.video._statics) - 1

    def _emit(self, spec: _FrameSpec) -> int:
        self.video._specs.append(spec)
        return len(self.video._specs) - 1

    def _seconds(self, span: tuple[float, float]) -> int:
        return max(1, round(self.rng.uniform(*span) * self.fps))

    def idle(self, span: tuple[float, float]) -> None:
        current = len(self.video._statics) - 1
        for _ in range(self._seconds(span)):
            self._emit(_FrameSpec(current))

    # --- the stream ---------------------------------------------------------------------------

    def run(self) -> None:
        self.idle((0.6, 1.0))  # the empty table before the deal: the watcher learns it
        dealer = len(self.video.players) - 1
        for index, (step, pile) in enumerate(zip(self.video.steps, self.video.piles, strict=True)):
            kind = next((key for key in PILE_STEPS if key in step), None)
            if kind is not None:
                card = str(step[kind])
                seat = self._seat(step.get("by"), default=dealer if kind == "flip" else None)
                self._close_reveal()
                current = tuple(name for name, _ in self.state.pile)
                if (
                    pile
                    and pile[-1] == card
                    and pile != (*current, card)
                    and (*current, card)[-len(pile) :] == pile
                ):
                    pass  # the pile was reshuffled after this card landed (R33): land first, tidy after
                else:
                    self._reconcile(pile[:-1] if pile and pile[-1] == card else pile, seat)
                if kind == "play" and self.rng.random() < self.settings.feint_share:
                    self._feint(seat)
                done = self._land(kind, card, seat, index, step.get("by"))
            elif "reveal" in step:
                seat = self._seat(step.get("by"))
                done = self._reveal(seat, [str(card) for card in step["reveal"]], index, step.get("by"))  # type: ignore[union-attr]
            elif "draw" in step:
                seat = self._seat(step.get("by"))
                self._draw(seat, int(step["draw"]))  # type: ignore[arg-type]
                done = len(self.video._specs)
            else:
                seat = self._seat(step.get("by"))
                done = len(self.video._specs)
            self.video.truth.step_s.append(done / self.fps)
            self._reconcile(pile, seat)
            self.idle(self.settings.think_s)
        self._close_reveal()
        self.idle((0.8, 1.2))

    def _seat(self, by: object, default: int | None = None) -> int:
        if isinstance(by, str) and by in self.seat_of:
            return self.seat_of[by]
        if default is not None:
            return default
        seat = self.next_seat  # no player named: hands come from the seats in turn
        self.next_seat = (self.next_seat + 1) % len(self.video.players)
        return seat

    def _reconcile(self, target: tuple[str, ...], seat: int) -> None:
        """Make the discard pile hold ``target`` (bottom to top) by taking cards away.

        Taking the top card(s) back (a refused card, a Wild Draw Four turned up first), sliding all
        but the top card(s) away (R33: the discard pile becomes the draw pile), or gathering the
        whole pile (a new round) — each by a hand that reaches over the pile.
        """
        pile = self.state.pile
        current = tuple(name for name, _ in pile)
        if current == target:
            return
        kept = len(target)
        if kept < len(current) and current[:kept] == target:
            if kept == 0 and len(current) > 1:  # a new round: the whole pile is gathered
                self._close_reveal()
                target_mm, kind = self.video.discard_centre(), "clear-pile"
            else:
                target_mm, kind = self._grip(seat, pile[-1][1]), "take-back"
            self._hand_action(seat, target_mm, kind, change=replace(self.state, pile=pile[:kept]))
        elif 0 < kept < len(current) and current[-kept:] == target:
            cx, cy = self.video.discard_centre()
            self._hand_action(seat, (cx - 40.0, cy), "tidy", change=replace(self.state, pile=pile[-kept:]))
        else:
            raise ValueError(
                f"the discard pile cannot go from {list(current)} to {list(target)} without a card landing"
            )
        self.idle((0.4, 0.8))

    # --- actions ------------------------------------------------------------------------------

    def _landing_pose(self, seat: int) -> CardPose:
        """Near the pile centre, turned towards the player, sometimes upside down (cards are symmetric)."""
        cx, cy = self.video.discard_centre()
        dx, dy = np.clip(self.rng.normal(0, 9, 2), -25, 25)
        direction = self.video._hands[seat].direction_mm
        facing = math.degrees(math.atan2(direction[1], direction[0])) - 90
        flip = 180 if self.rng.random() < 0.3 else 0
        return CardPose(cx + float(dx), cy + float(dy), facing + flip + float(self.rng.normal(0, 14)))

    def _off_pile_pose(self) -> CardPose:
        """Across the far edge of the discard zone, both corner indices outside it: nothing to read."""
        zone = self.video._zones["discard"]
        width, height = CARD_MM
        diagonal = math.degrees(math.atan2(height - 20, width - 16))  # index-to-index direction in the card
        angle = -diagonal if self.rng.random() < 0.5 else 180 - diagonal
        x = zone.x + zone.width / 2 + float(self.rng.uniform(-30, 30))
        return CardPose(x, zone.y - 14.0, angle)

    def _land(self, kind: str, card: str, seat: int, step: int, by: object) -> int:
        """A card lands (and, if it fell off the pile, is straightened): returns the hand-left frame."""
        covered = self.state.pile[-1][0] if self.state.pile else None
        off_pile = kind == "play" and self.rng.random() < self.settings.off_pile_share
        pose = self._off_pile_pose() if off_pile else self._landing_pose(seat)
        landed, left = self._carry(seat, card, pose, kind)
        off_since = None
        if off_pile:
            off_since = landed / self.fps
            self.idle((1.8, 3.0))
            final = self._landing_pose(seat)
            landed, left = self._straighten(seat, card, pose, final)
            pose = final
        self.video.truth.pile_events.append(
            PileEventTruth(
                kind=kind,
                card=card,
                by=by if isinstance(by, str) else None,
                step=step,
                landed_frame=landed,
                landed_s=landed / self.fps,
                hand_left_frame=left,
                hand_left_s=left / self.fps,
                pose=pose,
                identical_replay=covered == card,
                off_pile_since_s=off_since,
            )
        )
        return left

    def _path(
        self, seat: int, target: tuple[float, float], frames: int, inwards: bool
    ) -> list[tuple[float, float]]:
        """Fingertip positions (table mm) sweeping in from beyond the frame edge, or out again."""
        direction = np.float64(self.video._hands[seat].direction_mm)
        start = np.float64(target)
        distance = self._distance_out(start, direction)
        points = []
        for k in range(frames):
            t = (k + 1) / frames
            reach = distance * (1 - _ease_out(t)) if inwards else distance * _ease_in(t)
            points.append(tuple(start + direction * reach))
        return points

    def _distance_out(self, start: np.ndarray, direction: np.ndarray) -> float:
        """How far along ``direction`` the fingertips must go for the whole hand to leave the frame."""
        width_mm, height_mm = self.settings.table_size_mm
        margin = 140.0 + CARD_MM[1]
        low, high = np.float64([-margin, -margin]), np.float64([width_mm + margin, height_mm + margin])
        exits = []
        for axis in (0, 1):
            if abs(direction[axis]) > 1e-9:
                bound = high[axis] if direction[axis] > 0 else low[axis]
                exits.append((bound - start[axis]) / direction[axis])
        return float(min(exits))

    def _hand_spec(self, seat: int, tip_mm: tuple[float, float]) -> tuple[int, int, int]:
        hand = self.video._hands[seat]
        tip = transform_points(self.video.image_from_table, [tip_mm])[0]
        return seat, round(tip[0] - hand.tip[0]), round(tip[1] - hand.tip[1])

    def _grip(self, seat: int, pose: CardPose) -> tuple[float, float]:
        """Where the fingertips hold a card: its edge on the player's side."""
        direction = self.video._hands[seat].direction_mm
        return pose.x_mm + direction[0] * CARD_MM[0] * 0.45, pose.y_mm + direction[1] * CARD_MM[0] * 0.45

    def _carry(self, seat: int, card: str, pose: CardPose, kind: str) -> tuple[int, int]:
        """The hand brings ``card`` in, lets go at ``pose`` and leaves: (landed frame, hand-left frame)."""
        grip = self._grip(seat, pose)
        wobble = float(self.rng.normal(0, 12))
        frames_in = self._seconds(self.settings.hand_in_s)
        for k, tip in enumerate(self._path(seat, grip, frames_in, inwards=True)[:-1]):
            shift = (tip[0] - grip[0], tip[1] - grip[1])
            t = (k + 1) / frames_in
            flying = replace(
                pose,
                x_mm=pose.x_mm + shift[0],
                y_mm=pose.y_mm + shift[1],
                angle_deg=pose.angle_deg + wobble * (1 - t),
            )
            self._emit(_FrameSpec(len(self.video._statics) - 1, self._hand_spec(seat, tip), (card, flying)))
        version = self._push_state(replace(self.state, pile=(*self.state.pile, (card, pose))))
        landed = self._emit(_FrameSpec(version, self._hand_spec(seat, grip)))
        for _ in range(self._seconds((0.05, 0.2)) - 1):
            self._emit(_FrameSpec(version, self._hand_spec(seat, grip)))
        return landed, self._withdraw(seat, grip, version)

    def _withdraw(self, seat: int, tip: tuple[float, float], version: int, zone: str = "discard") -> int:
        """The hand leaves; returns the first frame with no hand pixel in ``zone``."""
        left = None
        for point in self._path(seat, tip, self._seconds(self.settings.hand_out_s), inwards=False):
            spec = self._hand_spec(seat, point)
            index = self._emit(_FrameSpec(version, spec))
            if left is None and not self.video.hand_over(zone, spec):
                left = index
        end = self._emit(_FrameSpec(version))
        return end if left is None else left

    def _hand_action(
        self,
        seat: int,
        target: tuple[float, float],
        kind: str,
        change: _StaticState | None = None,
        hold: tuple[float, float] = (0.1, 0.3),
        zone: str = "discard",
    ) -> tuple[int, int]:
        """Hand in, optionally change what lies on the table at the touch, hold, out: (touch, left)."""
        start = len(self.video._specs)
        version = len(self.video._statics) - 1
        for tip in self._path(seat, target, self._seconds(self.settings.hand_in_s), inwards=True)[:-1]:
            self._emit(_FrameSpec(version, self._hand_spec(seat, tip)))
        if change is not None:
            version = self._push_state(change)
        touch = self._emit(_FrameSpec(version, self._hand_spec(seat, target)))
        for _ in range(self._seconds(hold) - 1):
            self._emit(_FrameSpec(version, self._hand_spec(seat, target)))
        left = self._withdraw(seat, target, version, zone)
        specs = self.video._specs[start : len(self.video._specs)]
        over = any(self.video.hand_over("discard", spec.hand) for spec in specs)
        self.video.truth.disturbances.append(DisturbanceTruth(kind, start, len(self.video._specs), over))
        return touch, left

    def _straighten(self, seat: int, card: str, off: CardPose, final: CardPose) -> tuple[int, int]:
        """A hand slides an off-pile card onto the pile: (landed frame, hand-left frame)."""
        start = len(self.video._specs)
        grip_off, grip_final = self._grip(seat, off), self._grip(seat, final)
        version = len(self.video._statics) - 1
        for tip in self._path(seat, grip_off, self._seconds(self.settings.hand_in_s), inwards=True):
            self._emit(_FrameSpec(version, self._hand_spec(seat, tip)))
        lifted = self._push_state(replace(self.state, pile=self.state.pile[:-1]))
        slide = self._seconds((0.3, 0.5))
        for k in range(1, slide):
            t = _ease_out(k / slide)
            pose = CardPose(
                off.x_mm + (final.x_mm - off.x_mm) * t,
                off.y_mm + (final.y_mm - off.y_mm) * t,
                off.angle_deg + (final.angle_deg - off.angle_deg) * t,
            )
            tip = (
                grip_off[0] + (grip_final[0] - grip_off[0]) * t,
                grip_off[1] + (grip_final[1] - grip_off[1]) * t,
            )
            self._emit(_FrameSpec(lifted, self._hand_spec(seat, tip), (card, pose)))
        version = self._push_state(replace(self.state, pile=(*self.state.pile, (card, final))))
        landed = self._emit(_FrameSpec(version, self._hand_spec(seat, grip_final)))
        left = self._withdraw(seat, grip_final, version)
        self.video.truth.disturbances.append(
            DisturbanceTruth("straighten", start, len(self.video._specs), True)
        )
        return landed, left

    def _feint(self, seat: int) -> None:
        """A hand reaches over the pile, hesitates (sometimes quite still) and leaves."""
        cx, cy = self.video.discard_centre()
        target = (cx + float(self.rng.normal(0, 20)), cy + float(self.rng.normal(0, 20)))
        self._hand_action(seat, target, "feint", hold=(0.2, 0.9))
        self.idle((0.2, 0.5))

    def _draw(self, seat: int, count: int) -> None:
        self._hand_action(
            seat, self.video.draw_pile_centre(), "draw", hold=(0.2 + 0.15 * count, 0.3 + 0.2 * count)
        )

    def _reveal(self, seat: int, cards: list[str], step: int, by: object) -> int:
        """Lay the hand out in a row in the scoring zone (they stay until cleared): returns the frame
        the hand left the scoring zone."""
        self._close_reveal()
        if not cards:
            return len(self.video._specs)
        zone = self.video._zones["scoring"]
        spacing = min(CARD_MM[0] + 6, (zone.width - CARD_MM[0] - 30) / max(1, len(cards) - 1))
        start_x = zone.x + zone.width / 2 - spacing * (len(cards) - 1) / 2
        centre_y = zone.y + zone.height / 2
        laid = tuple(
            (
                card,
                CardPose(
                    start_x + i * spacing + float(self.rng.normal(0, 1.5)),
                    centre_y + float(self.rng.normal(0, 3)),
                    float(self.rng.normal(0, 4)),
                ),
            )
            for i, card in enumerate(cards)
        )
        target = (zone.x + zone.width / 2, centre_y)
        _, laid_frame = self._hand_action(
            seat, target, "reveal", change=replace(self.state, scoring=laid), zone="scoring"
        )
        self.open_reveal = _OpenReveal(by if isinstance(by, str) else None, tuple(cards), step, laid_frame)
        self.idle((1.5, 2.2))
        return laid_frame

    def _close_reveal(self) -> None:
        """Sweep the laid-out hand away (before the next one, a new round, or at the end)."""
        if self.open_reveal is None:
            return
        shown = self.open_reveal
        seat = self._seat(shown.by)
        zone = self.video._zones["scoring"]
        touch, _ = self._hand_action(
            seat,
            (zone.x + zone.width / 2, zone.y + zone.height / 2),
            "clear-scoring",
            change=replace(self.state, scoring=()),
            zone="scoring",
        )
        self.video.truth.reveals.append(
            RevealTruth(
                by=shown.by,
                cards=shown.cards,
                step=shown.step,
                laid_frame=shown.laid_frame,
                laid_s=shown.laid_frame / self.fps,
                removed_frame=touch,
                removed_s=touch / self.fps,
            )
        )
        self.open_reveal = None


# --- a perfect reader --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReaderErrors:
    """Mistakes to make on purpose, to see how the watcher copes with an imperfect detector.

    Per read: each visible corner index is missed with ``miss_index``; each card is read as a
    confusable other card (6↔9, or another colour) with ``misread``; index positions wobble by
    ``jitter_px`` (standard deviation, crop pixels). A card read by both corners is read as two
    cards with ``doubled`` (its corners not paired: one card per corner, each with the box a lone
    index gets — a real detector did this to a yellow 7). Cards named in ``blind_to`` are never
    read at all (a print the detector does not know, such as white-symbol wilds).
    """

    miss_index: float = 0.0
    misread: float = 0.0
    jitter_px: float = 0.0
    doubled: float = 0.0
    blind_to: frozenset[str] = frozenset()

    @property
    def any(self) -> bool:
        return bool(self.miss_index or self.misread or self.jitter_px or self.doubled or self.blind_to)


class OracleReader:
    """Reads what a perfect detector would read in a zone crop of the video's current frame.

    The oracle cannot tell frames apart by their pixels, so the loop that feeds frames says which
    frame it is at (:meth:`show`). A card is read when at least one of its corner indices is
    visible enough to be labelled (the compose module's rule: ≥ 60 % visible, inside the crop);
    its ``indices`` are those corner boxes, its ``box`` the visible card's extent, so pose
    comparisons work exactly as with the vision reader's :class:`~referee.vision.reader.Card`.
    With :class:`ReaderErrors` it makes seeded, repeatable mistakes.
    """

    def __init__(
        self, video: TableVideo, zone: str = "discard", errors: ReaderErrors | None = None, seed: int = 0
    ) -> None:
        self.video = video
        self.zone = zone
        self.errors = errors or ReaderErrors()
        self.seed = seed
        self.frame_index = 0
        self.calls = 0

    def show(self, frame_index: int) -> None:
        self.frame_index = frame_index

    def read(self, image_bgr: np.ndarray, *, turned: bool = False) -> list[Card]:
        """The cards the scene holds (``turned`` changes nothing: the truth has no point of view)."""
        self.calls += 1
        scene = self.video.scene(self.frame_index, self.zone)
        height, width = image_bgr.shape[:2]
        errors = self.errors
        rng = np.random.default_rng([self.seed, self.frame_index, self.calls])
        cards = []
        for placed in scene.cards:
            if placed.sprite_name in errors.blind_to:
                continue
            indices = tuple(
                _jittered(Detection(box.box, box.class_id, SYMBOL_CLASSES[box.class_id], 1.0), errors, rng)
                for box in placed.boxes
                if box.labelled and box.class_id < len(SYMBOL_CLASSES) and rng.random() >= errors.miss_index
            )
            if not indices:
                continue
            x1, y1 = np.clip(placed.polygon.min(axis=0), 0, [width, height])
            x2, y2 = np.clip(placed.polygon.max(axis=0), 0, [width, height])
            name = placed.sprite_name
            if errors.misread and rng.random() < errors.misread:
                name = _confusable(name, rng)
            symbol, colour = parse_card_name(name)
            read = Card(
                name=name,
                symbol=symbol,
                colour=colour,
                confidence=1.0,
                box=(float(x1), float(y1), float(x2), float(y2)),
                colour_from="hue",
                indices=indices,
            )
            if errors.doubled and len(indices) == 2 and rng.random() < errors.doubled:
                cards += [_lone_corner(read, index, (width, height)) for index in indices]
            else:
                cards.append(read)
        return sorted(cards, key=lambda card: (round(card.box[1]), card.box[0]))


def _lone_corner(card: Card, index: Detection, crop_size: tuple[int, int]) -> Card:
    """``card`` read by one corner only, with the box the vision reader gives a lone index."""
    margin = ReaderSettings().card_margin * index.size
    x1, y1, x2, y2 = index.box
    width, height = crop_size
    box = (max(0.0, x1 - margin), max(0.0, y1 - margin), min(width, x2 + margin), min(height, y2 + margin))
    return replace(card, box=box, indices=(index,))


def _jittered(detection: Detection, errors: ReaderErrors, rng: np.random.Generator) -> Detection:
    if not errors.jitter_px:
        return detection
    dx, dy = rng.normal(0, errors.jitter_px, 2)
    x1, y1, x2, y2 = detection.box
    return replace(detection, box=(x1 + dx, y1 + dy, x2 + dx, y2 + dy))


def _confusable(name: str, rng: np.random.Generator) -> str:
    """A card a detector could take ``name`` for: 6 and 9 swapped, or the same symbol in another colour."""
    symbol, colour = parse_card_name(name)
    if colour is None:
        return "wild-draw4" if symbol == "wild" else "wild"
    if symbol in ("6", "9") and rng.random() < 0.5:
        return f"{colour}-{'9' if symbol == '6' else '6'}"
    others = [other for other in COLOURS if other != colour]
    return f"{others[int(rng.integers(len(others)))]}-{symbol}"
