"""The referee's one TOML config file: players, language, rules, buttons, camera, paths, speech, detector.

Everything but ``players`` has a default, so a minimal file is two lines. Every mistake becomes one
:class:`~referee.errors.UserError` line that names the key and says what to write instead; the schema
is the dataclasses below, read by one generic converter (their type hints are the types a key takes).

>>> config = parse_config('players = ["Anna", "Ben"]\\nlanguage = "nl"')
>>> config.players, config.language, config.rules.preset, config.buttons.uno
(('Anna', 'Ben'), 'nl', 'official', 6)
>>> parse_config('players = ["Anna", "Ben"]\\nlangauge = "nl"')
Traceback (most recent call last):
...
referee.errors.UserError: referee.toml: unknown key 'langauge' (did you mean 'language'?)
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.camera import DEFAULT_SIZE
from models import PRECISIONS, default_model_path
from referee.errors import UserError
from referee.rules.options import Rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LANGUAGES: tuple[str, ...] = ("de", "nl", "en")
MIN_PLAYERS, MAX_PLAYERS = 2, 10  # RULES.md R4
#: BCM numbers of the Pi's general-purpose header pins a button may use.
GPIO_PINS = range(2, 28)


def user_config_dir() -> Path:
    """``$XDG_CONFIG_HOME/uno-referee`` (``~/.config/uno-referee``): where the config and calibration live."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "uno-referee"


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/uno-referee`` (``~/.local/share/uno-referee``): where the journal lives."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "uno-referee"


def default_config_path() -> Path:
    return user_config_dir() / "referee.toml"


def _choices(*allowed: str) -> dict[str, Any]:
    """Field metadata: the key takes one of these strings."""
    return {"choices": allowed}


def _check(test: Callable[[Any], bool], requirement: str) -> dict[str, Any]:
    """Field metadata: the value must pass ``test``; ``requirement`` completes "must be ..."."""
    return {"check": test, "requirement": requirement}


@dataclass(frozen=True)
class RulesConfig:
    """A preset (RULES.md §10) plus single-option overrides, checked by the rules core when it is present."""

    preset: str = "official"
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def build(self) -> Rules:
        """The complete rule set for the rules core's ``Table``."""
        return Rules.preset(self.preset, **self.overrides)


@dataclass(frozen=True)
class ButtonConfig:
    """Where the buttons come from and the BCM pin of each (button to GND, internal pull-up).

    ``input``: ``gpio`` (a Pi), ``keyboard`` (a laptop), ``auto`` (GPIO when the board has it).
    ``draw`` is the draw/pass button. The default pins avoid I2C, SPI and UART (docs/hardware.md).
    """

    input: str = field(default="auto", metadata=_choices("auto", "gpio", "keyboard"))
    bounce_ms: int = field(default=60, metadata=_check(lambda v: 0 <= v <= 1000, "between 0 and 1000"))
    draw: int = 5
    uno: int = 6
    catch: int = 13
    challenge: int = 19
    undo: int = 26
    red: int = 12
    yellow: int = 16
    green: int = 20
    blue: int = 21

    def pins(self) -> dict[str, int]:
        """Button name → BCM pin, for :class:`hardware.buttons.GpioButtons`."""
        return {name: getattr(self, name) for name in PIN_FIELDS}


#: The button fields of :class:`ButtonConfig`, in the order of :class:`hardware.buttons.ButtonName`.
PIN_FIELDS: tuple[str, ...] = ("draw", "uno", "catch", "challenge", "undo", "red", "yellow", "green", "blue")


@dataclass(frozen=True)
class CameraConfig:
    """``source``: a camera index (``0``), ``picamera``, a stream URL, a video file or a folder of images."""

    source: str = "0"
    width: int = field(
        default=DEFAULT_SIZE[0], metadata=_check(lambda v: 160 <= v <= 4096, "between 160 and 4096")
    )
    height: int = field(
        default=DEFAULT_SIZE[1], metadata=_check(lambda v: 120 <= v <= 3072, "between 120 and 3072")
    )


@dataclass(frozen=True)
class SpeechConfig:
    enabled: bool = True
    rate: int = field(default=165, metadata=_check(lambda v: 80 <= v <= 400, "80 to 400 (words a minute)"))


@dataclass(frozen=True)
class DetectorConfig:
    """``model``: an ONNX file; empty means the model shipped in ``models/``, in ``precision`` (float,
    or int8: about 0.6 of the time on CPUs with 8-bit dot products). ``pile_imgsz``: the
    input size the discard zone is read at, once per look; 0 (the default) reads it as photos and
    hands are read, at the model's own input with the finer second look (docs/hardware.md, §8)."""

    backend: str = field(default="onnxruntime", metadata=_choices("onnxruntime", "opencv-dnn"))
    model: str = ""
    precision: str = field(default=PRECISIONS[0], metadata=_choices(*PRECISIONS))
    threads: int = field(default=2, metadata=_check(lambda v: 1 <= v <= 16, "between 1 and 16"))
    pile_imgsz: int = field(
        default=0,
        metadata=_check(
            lambda v: v == 0 or (96 <= v <= 640 and v % 32 == 0),
            "0 (the model's own) or a multiple of 32 from 96 to 640",
        ),
    )

    def model_path(self) -> str:
        """The detector file to load: ``model`` if set, else the shipped one in ``precision``."""
        return self.model or str(default_model_path(self.precision))


