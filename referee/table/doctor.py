"""The referee's self-check: every device and file it needs, one verdict each, with the fix.

``uno-referee doctor`` prints every check; ``uno-referee run`` runs the fatal ones first and says
the first failure in one sentence, spoken and printed, instead of failing somewhere in the middle.
Every device is reached through :class:`Devices`, so the tests drive each check with fakes (a
scripted camera, gpiozero's mock pins, a list of voices) and the Pi runs the same code.

A check is *fatal* when the referee cannot referee without it (config, calibration, camera,
discard zone in the picture, buttons, model, journal); speech and speed only make it worse.
"""

from __future__ import annotations

import io
import shutil
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.profile import CalibrationProfile
from hardware.buttons import GpioButtons
from hardware.camera import FrameSource, open_source, read_still
from hardware.speaker import Announcer, Pyttsx3Voice, Speaker, SpeechUnavailable, choose_voice_id
from hardware.status_light import GpioStatusLight
from referee.errors import UserError
from referee.table.config import RefereeConfig
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.pile import ReadsCards

#: Free disk below which a journal may fill the card mid-game (a game journals a few hundred kB).
MIN_FREE_BYTES = 100 * 1024 * 1024
#: A pile read slower than this makes the referee noticeably late (docs/hardware.md §8).
SLOW_READ_MS = 1500.0
#: A picture darker than this (mean grey, 0–255) is a covered lens or a dark room.
DARK_PICTURE = 20.0
#: A discard zone darker than this share of the whole picture is covered (a hand, a box, a shadow).
COVERED_SHARE = 0.45


@dataclass(frozen=True)
class Check:
    """One line of the self-check: ``detail`` says what was found and, when not ``ok``, what to do."""

    name: str
    ok: bool
    detail: str
    fatal: bool = True

    def line(self) -> str:
        """``✔ camera: …``; a failure the referee can run with says so."""
        mark = "✔" if self.ok else "✘"
        name = self.name if self.ok or self.fatal else f"{self.name} (the referee runs without it)"
        return f"{mark} {name}: {self.detail}"


def _list_voices() -> Sequence[Any]:
    """The voices pyttsx3 (espeak-ng) offers on this machine."""
    import pyttsx3

    engine = pyttsx3.init()
    try:
        return list(engine.getProperty("voices"))
    finally:
        engine.stop()


def _load_reader(config: RefereeConfig, profile: CalibrationProfile | None) -> ReadsCards:
    """The reader ``run`` would read with, learnt deck included (one learnt with other weights fails)."""
    from referee.table.session import table_reader

    return table_reader(config, config.calibration.profile, profile)


def _gpio_factory() -> Any:
    """gpiozero's pin factory for this board; raises a gpiozero error where there is no GPIO."""
    import warnings

    from gpiozero import Device

    with warnings.catch_warnings():  # one warning per pin library tried: noise, the check says it
        warnings.simplefilter("ignore")
        return Device.ensure_pin_factory()


@dataclass
class Devices:
    """How the checks reach the machine: the real devices by default, fakes in tests."""

    open_camera: Callable[[RefereeConfig], FrameSource] = lambda config: open_source(
        config.camera.source, config.camera.width, config.camera.height
    )
    gpio_factory: Callable[[], Any] = _gpio_factory
    check_speech: Callable[[], None] = Pyttsx3Voice.check_available
    list_voices: Callable[[], Sequence[Any]] = _list_voices
    load_reader: Callable[[RefereeConfig, CalibrationProfile | None], ReadsCards] = _load_reader
    free_bytes: Callable[[Path], int] = lambda path: shutil.disk_usage(path).free
    clock: Callable[[], float] = time.perf_counter
    #: What the camera check saw, for the discard-zone check.
    picture: np.ndarray | None = field(default=None, repr=False)
    #: What the model check loaded, for the game to read with (loading it twice costs seconds on a Pi).
    reader: ReadsCards | None = field(default=None, repr=False)


def run_checks(
    config: RefereeConfig, devices: Devices | None = None, *, fatal_only: bool = False
) -> Iterator[Check]:
    """Every check in order, each as soon as it is done (a slow camera or model shows progress)."""
    devices = devices or Devices()
    yield _check_players(config)
    profile, check = _check_calibration(config)
    yield check
    yield _check_camera(config, devices)
    if check.ok and profile is not None and devices.picture is not None:
        yield from _check_discard_zone(profile, devices.picture, fatal_only)
    yield _check_buttons(config, devices)
    if not fatal_only:
        yield from _check_speech(config, devices)
    yield _check_model(config, profile, devices, fatal_only)
    yield _check_journal(config, devices)


