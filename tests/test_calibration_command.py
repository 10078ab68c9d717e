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


def test_a_deck_learnt_at_the_table_lies_beside_the_profile_in_the_games_glyph_space(tmp_path, capsys):
    """``calibrate --deck-image`` learns the faces laid in the scoring zone, with the glyph
    classifier the game reads with (``[vision] glyph_model``), and keeps them beside the profile,
    where ``run`` looks."""
    from test_calibration import CANVAS_PX_PER_MM, mm_to_canvas

    from calibration.profile import deck_beside
    from calibration.table_view import CARD_MM
    from models import model_file
    from referee.render.cards import render_card
    from referee.render.compose import place, pose_homography
    from referee.vision.deck import LearntDeck
    from referee.vision.glyphs import load_glyph_classifier

    other_weights = model_file("lodo/criscard/uno_glyphs.onnx")
    if not other_weights.is_file():
        pytest.skip("needs a second glyph classifier (models/lodo/ in a checkout)")
    faces = ["red-0", "yellow-7", "blue-skip"]
    canvas = table_canvas()
    for k, face in enumerate(faces):  # upright, left to right along the scoring zone
        sprite = render_card(face, design="classic", rng=np.random.default_rng(k))
        centre = mm_to_canvas(150.0 + 200.0 * k, 437.5)
        place(canvas, sprite, pose_homography(sprite.size, centre, CARD_MM[1] * CANVAS_PX_PER_MM, 0.0))
    frame = write(tmp_path / "frame.png", camera_picture(table_canvas()))
    row = write(tmp_path / "row.png", camera_picture(canvas))
    config = tmp_path / "referee.toml"
    config.write_text(f'players = ["Anna", "Ben"]\n[vision]\nglyph_model = "{other_weights}"\n')
    profile_path = tmp_path / "profile.json"
    argv = ["calibrate", "--config", str(config), "--image", frame, "--markers", "--table-size", "700x500"]
    argv += ["--output", str(profile_path), "--deck-image", f"{','.join(faces)}={row}"]
    assert main(argv) == 0
    assert f"deck: 3 faces learnt, saved to {deck_beside(profile_path)}" in capsys.readouterr().out
    deck = LearntDeck.load(deck_beside(profile_path))
    assert deck.faces == sorted(faces)
    configured = load_glyph_classifier(other_weights).identity
    assert deck.glyph_model == configured != load_glyph_classifier(None).identity
