"""Detector backends: exact decoding and NMS on scripted ONNX models, letterbox geometry, bad models."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import UserError
from referee.vision.backends import available_backends, load_detector
from referee.vision.classes import CLASS_NAMES
from referee.vision.detection import Letterbox, decode_yolo
from referee.vision.scripted import tensor_for_boxes, write_scripted_model, yolo_tensor

LEAN_BACKENDS = ["onnxruntime", "opencv-dnn"]


@pytest.fixture
def scripted(tmp_path):
    """Write a scripted model emitting the given boxes (network-input pixels) and return its path."""

    def make(boxes, names, scores=None, imgsz=320, dynamic=False, metadata_names=CLASS_NAMES):
        tensor = tensor_for_boxes(boxes, names, scores or 0.9, anchors=32)
        path = tmp_path / f"scripted_{len(list(tmp_path.iterdir()))}.onnx"
        return write_scripted_model(path, tensor, imgsz=imgsz, names=metadata_names, dynamic=dynamic)

    return make


@pytest.mark.parametrize("backend", LEAN_BACKENDS)
def test_decoding_and_class_aware_nms_are_exact(scripted, backend):
    model = scripted(
        boxes=[
            (100, 100, 120, 130),  # best "7"
            (101, 101, 121, 131),  # the same glyph again, weaker: suppressed
            (100, 100, 120, 130),  # a colour-blind symbol on the same spot: another class, kept
            (200, 50, 230, 90),  # a "skip" elsewhere
            (10, 10, 20, 20),  # below the confidence threshold: dropped
        ],
        names=["7", "7", "cb-circle", "skip", "3"],
        scores=[0.9, 0.8, 0.6, 0.7, 0.1],
    )
    detector = load_detector(model, backend, conf=0.25, iou=0.5)
    detections = detector.detect(np.zeros((320, 320, 3), np.uint8))
    assert [(d.class_name, round(d.score, 4)) for d in detections] == [
        ("7", 0.9),
        ("skip", 0.7),
        ("cb-circle", 0.6),
    ]
    assert detections[0].box == pytest.approx((100, 100, 120, 130), abs=1e-4)
    assert detections[1].box == pytest.approx((200, 50, 230, 90), abs=1e-4)


@pytest.mark.parametrize("backend", LEAN_BACKENDS)
def test_boxes_come_back_in_image_pixels(scripted, backend):
    """A 640×480 picture is halved into the 320 input with 40 px bars above and below."""
    model = scripted(boxes=[(50, 60, 70, 100)], names=["draw2"])
    detection = load_detector(model, backend).detect(np.zeros((480, 640, 3), np.uint8))[0]
    assert detection.box == pytest.approx((100, 40, 140, 120), abs=1e-4)


def test_backends_agree(scripted):
    model = scripted(
        boxes=[(30, 40, 50, 80), (150, 150, 180, 170)], names=["0", "cb-star"], scores=[0.55, 0.8]
    )
    image = np.zeros((300, 500, 3), np.uint8)
    results = [load_detector(model, backend).detect(image) for backend in LEAN_BACKENDS]
    assert [d.class_name for d in results[0]] == [d.class_name for d in results[1]] == ["cb-star", "0"]
    for first, second in zip(*results, strict=True):
        assert first.box == pytest.approx(second.box, abs=1e-3)


def test_dynamic_model_runs_at_the_asked_size(scripted):
    model = scripted(boxes=[(64, 64, 96, 96)], names=["reverse"], dynamic=True)
    detector = load_detector(model, imgsz=256)
    assert (detector.imgsz, detector.info.fixed_input) == (256, False)
    (detection,) = detector.detect(np.zeros((512, 512, 3), np.uint8))
    assert detection.box == pytest.approx((128, 128, 192, 192), abs=1e-4)


def test_decode_rejects_a_wrong_class_count():
    tensor = yolo_tensor([(10, 10, 5, 5)], [0], [0.9], num_classes=3)
    with pytest.raises(ValueError, match="expected 4 \\+ 22"):
        decode_yolo(tensor, Letterbox.fit((320, 320), 320), CLASS_NAMES, 0.25, 0.5)


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(32, 2000),
    height=st.integers(32, 2000),
    size=st.sampled_from([224, 256, 320]),
    corners=st.tuples(*[st.floats(0.0, 1.0)] * 4),
)
def test_letterbox_round_trip(width, height, size, corners):
    letterbox = Letterbox.fit((height, width), size)
    x1, x2 = sorted(corners[:2])
    y1, y2 = sorted(corners[2:])
    box = np.array([[x1 * width, y1 * height, x2 * width, y2 * height]])
    assert letterbox.to_image(letterbox.to_input(box)) == pytest.approx(box, abs=1e-6)


@pytest.mark.parametrize("shape", [(480, 640), (640, 480), (333, 1000), (200, 150)])
def test_letterbox_puts_pixels_where_to_input_says(shape):
    image = np.zeros((*shape, 3), np.uint8)
    height, width = shape
    box = np.array([[width * 0.3, height * 0.2, width * 0.6, height * 0.7]])
    x1, y1, x2, y2 = box[0].round().astype(int)
    image[y1:y2, x1:x2] = 255
    letterbox = Letterbox.fit(image.shape, 320)
    network_input = letterbox.apply(image)
    assert network_input.shape == (320, 320, 3)
    ys, xs = np.nonzero(network_input[..., 0] > 127)
    found = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    assert found == pytest.approx(letterbox.to_input(box)[0], abs=1.5)


def test_missing_model_is_one_line(tmp_path):
    with pytest.raises(UserError, match=r"no detector model at .*nothing\.onnx.*--model PATH") as error:
        load_detector(tmp_path / "nothing.onnx")
    assert "\n" not in str(error.value)
    # the int8 copy says how to make it, or how to do without it
    with pytest.raises(
        UserError, match=r'no int8 detector at .*quantize.*precision = "float", --precision float\)$'
    ) as error:
        load_detector(tmp_path / "uno_cards.int8.onnx")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("backend", LEAN_BACKENDS)
def test_corrupt_model_is_one_line(tmp_path, backend):
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"this is not a protobuf" * 20)
    with pytest.raises(UserError, match=r"cannot load the detector model .*broken\.onnx") as error:
        load_detector(broken, backend)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("backend", LEAN_BACKENDS)
def test_the_same_network_runs_at_another_input(scripted, backend):
    """The pile watcher's smaller input: the loaded network is shared, only the letterbox changes."""
    model = scripted(boxes=[(56, 56, 84, 84)], names=["reverse"], dynamic=True)
    detector = load_detector(model, backend)
    small = detector.at_input(224)
    assert (detector.imgsz, small.imgsz, detector.at_input(320)) == (320, 224, detector)
    assert all(getattr(small, name) is value for name, value in vars(detector).items() if name != "info")
    (detection,) = small.detect(np.zeros((448, 448, 3), np.uint8))  # the 224 input is the picture halved
    assert detection.box == pytest.approx((112, 112, 168, 168), abs=1e-4)
    with pytest.raises(UserError, match="not a multiple of 32"):
        detector.at_input(200)
    fixed = load_detector(scripted(boxes=[(1, 1, 9, 9)], names=["1"]), backend)
    with pytest.raises(UserError, match=r"fixed 320 px input, not 224: set detector\.pile_imgsz = 320"):
        fixed.at_input(224)


