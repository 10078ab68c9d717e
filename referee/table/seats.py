"""Who reached for the pile: each player's direction, learnt from their own turns.

The pile watcher reports where the arm that brought a card crossed the discard zone's edge
(:attr:`~referee.table.pile.CardLanded.reached_from_deg`). The player on turn plays almost every
card, so each accepted turn play teaches the direction of that player's seat: there is no seat map
to configure, and uneven seating or a player leaning in from a corner is learnt as it is.

Once the player on turn and another player both have a known direction, a card brought from
clearly that other player's direction is theirs: a jump-in (R39), or a play out of turn that the
rules core then refuses. When in doubt the card stays with the player on turn, as before.

>>> seats = SeatDirections()
>>> for angle in (88, 92, 95):
...     seats.learn("Anna", angle)
>>> for angle in (-178, 176, 179):
...     seats.learn("Ben", angle)
>>> seats.reached_by(175.0, on_turn="Anna")   # from Ben's side while Anna is on turn
'Ben'
>>> seats.reached_by(100.0, on_turn="Anna") is None   # from Anna's own side
True
>>> seats.reached_by(135.0, on_turn="Anna") is None   # halfway between: no guess
True
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field


def angle_between(a_deg: float, b_deg: float) -> float:
    """The smaller angle between two directions, 0…180 degrees.

    >>> angle_between(170, -170), angle_between(10, 350), angle_between(0, 180)
    (20.0, 20.0, 180.0)
    """
    difference = abs(a_deg - b_deg) % 360.0
    return float(min(difference, 360.0 - difference))


@dataclass
class SeatDirections:
    """Each player's reach direction as the circular mean of their latest accepted turn plays."""

    min_samples: int = 3  # turn plays seen before a player's direction counts as known
    recent: int = 20  # directions kept per player (a player who moves is relearnt)
    #: An arm is attributed to another player only when it is this much nearer that player's
    #: direction than the direction of the player on turn …
    margin_deg: float = 20.0
    #: … and no further than this from that player's direction.
    within_deg: float = 35.0
    _angles: dict[str, deque[float]] = field(default_factory=dict)

    def learn(self, player: str, angle_deg: float) -> None:
        """``player`` (on turn, play accepted) reached in from ``angle_deg``."""
        self._angles.setdefault(player, deque(maxlen=self.recent)).append(float(angle_deg))

    def direction(self, player: str) -> float | None:
        """The player's learnt direction in degrees, or None while fewer than ``min_samples`` are known."""
        angles = self._angles.get(player, ())
        if len(angles) < self.min_samples:
            return None
        x = sum(math.cos(math.radians(a)) for a in angles)
        y = sum(math.sin(math.radians(a)) for a in angles)
        return math.degrees(math.atan2(y, x))

    def reached_by(self, angle_deg: float, on_turn: str) -> str | None:
        """Another player whose direction clearly matches the arm, or None (the player on turn, or unsure)."""
        turn_direction = self.direction(on_turn)
        if turn_direction is None:
            return None
        known = {player: d for player in self._angles if (d := self.direction(player)) is not None}
        nearest = min(known, key=lambda player: angle_between(angle_deg, known[player]))
        if nearest == on_turn:
            return None
        to_nearest = angle_between(angle_deg, known[nearest])
        to_turn = angle_between(angle_deg, turn_direction)
        if to_nearest <= self.within_deg and to_turn - to_nearest >= self.margin_deg:
            return nearest
        return None
