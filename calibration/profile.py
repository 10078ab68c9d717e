"""The calibration profile: a versioned JSON file with everything the pile watcher needs about the table.

Stored (format ``uno-referee calibration``, version 1)::

    {"format": "uno-referee calibration", "version": 1, "created_at": "2025-…Z", "method": "markers",
     "frame_size": [1280, 720],             # camera picture size the profile is valid for
     "table_size_mm": [700, 500],           # marker rectangle, centre to centre
     "image_corners": [[x, y], … ×4],       # its corners in the picture: TL, TR, BR, BL (pixels)
     "px_per_mm": 2.0,                      # resolution of the zone crops
     "zones": {"discard": {"x": …, "y": …, "width": …, "height": …}, "scoring": {…}},  # mm
     "colour_model": {…} or null}           # referee.vision.colour.ColourModel's JSON, if measured

Only measured facts are stored; the homography is derived from the corners when loaded.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from calibration.table_view import ZONE_NAMES, TableView, Zone
from referee.errors import UserError

FORMAT = "uno-referee calibration"
VERSION = 1


@dataclass(frozen=True)
class CalibrationProfile:
    frame_size: tuple[int, int]
    table_size_mm: tuple[float, float]
    image_corners: tuple[tuple[float, float], ...]
    zones: dict[str, Zone]
    px_per_mm: float = 2.0
    method: str = "markers"
    colour_model: dict[str, Any] | None = None
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))

    def table_view(self) -> TableView:
        """The view the pile watcher crops with (warp maps precomputed here, once)."""
        return TableView.from_corners(
            np.float32(self.image_corners), self.table_size_mm, self.frame_size, self.zones, self.px_per_mm
        )

    def load_colour_model(self):
        """The vision reader's colour model for this room, or its defaults when colours were not measured."""
        from referee.vision.colour import ColourModel

        if self.colour_model is None:
            return ColourModel.default()
        return ColourModel.from_json(json.dumps(self.colour_model))

    def with_colour_model(self, model) -> CalibrationProfile:
        """This profile with a measured :class:`~referee.vision.colour.ColourModel`."""
        return replace(self, colour_model=json.loads(model.to_json()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created_at": self.created_at,
            "method": self.method,
            "frame_size": list(self.frame_size),
            "table_size_mm": list(self.table_size_mm),
            "image_corners": [[round(x, 3), round(y, 3)] for x, y in self.image_corners],
            "px_per_mm": self.px_per_mm,
            "zones": {name: vars(zone) for name, zone in self.zones.items()},
            "colour_model": self.colour_model,
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a power cut leaves the old profile or the new one, never half of one)."""
        path = Path(path).expanduser()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
            os.replace(temporary, path)
        except OSError as error:
            raise UserError(f"cannot save the calibration to {path}: {error.strerror}") from None
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CalibrationProfile:
        path = Path(path).expanduser()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserError(f"no calibration at {path}: run uno-referee calibrate first") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise UserError(
                f"calibration {path} is unreadable ({error}): run uno-referee calibrate again"
            ) from None
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: Any, source: str = "calibration") -> CalibrationProfile:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UserError(f"{source} is not an uno-referee calibration profile")
        if data.get("version") != VERSION:
            raise UserError(
                f"{source} has calibration format version {data.get('version')}, this referee reads "
                f"version {VERSION}: run uno-referee calibrate again"
            )
        try:
            zones = {
                name: Zone(**{k: float(v) for k, v in zone.items()}) for name, zone in data["zones"].items()
            }
            profile = cls(
                frame_size=(int(data["frame_size"][0]), int(data["frame_size"][1])),
                table_size_mm=(float(data["table_size_mm"][0]), float(data["table_size_mm"][1])),
                image_corners=tuple((float(x), float(y)) for x, y in data["image_corners"]),
                zones=zones,
                px_per_mm=float(data["px_per_mm"]),
                method=str(data.get("method", "markers")),
                colour_model=data.get("colour_model"),
                created_at=str(data.get("created_at", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(
                f"{source} is damaged ({type(error).__name__}: {error}): run uno-referee calibrate again"
            ) from None
        missing = [name for name in ZONE_NAMES if name not in profile.zones]
        if len(profile.image_corners) != 4 or missing:
            what = f"zones {', '.join(missing)}" if missing else "four table corners"
            raise UserError(f"{source} lacks the {what}: run uno-referee calibrate again")
        return profile


def deck_beside(profile_path: Path) -> Path:
    """Where ``calibrate --deck`` keeps the deck learnt at the table: beside its profile, where
    ``run`` and ``watch`` look for it."""
    return Path(profile_path).expanduser().with_suffix(".deck.json")
