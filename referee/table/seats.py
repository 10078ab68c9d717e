"""Who reached for the pile: each player's direction, learnt from their own turns.

The pile watcher reports where the arm that brought a card crossed the discard zone's edge
(:attr:`~referee.table.pile.CardLanded.reached_from_deg`). The player on turn plays almost every
card, so each accepted turn play teaches the direction of that player's seat: there is no seat map
to configure, and uneven seating or a player leaning in from a corner is learnt as it is.

Until a player has played ``min_samples`` cards, their side is assumed from the seating order:
the players sit clockwise in the order of the configuration, evenly around the table, and the
top-down zone picture is not mirrored (ArUco markers cannot be read in a mirror), so clockwise
is the direction of growing angles in it.

A card brought from clearly another player's side than the turn's is that player's: a jump-in
(R39), or a play out of turn that the rules core then refuses. When in doubt the card stays
with the player on turn.

>>> seats = SeatDirections(["Anna", "Ben", "Clara", "Dan"])
>>> seats.direction("Ben") is None   # nothing learnt yet
True
>>> seats.learn("Anna", 92.0)        # Anna played one card, from the near side
>>> round(seats.direction("Ben")) % 360   # the next seat clockwise, a quarter turn on
182
>>> seats.reached_by(175.0, on_turn="Anna")   # from Ben's side while Anna is on turn
'Ben'
>>> seats.reached_by(100.0, on_turn="Anna") is None   # from Anna's own side
True
>>> seats.reached_by(137.0, on_turn="Anna") is None   # halfway between: no guess
True
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence


def angle_between(a_deg: float, b_deg: float) -> float:
    """The smaller angle between two directions, 0…180 degrees.

    >>> angle_between(170, -170), angle_between(10, 350), angle_between(0, 180)
    (20.0, 20.0, 180.0)
    """
    difference = abs(a_deg - b_deg) % 360.0
    return float(min(difference, 360.0 - difference))


def circular_mean(angles_deg: Iterable[float]) -> float:
    """The mean direction of some angles, in degrees (-180…180).

    >>> round(circular_mean([170, -170]))
    180
    """
    angles = [math.radians(a) for a in angles_deg]
    return math.degrees(math.atan2(sum(map(math.sin, angles)), sum(map(math.cos, angles))))


class SeatDirections:
    """Each player's reach direction: the circular mean of their latest accepted turn plays, or
    while they have played too few, the direction their seat should have from the others'."""

    def __init__(
        self,
        players: Sequence[str] = (),
        *,
        min_samples: int = 3,
        recent: int = 20,
        margin_deg: float = 20.0,
        within_deg: float = 35.0,
    ) -> None:
        self.players = list(players)  # clockwise, as configured
        self.min_samples = min_samples  # turn plays before a player's own direction counts
        self.recent = recent  # directions kept per player (a player who moves is relearnt)
        #: An arm is given to another player only when it is this much nearer that player's
        #: direction than the direction of the player on turn, and within ``within_deg`` of it.
        self.margin_deg = margin_deg
        self.within_deg = within_deg
        self._angles: dict[str, deque[float]] = {}

    def learn(self, player: str, angle_deg: float) -> None:
        """``player`` (on turn, play accepted) reached in from ``angle_deg``."""
        self._angles.setdefault(player, deque(maxlen=self.recent)).append(float(angle_deg))

    def direction(self, player: str) -> float | None:
        """The player's direction in degrees: learnt, else from the seating order, else None."""
        angles = self._angles.get(player, ())
        if len(angles) >= self.min_samples:
            return circular_mean(angles)
        return self._from_seating(player)

    def who_played(self, angle_deg: float, on_turn: str, *, possible_jump_in: bool) -> str | None:
        """Whom a played card goes to: another player only for a possible jump-in (the jump-in rule
        is on and the card on top was played again) brought from clearly that player's side; None
        for the player on turn. Any other card stays the turn's: another hand moving in the zone
        just before the pile settles can mislead the arm's side, and a turn play given to the
        wrong player would be refused."""
        return self.reached_by(angle_deg, on_turn) if possible_jump_in else None

    def reached_by(self, angle_deg: float, on_turn: str) -> str | None:
        """Another player whose direction clearly matches the arm, or None (the player on turn, or unsure)."""
        turn_direction = self.direction(on_turn)
        if turn_direction is None:
            return None
        candidates = set(self.players) | set(self._angles)
        known = {player: d for player in candidates if (d := self.direction(player)) is not None}
        nearest = min(known, key=lambda player: angle_between(angle_deg, known[player]))
        if nearest == on_turn:
            return None
        to_nearest = angle_between(angle_deg, known[nearest])
        to_turn = angle_between(angle_deg, turn_direction)
        if to_nearest <= self.within_deg and to_turn - to_nearest >= self.margin_deg:
            return nearest
        return None

    def _from_seating(self, player: str) -> float | None:
        """Where ``player`` should sit, from every direction seen so far: even spacing, clockwise."""
        if player not in self.players:
            return None
        step = 360.0 / len(self.players)
        seat = self.players.index(player)
        guesses = [
            angle + (seat - self.players.index(other)) * step
            for other, angles in self._angles.items()
            if other in self.players
            for angle in angles
        ]
        return circular_mean(guesses) if guesses else None
