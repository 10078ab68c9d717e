"""Frame sources: one small interface over cameras, files, folders and a scripted fake.

A source is opened, then read frame by frame. ``read()`` returning ``None`` means *no frame this
time* (a USB camera hiccups, a stream stalls); a finite source (file, folder, fake) sets
``exhausted`` when it has delivered everything. :class:`ResilientCamera` turns a source that stops
delivering into ``CameraLost`` / ``CameraBack`` events and re-opens it with back-off, so the app
can announce the outage and carry on when the camera returns. Clock and sleep are injected: tests
run a ten-second outage in no time.

>>> import numpy as np
>>> black = np.zeros((4, 4, 3), np.uint8)
>>> camera = ResilientCamera(FakeCamera([black, None, None, None, black]), lost_after=2, sleep=lambda s: None)
>>> [type(item).__name__ for item in camera]
['Frame', 'CameraLost', 'CameraBack', 'Frame']
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from referee.errors import UserError

Clock = Callable[[], float]
Sleep = Callable[[float], None]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


#: Capture size asked of cameras. The corner indices of the top card must stay legible: in simulated
#: games a 960 × 720 camera over the table (~1.4 px/mm) misread thin-font decks (12 false plays in
#: one game of `uno-referee bench table`), 1920 × 1080 (~2.7 px/mm) read the same game without error.
DEFAULT_SIZE: tuple[int, int] = (1920, 1080)


@dataclass(frozen=True, eq=False)
class Frame:
    """One BGR image and when it was taken (seconds on the source's clock: monotonic or the file's time)."""

    image: np.ndarray
    timestamp: float
    index: int


@runtime_checkable
class FrameSource(Protocol):
    """What the pile watcher reads from; every implementation below and any test double fits it."""

    description: str

    def open(self) -> None:
        """Start delivering frames; raises :class:`UserError` saying what to check when it cannot."""

    def read(self) -> Frame | None:
        """The next frame, or ``None`` when none came this time."""

    def close(self) -> None: ...

    @property
    def exhausted(self) -> bool:
        """True once a finite source has delivered its last frame (a live camera never is)."""


class _CaptureSource:
    """Shared by the OpenCV camera and the video file: both are a ``cv2.VideoCapture``."""

    def __init__(self, target: int | str, description: str) -> None:
        self.description = description
        self._target = target
        self._capture = None
        self._count = 0

    def _configure(self, capture) -> None:
        """Set capture properties before the first read (resolution for cameras)."""

    def open(self) -> None:
        import cv2

        self.close()
        logging = cv2.utils.logging
        level = logging.getLogLevel()
        logging.setLogLevel(logging.LOG_LEVEL_SILENT)  # the one-line error below says it better
        try:
            capture = cv2.VideoCapture(self._target)
        finally:
            logging.setLogLevel(level)
        if not capture.isOpened():
            capture.release()
            raise UserError(self._open_failure())
        self._configure(capture)
        self._capture = capture

    def _open_failure(self) -> str:
        return f"cannot open {self.description}"

    def _grab(self) -> np.ndarray | None:
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        return image if ok and image is not None and image.size else None

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class OpenCVCamera(_CaptureSource):
    """A USB/laptop camera by index, or a network stream by URL, through OpenCV."""

    def __init__(
        self,
        target: int | str,
        width: int | None = None,
        height: int | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        kind = f"camera {target}" if isinstance(target, int) else f"camera stream {target}"
        super().__init__(target, kind)
        self._size = (width, height)
        self._clock = clock

    def _configure(self, capture) -> None:
        import cv2

        width, height = self._size
        if width and height:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def _open_failure(self) -> str:
        if isinstance(self._target, int):
            return (
                f"cannot open camera {self._target}: check it is plugged in and not used by another program "
                "(ls /dev/video*), or set [camera] source in the config"
            )
        return f"cannot open camera stream {self._target}: check the URL and that the stream is running"

    def read(self) -> Frame | None:
        image = self._grab()
        if image is None:
            return None
        self._count += 1
        return Frame(image, self._clock(), self._count - 1)

    @property
    def exhausted(self) -> bool:
        return False


class VideoFile(_CaptureSource):
    """A recorded video; timestamps are the video's own time, so replays are reproducible."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        super().__init__(str(self.path), f"video file {self.path}")
        self._done = False

    def open(self) -> None:
        if not self.path.is_file():
            raise UserError(f"video file {self.path} not found")
        self._done = False
        self._count = 0
        super().open()

    def _open_failure(self) -> str:
        return f"cannot read video file {self.path}: is it a video OpenCV can decode (mp4, avi, mkv)?"

    def read(self) -> Frame | None:
        import cv2

        image = self._grab()
        if image is None:
            self._done = True
            return None
        self._count += 1
        return Frame(image, self._capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0, self._count - 1)

    @property
    def exhausted(self) -> bool:
        return self._done


