"""Things on a games table that are not UNO cards: hands and fingers, and distractors.

Hands occlude indices (the labels must then drop them); distractors are hard negatives that look a
little like what the detector looks for: poker cards with red/black numerals, score sheets with
printed digits, coins (● shapes), dice, phones, cups.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from PIL import Image, ImageDraw

from referee.render.compose import Sprite
from referee.render.glyphs import CARD_FONTS, PRINT_FONT, font, numeral_fonts
from referee.render.surfaces import coordinate_grid

#: Skin tones from very light to very dark (BGR), jittered per hand.
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (190, 215, 245),
    (160, 190, 230),
    (130, 165, 215),
    (100, 135, 185),
    (75, 105, 150),
    (55, 80, 120),
    (40, 55, 85),
)


def _jitter(colour: tuple[int, int, int] | np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    return np.clip(np.float32(colour) * rng.uniform(1 - amount, 1 + amount, 3), 0, 255).astype(np.float32)


def hand_sprite(
    shape: tuple[int, int],
    target: tuple[float, float],
    reach: float,
    rng: np.random.Generator,
    wrist_direction: float | None = None,
) -> tuple[Sprite, np.ndarray]:
    """A hand reaching into a frame of ``shape`` with its fingertips near ``target``.

    ``reach`` is the finger length in pixels; 1–4 fingers, a palm, an arm to the frame edge and
    sometimes a thumb; ``wrist_direction`` (radians, image axes) is where the arm goes, random if
    None. Returns the sprite cropped to the hand and the homography placing it.
    """
    h, w = shape
    tx, ty = target
    edge_angle = rng.uniform(0, 2 * math.pi) if wrist_direction is None else wrist_direction
    dx, dy = math.cos(edge_angle), math.sin(edge_angle)  # direction from the fingertips to the wrist
    finger_width = max(3.0, reach * rng.uniform(0.2, 0.28))
    fingers = int(rng.choice([1, 2, 3, 4], p=[0.3, 0.25, 0.2, 0.25]))
    alpha = np.zeros((h, w), np.float32)
    knuckle = (tx + dx * reach, ty + dy * reach)
    px, py = -dy, dx
    spread = finger_width * 1.05
    tips = []
    for k in range(fingers):
        offset = (k - (fingers - 1) / 2) * spread
        length = reach * rng.uniform(0.75, 1.1) * (0.85 if k in (0, fingers - 1) and fingers > 2 else 1.0)
        base = (knuckle[0] + px * offset, knuckle[1] + py * offset)
        tip = (base[0] - dx * length + rng.normal(0, finger_width * 0.2), base[1] - dy * length)
        tips.append(tip)
        cv2.line(alpha, _pt(base), _pt(tip), 1.0, max(2, round(finger_width)), cv2.LINE_AA)
    palm_centre = (knuckle[0] + dx * reach * 0.8, knuckle[1] + dy * reach * 0.8)
    palm_axes = (max(2, round(max(spread * fingers * 0.65, reach * 0.6))), max(2, round(reach * 1.0)))
    cv2.ellipse(
        alpha, _pt(palm_centre), palm_axes, math.degrees(edge_angle) - 90, 0, 360, 1.0, -1, cv2.LINE_AA
    )
    far = (palm_centre[0] + dx * max(h, w) * 2, palm_centre[1] + dy * max(h, w) * 2)
    arm_width = max(2, round(palm_axes[0] * rng.uniform(1.4, 1.9)))
    cv2.line(alpha, _pt(palm_centre), _pt(far), 1.0, arm_width, cv2.LINE_AA)
    if rng.random() < 0.6:  # a thumb off to one side
        side = rng.choice([-1, 1])
        base = (palm_centre[0] + px * side * palm_axes[0], palm_centre[1] + py * side * palm_axes[0])
        tip = (
            base[0] - dx * reach * 0.9 + px * side * reach * 0.5,
            base[1] - dy * reach * 0.9 + py * side * reach * 0.5,
        )
        cv2.line(alpha, _pt(base), _pt(tip), 1.0, max(2, round(finger_width * 1.1)), cv2.LINE_AA)
    ys_ink, xs_ink = np.nonzero(alpha > 0)
    if len(xs_ink) == 0:
        return Sprite(np.zeros((1, 1, 3), np.uint8), np.zeros((1, 1), np.uint8)), np.eye(3)
    x0, y0, x1, y1 = xs_ink.min(), ys_ink.min(), xs_ink.max() + 1, ys_ink.max() + 1
    alpha = alpha[y0:y1, x0:x1]
    origin = np.float32([x0, y0])
    tips = [(tx - x0, ty - y0) for tx, ty in tips]
    skin = _jitter(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], rng, 0.08)
    # Shading: rounded fingers are darker at their edges; a broad light gradient across the hand.
    soft = cv2.GaussianBlur(alpha, (0, 0), max(1.0, finger_width * 0.25))
    shade = 0.65 + 0.45 * soft
    ys, xs = coordinate_grid(h, w)
    across = xs[y0:y1, x0:x1] * px + ys[y0:y1, x0:x1] * py
    shade *= 1 + 0.15 * (across / max(h, w))
    bgr = skin * shade[..., None]
    for tip in tips:  # fingernails
        if rng.random() < 0.7:
            nail = (tip[0] + dx * finger_width * 0.5, tip[1] + dy * finger_width * 0.5)
            axes = (max(1, round(finger_width * 0.3)), max(1, round(finger_width * 0.4)))
            colour = tuple(float(c) for c in np.minimum(skin * 1.2 + 20, 255))
            cv2.ellipse(bgr, _pt(nail), axes, math.degrees(edge_angle) - 90, 0, 360, colour, -1, cv2.LINE_AA)
    alpha = np.clip(alpha, 0, 1)
    sprite = Sprite(np.clip(bgr, 0, 255).astype(np.uint8), (alpha * 255).astype(np.uint8))
    return sprite, np.array([[1, 0, origin[0]], [0, 1, origin[1]], [0, 0, 1]], np.float64)


def _pt(point: tuple[float, float]) -> tuple[int, int]:
    return round(point[0]), round(point[1])


def _card_blank(h: int, w: int, colour: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    bgr = np.empty((h, w, 3), np.float32)
    bgr[:] = colour
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, round(radius))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return bgr, alpha


def _draw_text(
    bgr: np.ndarray, text: str, xy: tuple[float, float], size: int, colour, font_name: str
) -> None:
    face = font(font_name, size)
    left, top, right, bottom = face.getbbox(text)
    strip = Image.new("L", (right - left + 2, bottom - top + 2), 0)
    ImageDraw.Draw(strip).text((1 - left, 1 - top), text, font=face, fill=255)
    ink = np.asarray(strip, np.float32) / 255
    x0, y0 = round(xy[0]), round(xy[1])
    h, w = bgr.shape[:2]
    x1, y1 = min(w, x0 + ink.shape[1]), min(h, y0 + ink.shape[0])
    if x1 <= x0 or y1 <= y0 or x0 < 0 or y0 < 0:
        return
    a = ink[: y1 - y0, : x1 - x0, None]
    bgr[y0:y1, x0:x1] = bgr[y0:y1, x0:x1] * (1 - a) + np.float32(colour) * a


def _any_numeral_font(rng: np.random.Generator) -> str:
    """Any face the renderer prints numerals in: clutter's digits look like cards' digits."""
    faces = numeral_fonts()
    return faces[int(rng.integers(len(faces)))]


def _pen_ink(rng: np.random.Generator) -> np.ndarray:
    """Print or pen ink: black, blue, red or green, as on score sheets and receipts."""
    inks = ((30, 30, 30), (140, 60, 30), (40, 40, 190), (50, 130, 40))
    return _jitter(inks[int(rng.choice(4, p=[0.5, 0.2, 0.2, 0.1]))], rng, 0.1)


def poker_card(height: int, rng: np.random.Generator) -> Sprite:
    """A French-suited playing card: red/black rank and suit in the corners, pips in the middle."""
    h, w = height, max(6, round(height * 63 / 88))
    bgr, alpha = _card_blank(h, w, _jitter((245, 245, 245), rng, 0.04), h * 0.05)
    suit = str(rng.choice(["♥", "♦", "♣", "♠"]))
    ink = (30, 30, 200) if suit in "♥♦" else (25, 25, 25)
    rank = str(rng.choice(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]))
    face = _any_numeral_font(rng)
    size = max(5, round(h * rng.uniform(0.1, 0.15)))
    _draw_text(bgr, rank, (w * 0.06, h * 0.04), size, ink, face)
    _draw_text(bgr, suit, (w * 0.07, h * 0.05 + size * 1.1), round(size * 0.8), ink, CARD_FONTS[0])
    rotated = bgr[::-1, ::-1].copy()
    _draw_text(rotated, rank, (w * 0.06, h * 0.04), size, ink, face)
    _draw_text(rotated, suit, (w * 0.07, h * 0.05 + size * 1.1), round(size * 0.8), ink, CARD_FONTS[0])
    bgr = rotated[::-1, ::-1].copy()
    _draw_text(bgr, suit, (w * 0.3, h * 0.3), max(5, round(h * 0.3)), ink, CARD_FONTS[0])
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), alpha)


def score_sheet(height: int, rng: np.random.Generator) -> Sprite:
    """Paper with printed or written digits: a score sheet or a receipt."""
    h, w = height, max(8, round(height * rng.uniform(0.6, 1.4)))
    paper = _jitter((235, 240, 245), rng, 0.06)
    bgr = np.empty((h, w, 3), np.float32)
    bgr[:] = paper
    size = max(5, round(h * rng.uniform(0.06, 0.12)))
    ink = _pen_ink(rng)
    face = PRINT_FONT if rng.random() < 0.3 else _any_numeral_font(rng)
    y = size * 0.5
    while y < h - size * 1.5:
        text = " ".join(str(int(rng.integers(0, 500))) for _ in range(int(rng.integers(1, 4))))
        _draw_text(bgr, text, (w * 0.08, y), size, ink, face)
        y += size * rng.uniform(1.4, 2.0)
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), np.full((h, w), 255, np.uint8))


def coin(height: int, rng: np.random.Generator) -> Sprite:
    """A euro-ish coin: metallic disc with a rim."""
    s = max(6, height)
    metal = _jitter((60, 160, 200) if rng.random() < 0.5 else (170, 170, 170), rng, 0.12)
    alpha = np.zeros((s, s), np.uint8)
    cv2.circle(alpha, (s // 2, s // 2), s // 2 - 1, 255, -1, cv2.LINE_AA)
    ys, xs = np.mgrid[0:s, 0:s].astype(np.float32)
    shine = 0.75 + 0.4 * ((xs + ys) / (2 * s))
    bgr = metal * shine[..., None]
    cv2.circle(
        bgr, (s // 2, s // 2), max(1, round(s * 0.4)), tuple(float(c) * 0.8 for c in metal), max(1, s // 20)
    )
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), alpha)


def die(height: int, rng: np.random.Generator) -> Sprite:
    """A six-sided die seen from above."""
    s = max(6, height)
    body = _jitter((240, 240, 240) if rng.random() < 0.6 else (40, 40, 200), rng, 0.08)
    bgr, alpha = _card_blank(s, s, body, s * 0.18)
    pip = (20, 20, 20) if body.mean() > 150 else (240, 240, 240)
    layouts = {
        1: [(0.5, 0.5)],
        2: [(0.25, 0.25), (0.75, 0.75)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
        5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
        6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
    }
    for x, y in layouts[int(rng.integers(1, 7))]:
        cv2.circle(bgr, (round(x * s), round(y * s)), max(1, round(s * 0.08)), pip, -1, cv2.LINE_AA)
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), alpha)


def phone(height: int, rng: np.random.Generator) -> Sprite:
    """A phone face up: dark body, a screen with a clock or a dark glossy glass."""
    h, w = height, max(6, round(height * 0.48))
    bgr, alpha = _card_blank(h, w, _jitter((30, 30, 30), rng, 0.3), h * 0.07)
    inset = max(1, round(w * 0.05))
    screen = _jitter((rng.uniform(40, 220), rng.uniform(40, 220), rng.uniform(40, 220)), rng, 0.1)
    bgr[inset * 2 : h - inset * 2, inset : w - inset] = screen if rng.random() < 0.6 else (15, 15, 15)
    if rng.random() < 0.6:  # a lock screen: big white (or tinted) digits, like a print's white numerals
        clock = f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}"
        if rng.random() < 0.4:
            clock = clock.replace(":", "\n")
        size = max(5, round(w * rng.uniform(0.18, 0.4)))
        ink = (250, 250, 250) if rng.random() < 0.7 else _jitter((200, 230, 250), rng, 0.2)
        face = _any_numeral_font(rng)
        y = h * rng.uniform(0.12, 0.3)
        for line in clock.splitlines():
            _draw_text(bgr, line, (w * rng.uniform(0.08, 0.2), y), size, ink, face)
            y += size * 1.15
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), alpha)


def cup(height: int, rng: np.random.Generator) -> Sprite:
    """A mug or glass seen from above: a rim ring around a drink."""
    s = max(8, height)
    alpha = np.zeros((s, s), np.uint8)
    cv2.circle(alpha, (s // 2, s // 2), s // 2 - 1, 255, -1, cv2.LINE_AA)
    rim = _jitter((rng.uniform(50, 250), rng.uniform(50, 250), rng.uniform(50, 250)), rng, 0.1)
    drink = _jitter((20, 45, 70) if rng.random() < 0.5 else (40, 140, 200), rng, 0.2)
    bgr = np.empty((s, s, 3), np.float32)
    bgr[:] = rim
    cv2.circle(bgr, (s // 2, s // 2), round(s * 0.4), tuple(float(c) for c in drink), -1, cv2.LINE_AA)
    return Sprite(np.clip(bgr, 0, 255).astype(np.uint8), alpha)


#: Distractor makers with their size relative to a card's height.
DISTRACTORS = {
    "poker-card": (poker_card, 1.0),
    "score-sheet": (score_sheet, 1.3),
    "coin": (coin, 0.28),
    "die": (die, 0.2),
    "phone": (phone, 1.6),
    "cup": (cup, 0.9),
}


def random_distractor(card_height: float, rng: np.random.Generator) -> tuple[str, Sprite]:
    """A random distractor at a size plausible next to cards ``card_height`` pixels tall."""
    kind = str(rng.choice(list(DISTRACTORS)))
    make, relative = DISTRACTORS[kind]
    return kind, make(max(6, round(card_height * relative * rng.uniform(0.8, 1.2))), rng)
