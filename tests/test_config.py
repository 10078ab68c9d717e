"""The config file: defaults, the documented example, and one precise line for every kind of mistake."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from referee.errors import UserError
from referee.table.config import RefereeConfig, default_config_path, load_config, parse_config

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "docs" / "referee.example.toml"
PLAYERS = 'players = ["Anna", "Ben", "Clara"]\n'


def error_of(text: str) -> str:
    with pytest.raises(UserError) as error:
        parse_config(text)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_minimal_file_gets_every_default(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    config = parse_config(PLAYERS)
    assert config.players == ("Anna", "Ben", "Clara")
    assert config.language == "en" and config.rules.build().stacking == "off"
    assert config.journal.path == tmp_path / "data" / "uno-referee" / "journal.sqlite3"
    assert config.calibration.profile == tmp_path / "config" / "uno-referee" / "calibration.json"
    assert config.speech.enabled and config.camera.source == "0"


def test_documented_example_parses_and_names_every_key():
    config = load_config(EXAMPLE)
    assert config.players == ("Anna", "Ben", "Clara", "Dan")
    assert config.buttons.pins()["blue"] == 21 and config.camera.width == 1920
    text = EXAMPLE.read_text(encoding="utf-8")
    defaults = RefereeConfig()
    for section in dataclasses.fields(RefereeConfig):
        value = getattr(defaults, section.name)
        keys = (
            [f.name for f in dataclasses.fields(value)] if dataclasses.is_dataclass(value) else [section.name]
        )
        if section.name == "rules":
            keys = ["preset"]
        else:
            assert section.name == keys[0] or f"[{section.name}]" in text, section.name
        for key in keys:
            assert re.search(rf"^{key} = ", text, re.MULTILINE), f"{section.name}.{key} is not documented"


def test_example_values_are_the_defaults(monkeypatch):
    """The example says each line shows the default: it must not drift from the code."""
    monkeypatch.setenv("HOME", "/home/pi")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    example = load_config(EXAMPLE)
    defaults = parse_config('players = ["Anna", "Ben", "Clara", "Dan"]')
    assert example == defaults


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[speach]\nenabled = false", "unknown key 'speach' (did you mean 'speech'?)"),
        ("[speech]\nrat = 150", "unknown key 'speech.rat' (did you mean 'speech.rate'?)"),
        ("[speech]\nrate = 'fast'", "speech.rate must be a whole number, got 'fast'"),
        ("[speech]\nrate = 20", "speech.rate must be 80 to 400 (words a minute), got 20"),
        ("[speech]\nenabled = 'yes'", "speech.enabled must be true or false, got 'yes'"),
        ("[camera]\nwidth = true", "camera.width must be a whole number, got True"),
        ('language = "fr"', "language must be one of de, nl, en, got 'fr'"),
        ('language = "DE"', "language must be one of de, nl, en, got 'DE' (did you mean 'de'?)"),
        ("[buttons]\nuno = 5", "GPIO pin 5 is given to both buttons.draw and buttons.uno"),
        ("[buttons]\nred = 40", "buttons.red = 40 is not a GPIO pin: use a BCM number from 2 to 27"),
        (
            '[buttons]\ninput = "gpoi"',
            "buttons.input must be one of auto, gpio, keyboard, got 'gpoi' (did you mean 'gpio'?)",
        ),
        ("[rules]\nstackin = 'off'", "[rules] unknown rules option 'stackin'; did you mean 'stacking'?"),
        ('[rules]\npreset = "house"', "[rules] unknown rules preset 'house'"),
        ("speech = 3", "speech must be a section like [speech], got 3"),
        ("[journal]\npath = 7", "journal.path must be a path in quotes, got 7"),
        ('[detector]\nprecision = "int4"', "detector.precision must be one of float, int8, got 'int4'"),
    ],
)
def test_mistakes_are_one_precise_line(text, expected):
    assert expected in error_of(PLAYERS + text)


def test_the_detector_precision_picks_the_shipped_weights(monkeypatch):
    monkeypatch.delenv("UNO_REFEREE_MODEL", raising=False)
    default = parse_config(PLAYERS).detector
    int8 = parse_config(PLAYERS + '[detector]\nprecision = "int8"').detector
    assert (Path(default.model_path()).name, Path(int8.model_path()).name) == (
        "uno_cards.onnx",
        "uno_cards.int8.onnx",
    )
    assert Path(int8.model_path()).is_file()  # shipped beside the float weights
    chosen = parse_config(PLAYERS + '[detector]\nmodel = "/m.onnx"\nprecision = "int8"').detector
    assert chosen.model_path() == "/m.onnx"  # a model file named outright wins


def test_toml_syntax_error_names_the_line():
    message = error_of(PLAYERS + "[speech]\nrate = = 3\n")
    assert message.startswith("referee.toml is not valid TOML") and "line 3" in message


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        ('players = ["Anna"]', "2 to 10 players, got 1"),
        ('players = ["Anna", "anna"]', "'anna' is listed twice"),
        ('players = ["Anna", " "]', "empty name"),
        ("players = 'Anna, Ben'", "must be a list of names"),
        ('language = "de"', "players is missing"),
    ],
)
def test_player_mistakes(players, expected):
    assert expected in error_of(players)


def test_rules_overrides_reach_the_rules_core():
    config = parse_config(PLAYERS + '[rules]\npreset = "langfassung"\njump_in = true\ntarget_score = 300\n')
    rules = config.rules.build()
    assert (rules.stacking, rules.jump_in, rules.target_score) == ("s2_combos", True, 300)


def test_files_missing_or_absent(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_config_path() == tmp_path / "uno-referee" / "referee.toml"
    assert load_config(None).players == ()  # no file: defaults, and commands that need players say so
    with pytest.raises(UserError, match="no players configured"):
        load_config(None).require_players()
    with pytest.raises(UserError, match=r"not found: copy docs/referee\.example\.toml"):
        load_config(tmp_path / "missing.toml")
    path = tmp_path / "mine.toml"
    path.write_text(PLAYERS + 'language = "nl"\n', encoding="utf-8")
    assert load_config(path).language == "nl"


def test_snapshot_is_plain_data():
    import json

    snapshot = parse_config(PLAYERS + "[rules]\njump_in = true\n").snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert snapshot["players"] == ["Anna", "Ben", "Clara"] and snapshot["rules"]["overrides"] == {
        "jump_in": True
    }