class ImageFolder:
    """The images of a folder in name order (or one image file), at a nominal frame rate."""

    def __init__(self, path: str | Path, fps: float = 10.0) -> None:
        self.path = Path(path)
        self.description = f"image folder {self.path}"
        self._interval = 1.0 / fps
        self._files: list[Path] = []
        self._next = 0

    def open(self) -> None:
        if self.path.is_file():
            self._files = [self.path]
        elif self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        else:
            raise UserError(f"{self.path} not found: give an image, a folder of images, a video or a camera")
        if not self._files:
            raise UserError(f"no images in {self.path} (looked for {', '.join(sorted(IMAGE_SUFFIXES))})")
        self._next = 0

    def read(self) -> Frame | None:
        if self.exhausted:
            return None
        index = self._next
        self._next += 1
        return Frame(read_image(self._files[index]), index * self._interval, index)

    def close(self) -> None:
        """Nothing to release: images are read one at a time."""

    @property
    def exhausted(self) -> bool:
        return self._next >= len(self._files)


def read_image(path: str | Path) -> np.ndarray:
    """A picture file as BGR, or a one-line error (without OpenCV's own warnings on stderr)."""
    import cv2

    path = Path(path)
    try:
        data = np.fromfile(path, np.uint8)
    except OSError:
        raise UserError(f"picture {path} not found or not readable") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UserError(f"cannot read the picture {path}: is it a JPEG or PNG?")
    return image


class PiCamera:
    """The Raspberry Pi camera module through picamera2 (libcamera), delivering BGR like OpenCV."""

    description = "Pi camera module"

    def __init__(
        self, width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1], clock: Clock = time.monotonic
    ) -> None:
        self._size = (width, height)
        self._clock = clock
        self._camera = None
        self._count = 0

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise UserError(
                "picamera2 is not installed: sudo apt install python3-picamera2, and create the venv with "
                "--system-site-packages (docs/hardware.md)"
            ) from None
        self.close()
        try:
            camera = Picamera2()
            # "RGB888" in libcamera's naming is B, G, R in memory: what OpenCV calls BGR.
            camera.configure(camera.create_video_configuration(main={"size": self._size, "format": "RGB888"}))
            camera.start()
        except (RuntimeError, IndexError, OSError) as error:
            raise UserError(
                f"cannot start the Pi camera module ({error}): check the ribbon cable and run rpicam-hello"
            ) from None
        self._camera = camera

    def read(self) -> Frame | None:
        if self._camera is None:
            return None
        try:
            image = self._camera.capture_array("main")
        except RuntimeError:
            return None
        self._count += 1
        return Frame(np.ascontiguousarray(image[:, :, :3]), self._clock(), self._count - 1)

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None

    @property
    def exhausted(self) -> bool:
        return False


class FakeCamera:
    """A scripted camera for tests: each item is a frame, or ``None`` for a read that delivers nothing.

    ``failed_opens`` makes the next that many ``open()`` calls fail, like a camera that is unplugged
    while the app tries to reconnect. The script may be an endless iterator.
    """

    def __init__(
        self,
        script: Iterable[np.ndarray | None],
        failed_opens: int = 0,
        clock: Clock | None = None,
        description: str = "fake camera",
    ) -> None:
        self.description = description
        self._script = iter(script)
        self._lookahead: list[np.ndarray | None] = []
        self.failed_opens = failed_opens
        self.opens = 0
        self.is_open = False
        self._clock = clock
        self._count = 0

    def open(self) -> None:
        if self.failed_opens > 0:
            self.failed_opens -= 1
            raise UserError(f"cannot open {self.description}: scripted failure")
        self.opens += 1
        self.is_open = True

    def read(self) -> Frame | None:
        if not self.is_open or self.exhausted:
            return None
        image = self._lookahead.pop()
        if image is None:
            return None
        self._count += 1
        stamp = self._clock() if self._clock else float(self._count - 1)
        return Frame(image, stamp, self._count - 1)

    def close(self) -> None:
        self.is_open = False

    @property
    def exhausted(self) -> bool:
        if not self._lookahead:
            self._lookahead.extend(itertools.islice(self._script, 1))
        return not self._lookahead


