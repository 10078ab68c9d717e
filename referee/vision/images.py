"""Pictures from the command line: files or folders in, readable BGR images out, one-line errors.

A file named on the command line must be readable (else a :class:`UserError`); inside a folder an
unreadable file is reported and skipped, so that one broken photo does not stop a batch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.errors import UserError

IMAGE_SUFFIXES: frozenset[str] = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


class UnreadableImage(UserError):
    """A file that exists but does not decode as a picture."""


@dataclass(frozen=True)
class ImageSource:
    """A picture to process: the path as the user spelled it, and whether it came from a folder."""

    shown: str
    path: Path
    from_folder: bool


def collect_images(paths: Sequence[str]) -> list[ImageSource]:
    """Expand files and folders (their images, sorted, not recursive); fail on a missing path."""
    sources: list[ImageSource] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            names = sorted(entry.name for entry in os.scandir(path) if entry.is_file())
            found = [name for name in names if Path(name).suffix.lower() in IMAGE_SUFFIXES]
            if not found:
                raise UserError(f"folder {given} holds no pictures ({', '.join(sorted(IMAGE_SUFFIXES))})")
            sources += [ImageSource(os.path.join(given, name), path / name, True) for name in found]
        elif path.is_file():
            sources.append(ImageSource(given, path, False))
        else:
            raise UserError(f"no such file or folder: {given}")
    return sources


def read_image(path: Path | str, shown: str | None = None) -> np.ndarray:
    """A BGR uint8 picture (grey and alpha pictures are converted); UnreadableImage if it won't decode."""
    shown = shown or str(path)
    try:
        data = np.fromfile(path, np.uint8)  # imdecode, unlike imread, prints no warnings of its own
    except OSError as error:
        raise UnreadableImage(f"cannot read {shown}: {error.strerror or error}") from error
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UnreadableImage(f"{shown} is not a readable picture (JPEG, PNG, BMP, WebP or TIFF)")
    return image


def iter_images(
    sources: Sequence[ImageSource], skipped: list[str] | None = None
) -> Iterator[tuple[ImageSource, np.ndarray]]:
    """Decode each source; a folder's unreadable file is noted in ``skipped``, a named one raises."""
    for source in sources:
        try:
            image = read_image(source.path, source.shown)
        except UnreadableImage as error:
            if not source.from_folder or skipped is None:
                raise
            skipped.append(str(error))
            continue
        yield source, image