def first_fatal_problem(config: RefereeConfig, devices: Devices | None = None) -> Check | None:
    """The first fatal check that fails, or None when the referee can run."""
    return next((c for c in run_checks(config, devices, fatal_only=True) if c.fatal and not c.ok), None)


def refuse_to_start(
    config: RefereeConfig, devices: Devices | None = None, speaker: Announcer | None = None
) -> ReadsCards | None:
    """Raise the first fatal problem as a one-line :class:`UserError`, after saying it at the table;
    with none, the reader the model check loaded, which the game reads with."""
    devices = devices or Devices()
    problem = first_fatal_problem(config, devices)
    if problem is None:
        return devices.reader
    if speaker is None:
        speaker = _quiet_speaker(config)
    try:
        speaker.say(PhraseBook(config.language).message(f"cannot_start_{problem.name.replace(' ', '_')}"))
    finally:
        speaker.close()
    raise UserError(f"{problem.name}: {problem.detail} (`uno-referee doctor` checks everything)")


def _quiet_speaker(config: RefereeConfig) -> Announcer:
    """A voice that says the problem without printing it again, or nothing where speech cannot work
    (the printed line is then all there is, and speech's own absence is no second error line)."""
    try:
        if not config.speech.enabled:
            raise SpeechUnavailable("off in the config")
        Pyttsx3Voice.check_available()
    except SpeechUnavailable:
        return Speaker(None, config.language, io.StringIO())
    return Speaker(Pyttsx3Voice(config.speech.rate), config.language, io.StringIO())


def _check_players(config: RefereeConfig) -> Check:
    try:
        players = config.require_players()
    except UserError as error:
        return Check("config", False, str(error))
    return Check("config", True, f"{len(players)} players ({', '.join(players)}), language {config.language}")


def _check_calibration(config: RefereeConfig) -> tuple[CalibrationProfile | None, Check]:
    path = config.calibration.profile
    if not path.is_file():
        return None, Check("calibration", False, f"none at {path}: run `uno-referee calibrate`")
    try:
        profile = CalibrationProfile.load(path)
    except UserError as error:
        return None, Check("calibration", False, str(error))
    made = profile.frame_size
    wanted = (config.camera.width, config.camera.height)
    if made != wanted:
        return profile, Check(
            "calibration",
            False,
            f"made for {made[0]} × {made[1]} pictures but [camera] asks for {wanted[0]} × {wanted[1]}: "
            "set width and height back or run `uno-referee calibrate` again",
        )
    return profile, Check("calibration", True, f"{path}, made for {made[0]} × {made[1]} ({profile.method})")


def _check_camera(config: RefereeConfig, devices: Devices) -> Check:
    devices.picture = None
    try:
        frame = read_still(devices.open_camera(config))
    except UserError as error:
        return Check("camera", False, f"{error} (docs/hardware.md §5)")
    height, width = frame.image.shape[:2]
    wanted = (config.camera.width, config.camera.height)
    if (width, height) != wanted:
        return Check(
            "camera",
            False,
            f"delivers {width} × {height} pictures, not the configured {wanted[0]} × {wanted[1]}: "
            "set [camera] width and height to a size this camera offers, then calibrate again",
        )
    devices.picture = frame.image
    return Check("camera", True, f"{config.camera.source}: pictures of {width} × {height}")


def _check_discard_zone(
    profile: CalibrationProfile, picture: np.ndarray, fatal_only: bool
) -> Iterator[Check]:
    view = profile.table_view()
    try:
        view.check_zones_in_frame()
    except UserError as error:
        yield Check("discard zone", False, str(error))
        return
    if fatal_only:
        return
    brightness = float(picture.mean())
    if brightness < DARK_PICTURE:
        yield Check(
            "discard zone",
            False,
            "the picture is black: take off the lens cap or switch on the light",
            fatal=False,
        )
        return
    zone = float(view.crop(picture, "discard").mean())
    if zone < COVERED_SHARE * brightness:
        yield Check(
            "discard zone",
            False,
            f"looks covered (brightness {zone:.0f} against {brightness:.0f} for the picture): "
            "clear the middle of the table",
            fatal=False,
        )
        return
    yield Check("discard zone", True, "inside the picture and clear")


