"""Procedural table surfaces and camera/light effects.

We have no photos of the tables our users play on, so the surfaces are drawn from families that
cover what kitchen and club tables look like (wood grain, felt, tablecloths, laminate, plain
paint, gradients) and the photometric pass imitates cheap cameras under home lighting: colour
temperature, white-balance errors, uneven light and vignetting, glare, blur, sensor noise; and, on
some scenes, veiling glare that lifts every black to grey (:func:`veil`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np


def smooth_noise(h: int, w: int, cells: float, rng: np.random.Generator) -> np.ndarray:
    """Low-frequency noise in about -1..1: random values on a coarse grid, cubic-upsampled.

    Coarse noise is upsampled in two steps (cubic to a quarter size, then linear): same look, a
    fraction of the cost of one large cubic resize.
    """
    gh, gw = max(2, round(h / cells)), max(2, round(w / cells))
    grid = rng.standard_normal((gh + 2, gw + 2)).astype(np.float32)
    step = 4 if cells >= 16 else 1
    sh, sw = max(gh + 2, (h + step - 1) // step), max(gw + 2, (w + step - 1) // step)
    oy, ox = round(sh / (gh + 2)), round(sw / (gw + 2))
    big = cv2.resize(grid, (sw + 2 * ox, sh + 2 * oy), interpolation=cv2.INTER_CUBIC)[
        oy : oy + sh, ox : ox + sw
    ]
    if (sh, sw) != (h, w):
        big = cv2.resize(big, (w, h), interpolation=cv2.INTER_LINEAR)
    return big * 0.6


@lru_cache(maxsize=8)
def coordinate_grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Cached float32 pixel coordinates (ys, xs) of an h × w frame; treat as read-only."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return ys, xs


def _hsv_colour(rng: np.random.Generator, s: tuple[float, float], v: tuple[float, float]) -> np.ndarray:
    hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(*s), rng.uniform(*v)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _wood(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    base = np.float32([rng.uniform(40, 110), rng.uniform(70, 150), rng.uniform(110, 200)])
    ys, xs = coordinate_grid(h, w)
    direction = rng.uniform(0, math.pi)  # grain runs along any direction of the frame
    along = xs * math.sin(direction) + ys * math.cos(direction)
    frequency = rng.uniform(0.04, 0.18)
    warp = smooth_noise(h, w, rng.uniform(30, 120), rng) * rng.uniform(8, 30)
    grain = np.sin((along + warp + 0.15 * smooth_noise(h, w, 6, rng) * 10) * frequency) * 0.5 + 0.5
    fine = smooth_noise(h, w, 2, rng) * 0.15
    shade = 0.75 + 0.25 * grain + fine
    image = base * shade[..., None]
    planks = rng.integers(0, 3)
    for _ in range(planks):  # seams between boards
        seam = np.abs(along - rng.uniform(along.min(), along.max())) < 1.0
        image[seam] *= 0.55
    return image


def _felt(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    colour = _hsv_colour(rng, (60, 220), (50, 200))
    noise = rng.standard_normal((h, w), dtype=np.float32)
    noise = cv2.GaussianBlur(noise, (3, 3), 0) * rng.uniform(0.04, 0.1)
    mottling = smooth_noise(h, w, rng.uniform(20, 80), rng) * 0.08
    return colour * (1 + noise + mottling)[..., None]


def _tablecloth(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    first = _hsv_colour(rng, (30, 230), (120, 250))
    second = (
        _hsv_colour(rng, (0, 80), (180, 255))
        if rng.random() < 0.6
        else _hsv_colour(rng, (30, 230), (60, 220))
    )
    ys, xs = coordinate_grid(h, w)
    period = rng.uniform(12, 60)
    angle = rng.uniform(0, math.pi)
    u = xs * math.cos(angle) + ys * math.sin(angle)
    v = -xs * math.sin(angle) + ys * math.cos(angle)
    kind = rng.integers(0, 3)
    if kind == 0:  # gingham checks
        weight = (((u // period) % 2) + ((v // period) % 2)) / 2
    elif kind == 1:  # stripes
        weight = ((u // period) % 2).astype(np.float32)
    else:  # polka dots
        cu, cv = (u % period) - period / 2, (v % period) - period / 2
        weight = ((cu**2 + cv**2) < (period * rng.uniform(0.2, 0.4)) ** 2).astype(np.float32)
    weight = cv2.GaussianBlur(weight.astype(np.float32), (3, 3), 0)
    image = first * (1 - weight[..., None]) + second * weight[..., None]
    weave = rng.standard_normal((h, w), dtype=np.float32) * 0.04
    folds = smooth_noise(h, w, rng.uniform(40, 120), rng) * 0.12
    return image * (1 + weave + folds)[..., None]


def _laminate(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    colour = _hsv_colour(rng, (0, 60), (150, 245))
    speckle = (rng.random((h, w)) < rng.uniform(0.005, 0.05)).astype(np.float32) * rng.uniform(-0.25, 0.15)
    speckle = cv2.GaussianBlur(speckle, (3, 3), 0)
    return colour * (1 + speckle + smooth_noise(h, w, 60, rng) * 0.04)[..., None]


def _solid(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    colour = _hsv_colour(rng, (0, 255), (20, 250))
    return colour * (1 + smooth_noise(h, w, 80, rng) * 0.05)[..., None]


def _gradient(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    first, second = _hsv_colour(rng, (0, 255), (30, 250)), _hsv_colour(rng, (0, 255), (30, 250))
    ys, xs = coordinate_grid(h, w)
    angle = rng.uniform(0, 2 * math.pi)
    t = xs * math.cos(angle) + ys * math.sin(angle)
    t = (t - t.min()) / max(1e-6, float(t.max() - t.min()))
    return first * (1 - t[..., None]) + second * t[..., None]


def _clutter(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Busy texture (like the random photos behind the Roboflow cards): coloured blobs and lines."""
    image = _solid(h, w, rng)
    for _ in range(int(rng.integers(10, 40))):
        colour = tuple(float(c) for c in _hsv_colour(rng, (0, 255), (0, 255)))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        if rng.random() < 0.5:
            axes = (int(rng.integers(3, max(4, w // 5))), int(rng.integers(3, max(4, h // 5))))
            cv2.ellipse(image, (x, y), axes, rng.uniform(0, 180), 0, 360, colour, -1, cv2.LINE_AA)
        else:
            end = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.line(image, (x, y), end, colour, int(rng.integers(1, 8)), cv2.LINE_AA)
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(0.5, 3))


def _two_inks(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A busy print's two inks: often black on white (a zebra print, newsprint), else any two
    colours of clearly different lightness."""
    if rng.random() < 0.4:
        dark, light = rng.uniform(5, 60), rng.uniform(170, 250)
        return np.float32([dark] * 3) + rng.uniform(-5, 5, 3), np.float32([light] * 3) + rng.uniform(-8, 8, 3)
    return _hsv_colour(rng, (0, 255), (20, 110)), _hsv_colour(rng, (0, 200), (150, 250))


def _bands(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Contour bands of warped noise: zebra and tiger prints, marble veins, swirls, wavy fabric.
    Their edges are hard and curved like a card's outline and a glyph's strokes."""
    dark, light = _two_inks(rng)
    field = smooth_noise(h, w, rng.uniform(25, 90), rng) + 0.5 * smooth_noise(h, w, rng.uniform(8, 25), rng)
    ys, xs = coordinate_grid(h, w)
    angle = rng.uniform(0, math.pi)
    drift = (xs * math.cos(angle) + ys * math.sin(angle)) * rng.uniform(0, 0.08)
    phase = field * rng.uniform(6, 20) + drift
    if rng.random() < 0.5:  # bands of even width (zebra), else thin veins (marble)
        weight = (np.sin(phase) > rng.uniform(-0.4, 0.4)).astype(np.float32)
    else:
        weight = (np.abs(np.sin(phase)) < rng.uniform(0.08, 0.3)).astype(np.float32)
    weight = cv2.GaussianBlur(weight, (0, 0), rng.uniform(0.5, 1.5))
    return dark * weight[..., None] + light * (1 - weight[..., None])


def _cells(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Cells with drawn walls: honeycomb, scales and snake skin, crackle glaze, stone and tile mosaic.
    Each wall meets others at corners, and each cell is a patch of flat colour, as a card's field is."""
    wall, fill = _two_inks(rng)
    if rng.random() < 0.5:
        wall, fill = fill, wall
    size = rng.uniform(8, 40)
    rows, columns = int(h / (size * 0.87)) + 3, int(w / size) + 3
    ys, xs = np.mgrid[0:rows, 0:columns].astype(np.float32)
    if rng.random() < 0.5:  # a hexagonal lattice (honeycomb, scales), jittered a little
        xs = xs + 0.5 * (ys % 2)
        ys = ys * 0.87
        jitter = 0.1
    else:  # random cells (crackle, stone)
        jitter = 0.45
    points = np.stack([xs.ravel(), ys.ravel()], axis=1) * size - size
    points += rng.uniform(-jitter, jitter, points.shape).astype(np.float32) * size
    seeds = np.full((h, w), 255, np.uint8)
    for x, y in points.astype(int):
        if 0 <= x < w and 0 <= y < h:
            seeds[y, x] = 0
    _, labels = cv2.distanceTransformWithLabels(seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
    border = cv2.morphologyEx(labels.astype(np.float32), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    thickness = int(rng.integers(1, 4))
    if thickness > 1:
        border = cv2.dilate(border.astype(np.uint8), np.ones((thickness, thickness), np.uint8)) > 0
    shades = rng.uniform(0.75, 1.2, labels.max() + 1).astype(np.float32)
    image = fill * shades[labels][..., None]
    image[border] = wall
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(0.4, 1.2))


def _strands(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Many thin crossing strokes: grass and straw, hair and fur, wicker, scribbled paper, lace.
    Strokes cross one another as a card's border meets a glyph's."""
    ground, ink = _two_inks(rng)
    if rng.random() < 0.5:
        ground, ink = ink, ground
    image = np.empty((h, w, 3), np.float32)
    image[:] = ground
    image *= (1 + smooth_noise(h, w, rng.uniform(10, 40), rng) * 0.3)[..., None]
    main = rng.uniform(0, math.pi)
    spread = rng.uniform(0.2, math.pi)  # nearly parallel (grass) … any direction (scribbles)
    length = max(h, w) * rng.uniform(0.1, 0.5)
    for _ in range(int(rng.integers(60, 260))):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        direction = main + rng.uniform(-spread, spread) / 2
        bend = rng.uniform(-0.6, 0.6)
        steps = np.linspace(0.0, 1.0, 6)
        angles = direction + bend * steps
        path = np.stack(
            [x + np.cumsum(np.cos(angles)) * length / 6, y + np.cumsum(np.sin(angles)) * length / 6], 1
        )
        shade = ink * rng.uniform(0.7, 1.3)
        cv2.polylines(
            image,
            [path.astype(np.int32)],
            False,
            tuple(float(c) for c in shade),
            int(rng.integers(1, 4)),
            cv2.LINE_AA,
        )
    return image


SURFACES = {
    "wood": _wood,
    "felt": _felt,
    "tablecloth": _tablecloth,
    "laminate": _laminate,
    "solid": _solid,
    "gradient": _gradient,
    "clutter": _clutter,
}
_SURFACE_WEIGHTS = np.float64([0.24, 0.16, 0.16, 0.12, 0.1, 0.07, 0.15])
#: Busy prints a table may be covered with (a placemat, an oilcloth, a magazine), drawn only where a
#: caller asks for them (``busy``): hard, high-contrast edges everywhere, the texture on which a
#: detector that never saw it invents corners. Apart from :data:`SURFACES` so that every scene of
#: an earlier seed is drawn as before.
BUSY_SURFACES = {"bands": _bands, "cells": _cells, "strands": _strands}
_EVERY_SURFACE = {**SURFACES, **BUSY_SURFACES}


def table_surface(
    h: int, w: int, rng: np.random.Generator, kind: str | None = None, busy: float = 0.0
) -> tuple[np.ndarray, str]:
    """A (h, w, 3) float32 BGR table texture and the name of its family; with probability ``busy``
    one of the :data:`BUSY_SURFACES` (0: never, and no random draw is spent on asking).

    Drawn at half resolution and upsampled: a table is out of the camera's focus plane or at least
    softer than the cards, the sensor noise added later restores the grain, and it halves the cost.
    """
    if kind is None and busy > 0 and rng.random() < busy:
        kind = str(rng.choice(list(BUSY_SURFACES)))
    kind = kind or str(rng.choice(list(SURFACES), p=_SURFACE_WEIGHTS / _SURFACE_WEIGHTS.sum()))
    small = _EVERY_SURFACE[kind]((h + 1) // 2, (w + 1) // 2, rng)
    image = cv2.resize(np.clip(small, 0, 255), (w, h), interpolation=cv2.INTER_LINEAR)
    return image.astype(np.float32, copy=False), kind


def glare_map(h: int, w: int, rng: np.random.Generator, count: int) -> np.ndarray:
    """Specular spots and streaks (a lamp reflected by the glossy coating) as a 0..1 (h, w) map.

    Drawn at quarter resolution: it is a blurred, smooth field anyway.
    """
    qh, qw = max(2, h // 4), max(2, w // 4)
    light = np.zeros((qh, qw), np.float32)
    for _ in range(count):
        centre = (int(rng.integers(0, qw)), int(rng.integers(0, qh)))
        axes = (int(rng.integers(1, max(2, qw // 6))), int(rng.integers(1, max(2, qh // 14))))
        cv2.ellipse(light, centre, axes, rng.uniform(0, 180), 0, 360, rng.uniform(0.25, 0.6), -1)
    light = cv2.GaussianBlur(light, (0, 0), rng.uniform(0.5, 2.5))
    return cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)


def add_glare(image: np.ndarray, light: np.ndarray) -> None:
    """Wash ``image`` (float32) towards white by the ``light`` map, in place."""
    image += (255 - image) * light[..., None]


@lru_cache(maxsize=8)
def _radius_squared(h: int, w: int) -> np.ndarray:
    """Normalised squared distance from the frame centre (cached: the same for every frame)."""
    ys, xs = coordinate_grid(h, w)
    return ((xs - w / 2) / (w / 2)) ** 2 + ((ys - h / 2) / (h / 2)) ** 2


def photometric(image: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Camera and light: colour cast, uneven light, glare, blur and noise; returns uint8 BGR."""
    h, w = image.shape[:2]
    # Colour temperature (warm bulb ↔ cool daylight) and a white-balance error on top.
    warmth = rng.uniform(-0.18, 0.22) * strength
    gains = np.float32([1 - warmth, 1.0, 1 + warmth]) * rng.uniform(0.92, 1.08, 3).astype(np.float32)
    gains *= rng.uniform(0.7, 1.25)
    # Uneven light: a broad gradient plus vignetting, applied with the colour gains in one pass.
    light = 1 + smooth_noise(h, w, max(h, w) / rng.uniform(1.5, 4), rng) * rng.uniform(0.1, 0.5) * strength
    light *= 1 - rng.uniform(0, 0.35) * strength * _radius_squared(h, w) / 2
    out = cv2.multiply(image.astype(np.float32, copy=False), cv2.merge([light * g for g in gains]))
    if rng.random() < 0.35 * strength:
        add_glare(out, glare_map(h, w, rng, int(rng.integers(1, 4))))
    roll = rng.random()
    if roll < 0.2 * strength:  # motion blur
        length = int(rng.integers(3, 9))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    elif roll < 0.45 * strength:  # defocus
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.6))
    noise_sigma = rng.uniform(0, 9) * strength
    if noise_sigma > 0.5:  # sensor noise: mostly luminance, some chroma (OpenCV's RNG: 3× faster)
        cv2.setRNGSeed(int(rng.integers(2**31)))
        luma = cv2.randn(np.empty((h, w), np.float32), 0.0, noise_sigma)
        chroma = cv2.randn(np.empty((h, w, 3), np.float32), (0.0, 0.0, 0.0), (noise_sigma * 0.4,) * 3)
        out += chroma + luma[..., None]
    return cv2.convertScaleAbs(out) if out.min() >= 0 else np.clip(out, 0, 255).astype(np.uint8)


def veil(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Veiling glare: stray light in the lens (a lamp in or near the view, a smudged or hazy cover)
    adds a share of the scene's mean light to every pixel, lifting blacks to grey and lowering
    contrast; a phone's or webcam's tone curve lifts the shadows further. Returns uint8 BGR."""
    out = image.astype(np.float32)
    amount = rng.uniform(0.06, 0.3)
    light = out.reshape(-1, 3).mean(axis=0) * rng.uniform(0.9, 1.4)
    out = out * (1 - amount) + light * amount
    if rng.random() < 0.5:  # shadows lifted by the tone curve
        out = 255.0 * (out / 255.0) ** rng.uniform(0.7, 0.95)
    return np.clip(out, 0, 255).astype(np.uint8)