@dataclass(frozen=True)
class VisionConfig:
    """``deck``: a deck learnt with ``uno-referee deck learn`` (or ``calibrate --deck``), read before
    the general model; empty: none. ``glyph_model``: the glyph classifier ONNX; empty means the one
    shipped in ``models/``. ``corner_model``: the card-corner check ONNX; empty means the shipped one
    where installed, "none" reads without it. ``pair_model``: the pair check ONNX, likewise, and
    ``centre_model``: the centre reader ONNX, likewise."""

    deck: str = ""
    glyph_model: str = ""
    corner_model: str = ""
    pair_model: str = ""
    centre_model: str = ""


@dataclass(frozen=True)
class LedConfig:
    """An optional status LED (docs/hardware.md §12): ready, reading, waiting for a button, error."""

    enabled: bool = False
    pin: int = 17


@dataclass(frozen=True)
class CalibrationConfig:
    profile: Path = field(default_factory=lambda: user_config_dir() / "calibration.json")


@dataclass(frozen=True)
class JournalConfig:
    """``pictures_mb``: all the discard-zone pictures of the journal together stay within this many
    megabytes (the oldest are deleted first; 0 keeps none)."""

    path: Path = field(default_factory=lambda: user_data_dir() / "journal.sqlite3")
    pictures_mb: int = field(default=200, metadata=_check(lambda v: 0 <= v <= 100_000, "0 to 100000"))


@dataclass(frozen=True)
class WebConfig:
    """``listen``: serve the live scoreboard page on ``PORT`` (localhost) or ``HOST:PORT``; empty: off."""

    listen: str = ""


