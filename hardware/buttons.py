"""Table buttons: GPIO push-buttons on a Pi, the keyboard on a laptop, the same queue of presses.

Every input device puts :class:`ButtonPress` items into one thread-safe queue, after a software
debounce (gpiozero's ``bounce_time`` is not emulated by mock pins and misbehaves with some cheap
switches, so one code path does it for everyone). The camera loop drains the queue between
frames and never blocks on a button.

:class:`SeatPicker` is the pure state machine behind "which player?" prompts (catch target,
Swap Hands / Seven-O target, who called UNO): the colour buttons cycle through the players and
confirm, see docs/hardware.md.

>>> picker = SeatPicker(["Anna", "Ben", "Clara"], start="Ben")
>>> picker.feed(ButtonName.BLUE), picker.feed(ButtonName.GREEN)
(PickStep(state='highlight', player='Clara'), PickStep(state='chosen', player='Clara'))
"""

from __future__ import annotations

import contextlib
import enum
import io
import os
import queue
import select
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TextIO

from referee.errors import UserError

Clock = Callable[[], float]


class ButtonName(str, enum.Enum):
    """The buttons on the referee's box; values are the config keys under ``[buttons]``."""

    DRAW = "draw"  # draw a card, or pass after drawing
    UNO = "uno"
    CATCH = "catch"
    CHALLENGE = "challenge"
    UNDO = "undo"
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"


#: The colour a colour button declares when the referee asks for a wild's colour.
BUTTON_COLOUR: dict[ButtonName, str] = {
    ButtonName.RED: "red",
    ButtonName.YELLOW: "yellow",
    ButtonName.GREEN: "green",
    ButtonName.BLUE: "blue",
}

#: Keyboard fallback: key → button. Space and Enter also draw/pass, Backspace also undoes.
KEYS: dict[str, ButtonName] = {
    "d": ButtonName.DRAW,
    " ": ButtonName.DRAW,
    "\n": ButtonName.DRAW,
    "u": ButtonName.UNO,
    "c": ButtonName.CATCH,
    "x": ButtonName.CHALLENGE,
    "z": ButtonName.UNDO,
    "\x7f": ButtonName.UNDO,
    "r": ButtonName.RED,
    "y": ButtonName.YELLOW,
    "g": ButtonName.GREEN,
    "b": ButtonName.BLUE,
}


#: Seconds a button is held down for a long press: new game, next round, end of match, shut down.
HOLD_S = 2.0

#: On a keyboard, Shift and the key is the long press of these buttons (a key cannot be held).
HOLD_KEYS: dict[str, ButtonName] = {
    "G": ButtonName.GREEN,
    "B": ButtonName.BLUE,
    "R": ButtonName.RED,
    "Z": ButtonName.UNDO,
}


@dataclass(frozen=True)
class ButtonPress:
    """One press; ``held`` when the button was held down for :data:`HOLD_S` (a long press)."""

    button: ButtonName
    timestamp: float
    held: bool = False


class Debouncer:
    """A press counts only if ``bounce_s`` has passed since the last press of the same button counted.

    >>> debounce = Debouncer(0.05)
    >>> [debounce.accept(ButtonName.UNO, t) for t in (0.0, 0.01, 0.04, 0.2)]
    [True, False, False, True]
    """

    def __init__(self, bounce_s: float) -> None:
        self.bounce_s = bounce_s
        self._last: dict[ButtonName, float] = {}

    def accept(self, button: ButtonName, now: float) -> bool:
        last = self._last.get(button)
        if last is not None and now - last < self.bounce_s:
            return False
        self._last[button] = now
        return True


