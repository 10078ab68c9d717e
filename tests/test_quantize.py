"""The detector's int8 copy: which layers stay in float, and an honest record of what it is."""

from __future__ import annotations

import json

import pytest

from models import MODEL_FILE, QUANTISED_MODEL_FILE, model_file
from referee.errors import UserError
from referee.lab.quantize import head_output_convs, head_tail_nodes, layer_nodes, main


def test_the_head_outputs_and_named_layers_can_stay_in_float():
    model = model_file(MODEL_FILE)
    outputs = head_output_convs(model)
    # one class-score and one box-distribution convolution per stride, none of the decoding tail
    assert len(outputs) == 6 and all(name.endswith("2/Conv") for name in outputs)
    assert {name.split("/")[2][:3] for name in outputs} == {"cv2", "cv3"}
    assert not set(outputs) & set(head_tail_nodes(model))
    assert layer_nodes(model, ["model.0"]) == [
        "/model.0/conv/Conv",
        "/model.0/act/Sigmoid",
        "/model.0/act/Mul",
    ]
    with pytest.raises(UserError, match=r"has no layer model\.99: name layers as model\.N"):
        layer_nodes(model, ["model.0", "model.99"])


def test_the_shipped_int8_copy_says_what_it_is_and_what_it_saw():
    float_card = json.loads(model_file(MODEL_FILE).with_suffix(".json").read_text(encoding="utf-8"))
    int8_card = json.loads(model_file(QUANTISED_MODEL_FILE).with_suffix(".json").read_text(encoding="utf-8"))
    assert int8_card["precision"] == "int8" and int8_card["quantised"].startswith(f"from {MODEL_FILE}:")
    # the same network: the same classes, input and record of real decks seen
    for key in ("names", "imgsz", "version", "decks_seen"):
        assert int8_card[key] == float_card[key]


def test_bad_input_is_one_line(tmp_path, capsys):
    assert main([str(tmp_path / "none.onnx"), str(tmp_path / "out.onnx"), "--images", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"quantize: error: no model at {tmp_path / 'none.onnx'}\n"
    assert main([str(model_file(MODEL_FILE)), str(tmp_path / "out.onnx"), "--images", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"quantize: error: folder {tmp_path} holds no pictures (")
    (tmp_path / "fake.png").write_text("text, not pixels")
    assert main([str(model_file(MODEL_FILE)), str(tmp_path / "out.onnx"), "--images", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "quantize: error: no readable calibration pictures\n"
    assert not (tmp_path / "out.onnx").exists()
