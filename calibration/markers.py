"""Printed ArUco markers that mark the table's corners, and finding them in a camera picture.

Four markers of OpenCV's ``DICT_4X4_50`` (ids 0–3) lie at the corners of a rectangle around the
play area: 0 top left, 1 top right, 2 bottom right, 3 bottom left, as seen in the camera picture.
Table coordinates are millimetres from marker 0's centre: x towards marker 1, y towards marker 3.
A marker's centre is taken where its diagonals cross, which is exact under perspective.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from referee.errors import UserError

DICTIONARY = cv2.aruco.DICT_4X4_50
#: Corner of the table rectangle each marker id marks, in the order of the table corners.
MARKER_CORNERS: tuple[str, ...] = ("top left", "top right", "bottom right", "bottom left")
MARKER_IDS: tuple[int, ...] = (0, 1, 2, 3)

A4_MM = (210.0, 297.0)
PRINT_DPI = 300


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One marker, black on white, ``side_px`` square (no quiet zone: callers leave white around it)."""
    return cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px)


# --- the printable sheet ------------------------------------------------------------------------

SHEET_INSTRUCTIONS: tuple[str, ...] = (
    "uno-referee table markers - print at 100 % (no 'fit to page'), cut along the dotted lines.",
    "Lay them flat at the corners of the play area, as seen by the camera, numbers upright:",
    "0 top left, 1 top right, 2 bottom right, 3 bottom left. Measure the distance of the",
    "centres (+): uno-referee calibrate --markers --table-size WIDTHxHEIGHT (mm, 0-1 and 0-3).",
    "DE: Ausschneiden, flach an die Ecken der Spielflaeche legen (0 oben links, 1 oben rechts,",
    "2 unten rechts, 3 unten links, vom Kamerabild aus gesehen); Abstand der Mitten messen.",
    "NL: Uitknippen, plat op de hoeken van het speelveld leggen (0 linksboven, 1 rechtsboven,",
    "2 rechtsonder, 3 linksonder, gezien vanuit de camera); afstand tussen de middens meten.",
)


def _mm_to_px(mm: float) -> int:
    return round(mm / 25.4 * PRINT_DPI)


def marker_sheet(marker_mm: float = 60.0) -> np.ndarray:
    """An A4 page at 300 dpi (grey, 2480 × 3508): instructions and the four markers with cut lines."""
    if not 20.0 <= marker_mm <= 65.0:
        raise UserError(f"marker size {marker_mm:g} mm does not fit four to an A4 sheet: use 20 to 65 mm")
    width, height = _mm_to_px(A4_MM[0]), _mm_to_px(A4_MM[1])
    sheet = np.full((height, width), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    widest = max(cv2.getTextSize(text, font, 1.0, 3)[0][0] for text in SHEET_INSTRUCTIONS)
    scale = min(1.6, (width - 2 * _mm_to_px(12)) / widest)
    for line_number, text in enumerate(SHEET_INSTRUCTIONS):
        cv2.putText(
            sheet, text, (_mm_to_px(12), _mm_to_px(18 + 7 * line_number)), font, scale, 0, 3, cv2.LINE_AA
        )
    side = _mm_to_px(marker_mm)
    cell_w, cell_h = width // 2, (height - _mm_to_px(80)) // 2
    for index, marker_id in enumerate(MARKER_IDS):
        column, row = (0, 1, 1, 0)[index], (0, 0, 1, 1)[index]  # laid out as they go on the table
        centre_x = column * cell_w + cell_w // 2
        centre_y = _mm_to_px(80) + row * cell_h + cell_h // 2
        top, left = centre_y - side // 2, centre_x - side // 2
        sheet[top : top + side, left : left + side] = marker_image(marker_id, side)
        quiet = _mm_to_px(max(5.0, marker_mm * 0.2))  # white margin the detector needs around the marker
        label_height = _mm_to_px(9)  # the label stays on the cut-out piece, under the quiet margin
        bottom = top + side + quiet + label_height
        _dotted_rectangle(sheet, (left - quiet, top - quiet), (left + side + quiet, bottom))
        label = f"{marker_id}  {MARKER_CORNERS[index]}"
        cv2.putText(sheet, label, (left, bottom - _mm_to_px(2)), font, 1.6, 0, 4, cv2.LINE_AA)
        cv2.drawMarker(sheet, (centre_x, centre_y), 128, cv2.MARKER_CROSS, _mm_to_px(4), 2)
    return sheet


def _dotted_rectangle(image: np.ndarray, top_left: tuple[int, int], bottom_right: tuple[int, int]) -> None:
    (x1, y1), (x2, y2) = top_left, bottom_right
    step = _mm_to_px(2)
    for x in range(x1, x2, 2 * step):
        image[y1 : y1 + 3, x : min(x + step, x2)] = 0
        image[y2 - 3 : y2, x : min(x + step, x2)] = 0
    for y in range(y1, y2, 2 * step):
        image[y : min(y + step, y2), x1 : x1 + 3] = 0
        image[y : min(y + step, y2), x2 - 3 : x2] = 0


def write_marker_sheet(path: str, marker_mm: float = 60.0) -> None:
    """Save the sheet as PNG with its 300 dpi recorded, so printers keep the size."""
    sheet = marker_sheet(marker_mm)
    ok, data = cv2.imencode(".png", sheet)
    if not ok:  # pragma: no cover - encoding a grey uint8 image cannot fail
        raise UserError("could not encode the marker sheet as PNG")
    try:
        with open(path, "wb") as file:
            file.write(_with_png_dpi(data.tobytes(), PRINT_DPI))
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror}") from None