@dataclass(frozen=True)
class RefereeConfig:
    """The whole file. ``players`` are the seats clockwise; an empty tuple only when no file was given."""

    players: tuple[str, ...] = ()
    language: str = field(default="en", metadata=_choices(*LANGUAGES))
    rules: RulesConfig = field(default_factory=RulesConfig)
    buttons: ButtonConfig = field(default_factory=ButtonConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    led: LedConfig = field(default_factory=LedConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    web: WebConfig = field(default_factory=WebConfig)

    def require_players(self) -> tuple[str, ...]:
        """The players, or the one-line error a command that runs a game must give without them."""
        if not self.players:
            raise UserError(
                f'no players configured: write players = ["Anna", "Ben"] into {default_config_path()} '
                "(see docs/referee.example.toml) or pass --config FILE"
            )
        return self.players

    def snapshot(self) -> dict[str, Any]:
        """Plain JSON-able data (paths as text) for the journal's record of how a game was set up."""
        return json.loads(json.dumps(dataclasses.asdict(self), default=str))


def load_config(path: str | os.PathLike[str] | None = None) -> RefereeConfig:
    """Read ``path``; without one, the default file if it exists, else the defaults (no players)."""
    if path is None:
        path = default_config_path()
        if not path.exists():
            return RefereeConfig()
    path = Path(path).expanduser()
    text = read_text_file(path, "config file", "copy docs/referee.example.toml there")
    return parse_config(text, source=path.name)


def read_text_file(path: Path, what: str, when_missing: str = "") -> str:
    """A UTF-8 text file the user named, or the one-line error that says which file and what to do."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        hint = f": {when_missing}" if when_missing else ""
        raise UserError(f"{what} {path} not found{hint}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read {what} {path}: {error}") from None


def parse_config(text: str, source: str = "referee.toml") -> RefereeConfig:
    """Parse and validate TOML text; ``source`` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{source} is not valid TOML: {error}") from None
    config = _build(RefereeConfig, data, source, prefix="")
    if "players" not in data:
        raise UserError(f'{source}: players is missing: add a line like players = ["Anna", "Ben", "Clara"]')
    _check_players(config.players, source)
    _check_pins(config.buttons, source, config.led)
    _check_rules(config.rules, source)
    return config


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--config`` option every sub-command that reads the config shares."""
    parser.add_argument(
        "--config", metavar="FILE", help=f"the referee's TOML config (default: {default_config_path()})"
    )


def with_command_line(
    config: RefereeConfig,
    *,
    players: str | None = None,
    preset: str | None = None,
    language: str | None = None,
    speech: bool | None = None,
    journal: Path | None = None,
) -> RefereeConfig:
    """The config with what a command line gives instead, checked like the file's own keys.

    ``players``: the seats clockwise, separated by commas (``"Ann,Ben,Cy"``); ``preset``: a rules
    preset, without the file's single-option overrides.

    >>> with_command_line(RefereeConfig(), players="Ann, Ben,Cy", preset="spielhilfe").players
    ('Ann', 'Ben', 'Cy')
    """
    changes: dict[str, Any] = {}
    if players is not None:
        changes["players"] = tuple(name.strip() for name in players.split(","))
        _check_players(changes["players"], "--players")
    if preset is not None:
        changes["rules"] = RulesConfig(preset=preset)
        _check_rules(changes["rules"], "--rules")
    if language is not None:
        changes["language"] = language
    if speech is not None:
        changes["speech"] = dataclasses.replace(config.speech, enabled=speech)
    if journal is not None:
        changes["journal"] = dataclasses.replace(config.journal, path=journal.expanduser())
    return dataclasses.replace(config, **changes)


# --- the generic converter -------------------------------------------------------------------------

_TYPE_WORDS = {bool: "true or false", int: "a whole number", str: "text in quotes", Path: "a path in quotes"}


def _build(cls: type, data: Any, source: str, prefix: str) -> Any:
    """One dataclass from one TOML table, recursing into nested sections."""
    where = prefix.rstrip(".") or "the top level"
    if not isinstance(data, dict):
        raise UserError(f"{source}: {where} must be a section like [{where}], got {data!r}")
    if cls is RulesConfig:
        return _build_rules(data, source)
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else f" (known: {', '.join(names)})"
            raise UserError(f"{source}: unknown key '{prefix}{key}'{hint}")
        meta = next(f.metadata for f in dataclasses.fields(cls) if f.name == key)
        values[key] = _convert(hints[key], value, meta, source, f"{prefix}{key}")
    return cls(**values)


def _convert(hint: Any, value: Any, meta: Mapping[str, Any], source: str, key: str) -> Any:
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, source, prefix=f"{key}.")
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise UserError(f'{source}: {key} must be a list of names like ["Anna", "Ben"], got {value!r}')
        return tuple(item.strip() for item in value)
    if isinstance(hint, types.UnionType):  # pragma: no cover - no optional keys today
        hint = typing.get_args(hint)[0]
    wanted = str if hint is Path else hint
    if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
        raise UserError(f"{source}: {key} must be {_TYPE_WORDS[hint]}, got {value!r}")
    if "choices" in meta and value not in meta["choices"]:
        close = difflib.get_close_matches(str(value).lower(), meta["choices"], n=1)
        hint_text = f" (did you mean '{close[0]}'?)" if close else ""
        allowed = ", ".join(meta["choices"])
        raise UserError(f"{source}: {key} must be one of {allowed}, got {value!r}{hint_text}")
    if "check" in meta and not meta["check"](value):
        raise UserError(f"{source}: {key} must be {meta['requirement']}, got {value!r}")
    return Path(value).expanduser() if hint is Path else value


def _build_rules(data: dict[str, Any], source: str) -> RulesConfig:
    preset = data.get("preset", RulesConfig.preset)
    if not isinstance(preset, str):
        raise UserError(f"{source}: rules.preset must be text in quotes, got {preset!r}")
    return RulesConfig(preset=preset, overrides={k: v for k, v in data.items() if k != "preset"})


# --- checks across keys ----------------------------------------------------------------------------


def _check_players(players: tuple[str, ...], source: str) -> None:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        count = len(players)
        raise UserError(f"{source}: players must name {MIN_PLAYERS} to {MAX_PLAYERS} players, got {count}")
    if any(not name for name in players):
        raise UserError(f"{source}: players contains an empty name")
    seen: set[str] = set()
    for name in players:
        if name.casefold() in seen:
            raise UserError(f"{source}: player {name!r} is listed twice: give every seat its own name")
        seen.add(name.casefold())


def _check_pins(buttons: ButtonConfig, source: str, led: LedConfig | None = None) -> None:
    owner: dict[int, str] = {}
    pins = {f"buttons.{name}": pin for name, pin in buttons.pins().items()}
    if led is not None and led.enabled:
        pins["led.pin"] = led.pin
    for name, pin in pins.items():
        if pin not in GPIO_PINS:
            raise UserError(f"{source}: {name} = {pin} is not a GPIO pin: use a BCM number from 2 to 27")
        if pin in owner:
            both = f"{owner[pin]} and {name}"
            raise UserError(f"{source}: GPIO pin {pin} is given to both {both}: give each button its own pin")
        owner[pin] = name


def _check_rules(rules: RulesConfig, source: str) -> None:
    """The rules core owns the option list: let it judge the preset and every override."""
    try:
        rules.build()
    except UserError as error:
        raise UserError(f"{source}: [rules] {error}") from None