def _check_buttons(config: RefereeConfig, devices: Devices) -> Check:
    buttons = config.buttons
    if buttons.input == "keyboard":
        return Check("buttons", True, 'the keyboard ([buttons] input = "keyboard")')
    try:
        factory = devices.gpio_factory()
    except Exception as error:  # gpiozero raises its own errors, and others from its pin libraries
        if buttons.input == "auto":
            return Check("buttons", True, "no GPIO on this machine: the keyboard stands in", fatal=False)
        return Check(
            "buttons",
            False,
            f"no GPIO here ({type(error).__name__}): on a Pi install python3-lgpio (docs/hardware.md §1), "
            'elsewhere set [buttons] input = "keyboard"',
        )
    try:
        GpioButtons(buttons.pins(), pin_factory=factory).close()
        if config.led.enabled:
            GpioStatusLight(config.led.pin, pin_factory=factory).close()
    except UserError as error:
        return Check("buttons", False, f"{error} (another program holds the pin? stop it)")
    pins = ", ".join(str(pin) for pin in buttons.pins().values())
    led = f", status LED on {config.led.pin}" if config.led.enabled else ""
    return Check("buttons", True, f"GPIO pins {pins} free{led}")


def _check_speech(config: RefereeConfig, devices: Devices) -> Iterator[Check]:
    if not config.speech.enabled:
        yield Check("speaker", True, "speech is off ([speech] enabled = false): console only", fatal=False)
        return
    try:
        devices.check_speech()
        voices = devices.list_voices()
    except (SpeechUnavailable, RuntimeError, OSError) as error:
        yield Check("speaker", False, f"{error}; the referee prints every sentence instead", fatal=False)
        return
    voice = choose_voice_id(voices, config.language)
    if voice is None:
        yield Check(
            "speaker",
            False,
            f"no {config.language} voice installed: sudo apt install espeak-ng-data (docs/hardware.md §1)",
            fatal=False,
        )
        return
    yield Check(
        "speaker",
        True,
        f'voice {voice} for {config.language}; test it: espeak-ng -v {voice} "Uno"',
        fatal=False,
    )


def _check_model(
    config: RefereeConfig, profile: CalibrationProfile | None, devices: Devices, fatal_only: bool
) -> Check:
    devices.reader = None
    try:
        reader = devices.reader = devices.load_reader(config, profile)
    except UserError as error:
        return Check("model", False, str(error))
    if fatal_only:
        return Check("model", True, "loads")
    crop = _discard_crop(profile, devices.picture)
    times = []
    for _ in range(3):
        started = devices.clock()
        reader.read(crop)
        times.append((devices.clock() - started) * 1000)
    latency = statistics.median(times)
    if latency > SLOW_READ_MS:
        faster = (
            'precision = "int8" or '
            if config.detector.precision == "float" and not config.detector.model
            else ""
        )
        return Check(
            "model",
            False,
            f"loads, but one read takes {latency:.0f} ms here: set [detector] {faster}pile_imgsz = 224 "
            "(docs/hardware.md §8)",
            fatal=False,
        )
    return Check("model", True, f"loads; one read takes {latency:.0f} ms here")


def _discard_crop(profile: CalibrationProfile | None, picture: np.ndarray | None) -> np.ndarray:
    """What the pile watcher reads: the camera's discard zone, else a grey one of the default size."""
    if profile is not None and picture is not None:
        try:
            return profile.table_view().crop(picture, "discard")
        except UserError:  # a picture of another size: the camera check has said so
            pass
    return np.full((400, 400, 3), 128, np.uint8)  # 200 mm at 2 px/mm, the default discard zone


def _check_journal(config: RefereeConfig, devices: Devices) -> Check:
    path = config.journal.path
    try:
        Journal.open(path).close()
    except UserError as error:
        return Check("journal", False, str(error))
    free = devices.free_bytes(path.parent)
    if free < MIN_FREE_BYTES:
        return Check(
            "journal",
            False,
            f"only {free // (1024 * 1024)} MB free on the disk of {path}: free some space "
            "(`sudo apt clean`, old videos)",
        )
    return Check("journal", True, f"{path} writable, {free / 1024**3:.1f} GB free")
