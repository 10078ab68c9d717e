"""The referee's answer to one observation: accepted or not, why, who draws, and what to announce.

>>> verdict = Verdict(False, "no_match")
>>> verdict
Verdict(ok=False, reason='no_match', penalties=(), events=())
>>> verdict.recorded
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from referee.rules.events import Event, event_to_dict

#: Why an observation was rejected (SCENARIOS.md).
REJECTION_CODES: tuple[str, ...] = (
    "not_your_turn",
    "no_match",
    "only_drawn_card",
    "must_draw",
    "not_identical",
    "nothing_to_challenge",
    "not_your_challenge",
    "too_late",
    "nothing_to_catch",
    "colour_first",
    "round_over",
    "not_allowed",
)
#: Why a player draws cards (SCENARIOS.md).
PENALTY_REASONS: tuple[str, ...] = (
    "draw2",
    "draw4",
    "stack",
    "first_card",
    "uno",
    "challenge_guilty",
    "challenge_failed",
    "misplay",
    "false_catch",
)


@dataclass(frozen=True, slots=True)
class Penalty:
    """``player`` draws ``cards`` cards for ``reason`` (one of :data:`PENALTY_REASONS`)."""

    player: str
    cards: int
    reason: str

    def to_dict(self) -> dict[str, object]:
        """The scenario form ``{player: Ben, cards: 2, reason: draw2}``."""
        return {"player": self.player, "cards": self.cards, "reason": self.reason}


class Verdict(NamedTuple):
    """The result of :meth:`Table.observe <referee.rules.table.Table.observe>`.

    ``ok``: the observation was accepted. ``reason``: the rejection code when it was not.
    ``penalties``: the draws this observation caused. ``events``: what to announce, in order.
    A named tuple: one is built per observation on the hot path, and a tuple is the cheapest record.
    """

    ok: bool
    reason: str | None = None
    penalties: tuple[Penalty, ...] = ()
    events: tuple[Event, ...] = ()

    @property
    def recorded(self) -> bool:
        """Whether the observation changed the state and belongs in the journal.

        Accepted observations do; so does a rejected one that cost a penalty (``misplay_penalty``,
        ``false_catch_penalty``): replaying the journal must draw those cards again.
        """
        return self.ok or bool(self.penalties)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form a journal stores."""
        return {
            "ok": self.ok,
            "reason": self.reason,
            "penalties": [penalty.to_dict() for penalty in self.penalties],
            "events": [event_to_dict(event) for event in self.events],
        }
