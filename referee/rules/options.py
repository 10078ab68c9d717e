"""The rule options of RULES.md §10 and the four presets, one per rule text.

Where the rule texts disagree the referee does not pick a winner: each point is an option, a preset
bundles one text's choices, and a table overrides single options on top of a preset.

>>> rules = Rules.preset("official", stacking="s2_combos")
>>> rules.stacking, rules.deck
('s2_combos', 'classic108')
>>> Rules.from_spec({"preset": "officieel", "jump_in": True}).extra_wild
'shuffle'
>>> Rules.preset("official", stacking="always")
Traceback (most recent call last):
...
referee.rules.options.OptionError: option stacking: 'always' is not valid; choose one of off, same_type, ...
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import UserError


class OptionError(UserError):
    """An unknown preset or option, or a value the option does not take."""


#: Valid values of each option that takes a fixed set (the first is not necessarily the default).
CHOICES: dict[str, tuple[object, ...]] = {
    "deck": ("classic108", "deck112"),
    "extra_wild": ("swap", "shuffle"),
    "first_card_action": ("apply", "ignore"),
    "first_card_wild": ("first_player_declares", "ignore"),
    "first_card_wild_draw4": ("reshuffle", "set_aside", "ignore"),
    "match_by": ("colour_number_symbol", "colour_number"),
    "voluntary_draw": (True, False),
    "drawn_card": ("may_play", "must_play"),
    "wd4_legal_if": ("no_active_colour", "no_playable_card", "always"),
    "wd4_wild_in_hand_counts": (False, True),
    "challenge_success_next": ("challenger_plays", "challenger_skipped"),
    "uno_penalty_trigger": ("caught_before_next_turn", "caught_any_time", "automatic"),
    "uno_catcher_must_call_first": (False, True),
    "uno_call_moment": ("holding_one", "with_second_to_last"),
    "match_mode": ("first_to_target", "lowest_total", "elimination"),
    "round_end": ("first_out", "all_out"),
    "reshuffle_keep_top": (True, False),
    "stacking": ("off", "same_type", "s2_combos"),
    "custom_wild_playable": ("anywhere", "colour_or_custom"),
    "two_player_rules": (True, False),
    "seven_o": (False, True),
    "jump_in": (False, True),
    "partners": (False, True),
}
#: Options that take a whole number, with the smallest value allowed.
NUMBERS: dict[str, int] = {
    "points_wild": 0,
    "points_special_wild": 0,
    "target_score": 1,
    "misplay_penalty": 0,
    "false_catch_penalty": 0,
}


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete rule set: every option of RULES.md §10, defaults as in the ``official`` preset."""

    deck: str = "classic108"
    extra_wild: str = "swap"
    first_card_action: str = "apply"
    first_card_wild: str = "first_player_declares"
    first_card_wild_draw4: str = "reshuffle"
    match_by: str = "colour_number_symbol"
    voluntary_draw: bool = True
    drawn_card: str = "may_play"
    wd4_legal_if: str = "no_active_colour"
    wd4_wild_in_hand_counts: bool = False
    challenge_success_next: str = "challenger_plays"
    uno_penalty_trigger: str = "caught_before_next_turn"
    uno_catcher_must_call_first: bool = False
    uno_call_moment: str = "holding_one"
    points_wild: int = 50
    points_special_wild: int = 40
    match_mode: str = "first_to_target"
    target_score: int = 500
    round_end: str = "first_out"
    reshuffle_keep_top: bool = True
    stacking: str = "off"
    custom_wild_playable: str = "anywhere"
    two_player_rules: bool = True
    seven_o: bool = False
    jump_in: bool = False
    partners: bool = False
    misplay_penalty: int = 0
    false_catch_penalty: int = 0

    def __post_init__(self) -> None:
        for name, value in self.to_dict().items():
            _check_value(name, value)

    @property
    def deck_size(self) -> int:
        """108 or 112 cards (R1, R2)."""
        return 112 if self.deck == "deck112" else 108

    @classmethod
    def preset(cls, name: str = "official", **overrides: Any) -> Rules:
        """A preset (``official``, ``spielhilfe``, ``langfassung``, ``officieel``) with options changed.

        >>> Rules.preset("spielhilfe").points_wild
        30
        >>> Rules.preset("house")
        Traceback (most recent call last):
        ...
        referee.rules.options.OptionError: unknown rules preset 'house'; choose one of official, ...
        """
        if not isinstance(name, str) or name not in PRESETS:
            raise OptionError(f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}")
        if not overrides:
            return PRESETS[name]  # immutable: share it rather than validate a copy
        for option in overrides:
            _check_name(option)
        overrides = {option: _unyaml(option, value) for option, value in overrides.items()}
        return dataclasses.replace(PRESETS[name], **overrides)

    @classmethod
    def from_spec(cls, spec: object) -> Rules:
        """The scenario form: a preset name, or a mapping ``{preset: NAME, option: value, ...}``.

        A mapping without ``preset`` starts from ``official``.

        >>> Rules.from_spec("langfassung").stacking
        's2_combos'
        >>> Rules.from_spec({"stacking": "same_type"}).stacking
        'same_type'
        """
        if spec is None:
            return PRESETS["official"]
        if isinstance(spec, str):
            return cls.preset(spec)
        if isinstance(spec, Rules):
            return spec
        if not isinstance(spec, Mapping):
            raise OptionError(
                f"rules must be a preset name or a mapping like {{preset: official, stacking: off}}, "
                f"not {spec!r}"
            )
        overrides = {str(key): value for key, value in spec.items() if key != "preset"}
        return cls.preset(spec.get("preset", "official"), **overrides)

    def to_dict(self) -> dict[str, object]:
        """Every option and its value (the form a journal stores; :meth:`from_spec` reads it back)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def changed_from(self, preset: str = "official") -> dict[str, object]:
        """The options that differ from ``preset``: a short form for logs and announcements.

        >>> Rules.preset("official", jump_in=True).changed_from("official")
        {'jump_in': True}
        """
        base = PRESETS[preset].to_dict()
        return {name: value for name, value in self.to_dict().items() if base[name] != value}


OPTION_NAMES: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(Rules))


def _check_name(option: str) -> None:
    if option not in OPTION_NAMES:
        matches = difflib.get_close_matches(str(option), OPTION_NAMES, n=1)
        hint = f"did you mean {matches[0]!r}? " if matches else ""
        raise OptionError(f"unknown rules option {option!r}; {hint}options are {', '.join(OPTION_NAMES)}")


def _unyaml(option: str, value: object) -> object:
    """YAML 1.1 reads an unquoted ``off`` as ``false``: take it back for options whose value is a word.

    >>> _unyaml("stacking", False), _unyaml("jump_in", False)
    ('off', False)
    """
    if value is False and "off" in CHOICES.get(option, ()):
        return "off"
    return value


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _check_value(option: str, value: object) -> None:
    if option in NUMBERS:
        lowest = NUMBERS[option]
        if type(value) is not int or value < lowest:
            raise OptionError(f"option {option}: {value!r} is not valid; give a whole number ≥ {lowest}")
        return
    choices = CHOICES[option]
    # ``True == 1`` in Python: compare types too so that ``1`` is not taken for ``true``.
    if not any(type(value) is type(choice) and value == choice for choice in choices):
        raise OptionError(
            f"option {option}: {value!r} is not valid; choose one of {', '.join(_show(c) for c in choices)}"
        )


_OFFICIAL = Rules()

#: One preset per rule text (RULES.md §10).
PRESETS: dict[str, Rules] = {
    "official": _OFFICIAL,
    "spielhilfe": dataclasses.replace(
        _OFFICIAL,
        match_by="colour_number",
        points_wild=30,
        stacking="same_type",
        uno_penalty_trigger="caught_any_time",
        uno_call_moment="with_second_to_last",
        wd4_legal_if="no_playable_card",
    ),
    "langfassung": dataclasses.replace(
        _OFFICIAL,
        first_card_wild_draw4="set_aside",
        voluntary_draw=False,
        stacking="s2_combos",
        uno_penalty_trigger="automatic",
    ),
    "officieel": dataclasses.replace(
        _OFFICIAL,
        deck="deck112",
        extra_wild="shuffle",
        first_card_action="ignore",
        first_card_wild="ignore",
        first_card_wild_draw4="ignore",
        wd4_legal_if="always",
        uno_catcher_must_call_first=True,
        points_special_wild=50,
        custom_wild_playable="colour_or_custom",
    ),
}
