"""The rules core: cards, options, legality, and the table referee. Pure: stdlib only, no I/O.

Everything else (simulator, table app, announcer, scenario runner) builds on these names.

>>> from referee.rules import Table, Flip, Play, parse_card
>>> table = Table.deal(["Anna", "Ben", "Clara"], "official")
>>> table.observe(Flip(parse_card("red-4"))).ok
True
>>> table.observe(Play(parse_card("red-9"))).ok, table.turn
(True, 'Ben')
"""

from referee.rules.cards import (
    ALL_CARDS,
    CARDS_BY_NAME,
    Card,
    CardError,
    Colour,
    Rank,
    card_points,
    deck,
    hand_points,
    parse_card,
    parse_cards,
    parse_colour,
)
from referee.rules.events import EVENT_TYPES, Event, event_to_dict
from referee.rules.legality import can_play, can_stack, declarable_colours, playable_cards, wd4_is_legal
from referee.rules.observations import (
    OBSERVATION_TYPES,
    Accept,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Flip,
    Observation,
    ObservationError,
    Pass,
    Play,
    Reveal,
    Target,
    Undo,
    Uno,
    observation_from_dict,
)
from referee.rules.options import CHOICES, OPTION_NAMES, PRESETS, OptionError, Rules
from referee.rules.setup import Setup, SetupError
from referee.rules.table import STATE_KEYS, WAITING_FOR, Table, TableState
from referee.rules.verdict import PENALTY_REASONS, REJECTION_CODES, Penalty, Verdict

__all__ = [
    "ALL_CARDS",
    "CARDS_BY_NAME",
    "CHOICES",
    "EVENT_TYPES",
    "OBSERVATION_TYPES",
    "OPTION_NAMES",
    "PENALTY_REASONS",
    "PRESETS",
    "REJECTION_CODES",
    "STATE_KEYS",
    "WAITING_FOR",
    "Accept",
    "Card",
    "CardError",
    "Catch",
    "Challenge",
    "ChooseColour",
    "Colour",
    "Draw",
    "Event",
    "Flip",
    "Observation",
    "ObservationError",
    "OptionError",
    "Pass",
    "Penalty",
    "Play",
    "Rank",
    "Reveal",
    "Rules",
    "Setup",
    "SetupError",
    "Table",
    "TableState",
    "Target",
    "Undo",
    "Uno",
    "Verdict",
    "can_play",
    "can_stack",
    "card_points",
    "deck",
    "declarable_colours",
    "event_to_dict",
    "hand_points",
    "observation_from_dict",
    "parse_card",
    "parse_cards",
    "parse_colour",
    "playable_cards",
    "wd4_is_legal",
]
