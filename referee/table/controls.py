"""The table run from the buttons alone: long presses for what is not a move of the game.

A Pi over the table has no keyboard and no screen. Holding a button down for two seconds
(:data:`hardware.buttons.HOLD_S`; Shift and the key on a keyboard) does what a person at a
console would otherwise type, and the referee says what it did:

==============  ==================================================================================
long press      meaning
==============  ==================================================================================
GREEN           a new game with the config's players and rules (the unfinished one is abandoned)
BLUE            the next round: says to shuffle, deal and turn up the first card (the round
                starts when that card lands on the pile)
RED             end the match now: the standings, and the game marked abandoned in the journal
UNDO            shut the Pi down (after the journal is closed)
other buttons   which long presses there are
==============  ==================================================================================
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hardware.buttons import ButtonName
from hardware.status_light import LightState, StatusLight
from referee.rules import Table
from referee.table.config import RefereeConfig
from referee.table.journal import Journal

if TYPE_CHECKING:  # the session module imports this one
    from referee.table.session import Pipeline

#: How the Pi is switched off: Raspberry Pi OS lets its first user do this without a password.
POWER_OFF: tuple[str, ...] = ("sudo", "-n", "systemctl", "poweroff")


class TableControls:
    """Long presses for a :class:`~referee.table.session.Pipeline` refereeing games of ``config``."""

    def __init__(
        self,
        pipeline: Pipeline,
        journal: Journal,
        config: RefereeConfig,
        *,
        run_command: Callable[[Sequence[str]], subprocess.CompletedProcess] | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.journal = journal
        self.config = config
        self.run_command = run_command or (
            lambda command: subprocess.run(command, capture_output=True, text=True)
        )
        self.shutdown_asked = False
        self._hinted = False

    @property
    def app(self):
        return self.pipeline.app

    def hold(self, button: ButtonName) -> None:
        """One long press."""
        action = {
            ButtonName.GREEN: self.new_game,
            ButtonName.BLUE: self.next_round,
            ButtonName.RED: self.end_match,
            ButtonName.UNDO: self.shut_down,
        }.get(button)
        if action is None:
            self._say("hold_help")
        else:
            action()

    def new_game(self) -> None:
        """Abandon the game in progress (if any) and deal a new one from the config."""
        self._abandon_unfinished()
        table = Table.deal(self.config.require_players(), self.config.rules.build())
        game_id = self.journal.start_game(
            table.setup, language=self.app.phrases.language, config=self.config.snapshot()
        )
        self.app.restart(table, game_id)
        self.pipeline.paused = False
        self._hinted = False
        self._say("new_game", players=table.players)

    def next_round(self) -> None:
        waiting = self.app.table.waiting_for
        self._say("next_round" if waiting == "next_round" else "round_not_over")

    def end_match(self) -> None:
        self._abandon_unfinished()
        self.pipeline.paused = True  # the pile and the buttons mean nothing until a new game
        self._say("match_ended", scores=self.app.table.state().scores)
        self._hinted = True

    def shut_down(self) -> None:
        self._say("shutting_down")
        self.shutdown_asked = True

    def finished(self) -> bool:
        """Whether the program should stop; once a match is won, says how to go on (once)."""
        if not self._hinted and self.app.table.state().match_winner is not None:
            self._hinted = True
            self._say("match_over_hint")
        return self.shutdown_asked

    def power_off(self) -> None:
        """Switch the Pi off; when that is not allowed here, one line says why."""
        result = self.run_command(POWER_OFF)
        if result.returncode != 0:
            why = (result.stderr or result.stdout or "").strip().splitlines()
            print(
                f"uno-referee: warning: cannot switch off ({' '.join(POWER_OFF)}: "
                f"{why[-1] if why else result.returncode}); stopped the referee only",
                file=sys.stderr,
            )

    def _abandon_unfinished(self) -> None:
        game_id = self.app.game_id
        if game_id is not None and self.app.table.state().match_winner is None:
            self.journal.abandon_game(game_id)

    def _say(self, key: str, **values: object) -> None:
        self.app.say(self.app.phrases.message(key, **values))


#: What the referee can wait for that only a button gives (a long one after the match).
BUTTON_WAITS = frozenset({"colour", "target", "challenge_or_accept", "reveal", "scores", "match_over"})


class StatusReporter:
    """Shows on the status LED what the referee is doing (:mod:`hardware.status_light`)."""

    def __init__(
        self, light: StatusLight, clock: Callable[[], float] = time.monotonic, reading_s: float = 1.0
    ):
        self.light = light
        self.clock = clock
        #: How long after a read of the pile the LED still says "reading".
        self.reading_s = reading_s
        self._reads = 0
        self._last_read = -float("inf")

    def update(self, pipeline: Pipeline) -> LightState:
        """The state now (called after every frame), shown on the LED."""
        now = self.clock()
        if pipeline.watcher is not None and pipeline.watcher.reads != self._reads:
            self._reads = pipeline.watcher.reads
            self._last_read = now
        app = pipeline.app
        state: LightState
        if pipeline.camera_lost:
            state = "error"
        elif pipeline.paused or app.prompt is not None or app.table.waiting_for in BUTTON_WAITS:
            state = "waiting"
        elif now - self._last_read < self.reading_s:
            state = "reading"
        else:
            state = "ready"
        self.light.show(state)
        return state