def test_unknown_backend_names_the_choices(scripted):
    with pytest.raises(UserError, match="onnxruntime, opencv-dnn, ultralytics"):
        load_detector(scripted(boxes=[(1, 1, 9, 9)], names=["1"]), "tensorrt")


def test_fixed_input_refuses_another_size(scripted):
    with pytest.raises(UserError, match="fixed 320 px input, not 256"):
        load_detector(scripted(boxes=[(1, 1, 9, 9)], names=["1"]), imgsz=256)


def test_sidecar_metadata_wins_and_is_checked(scripted):
    model = scripted(boxes=[(1, 1, 9, 9)], names=["1"], metadata_names=None)
    assert load_detector(model).class_names == CLASS_NAMES  # no names anywhere: ours, the count matches
    renamed = [f"symbol{i}" for i in range(len(CLASS_NAMES))]
    model.with_suffix(".json").write_text(json.dumps({"names": renamed, "imgsz": 320}))
    assert load_detector(model).class_names[:2] == ("symbol0", "symbol1")
    model.with_suffix(".json").write_text(json.dumps({"names": ["a", "b"], "imgsz": 320}))
    with pytest.raises(UserError, match="outputs 26 rows but its metadata names 2 classes"):
        load_detector(model)


def test_ultralytics_offered_only_when_installed():
    import importlib.util

    installed = importlib.util.find_spec("ultralytics") is not None
    assert ("ultralytics" in available_backends()) == installed


def test_runtime_never_imports_torch(scripted, tmp_path):
    """Detect end to end in a fresh interpreter: neither torch nor ultralytics may be loaded."""
    model = scripted(boxes=[(100, 100, 120, 130)], names=["5"])
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((240, 320, 3), 90, np.uint8))
    code = (
        "import sys\n"
        "from referee.cli import main\n"
        f"assert main(['detect', {str(image)!r}, '--json', '--model', {str(model)!r}]) == 0\n"
        "heavy = sorted(m for m in ('torch', 'ultralytics') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"image": str(image), "cards": []}