class ButtonQueue:
    """Debounced presses in a thread-safe queue; by itself the fake that tests press directly."""

    def __init__(self, bounce_s: float = 0.06, clock: Clock = time.monotonic) -> None:
        self._debouncer = Debouncer(bounce_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._presses: queue.Queue[ButtonPress] = queue.Queue()

    def press(self, button: ButtonName, *, held: bool = False) -> bool:
        """Record a press (from a GPIO callback, a key or a test); False when it was contact bounce.

        A long press (``held``) is not debounced: it is only reported after the button stayed down.
        """
        with self._lock:  # gpiozero calls back from its own threads
            now = self._clock()
            if not held and not self._debouncer.accept(button, now):
                return False
            self._presses.put(ButtonPress(button, now, held))
            return True

    def get(self, timeout: float | None = None) -> ButtonPress | None:
        """The next press, waiting at most ``timeout`` seconds (0: do not wait)."""
        try:
            return self._presses.get(block=bool(timeout), timeout=timeout or None)
        except queue.Empty:
            return None

    def drain(self) -> list[ButtonPress]:
        """Every press waiting now, oldest first, without blocking: what the camera loop calls per frame."""
        presses = []
        while (press := self.get()) is not None:
            presses.append(press)
        return presses

    def close(self) -> None:
        """Release the device; nothing to release for the bare queue."""


class GpioButtons(ButtonQueue):
    """Push-buttons between a GPIO pin and ground, using the Pi's internal pull-ups.

    ``pin_factory`` is gpiozero's: ``None`` uses ``Device.pin_factory`` (the real pins on a Pi,
    ``MockFactory`` in tests).
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        bounce_s: float = 0.06,
        pin_factory=None,
        clock: Clock = time.monotonic,
        hold_s: float = HOLD_S,
    ) -> None:
        super().__init__(bounce_s, clock)
        from gpiozero import Button, GPIOZeroError

        self._buttons = []
        self._holding: set[ButtonName] = set()
        try:
            for name, pin in pins.items():
                button = Button(pin, pull_up=True, hold_time=hold_s, pin_factory=pin_factory)
                button.when_held = self._on_held(ButtonName(name))
                button.when_released = self._on_released(ButtonName(name))
                self._buttons.append(button)
        except GPIOZeroError as error:
            self.close()
            raise UserError(
                f"cannot use GPIO pin {pin} for the {name} button ({type(error).__name__}: {error}); "
                'check [buttons] in the config, or set input = "keyboard" on a computer without GPIO'
            ) from None

    def _on_held(self, button: ButtonName) -> Callable[[], None]:
        def held() -> None:
            self._holding.add(button)
            self.press(button, held=True)

        return held

    def _on_released(self, button: ButtonName) -> Callable[[], None]:
        """A short press counts when the button comes up (only then is it known not to be a long one)."""

        def released() -> None:
            if button in self._holding:
                self._holding.discard(button)
            else:
                self.press(button)

        return released

    def close(self) -> None:
        for button in self._buttons:
            button.close()
        self._buttons.clear()


class KeyboardButtons(ButtonQueue):
    """Keys stand in for buttons on a laptop (see :data:`KEYS`), read on a thread so the camera never waits.

    On a terminal the keys act at once (no Enter needed); the terminal mode is restored by
    :meth:`close`. :meth:`feed_key` lets a preview window's key events (``cv2.waitKey``) use the
    same mapping.
    """

    def __init__(
        self, stream: TextIO | None = None, bounce_s: float = 0.0, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(bounce_s, clock)
        self._stream = sys.stdin if stream is None else stream
        self._stop = threading.Event()
        self._restore: Callable[[], None] = lambda: None
        try:
            self._fd: int | None = self._stream.fileno()
        except (io.UnsupportedOperation, AttributeError, ValueError):
            self._fd = None
        if self._fd is not None and os.isatty(self._fd):
            self._restore = _cbreak(self._fd)
        self._thread = threading.Thread(target=self._read_keys, name="keyboard-buttons", daemon=True)
        self._thread.start()

    def feed_key(self, key: str) -> bool:
        """Press the button a key stands for (Shift: :data:`HOLD_KEYS`' long press); False for keys
        that mean nothing (or bounced)."""
        if key in HOLD_KEYS:
            return self.press(HOLD_KEYS[key], held=True)
        button = KEYS.get(key.lower())
        return button is not None and self.press(button)

    def _read_keys(self) -> None:
        while not self._stop.is_set():
            try:
                data = self._read_some()
            except (OSError, ValueError):  # the input was closed under us
                return
            if data == "":
                return  # end of input: the keyboard is gone, the camera loop carries on
            for key in data or "":
                self.feed_key(key)

    def _read_some(self) -> str | None:
        """Up to a few keys; ``None`` when none came within a tenth of a second, ``""`` at the end."""
        if self._fd is None:
            return self._stream.read(1)
        ready, _, _ = select.select([self._fd], [], [], 0.1)
        return os.read(self._fd, 64).decode("utf-8", errors="ignore") if ready else None

    def wait_until_read(self, timeout: float = 2.0) -> None:
        """Block until the input has been read to its end (for piped input and tests)."""
        self._thread.join(timeout)

    def close(self) -> None:
        self._stop.set()
        if self._fd is not None:
            self._thread.join(0.5)  # it wakes up every 0.1 s to look at the stop flag
        self._restore()
        self._restore = lambda: None


def _cbreak(fd: int) -> Callable[[], None]:
    """Let a terminal deliver keys one by one without echo; returns what restores it."""
    import termios

    saved = termios.tcgetattr(fd)
    attributes = termios.tcgetattr(fd)
    attributes[3] &= ~(termios.ICANON | termios.ECHO)  # local flags
    attributes[6][termios.VMIN], attributes[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, attributes)

    def restore() -> None:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    return restore


def open_buttons(input_kind: str, pins: Mapping[str, int], bounce_s: float) -> ButtonQueue:
    """The buttons the config asks for; ``auto`` uses GPIO where the board has it, else the keyboard."""
    if input_kind == "keyboard":
        return KeyboardButtons(bounce_s=bounce_s)
    if input_kind == "gpio":
        return GpioButtons(pins, bounce_s)
    from gpiozero import Device, GPIOZeroError

    try:
        with warnings.catch_warnings():  # one fallback warning per GPIO library tried: noise on a laptop
            warnings.simplefilter("ignore")
            Device.ensure_pin_factory()
    except GPIOZeroError:
        print("uno-referee: no GPIO on this computer: using the keyboard (docs/hardware.md)", file=sys.stderr)
        return KeyboardButtons(bounce_s=bounce_s)
    return GpioButtons(pins, bounce_s)


# --- "which player?" -------------------------------------------------------------------------------

PickState = Literal["highlight", "chosen", "cancelled", "ignored"]


@dataclass(frozen=True)
class PickStep:
    """What one button press did to a prompt: the app announces ``player`` for highlight and chosen."""

    state: PickState
    player: str | None = None


class SeatPicker:
    """Choose one player with the four colour buttons: cycle and confirm.

    BLUE → next player (clockwise), YELLOW → previous, GREEN → confirm the one announced,
    RED or UNDO → cancel. Works for any number of players, and the voice says each name, so
    nobody has to remember a mapping. A single candidate is chosen at once.
    """

    NEXT, PREVIOUS, CONFIRM = ButtonName.BLUE, ButtonName.YELLOW, ButtonName.GREEN
    CANCEL = frozenset({ButtonName.RED, ButtonName.UNDO})

    def __init__(self, candidates: Sequence[str], start: str | None = None) -> None:
        if not candidates:
            raise ValueError("a seat picker needs at least one candidate")
        self.candidates = tuple(candidates)
        self._position = self.candidates.index(start) if start is not None else 0
        self.result: PickStep | None = (
            PickStep("chosen", self.candidates[0]) if len(candidates) == 1 else None
        )

    @property
    def highlighted(self) -> str:
        return self.candidates[self._position]

    @property
    def done(self) -> bool:
        return self.result is not None

    def feed(self, button: ButtonName) -> PickStep:
        if self.done:
            return PickStep("ignored")
        if button in (self.NEXT, self.PREVIOUS):
            step = 1 if button is self.NEXT else -1
            self._position = (self._position + step) % len(self.candidates)
            return PickStep("highlight", self.highlighted)
        if button is self.CONFIRM:
            self.result = PickStep("chosen", self.highlighted)
            return self.result
        if button in self.CANCEL:
            self.result = PickStep("cancelled")
            return self.result
        return PickStep("ignored")
