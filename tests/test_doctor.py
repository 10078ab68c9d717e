"""``uno-referee doctor`` and the checks ``run`` makes first: every check driven through fakes."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

import referee.table.doctor as doctor
from calibration.profile import CalibrationProfile
from calibration.table_view import default_zones
from hardware.camera import FakeCamera
from hardware.speaker import RecordingSpeaker, SpeechUnavailable
from referee.cli import main
from referee.errors import UserError
from referee.table.config import parse_config
from referee.table.doctor import Devices, first_fatal_problem, refuse_to_start, run_checks

SIZE = (640, 480)
TABLE_MM = (700.0, 500.0)
CORNERS = ((100.0, 80.0), (540.0, 80.0), (540.0, 400.0), (100.0, 400.0))


def write_profile(path: Path, frame_size=SIZE, corners=CORNERS) -> Path:
    CalibrationProfile(frame_size, TABLE_MM, corners, default_zones(TABLE_MM)).save(path)
    return path


def write_config(tmp_path: Path, extra: str = "", players: str = '["Anna", "Ben"]') -> Path:
    path = tmp_path / "referee.toml"
    path.write_text(
        f'players = {players}\nlanguage = "de"\n'
        f"[camera]\nwidth = {SIZE[0]}\nheight = {SIZE[1]}\n"
        f'[calibration]\nprofile = "{tmp_path / "calibration.json"}"\n'
        f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n{extra}'
    )
    return path


def config_for(tmp_path: Path, extra: str = "", **kwargs):
    return parse_config(write_config(tmp_path, extra, **kwargs).read_text())


class FakeReader:
    def read(self, image_bgr, *, turned=False):
        return []


def grey(size=SIZE, value=150) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


def fake_devices(picture: np.ndarray | None = None, **changes) -> Devices:
    """Everything present and working: a camera showing ``picture``, free mock pins, a German voice."""
    picture = grey() if picture is None else picture
    ticks = itertools.count(step=0.05)  # every read of the model takes 50 ms
    devices = Devices(
        open_camera=lambda config: FakeCamera(itertools.repeat(picture)),
        gpio_factory=MockFactory,
        check_speech=lambda: None,
        list_voices=lambda: [SimpleNamespace(id="gmw/de", languages=["de"])],
        load_reader=lambda config, profile: FakeReader(),
        free_bytes=lambda path: 20 * 1024**3,
        clock=lambda: next(ticks),
    )
    return dataclasses.replace(devices, **changes)


@pytest.fixture
def ready(tmp_path):
    """A config whose calibration exists, for a table that the fake devices make whole."""
    write_profile(tmp_path / "calibration.json")
    return config_for(tmp_path, '[buttons]\ninput = "gpio"\n')


def checks_by_name(config, devices) -> dict[str, doctor.Check]:
    return {check.name: check for check in run_checks(config, devices)}


def test_everything_present_passes_every_check(ready):
    checks = checks_by_name(ready, fake_devices())
    assert list(checks) == [
        "config",
        "calibration",
        "camera",
        "discard zone",
        "buttons",
        "speaker",
        "model",
        "journal",
    ]
    assert all(check.ok for check in checks.values()), [c.line() for c in checks.values()]
    assert checks["camera"].line() == "✔ camera: 0: pictures of 640 × 480"
    assert checks["model"].detail == "loads; one read takes 50 ms here"
    assert checks["buttons"].detail == "GPIO pins 5, 6, 13, 19, 26, 12, 16, 20, 21 free"
    assert checks["speaker"].detail.startswith("voice gmw/de for de")
    assert first_fatal_problem(ready, fake_devices()) is None


def test_config_without_players(tmp_path):
    from referee.table.config import RefereeConfig

    check = next(run_checks(RefereeConfig(), fake_devices()))
    assert not check.ok and check.fatal and "players" in check.detail


def test_calibration_missing_or_made_for_another_size(tmp_path, ready):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = config_for(elsewhere)
    check = checks_by_name(missing, fake_devices())["calibration"]
    assert not check.ok and check.fatal and "uno-referee calibrate" in check.detail

    write_profile(tmp_path / "calibration.json", frame_size=(1280, 720))
    check = checks_by_name(ready, fake_devices())["calibration"]
    assert not check.ok and "made for 1280 × 720 pictures but [camera] asks for 640 × 480" in check.detail


def test_camera_that_does_not_open_or_delivers_another_size(ready):
    broken = fake_devices(open_camera=lambda config: FakeCamera([], failed_opens=1))
    check = checks_by_name(ready, broken)["camera"]
    assert not check.ok and check.fatal and "cannot open fake camera" in check.detail

    small = checks_by_name(ready, fake_devices(grey((320, 240))))
    assert not small["camera"].ok and "delivers 320 × 240 pictures, not the configured 640 × 480" in (
        small["camera"].detail
    )
    assert "discard zone" not in small  # nothing to look at without a picture of the right size


def test_discard_zone_covered_dark_or_outside_the_picture(tmp_path, ready):
    covered = grey()
    outline = CalibrationProfile.load(ready.calibration.profile).table_view().zone_outline("discard")
    cv2.fillPoly(covered, [np.int32(outline)], (10, 10, 10))
    check = checks_by_name(ready, fake_devices(covered))["discard zone"]
    assert not check.ok and not check.fatal and "looks covered" in check.detail
    assert first_fatal_problem(ready, fake_devices(covered)) is None  # a hand over it is no reason to refuse

    check = checks_by_name(ready, fake_devices(grey(value=5)))["discard zone"]
    assert not check.ok and "lens cap" in check.detail

    write_profile(
        tmp_path / "calibration.json", corners=((-600, -500), (1240, -500), (1240, 980), (-600, 980))
    )
    check = checks_by_name(ready, fake_devices())["discard zone"]
    assert not check.ok and check.fatal and "outside the camera picture" in check.detail


def test_buttons_keyboard_no_gpio_or_a_pin_in_use(tmp_path, ready):
    def no_gpio():
        raise RuntimeError("Unable to load any default pin factory!")

    check = checks_by_name(ready, fake_devices(gpio_factory=no_gpio))["buttons"]
    assert not check.ok and check.fatal and "python3-lgpio" in check.detail

    auto = config_for(tmp_path)  # input = "auto": the keyboard stands in
    check = checks_by_name(auto, fake_devices(gpio_factory=no_gpio))["buttons"]
    assert check.ok and "keyboard stands in" in check.detail

    keyboard = config_for(tmp_path, '[buttons]\ninput = "keyboard"\n')
    assert checks_by_name(keyboard, fake_devices())["buttons"].ok

    factory = MockFactory()
    holder = Button(13, pin_factory=factory)  # another program's button on the CATCH pin
    try:
        check = checks_by_name(ready, fake_devices(gpio_factory=lambda: factory))["buttons"]
    finally:
        holder.close()
    assert not check.ok and check.fatal and "GPIO pin 13 for the catch button" in check.detail


def test_speaker_missing_or_without_the_language_only_warns(tmp_path, ready):
    def unavailable():
        raise SpeechUnavailable("espeak-ng is not installed (sudo apt install espeak-ng)")

    check = checks_by_name(ready, fake_devices(check_speech=unavailable))["speaker"]
    assert not check.ok and not check.fatal and "sudo apt install espeak-ng" in check.detail
    english_only = fake_devices(list_voices=lambda: [SimpleNamespace(id="gmw/en", languages=["en"])])
    check = checks_by_name(ready, english_only)["speaker"]
    assert not check.ok and "no de voice installed" in check.detail
    assert check.line().startswith("✘ speaker (the referee runs without it): ")
    silent = config_for(tmp_path, "[speech]\nenabled = false\n")
    assert checks_by_name(silent, fake_devices(check_speech=unavailable))["speaker"].ok


def test_model_missing_or_slow(ready):
    def missing(config, profile):
        raise UserError("model file /x.onnx not found")

    check = checks_by_name(ready, fake_devices(load_reader=missing))["model"]
    assert not check.ok and check.fatal and "/x.onnx" in check.detail
    slow_ticks = itertools.count(step=2.0)
    check = checks_by_name(ready, fake_devices(clock=lambda: next(slow_ticks)))["model"]
    assert not check.ok and not check.fatal and "2000 ms" in check.detail and "pile_imgsz" in check.detail
    assert 'precision = "int8"' in check.detail  # the faster weights, before the smaller input


def test_journal_unwritable_or_disk_full(tmp_path, ready):
    check = checks_by_name(ready, fake_devices(free_bytes=lambda path: 5 * 1024**2))["journal"]
    assert not check.ok and check.fatal and "only 5 MB free" in check.detail
    (tmp_path / "afile").write_text("")
    blocked = config_for(tmp_path, "")
    blocked = dataclasses.replace(
        blocked, journal=dataclasses.replace(blocked.journal, path=tmp_path / "afile" / "j.sqlite3")
    )
    check = checks_by_name(blocked, fake_devices())["journal"]
    assert not check.ok and "journal" in check.detail


def test_doctor_command_prints_one_line_per_check_and_exits_by_the_fatal_ones(tmp_path, monkeypatch, capsys):
    write_profile(tmp_path / "calibration.json")
    config = write_config(tmp_path)
    monkeypatch.setattr(doctor, "Devices", lambda: fake_devices())
    assert main(["doctor", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 9 and all(line.startswith("✔") for line in lines[:8])
    assert lines[-1] == "the referee can run"

    monkeypatch.setattr(doctor, "Devices", lambda: fake_devices(free_bytes=lambda path: 0))
    assert main(["doctor", "--config", str(config)]) == 1
    assert "✘ journal: only 0 MB free" in capsys.readouterr().out

    (tmp_path / "broken.toml").write_text("players = [")
    assert main(["doctor", "--config", str(tmp_path / "broken.toml")]) == 1
    assert capsys.readouterr().out.startswith("✘ config: broken.toml is not valid TOML")


def test_run_says_the_first_fatal_problem_once_spoken_and_once_printed(tmp_path):
    config = config_for(tmp_path)  # no calibration yet
    speaker = RecordingSpeaker("de")
    with pytest.raises(UserError, match=r"^calibration: none at .*run `uno-referee calibrate`"):
        refuse_to_start(config, fake_devices(), speaker)
    assert speaker.said == [("Ich kann nicht anfangen: Der Tisch muss erst neu vermessen werden.", "de")]
    assert speaker.closed

    write_profile(tmp_path / "calibration.json")
    quiet = RecordingSpeaker("de")
    refuse_to_start(config, fake_devices(), quiet)
    assert quiet.said == []


def test_every_fatal_check_has_a_sentence_to_say():
    from referee.table.phrases import LANGUAGES, PhraseBook

    fatal = ["config", "calibration", "camera", "discard_zone", "buttons", "model", "journal"]
    for language, name in itertools.product(LANGUAGES, fatal):
        assert PhraseBook(language).message(f"cannot_start_{name}").endswith(".")


def test_the_status_led_pin_is_checked_with_the_buttons(tmp_path):
    write_profile(tmp_path / "calibration.json")
    config = config_for(tmp_path, '[buttons]\ninput = "gpio"\n[led]\nenabled = true\npin = 17\n')
    factory = MockFactory()
    holder = Button(17, pin_factory=factory)
    try:
        check = checks_by_name(config, fake_devices(gpio_factory=lambda: factory))["buttons"]
    finally:
        holder.close()
    assert not check.ok and "status LED" in check.detail
    assert checks_by_name(config, fake_devices())["buttons"].detail.endswith("free, status LED on 17")


def _stale_deck(path: Path) -> Path:
    """A deck learnt with glyph weights this release does not ship."""
    from referee.vision.deck import LearntDeck

    embedding = np.zeros((1, 64), np.float32)
    embedding[0, 0] = 1.0
    LearntDeck(("red-1",), embedding, glyph_model="0123456789abcdef").save(path)
    return path


def test_the_model_check_loads_the_learnt_deck_run_would_read_with(tmp_path, ready):
    """After an update ships new glyph weights, a deck learnt before is refused by ``run``: the
    doctor says so too, whether the deck is named in the config or lies beside the profile."""
    from calibration.profile import deck_beside

    real = fake_devices(load_reader=doctor._load_reader)
    assert checks_by_name(ready, real)["model"].ok
    _stale_deck(deck_beside(ready.calibration.profile))
    check = checks_by_name(ready, real)["model"]
    assert not check.ok and check.fatal and "learn the deck again" in check.detail
    deck_beside(ready.calibration.profile).unlink()
    named = config_for(tmp_path, f'[vision]\ndeck = "{_stale_deck(tmp_path / "mine.deck.json")}"\n')
    check = checks_by_name(named, real)["model"]
    assert not check.ok and "mine.deck.json" in check.detail and "\n" not in check.detail


def test_calibrate_run_and_doctor_read_with_the_configured_networks(tmp_path):
    """A deck learnt at the table (``calibrate --deck``) lies in the embedding of the glyph
    classifier the game reads with, so all three build their reader from ``[vision]``."""
    import shutil

    from models import GLYPH_MODEL_FILE, model_file
    from referee.table.session import configured_reader, table_reader

    mine = tmp_path / "my_glyphs.onnx"
    shutil.copy(model_file(GLYPH_MODEL_FILE), mine)
    shutil.copy(model_file(GLYPH_MODEL_FILE).with_suffix(".json"), mine.with_suffix(".json"))
    config = config_for(tmp_path, f'[vision]\nglyph_model = "{mine}"\ncentre_model = "none"\n')
    for reader in (configured_reader(config), table_reader(config, tmp_path / "none.json", None)):
        assert reader.glyphs.path == mine and reader.centres is None


def test_run_reads_with_the_reader_the_model_check_loaded(ready):
    """``run`` checks first and then plays: the networks are loaded once, not twice."""
    loaded = []

    def load(config, profile):
        loaded.append(FakeReader())
        return loaded[-1]

    reader = refuse_to_start(ready, fake_devices(load_reader=load), RecordingSpeaker("de"))
    assert len(loaded) == 1 and reader is loaded[0]
