"""The table plane seen from above: a homography, the zones on it, and cheap per-frame crops.

:class:`TableView` is what the pile watcher holds. It maps camera pixels to table millimetres
(origin at marker 0, see :mod:`calibration.markers`) and cuts each zone out of a frame as a
top-down picture at ``px_per_mm``. The warp maps are computed once per zone, so a crop per frame
is one ``cv2.remap`` over the zone's pixels only — about a millisecond, not a full-frame warp.

>>> import numpy as np
>>> corners = np.float32([[100, 50], [800, 50], [800, 550], [100, 550]])  # a camera straight above
>>> view = TableView.from_corners(corners, (700.0, 500.0), (960, 600), {"discard": Zone(250, 150, 200, 200)})
>>> view.to_table([[450, 300]]).round(1).tolist()
[[350.0, 250.0]]
>>> view.crop(np.zeros((600, 960, 3), np.uint8), "discard").shape
(400, 400, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from referee.errors import UserError

#: A UNO card is about 56 × 87 mm: zones smaller than a card cannot hold one.
CARD_MM = (56.0, 87.0)
ZONE_NAMES: tuple[str, ...] = ("discard", "scoring")


@dataclass(frozen=True)
class Zone:
    """An axis-parallel rectangle on the table, in millimetres from marker 0."""

    x: float
    y: float
    width: float
    height: float

    def corners(self) -> np.ndarray:
        """The rectangle's corners clockwise from top left (4 × 2 float32)."""
        x, y, w, h = self.x, self.y, self.width, self.height
        return np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])

    def overlaps(self, other: Zone) -> bool:
        return (
            self.x < other.x + other.width
            and other.x < self.x + self.width
            and self.y < other.y + other.height
            and other.y < self.y + self.height
        )

    @classmethod
    def from_points(cls, first: Sequence[float], second: Sequence[float]) -> Zone:
        """The rectangle with two opposite corners (from two clicks, in either order)."""
        x1, x2 = sorted((float(first[0]), float(second[0])))
        y1, y2 = sorted((float(first[1]), float(second[1])))
        return cls(x1, y1, x2 - x1, y2 - y1)


#: Half the largest printable marker (65 mm) plus its white quiet zone: what the zones keep clear of
#: the marker centres at the corners of the marker rectangle.
MARKER_CLEARANCE_MM = 45.0


def default_zones(table_size_mm: tuple[float, float]) -> dict[str, Zone]:
    """Where the zones go with the marker layout: the discard pile in the middle, scoring along the bottom.

    The discard zone is a centred square of 40 % of the shorter side (at least a card's diagonal
    would be better, so never under 110 mm); the scoring zone is the bottom quarter, where a player
    spreads the hand to be counted, between the two front markers (a marker's black and white
    squares read like a wild card's corner). They never overlap.

    >>> zones = default_zones((700, 500))
    >>> zones["discard"]
    Zone(x=250.0, y=150.0, width=200.0, height=200.0)
    >>> zones["scoring"]
    Zone(x=45.0, y=375.0, width=610.0, height=125.0)
    """
    width, height = (float(v) for v in table_size_mm)
    side = max(110.0, 0.4 * min(width, height))
    band = 0.25 * height
    discard = Zone((width - side) / 2, (height - side) / 2, side, side)
    scoring = Zone(MARKER_CLEARANCE_MM, height - band, width - 2 * MARKER_CLEARANCE_MM, band)
    if discard.overlaps(scoring) or band < CARD_MM[1]:
        raise UserError(
            f"a table of {width:g} × {height:g} mm is too small for a discard and a scoring zone: "
            "lay the markers further apart (at least 350 mm tall)"
        )
    return {"discard": discard, "scoring": scoring}


