"""From a camera picture to a profile: the table corners (markers or clicks), the zones, their checks.

>>> from calibration.table_view import Zone
>>> check_zones({"discard": Zone(0, 0, 40, 200), "scoring": Zone(0, 300, 600, 120)})
Traceback (most recent call last):
...
referee.errors.UserError: the discard zone (40 × 200 mm) cannot hold a card (56 × 87 mm): make it bigger
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from calibration.markers import find_markers
from calibration.profile import CalibrationProfile
from calibration.table_view import CARD_MM, ZONE_NAMES, Zone, default_zones
from referee.errors import UserError


def parse_size_mm(text: str) -> tuple[float, float]:
    """``"700x500"`` → (700.0, 500.0): the marker rectangle, centre to centre.

    >>> parse_size_mm("700x500"), parse_size_mm("650 × 480")
    ((700.0, 500.0), (650.0, 480.0))
    """
    parts = text.lower().replace("×", "x").replace(" ", "").split("x")
    try:
        width, height = (float(part) for part in parts)
    except ValueError:
        raise UserError(f"table size {text!r} must be WIDTHxHEIGHT in millimetres, e.g. 700x500") from None
    if not (150 <= width <= 3000 and 150 <= height <= 3000):
        raise UserError(f"table size {text!r} is not plausible: give millimetres between 150 and 3000")
    return width, height


def parse_zone(text: str, name: str) -> Zone:
    """``"250,150,200,200"`` → the zone at x, y with width, height in millimetres from marker 0.

    >>> parse_zone("250,150,200,200", "discard")
    Zone(x=250.0, y=150.0, width=200.0, height=200.0)
    """
    try:
        x, y, width, height = (float(part) for part in text.split(","))
    except ValueError:
        raise UserError(
            f"--{name} {text!r} must be X,Y,WIDTH,HEIGHT in millimetres, e.g. 250,150,200,200"
        ) from None
    return Zone(x, y, width, height)


def check_zones(zones: Mapping[str, Zone]) -> None:
    """Both zones exist, each holds a card, and they do not overlap."""
    missing = [name for name in ZONE_NAMES if name not in zones]
    if missing:
        raise UserError(f"the {missing[0]} zone is not set: give --{missing[0]} or use the marker layout")
    short, long = CARD_MM
    for name in ZONE_NAMES:
        zone = zones[name]
        if min(zone.width, zone.height) < short or max(zone.width, zone.height) < long:
            raise UserError(
                f"the {name} zone ({zone.width:g} × {zone.height:g} mm) cannot hold a card "
                f"({short:g} × {long:g} mm): make it bigger"
            )
    if zones["discard"].overlaps(zones["scoring"]):
        raise UserError("the discard and scoring zones overlap: move one of them")


def build_profile(
    frame_bgr: np.ndarray,
    image_corners: np.ndarray,
    table_size_mm: tuple[float, float],
    zones: Mapping[str, Zone] | None = None,
    px_per_mm: float = 2.0,
    method: str = "markers",
) -> CalibrationProfile:
    """A checked profile for this camera picture (zones default to the marker layout)."""
    zones = dict(zones) if zones else default_zones(table_size_mm)
    check_zones(zones)
    height, width = frame_bgr.shape[:2]
    profile = CalibrationProfile(
        frame_size=(width, height),
        table_size_mm=(float(table_size_mm[0]), float(table_size_mm[1])),
        image_corners=tuple((float(x), float(y)) for x, y in np.asarray(image_corners).reshape(4, 2)),
        zones=zones,
        px_per_mm=px_per_mm,
        method=method,
    )
    _check_corners(profile.image_corners)
    profile.table_view().check_zones_in_frame()
    return profile


def profile_from_markers(
    frame_bgr: np.ndarray,
    table_size_mm: tuple[float, float],
    zones: Mapping[str, Zone] | None = None,
    px_per_mm: float = 2.0,
) -> CalibrationProfile:
    """The non-interactive path: find the four printed markers, then as :func:`build_profile`."""
    corners = find_markers(frame_bgr).table_corners()
    return build_profile(frame_bgr, corners, table_size_mm, zones, px_per_mm, method="markers")


def _check_corners(corners: tuple[tuple[float, float], ...]) -> None:
    """The corners must go round a convex quadrilateral clockwise (in picture coordinates)."""
    points = np.float64(corners)
    edges = np.roll(points, -1, axis=0) - points
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not (turns > 0).all():
        raise UserError(
            "the four table corners are not in order (top left, top right, bottom right, bottom left, "
            "as seen in the picture) or lie on a line: lay the markers as the sheet says, or click again"
        )
