"""An optional status LED on a GPIO pin: what the referee is doing, seen from across the table.

One LED (to a GPIO pin through a 330 Ω resistor, to ground) shows four states by how it blinks:

=========  ==========================  ============================================================
state      LED                         meaning
=========  ==========================  ============================================================
ready      steady on                   watching the pile, nothing to do
reading    fast blink (0.1 s)          something moved on the pile: reading it
waiting    slow blink (0.6 s)          waiting for a button (a colour, a target, a challenge, hands)
error      short flash each second     the camera stopped delivering pictures
=========  ==========================  ============================================================

:class:`GpioStatusLight` drives it through gpiozero (its ``MockFactory`` off the Pi), and
:class:`RecordingStatusLight` is the fake the tests read.
"""

from __future__ import annotations

from typing import Literal, Protocol

from referee.errors import UserError

LightState = Literal["ready", "reading", "waiting", "error"]

#: (seconds on, seconds off) per state; None: steady on.
PATTERNS: dict[str, tuple[float, float] | None] = {
    "ready": None,
    "reading": (0.1, 0.1),
    "waiting": (0.6, 0.6),
    "error": (0.05, 0.95),
}


class StatusLight(Protocol):
    def show(self, state: LightState) -> None: ...

    def close(self) -> None: ...


class GpioStatusLight:
    """The LED on BCM pin ``pin``; ``show`` changes the pattern only when the state changes."""

    def __init__(self, pin: int, pin_factory=None) -> None:
        from gpiozero import LED, GPIOZeroError

        try:
            self._led = LED(pin, pin_factory=pin_factory)
        except GPIOZeroError as error:
            raise UserError(
                f"cannot use GPIO pin {pin} for the status LED ({type(error).__name__}: {error}): "
                "check [led] pin in the config, or set [led] enabled = false"
            ) from None
        self.state: str | None = None

    def show(self, state: LightState) -> None:
        if state == self.state:
            return
        self.state = state
        pattern = PATTERNS[state]
        if pattern is None:
            self._led.on()
        else:
            self._led.blink(on_time=pattern[0], off_time=pattern[1], background=True)

    def close(self) -> None:
        self._led.close()


class RecordingStatusLight:
    """The test double: every change of state, in order."""

    def __init__(self) -> None:
        self.states: list[str] = []

    def show(self, state: LightState) -> None:
        if not self.states or self.states[-1] != state:
            self.states.append(state)

    def close(self) -> None:
        pass
