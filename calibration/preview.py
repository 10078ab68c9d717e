"""The picture a user checks after calibrating: zones drawn on the camera view, and the table from above."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import CalibrationProfile

ZONE_COLOURS = {"discard": (0, 200, 255), "scoring": (255, 160, 0)}  # BGR: orange, light blue


def draw_preview(frame_bgr: np.ndarray, profile: CalibrationProfile) -> np.ndarray:
    """The camera picture with corners and zone outlines, and beside it the top-down table with the zones."""
    view = profile.table_view()
    camera = frame_bgr.copy()
    thickness = max(2, frame_bgr.shape[1] // 400)
    corners = np.int32(np.round(profile.image_corners))
    cv2.polylines(camera, [corners], True, (0, 255, 0), thickness, cv2.LINE_AA)
    for number, corner in enumerate(corners):
        cv2.drawMarker(
            camera, tuple(int(v) for v in corner), (0, 255, 0), cv2.MARKER_CROSS, 8 * thickness, thickness
        )
        cv2.putText(
            camera,
            str(number),
            tuple(int(v) + 6 for v in corner),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4 * thickness,
            (0, 255, 0),
            thickness,
        )
    for name, outline in ((name, view.zone_outline(name)) for name in profile.zones):
        colour = ZONE_COLOURS.get(name, (255, 255, 255))
        cv2.polylines(camera, [np.int32(np.round(outline))], True, colour, thickness, cv2.LINE_AA)
        _label(camera, name, outline.min(axis=0), colour, thickness)

    scale = camera.shape[0] / profile.table_size_mm[1]
    table = view.top_down(frame_bgr, profile.table_size_mm, scale)
    for name, zone in profile.zones.items():
        colour = ZONE_COLOURS.get(name, (255, 255, 255))
        outline = np.int32(np.round(zone.corners() * scale))
        cv2.polylines(table, [outline], True, colour, thickness, cv2.LINE_AA)
        _label(table, name, outline.min(axis=0), colour, thickness)
    if table.shape[0] != camera.shape[0]:
        table = cv2.resize(table, (table.shape[1], camera.shape[0]))
    gap = np.full((camera.shape[0], 8, 3), 255, np.uint8)
    return np.hstack([camera, gap, table])


def _label(
    image: np.ndarray, text: str, top_left: np.ndarray, colour: tuple[int, int, int], thickness: int
) -> None:
    x, y = int(top_left[0]) + 4, int(top_left[1]) + 14 * thickness
    cv2.putText(
        image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thickness, colour, thickness, cv2.LINE_AA
    )
