"""Buttons through gpiozero's mock pins, the keyboard fallback, debounce, and the seat picker."""

from __future__ import annotations

import dataclasses
import io
import threading

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.buttons import (
    KEYS,
    ButtonName,
    ButtonQueue,
    GpioButtons,
    KeyboardButtons,
    PickStep,
    SeatPicker,
    open_buttons,
)
from referee.errors import UserError
from referee.table.config import PIN_FIELDS, ButtonConfig


class StepClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def mock_pins():
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


def tap(pin) -> None:
    pin.drive_low()
    pin.drive_high()


def test_config_pins_and_button_names_agree():
    assert tuple(button.value for button in ButtonName) == PIN_FIELDS
    assert set(PIN_FIELDS) == {f.name for f in dataclasses.fields(ButtonConfig)} - {"input", "bounce_ms"}


def test_gpio_presses_arrive_in_order_with_their_names(mock_pins):
    clock = StepClock()
    buttons = GpioButtons(ButtonConfig().pins(), bounce_s=0.05, clock=clock)
    for name, t in (("uno", 1.0), ("red", 1.5), ("draw", 2.0)):
        clock.now = t
        tap(mock_pins.pin(ButtonConfig().pins()[name]))
    presses = buttons.drain()
    assert [(p.button, p.timestamp) for p in presses] == [
        (ButtonName.UNO, 1.0),
        (ButtonName.RED, 1.5),
        (ButtonName.DRAW, 2.0),
    ]
    assert buttons.get() is None
    buttons.close()


def test_contact_bounce_is_filtered_in_code(mock_pins):
    clock = StepClock()
    buttons = GpioButtons({"catch": 13}, bounce_s=0.05, clock=clock)
    pin = mock_pins.pin(13)
    for t in (0.0, 0.01, 0.03, 0.2):  # three bounces of one press, then a second press
        clock.now = t
        tap(pin)
    assert [p.timestamp for p in buttons.drain()] == [0.0, 0.2]
    buttons.close()


def test_presses_from_another_thread_reach_the_queue(mock_pins):
    buttons = GpioButtons({"challenge": 19}, bounce_s=0.0)
    worker = threading.Thread(target=lambda: [tap(mock_pins.pin(19)) for _ in range(20)])
    worker.start()
    worker.join()
    assert len(buttons.drain()) == 20
    buttons.close()


def test_pin_already_in_use_is_a_user_error(mock_pins):
    with pytest.raises(UserError, match="GPIO pin 5 for the uno button"):
        GpioButtons({"draw": 5, "uno": 5})
    GpioButtons({"draw": 5}).close()  # the half-built set was released


def test_keyboard_maps_keys_to_the_same_buttons():
    keyboard = KeyboardButtons(io.StringIO("du cxzRygb?"))
    keyboard.wait_until_read()
    names = [p.button.value for p in keyboard.drain()]
    assert names == ["draw", "uno", "draw", "catch", "challenge", "undo", "red", "yellow", "green", "blue"]
    keyboard.close()
    assert set(KEYS.values()) == set(ButtonName)


def test_keyboard_reads_a_pipe_without_blocking_the_caller():
    import os

    read_end, write_end = os.pipe()
    with os.fdopen(read_end) as stream:
        keyboard = KeyboardButtons(stream)
        assert keyboard.get(timeout=0) is None  # nothing typed yet: returns at once
        os.write(write_end, b"u")
        assert keyboard.get(timeout=2).button is ButtonName.UNO
        keyboard.close()
    os.close(write_end)


def test_auto_falls_back_to_the_keyboard_without_gpio(monkeypatch, capsys):
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "native")  # what a laptop ends up with: no Pi board found
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    buttons = open_buttons("auto", ButtonConfig().pins(), 0.05)
    assert isinstance(buttons, KeyboardButtons)
    assert "using the keyboard" in capsys.readouterr().err
    buttons.close()


def test_auto_uses_gpio_when_the_board_has_it(mock_pins):
    buttons = open_buttons("auto", ButtonConfig().pins(), 0.05)
    assert isinstance(buttons, GpioButtons)
    buttons.close()


def test_queue_alone_is_the_test_double():
    buttons = ButtonQueue(bounce_s=0.0)
    assert buttons.press(ButtonName.GREEN)
    assert buttons.get(timeout=0.01).button is ButtonName.GREEN


def test_seat_picker_cycles_both_ways_and_confirms():
    picker = SeatPicker(["Anna", "Ben", "Clara", "Dan"], start="Anna")
    steps = [
        picker.feed(b) for b in (ButtonName.YELLOW, ButtonName.YELLOW, ButtonName.BLUE, ButtonName.GREEN)
    ]
    assert steps == [
        PickStep("highlight", "Dan"),
        PickStep("highlight", "Clara"),
        PickStep("highlight", "Dan"),
        PickStep("chosen", "Dan"),
    ]
    assert picker.done and picker.feed(ButtonName.BLUE) == PickStep("ignored")


def test_seat_picker_cancel_ignore_and_single_candidate():
    picker = SeatPicker(["Anna", "Ben"])
    assert picker.feed(ButtonName.UNO) == PickStep("ignored") and not picker.done
    assert picker.feed(ButtonName.UNDO) == PickStep("cancelled")
    assert SeatPicker(["Ben"]).result == PickStep("chosen", "Ben")
    assert SeatPicker(["Anna", "Ben"]).feed(ButtonName.RED) == PickStep("cancelled")


def test_wiring_doc_matches_the_default_pins():
    """docs/hardware.md's wiring table is what a newcomer solders: it must match the config defaults."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "hardware.md").read_text(encoding="utf-8")
    # BCM → physical pin on the 40-pin header (Raspberry Pi pinout), and the ground pins
    physical = {5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 12: 32, 16: 36, 20: 38, 21: 40}
    grounds = {6, 9, 14, 20, 25, 30, 34, 39}
    rows = {}
    for line in doc.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 5 and cells[2].isdigit():
            rows[cells[0].split()[0].lower()] = (int(cells[2]), int(cells[3]), int(cells[4]))
    defaults = ButtonConfig().pins()
    assert set(rows) == set(defaults)
    for name, (bcm, pin, ground) in rows.items():
        assert bcm == defaults[name] and pin == physical[bcm] and ground in grounds, name
    for key, button in KEYS.items():
        shown = {" ": "Space", "\n": "Enter", "\x7f": "Backspace"}.get(key, f"`{key}`")
        assert shown in doc, f"key {key!r} for {button.value} is not documented"