class TableView:
    """Homography plus zones, with precomputed warp maps for each zone's crop."""

    def __init__(
        self,
        homography: np.ndarray,
        frame_size: tuple[int, int],
        zones: Mapping[str, Zone],
        px_per_mm: float = 2.0,
    ) -> None:
        self.homography = np.asarray(homography, np.float64)  # image pixels → table mm
        self.inverse = np.linalg.inv(self.homography)
        self.frame_size = (int(frame_size[0]), int(frame_size[1]))  # width, height
        self.zones = dict(zones)
        self.px_per_mm = float(px_per_mm)
        self._maps = {name: self._warp_maps(zone) for name, zone in self.zones.items()}

    @classmethod
    def from_corners(
        cls,
        image_corners: np.ndarray,
        table_size_mm: tuple[float, float],
        frame_size: tuple[int, int],
        zones: Mapping[str, Zone],
        px_per_mm: float = 2.0,
    ) -> TableView:
        """From the table corners in the picture: top left, top right, bottom right, bottom left."""
        width, height = table_size_mm
        table = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
        homography = cv2.getPerspectiveTransform(np.float32(image_corners), table)
        return cls(homography, frame_size, zones, px_per_mm)

    def to_table(self, image_points: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        """Camera pixels (N × 2) → table millimetres."""
        points = np.asarray(image_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(points, self.homography).reshape(-1, 2)

    def to_image(self, table_points: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        """Table millimetres (N × 2) → camera pixels."""
        points = np.asarray(table_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(points, self.inverse).reshape(-1, 2)

    def zone_outline(self, name: str) -> np.ndarray:
        """The zone's corners in camera pixels, for drawing."""
        return self.to_image(self._zone(name).corners())

    def check_zones_in_frame(self) -> None:
        """Every zone must lie inside the camera picture, or its crops would be partly black."""
        width, height = self.frame_size
        slack = 2.0
        for name in self.zones:
            outline = self.zone_outline(name)
            inside = (outline >= -slack).all() and (outline <= np.float64([width, height]) + slack).all()
            if not inside:
                raise UserError(
                    f"the {name} zone reaches outside the camera picture: move the camera up or the zone "
                    "inwards, then calibrate again"
                )

    def crop(self, image_bgr: np.ndarray, name: str) -> np.ndarray:
        """The zone as a top-down picture (height × width at px_per_mm); one remap, no full-frame warp."""
        height, width = image_bgr.shape[:2]
        if (width, height) != self.frame_size:
            raise UserError(
                f"camera pictures are {width} × {height} but the calibration was made at "
                f"{self.frame_size[0]} × {self.frame_size[1]}: set the camera size back or calibrate again"
            )
        map_xy, map_fraction = self._maps[self._zone_name(name)]
        return cv2.remap(image_bgr, map_xy, map_fraction, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def top_down(
        self, image_bgr: np.ndarray, table_size_mm: tuple[float, float], px_per_mm: float = 1.0
    ) -> np.ndarray:
        """The whole table rectangle from above (for previews; per frame, use :meth:`crop`)."""
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (round(table_size_mm[0] * px_per_mm), round(table_size_mm[1] * px_per_mm))
        return cv2.warpPerspective(image_bgr, scale @ self.homography, size)

    def _zone(self, name: str) -> Zone:
        return self.zones[self._zone_name(name)]

    def _zone_name(self, name: str) -> str:
        if name not in self.zones:
            raise KeyError(f"no zone {name!r}; zones: {', '.join(self.zones)}")
        return name

    def _warp_maps(self, zone: Zone) -> tuple[np.ndarray, np.ndarray]:
        """For each output pixel of the zone's crop, where to sample the camera picture (fixed point)."""
        out_w = max(1, round(zone.width * self.px_per_mm))
        out_h = max(1, round(zone.height * self.px_per_mm))
        u, v = np.meshgrid(np.arange(out_w, dtype=np.float64), np.arange(out_h, dtype=np.float64))
        # pixel centres: output pixel (u, v) covers table point zone origin + (u + 0.5) / scale
        table_x = zone.x + (u + 0.5) / self.px_per_mm
        table_y = zone.y + (v + 0.5) / self.px_per_mm
        points = np.stack([table_x, table_y], axis=-1).reshape(-1, 1, 2)
        image = cv2.perspectiveTransform(points, self.inverse).reshape(out_h, out_w, 2)
        map_x, map_y = image[..., 0].astype(np.float32), image[..., 1].astype(np.float32)
        return cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
