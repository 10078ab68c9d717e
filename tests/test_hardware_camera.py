"""Frame sources and the outage wrapper: cameras that do not open, drop out and come back."""

from __future__ import annotations

import sys

import cv2
import numpy as np
import pytest

from hardware.camera import (
    Backoff,
    CameraBack,
    CameraLost,
    FakeCamera,
    Frame,
    FrameSource,
    ImageFolder,
    OpenCVCamera,
    PiCamera,
    ResilientCamera,
    VideoFile,
    open_source,
    read_image,
    read_still,
)
from referee.errors import UserError


class FakeClock:
    """Time that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def image(value: int) -> np.ndarray:
    return np.full((8, 8, 3), value, np.uint8)


def test_every_source_fits_the_protocol(tmp_path):
    sources = [
        FakeCamera([]),
        OpenCVCamera(0),
        VideoFile(tmp_path / "a.mp4"),
        ImageFolder(tmp_path),
        PiCamera(),
    ]
    assert all(isinstance(source, FrameSource) for source in sources)


def test_outage_is_reported_retried_with_backoff_and_frames_resume():
    clock = FakeClock()
    script = [image(1), image(2), *[None] * 5, image(3), image(4)]
    camera = FakeCamera(script, clock=clock)
    resilient = ResilientCamera(
        camera, lost_after=3, retry_delay=0.01, backoff=Backoff(0.5, 2.0, 4.0), clock=clock, sleep=clock.sleep
    )
    items = list(resilient)
    kinds = [type(item).__name__ for item in items]
    assert kinds == ["Frame", "Frame", "CameraLost", "CameraBack", "Frame", "Frame"]
    assert [int(item.image[0, 0, 0]) for item in items if isinstance(item, Frame)] == [1, 2, 3, 4]
    # 2 short retries before declaring it lost, then one back-off per re-open that still read nothing.
    assert clock.sleeps == [0.01, 0.01, 0.5, 1.0, 2.0]
    lost, back = items[2], items[3]
    assert isinstance(lost, CameraLost) and isinstance(back, CameraBack)
    assert back.outage_s == pytest.approx(3.5)
    assert camera.opens == 4 and not camera.is_open


def test_camera_that_cannot_be_reopened_for_a_while_comes_back():
    clock = FakeClock()
    camera = FakeCamera([image(1), None, None, image(2)], clock=clock)
    resilient = ResilientCamera(
        camera, lost_after=2, backoff=Backoff(1.0, 2.0, 3.0), clock=clock, sleep=clock.sleep
    )
    stream = iter(resilient)
    assert isinstance(next(stream), Frame)
    assert isinstance(next(stream), CameraLost)
    camera.failed_opens = 3  # unplugged: three re-opens fail before it is back
    back = next(stream)
    assert isinstance(back, CameraBack)
    assert clock.sleeps[-4:] == [1.0, 2.0, 3.0, 3.0]
    assert int(next(stream).image[0, 0, 0]) == 2


def test_single_hiccups_are_not_outages():
    camera = FakeCamera([image(1), None, image(2), None, None, image(3)])
    items = list(ResilientCamera(camera, lost_after=3, sleep=lambda _: None))
    assert all(isinstance(item, Frame) for item in items) and len(items) == 3


def test_live_camera_outage_waits_until_frames_return():
    """An endless live source: the wrapper keeps trying, it never gives up on its own."""
    clock = FakeClock()
    outage = iter([image(1), *[None] * 40, image(2)])
    camera = FakeCamera(outage, clock=clock)
    stream = iter(
        ResilientCamera(camera, lost_after=2, backoff=Backoff(1, 2, 5), clock=clock, sleep=clock.sleep)
    )
    assert [type(next(stream)).__name__ for _ in range(4)] == ["Frame", "CameraLost", "CameraBack", "Frame"]
    assert max(clock.sleeps) == 5


def test_first_open_failure_is_a_user_error():
    with pytest.raises(UserError, match="scripted failure"):
        next(iter(ResilientCamera(FakeCamera([image(1)], failed_opens=1))))


def test_missing_camera_index_is_one_line_saying_what_to_check(capfd):
    with pytest.raises(UserError) as error:
        OpenCVCamera(57).open()
    message = str(error.value)
    assert "camera 57" in message and "plugged in" in message and "\n" not in message
    assert capfd.readouterr().err == ""  # OpenCV's own warnings are silenced


def test_video_file_frames_and_timestamps(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for value in (40, 120, 200):
        writer.write(np.full((24, 32, 3), value, np.uint8))
    writer.release()
    video = VideoFile(path)
    video.open()
    frames = []
    while not video.exhausted:
        frame = video.read()
        if frame is not None:
            frames.append(frame)
    video.close()
    assert [f.index for f in frames] == [0, 1, 2]
    assert [round(float(f.image.mean()) / 40) for f in frames] == [1, 3, 5]
    assert frames[2].timestamp > frames[0].timestamp


def test_unreadable_video_is_a_user_error(tmp_path):
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"not a video")
    with pytest.raises(UserError, match="cannot read video file"):
        VideoFile(path).open()
    with pytest.raises(UserError, match="not found"):
        VideoFile(tmp_path / "missing.mp4").open()


def test_image_folder_in_name_order(tmp_path):
    for name, value in (("b.png", 2), ("a.png", 1), ("c.jpg", 3)):
        cv2.imwrite(str(tmp_path / name), image(value * 50))
    (tmp_path / "notes.txt").write_text("ignored")
    folder = ImageFolder(tmp_path, fps=5)
    folder.open()
    frames = [folder.read() for _ in range(3)]
    assert folder.exhausted and folder.read() is None
    assert [round(float(f.image.mean()) / 50) for f in frames] == [1, 2, 3]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.2, 0.4])


def test_unreadable_pictures_are_one_line_without_opencv_noise(tmp_path, capfd):
    broken = tmp_path / "broken.jpg"
    broken.write_text("not a picture")
    with pytest.raises(UserError, match="is it a JPEG or PNG"):
        read_image(broken)
    with pytest.raises(UserError, match="not found"):
        read_image(tmp_path / "missing.jpg")
    folder = ImageFolder(broken)
    folder.open()
    with pytest.raises(UserError, match=r"broken\.jpg"):
        folder.read()
    assert capfd.readouterr().err == ""


def test_empty_folder_and_missing_path_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="no images"):
        ImageFolder(tmp_path).open()
    with pytest.raises(UserError, match="not found"):
        open_source(str(tmp_path / "nothing-here"))


def test_open_source_picks_the_kind(tmp_path):
    still = tmp_path / "frame.jpg"
    cv2.imwrite(str(still), image(9))
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    assert isinstance(open_source(0), OpenCVCamera)
    assert isinstance(open_source("picamera"), PiCamera)
    assert isinstance(open_source(str(still)), ImageFolder)
    assert isinstance(open_source(str(tmp_path)), ImageFolder)
    assert isinstance(open_source(str(video)), VideoFile)


def test_read_still_lets_the_camera_settle():
    camera = FakeCamera([image(v) for v in range(20)])
    assert int(read_still(camera, settle_frames=5).image[0, 0, 0]) == 4
    assert not camera.is_open
    with pytest.raises(UserError, match="no picture"):
        read_still(FakeCamera([None] * 50), settle_frames=3)


@pytest.mark.skipif("picamera2" in sys.modules, reason="picamera2 is installed here")
def test_pi_camera_without_picamera2_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(UserError, match="python3-picamera2"):
        PiCamera().open()