def _with_png_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk (pixels per metre) after IHDR: OpenCV does not write one."""
    import struct
    import zlib

    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 4 + 4 + 13 + 4  # signature, length, type, IHDR data, CRC
    return png[:end_of_header] + chunk + png[end_of_header:]


# --- finding the markers ------------------------------------------------------------------------


@dataclass(frozen=True)
class MarkerDetection:
    """Marker id → centre in image pixels, for all markers of the dictionary that were seen."""

    centres: dict[int, tuple[float, float]]

    def table_corners(self) -> np.ndarray:
        """The four table corners (4 × 2 float32, in MARKER_IDS order) or the one-line error."""
        missing = [marker_id for marker_id in MARKER_IDS if marker_id not in self.centres]
        if missing:
            names = ", ".join(f"{i} ({MARKER_CORNERS[i]})" for i in missing)
            seen = ", ".join(str(i) for i in sorted(self.centres)) or "none"
            raise UserError(
                f"calibration markers not found: missing {names}, seen {seen}; check that all four are "
                "in the picture, flat, lit and not covered (print them with --print-markers)"
            )
        return np.float32([self.centres[marker_id] for marker_id in MARKER_IDS])


def find_markers(image_bgr: np.ndarray) -> MarkerDetection:
    """Detect the dictionary's markers; a marker id seen twice is an error (two sheets on the table)."""
    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _rejected = cv2.aruco.ArucoDetector(_dictionary(), parameters).detectMarkers(gray)
    centres: dict[int, tuple[float, float]] = {}
    for marker_corners, marker_id in zip(corners, [] if ids is None else ids.ravel(), strict=True):
        if int(marker_id) in centres and int(marker_id) in MARKER_IDS:
            raise UserError(f"marker {int(marker_id)} is in the picture twice: keep one set of four markers")
        centres[int(marker_id)] = diagonal_intersection(marker_corners.reshape(4, 2))
    return MarkerDetection(centres)


def marker_outlines(image_bgr: np.ndarray) -> list[np.ndarray]:
    """The outline (4 × 2 float32, image pixels) of every marker of the dictionary in the picture:
    a marker's white pattern on black looks like a wild card's index on its black field."""
    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    corners, ids, _rejected = cv2.aruco.ArucoDetector(_dictionary()).detectMarkers(gray)
    return [] if ids is None else [np.asarray(quad, np.float32).reshape(4, 2) for quad in corners]


def on_a_marker(point: tuple[float, float], outlines: list[np.ndarray]) -> bool:
    """Whether ``point`` lies on one of the markers ``outlines`` describe (grown by a tenth, for
    the marker's white margin)."""
    for quad in outlines:
        centre = quad.mean(axis=0)
        grown = (centre + 1.2 * (quad - centre)).astype(np.float32)
        if cv2.pointPolygonTest(grown, (float(point[0]), float(point[1])), False) >= 0:
            return True
    return False


def diagonal_intersection(quad: np.ndarray) -> tuple[float, float]:
    """Where the diagonals of a quadrilateral (4 × 2, in order around it) cross.

    >>> diagonal_intersection(np.float32([[0, 0], [4, 0], [4, 2], [0, 2]]))
    (2.0, 1.0)
    """
    p0, p1, p2, p3 = (np.asarray(point, np.float64) for point in quad)
    d1, d2 = p2 - p0, p3 - p1
    denominator = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denominator) < 1e-12:  # degenerate: fall back to the mean
        centre = np.mean(quad, axis=0)
        return float(centre[0]), float(centre[1])
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denominator
    point = p0 + t * d1
    return float(point[0]), float(point[1])
