"""How a table referee starts: at the deal, or mid-round — exactly the fields of the scenario format.

A :class:`Setup` plus the journal of accepted observations determines the referee completely, so the
journal stores ``setup.to_dict()`` once and the observations after it.

>>> setup = Setup.from_dict({"players": ["Anna", "Ben", "Clara"], "rules": "official"})
>>> setup.dealer, setup.hand_size, setup.mid_round
('Clara', 7, False)
>>> Setup.from_dict(setup.to_dict()) == setup
True
>>> Setup.from_dict({"players": ["Anna"]})
Traceback (most recent call last):
...
referee.rules.setup.SetupError: players: 2 to 10 players are needed (R4), got 1
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import UserError
from referee.rules.cards import Card, Colour, parse_card, parse_colour
from referee.rules.options import PRESETS, Rules

DIRECTIONS: tuple[str, ...] = ("clockwise", "counterclockwise")
SETUP_KEYS: tuple[str, ...] = (
    "rules",
    "players",
    "dealer",
    "hand_size",
    "scores",
    "counts",
    "top",
    "colour",
    "turn",
    "direction",
    "uno_called",
)


class SetupError(UserError):
    """A construction that does not describe a possible table (unknown player, too many cards …)."""


@dataclass(frozen=True)
class Setup:
    """The referee's construction: players clockwise, rules, dealer, and optionally a mid-round position.

    ``counts``/``top`` (and ``colour``, ``turn``, ``direction``, ``uno_called``) describe a round in
    progress; without ``top`` the round starts at the deal and the first observation is a flip.
    """

    players: tuple[str, ...]
    rules: Rules = PRESETS["official"]
    dealer: str = ""
    hand_size: int = 7
    scores: Mapping[str, int] = field(default_factory=dict)
    counts: Mapping[str, int] | None = None
    top: Card | None = None
    colour: Colour | None = None
    turn: str | None = None
    direction: str = "clockwise"
    uno_called: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        players = self.players
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise SetupError(f"players: give a list of names like [Anna, Ben], not {players!r}")
        names = tuple(players)
        if not 2 <= len(names) <= 10:
            raise SetupError(f"players: 2 to 10 players are needed (R4), got {len(names)}")
        for name in names:
            if not isinstance(name, str) or not name.strip() or name != name.strip():
                raise SetupError(f"players: {name!r} is not a usable name (non-empty text, no outer spaces)")
        if len(set(names)) != len(names):
            raise SetupError(f"players: every name must be different, got {', '.join(names)}")
        object.__setattr__(self, "players", names)
        if not isinstance(self.rules, Rules):
            object.__setattr__(self, "rules", Rules.from_spec(self.rules))
        if not self.dealer:
            object.__setattr__(self, "dealer", names[-1])
        self._check_player("dealer", self.dealer)
        if type(self.hand_size) is not int or self.hand_size < 1:
            raise SetupError(f"hand_size: give a whole number ≥ 1, got {self.hand_size!r}")
        if len(names) * self.hand_size + 1 > self.rules.deck_size:
            raise SetupError(
                f"hand_size: {len(names)} players × {self.hand_size} cards do not fit a "
                f"{self.rules.deck_size}-card deck"
            )
        object.__setattr__(self, "scores", self._numbers("scores", self.scores))
        if self.rules.partners and len(names) != 4:
            raise SetupError(f"partners: play needs exactly 4 players (R32), got {len(names)}")
        if self.direction not in DIRECTIONS:
            raise SetupError(f"direction: choose clockwise or counterclockwise, not {self.direction!r}")
        self._check_partner_scores()
        self._check_mid_round()

    @property
    def mid_round(self) -> bool:
        """Whether the referee starts inside a round (``top`` given) rather than at the deal."""
        return self.top is not None

    def _check_player(self, key: str, name: object) -> str:
        if name not in self.players:
            raise SetupError(f"{key}: unknown player {name!r}; players are {', '.join(self.players)}")
        return str(name)

    def _numbers(self, key: str, mapping: object) -> dict[str, int]:
        if not isinstance(mapping, Mapping):
            raise SetupError(f"{key}: give a mapping like {{Anna: 3}}, not {mapping!r}")
        numbers = {}
        for name, value in mapping.items():
            self._check_player(key, name)
            if type(value) is not int or value < 0:
                raise SetupError(f"{key}: {name} needs a whole number ≥ 0, got {value!r}")
            numbers[str(name)] = value
        return numbers

    def _check_partner_scores(self) -> None:
        if not self.rules.partners:
            return
        for first, second in ((0, 2), (1, 3)):
            a, b = self.players[first], self.players[second]
            if a in self.scores and b in self.scores and self.scores[a] != self.scores[b]:
                raise SetupError(f"scores: partners {a} and {b} share one team total, got two different ones")

    def _check_mid_round(self) -> None:
        if self.top is None:
            for key in ("counts", "colour", "turn"):
                if getattr(self, key) is not None:
                    raise SetupError(f"{key}: a mid-round start also needs 'top' (the top discard)")
            if self.uno_called:
                raise SetupError("uno_called: a mid-round start also needs 'top' (the top discard)")
            if self.direction != "clockwise":
                raise SetupError(
                    "direction: a round starting at the deal runs clockwise (R6); give 'top' too"
                )
            return
        if not isinstance(self.top, Card):
            object.__setattr__(self, "top", parse_card(self.top))
        if self.colour is not None and not isinstance(self.colour, Colour):
            object.__setattr__(self, "colour", parse_colour(self.colour))
        top = self.top
        if top.is_wild and self.colour is None:
            raise SetupError(f"colour: the top card {top.name} is a wild; give the declared colour")
        if not top.is_wild and self.colour is not None and self.colour is not top.colour:
            raise SetupError(
                f"colour: the top card {top.name} is {top.colour.label}, not {self.colour.label}"
            )
        counts = self._numbers("counts", self.counts if self.counts is not None else {})
        object.__setattr__(self, "counts", counts)
        total = sum(counts.get(name, self.hand_size) for name in self.players)
        if total + 1 > self.rules.deck_size:
            raise SetupError(
                f"counts: {total} cards in hands and a top card exceed the {self.rules.deck_size}-card deck"
            )
        if self.turn is not None:
            self._check_player("turn", self.turn)
        called = self.uno_called
        if isinstance(called, str) or not isinstance(called, Sequence):
            raise SetupError(f"uno_called: give a list of players, not {called!r}")
        for name in called:
            self._check_player("uno_called", name)
            if counts.get(name, self.hand_size) != 1:
                raise SetupError(f"uno_called: {name} does not hold exactly one card")
        object.__setattr__(self, "uno_called", tuple(called))

    def count_of(self, player: str) -> int:
        """The hand size ``player`` starts with (``counts``, else ``hand_size``)."""
        return (self.counts or {}).get(player, self.hand_size)

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Any]) -> Setup:
        """Read the scenario header / journal form; unknown keys are errors (a typo must not pass)."""
        if not isinstance(mapping, Mapping):
            raise SetupError(f"a setup must be a mapping with players, rules …, not {mapping!r}")
        unknown = [str(key) for key in mapping if key not in SETUP_KEYS]
        if unknown:
            raise SetupError(f"unknown key {unknown[0]!r}; a setup has {', '.join(SETUP_KEYS)}")
        if "players" not in mapping:
            raise SetupError("players: missing; list the seats clockwise, e.g. players: [Anna, Ben, Clara]")
        values = dict(mapping)
        if "rules" in values:
            values["rules"] = Rules.from_spec(values["rules"])
        for key, kind in (("dealer", "a player name"), ("turn", "a player name"), ("direction", "text")):
            if values.get(key) is not None and not isinstance(values[key], str):
                raise SetupError(f"{key}: expected {kind}, got {values[key]!r}")
        if values.get("top") is not None:
            values["top"] = parse_card(values["top"])
        if values.get("colour") is not None:
            values["colour"] = parse_colour(values["colour"])
        if "uno_called" in values and values["uno_called"] is None:
            values["uno_called"] = ()
        if values.get("scores") is None:
            values["scores"] = {}
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The scenario header form (with the complete rule set), readable by :meth:`from_dict`."""
        data: dict[str, Any] = {
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "dealer": self.dealer,
            "hand_size": self.hand_size,
            "scores": dict(self.scores),
        }
        if self.top is not None:
            data.update(
                counts=dict(self.counts or {}),
                top=self.top.name,
                turn=self.turn,
                direction=self.direction,
                uno_called=list(self.uno_called),
            )
            if self.colour is not None:
                data["colour"] = self.colour.label
        return data

    def replace(self, **changes: Any) -> Setup:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)
