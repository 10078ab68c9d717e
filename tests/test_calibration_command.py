"""``uno-referee calibrate`` end to end on synthetic camera pictures, and its one-line errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_calibration import CARD_COLOURS, TABLE_MM, camera_picture, table_canvas, true_image_corners

from calibration.profile import CalibrationProfile
from referee.cli import main


def write(path, image) -> str:
    cv2.imwrite(str(path), image)
    return str(path)


def test_print_markers(tmp_path, capsys):
    out = tmp_path / "markers.png"
    assert main(["calibrate", "--print-markers", str(out)]) == 0
    assert cv2.imread(str(out), cv2.IMREAD_GRAYSCALE).shape == (3508, 2480)
    assert "print it at 100 %" in capsys.readouterr().out


def test_headless_calibration_from_pictures(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing"))
    frame = write(tmp_path / "frame.png", camera_picture(table_canvas()))
    colour_args = []
    for colour in CARD_COLOURS:
        colour_args += [
            "--colour-image",
            f"{colour}={write(tmp_path / f'{colour}.png', camera_picture(table_canvas(card=colour)))}",
        ]
    profile_path = tmp_path / "profile.json"
    argv = [
        "calibrate",
        "--image",
        frame,
        "--markers",
        "--table-size",
        "700x500",
        "--output",
        str(profile_path),
    ]
    assert main([*argv, *colour_args, "--colours-json", str(tmp_path / "colours.json")]) == 0
    out = capsys.readouterr().out
    assert "calibration saved" in out and "colours measured from red, yellow, green, blue" in out
    profile = CalibrationProfile.load(profile_path)
    assert np.abs(np.float32(profile.image_corners) - true_image_corners()).max() < 1.0
    assert profile.table_size_mm == TABLE_MM and profile.colour_model is not None
    assert (tmp_path / "profile.preview.png").exists() and (tmp_path / "colours.json").exists()

    # calibrating the plane again keeps the measured colours
    assert main([*argv, "--discard", "300,150,150,150"]) == 0
    again = CalibrationProfile.load(profile_path)
    assert again.colour_model == profile.colour_model and again.zones["discard"].width == 150
    assert "kept from the previous profile" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--table-size", "70cm"], "must be WIDTHxHEIGHT"),
        (["--colours"], "with --image give --colour-image"),
        (["--colour-image", "purple=x.png"], "COLOUR one of red"),
        (["--discard", "0,0,30,30"], "cannot hold a card"),
    ],
)
def test_bad_options_are_one_line(tmp_path, capsys, extra, message):
    frame = write(tmp_path / "frame.png", camera_picture(table_canvas()))
    assert main(["calibrate", "--image", frame, "--output", str(tmp_path / "p.json"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_markers_exit_2_with_one_line(tmp_path, capsys):
    frame = write(tmp_path / "frame.png", camera_picture(table_canvas(marker_ids=(0, 1))))
    assert main(["calibrate", "--image", frame, "--markers", "--output", str(tmp_path / "p.json")]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(
        "uno-referee: error: calibration markers not found: missing 2 (bottom right)"
    )
    assert captured.err.count("\n") == 1 and not (tmp_path / "p.json").exists()


def test_a_colour_picture_without_a_card_keeps_the_plane_and_says_what_to_fix(tmp_path, capsys):
    frame = write(tmp_path / "frame.png", camera_picture(table_canvas()))
    colour_args = []
    for colour in CARD_COLOURS:
        picture = camera_picture(table_canvas(card=None if colour == "blue" else colour))
        colour_args += ["--colour-image", f"{colour}={write(tmp_path / f'{colour}.png', picture)}"]
    profile_path = tmp_path / "profile.json"
    argv = ["calibrate", "--image", frame, "--table-size", "700x500", "--output", str(profile_path)]
    assert main([*argv, *colour_args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no card found in the discard zone: lay a blue card flat" in err
    assert "the table and zones were saved, the colours left at the defaults" in err
    profile = CalibrationProfile.load(profile_path)
    assert profile.table_size_mm == TABLE_MM and profile.colour_model is None


def test_colours_at_the_camera_ask_again_when_the_card_is_not_found(tmp_path, capsys, monkeypatch):
    """The user forgot to lay the red card: told why, asked again; the wild card is skipped."""
    import hardware.camera
    from hardware.camera import Frame

    empty = camera_picture(table_canvas())
    shots = [empty, empty] + [camera_picture(table_canvas(card=colour)) for colour in CARD_COLOURS]
    stills = iter(Frame(image, 0.0, k) for k, image in enumerate(shots))
    monkeypatch.setattr(hardware.camera, "open_source", lambda *args, **kwargs: object())
    monkeypatch.setattr(hardware.camera, "read_still", lambda source: next(stills))
    answers = iter(["", "", "", "", "", "s"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    profile_path = tmp_path / "profile.json"
    argv = ["calibrate", "--table-size", "700x500", "--colours", "--output", str(profile_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("no card found in the discard zone: lay a red card flat") == 1
    assert "colours measured from red, yellow, green, blue" in out
    assert CalibrationProfile.load(profile_path).colour_model is not None