def open_source(spec: str | int, width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1]) -> FrameSource:
    """The source a config or command line names: ``0``, ``picamera``, a URL, a video, an image or a folder.

    >>> type(open_source("2")).__name__, type(open_source("rtsp://pi.local/cam")).__name__
    ('OpenCVCamera', 'OpenCVCamera')
    """
    text = str(spec).strip()
    if text.isdigit():
        return OpenCVCamera(int(text), width, height)
    if text.lower() in ("picamera", "picamera2", "pi"):
        return PiCamera(width, height)
    if "://" in text:
        return OpenCVCamera(text, width, height)
    path = Path(text).expanduser()
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolder(path)
    if path.exists():
        return VideoFile(path)
    raise UserError(
        f"camera source {text!r} not found: use a camera index (0, 1, …), picamera, a stream URL, "
        "a video file, an image or a folder of images"
    )


# --- outages -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CameraLost:
    """The camera stopped delivering frames: the app announces it and pauses refereeing."""

    description: str
    timestamp: float


@dataclass(frozen=True)
class CameraBack:
    """Frames flow again after ``outage_s`` seconds without them."""

    description: str
    timestamp: float
    outage_s: float


@dataclass(frozen=True)
class Backoff:
    """Waits between reconnection attempts: ``initial``, times ``factor`` each failure, at most ``maximum``.

    >>> list(Backoff(0.5, 2.0, 3.0).delays(5))
    [0.5, 1.0, 2.0, 3.0, 3.0]
    """

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 5.0

    def delays(self, count: int | None = None) -> Iterator[float]:
        attempts = itertools.count() if count is None else range(count)
        for attempt in attempts:
            yield min(self.maximum, self.initial * self.factor**attempt)


class ResilientCamera:
    """Iterate a source for frames and outage events; never raises for a camera that drops out mid-game.

    ``lost_after`` empty reads in a row (a few, not one: single hiccups are normal) make a
    :class:`CameraLost`; then the source is closed and re-opened after each back-off delay until
    it delivers again, which yields :class:`CameraBack` before the next frame. ``sleep`` is the
    only place the loop waits: the app may pass its own (one that keeps serving buttons).
    Opening fails with :class:`UserError` only the first time, when the user can still fix it.
    """

    def __init__(
        self,
        source: FrameSource,
        lost_after: int = 5,
        retry_delay: float = 0.02,
        backoff: Backoff | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.source = source
        self._lost_after = lost_after
        self._retry_delay = retry_delay
        self._backoff = backoff or Backoff()
        self._clock = clock
        self._sleep = sleep

    def __iter__(self) -> Iterator[Frame | CameraLost | CameraBack]:
        self.source.open()
        try:
            yield from self._frames_and_outages()
        finally:
            self.source.close()

    def _frames_and_outages(self) -> Iterator[Frame | CameraLost | CameraBack]:
        misses = 0
        while not self.source.exhausted:
            frame = self.source.read()
            if frame is not None:
                misses = 0
                yield frame
                continue
            misses += 1
            if misses < self._lost_after:
                self._sleep(self._retry_delay)
                continue
            lost_at = self._clock()
            yield CameraLost(self.source.description, lost_at)
            frame = self._reconnect()
            if frame is None:  # a finite source ran out while it was away
                return
            misses = 0
            back_at = self._clock()
            yield CameraBack(self.source.description, back_at, back_at - lost_at)
            yield frame

    def _reconnect(self) -> Frame | None:
        """Re-open with back-off until a frame arrives; ``None`` only when a finite source is exhausted."""
        for delay in self._backoff.delays():
            if self.source.exhausted:
                return None
            self.source.close()
            self._sleep(delay)
            try:
                self.source.open()
            except UserError:
                continue
            frame = self.source.read()
            if frame is not None:
                return frame
        raise AssertionError("unreachable: Backoff.delays() without a count never ends")  # pragma: no cover


def read_still(source: FrameSource, settle_frames: int = 8) -> Frame:
    """One frame for calibration: the last of the first few, so auto-exposure and white balance settle."""
    source.open()
    try:
        frames = (source.read() for _ in range(settle_frames * 4) if not source.exhausted)
        delivered = list(itertools.islice((f for f in frames if f is not None), settle_frames))
    finally:
        source.close()
    if not delivered:
        raise UserError(f"{source.description} delivered no picture: check the lens cap, cable and lighting")
    return delivered[-1]
