"""The phrase book: every event class, every variant, every language; and the sentences themselves."""

from __future__ import annotations

import itertools
import re
import typing
from dataclasses import fields

import pytest

from referee.rules.cards import CARDS_BY_NAME, Card, Colour, parse_card
from referee.rules.events import (
    EVENT_TYPES,
    ChallengePrompt,
    ColourChosen,
    DirectionChanged,
    FlipNeeded,
    IllegalPlay,
    NextTurn,
    PenaltyDrawn,
    Rejected,
    RevealNeeded,
    RoundWon,
    ScoresNeeded,
)
from referee.rules.observations import Draw, Flip, Observation, Play, Undo
from referee.rules.options import OPTION_NAMES
from referee.rules.setup import DIRECTIONS
from referee.rules.verdict import PENALTY_REASONS, REJECTION_CODES
from referee.table.phrases import LANGUAGES, VARIANTS, PhraseBook, load_phrases


def documented_values(cls: type, field_name: str) -> tuple[str, ...]:
    """The ``code`` words the docstring lists for a field (FlipNeeded reasons, RevealNeeded purposes)."""
    field_names = {item.name for item in fields(cls)}
    return tuple(word for word in re.findall(r"``(\w+)``", cls.__doc__ or "") if word not in field_names)


#: The values a field takes in the rules core, for the fields whose value picks the sentence.
FIELD_VALUES: dict[tuple[str, str], tuple[object, ...]] = {
    ("FlipNeeded", "reason"): documented_values(FlipNeeded, "reason"),
    ("RevealNeeded", "purpose"): documented_values(RevealNeeded, "purpose"),
    ("PenaltyDrawn", "reason"): PENALTY_REASONS,
    ("IllegalPlay", "reason"): REJECTION_CODES,
    ("Rejected", "reason"): REJECTION_CODES,
    ("Rejected", "player"): ("Ben", ""),
    ("HandsSwapped", "target"): ("Clara", "Ben"),
}
TYPE_VALUES: dict[object, tuple[object, ...]] = {
    str: ("Ben",),
    int: (1, 4),
    bool: (False, True),
    Card: (parse_card("red-7"), parse_card("wild-draw4"), parse_card("blue-skip")),
    Colour: (Colour.GREEN,),
    Observation: (Play(parse_card("red-7"), "Ben"), Flip(parse_card("blue-0")), Draw(1, "Ben"), Undo()),
    tuple[str, ...]: (("Anna", "Ben", "Clara"),),
    tuple[tuple[str, int], ...]: ((("Anna", 120), ("Ben", 80), ("Clara", 0)),),
}


def instances(cls: type) -> list[object]:
    """Every combination of sample values: each variant of the event appears at least once."""
    hints = typing.get_type_hints(cls)
    options = []
    for item in fields(cls):
        hint = hints[item.name]
        if (cls.__name__, item.name) in FIELD_VALUES:
            options.append(FIELD_VALUES[cls.__name__, item.name])
        elif item.name == "direction":
            options.append(DIRECTIONS)
        else:
            options.append(TYPE_VALUES[hint])
    return [cls(*values) for values in itertools.product(*options)]


def test_documented_variant_values_were_found():
    assert documented_values(FlipNeeded, "reason") == (
        "first_card_ignored",
        "first_card_reshuffled",
        "first_card_set_aside",
        "discard_reshuffled",
    )
    assert documented_values(RevealNeeded, "purpose") == ("challenge", "scores")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda cls: cls.__name__)
def test_every_event_has_a_sentence_in_every_language(event_type, language):
    book = PhraseBook(language)
    for event in instances(event_type):
        sentence = book.event(event)
        assert sentence and "{" not in sentence and "}" not in sentence, sentence
        assert sentence[-1] in ".!?", sentence
        for name in ("player", "by", "against", "challenger", "challenged", "first", "dealer"):
            value = getattr(event, name, "")
            assert value in sentence, f"{event}: {sentence!r} does not name {value!r}"


def test_no_phrase_is_unreachable():
    """Every variant written in phrases.toml is one the rules core can produce, and vice versa."""
    phrases = load_phrases()["events"]
    assert set(phrases) == {cls.__name__ for cls in EVENT_TYPES}
    for cls, pick in VARIANTS.items():
        produced = {pick(event) for event in instances(cls)}
        assert produced == set(phrases[cls.__name__]), cls.__name__
    for name, entry in phrases.items():
        leaves = entry.values() if name in {cls.__name__ for cls in VARIANTS} else [entry]
        for leaf in leaves:
            assert set(leaf) == set(LANGUAGES), (name, leaf)


def test_reasons_and_messages_exist_in_every_language(shared):
    phrases = load_phrases()
    text = (shared / "rules" / "SCENARIOS.md").read_text(encoding="utf-8")
    codes = re.search(r"Rejection codes:(.*?)\n\n", text, re.S).group(1)
    penalties = re.search(r"Penalty reasons:(.*?)\n\n", text, re.S).group(1)
    # the lists mention option names in passing ("when `voluntary_draw` is false"): those are not codes
    assert (
        set(re.findall(r"`(\w+)`", codes)) - set(OPTION_NAMES)
        == set(REJECTION_CODES)
        == set(phrases["reasons"])
    )
    assert (
        set(re.findall(r"`(\w+)`", penalties))
        == set(PENALTY_REASONS)
        == set(phrases["events"]["PenaltyDrawn"])
    )
    for key, entry in phrases["messages"].items():
        assert set(entry) == set(LANGUAGES), key


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_and_message_can_be_spoken(language):
    book = PhraseBook(language)
    spoken = {name: book.card(card) for name, card in CARDS_BY_NAME.items()}
    assert len(set(spoken.values())) == len(spoken)  # no two cards sound the same
    values = {"player": "Ben", "scores": {"Anna": 12, "Ben": 30}, "colour": "yellow", "cards": "x"}
    for key in load_phrases()["messages"]:
        sentence = book.message(key, **values)
        assert "{" not in sentence and sentence[-1] in ".!?", sentence


def test_native_sentences():
    de, nl, en = PhraseBook("de"), PhraseBook("nl"), PhraseBook("en")
    assert de.event(NextTurn("Ben")) == "Ben ist dran."
    assert nl.event(NextTurn("Ben")) == "Ben is aan de beurt."
    assert de.event(PenaltyDrawn("Ben", 2, "draw2")) == "Ben muss zwei Karten ziehen."
    assert nl.event(PenaltyDrawn("Ben", 2, "draw2")) == "Ben moet twee kaarten pakken."
    assert de.event(PenaltyDrawn("Ben", 1, "misplay")) == "Falsche Karte: Ben muss eine Karte ziehen."
    assert (
        nl.event(PenaltyDrawn("Ben", 14, "stack")) == "Ben kan er niets op leggen en moet 14 kaarten pakken."
    )
    assert en.event(ChallengePrompt("Ben", "Anna", 4)) == "Ben, draw four cards or challenge Anna?"
    assert de.event(ColourChosen("Anna", Colour.GREEN)) == "Anna wählt Grün."
    assert nl.event(DirectionChanged("counterclockwise")) == "Andersom! Nu tegen de klok in."
    assert (
        de.event(IllegalPlay("Clara", parse_card("red-skip"), "no_match"))
        == "Clara, das rote Aussetzen geht nicht. Sie passt weder in Farbe noch in Zahl oder Symbol. "
        "Bitte zurücknehmen."
    )
    assert de.event(Rejected("Anna", "not_your_turn")) == "Anna, du bist nicht dran."
    assert en.event(Rejected("", "too_late")) == "Too late, that moment has passed."
    assert (
        de.event(RoundWon("Anna", 63, (("Ben", 80), ("Anna", 563))))
        == "Anna gewinnt die Runde und bekommt 63 Punkte. Stand: Anna 563 und Ben 80."
    )
    assert nl.event(ScoresNeeded(("Ben", "Clara"))) == (
        "De ronde is voorbij. Ben en Clara, leg jullie kaarten in het telvak."
    )
    assert (
        nl.message("calibration_lay_card", colour="red")
        == "Leg één rode kaart in het midden van het aflegvak."
    )
    assert de.card(parse_card("wild-draw4")) == "die Zieh vier" and en.cards(1) == "one card"


def test_unknown_language_is_a_user_error():
    from referee.errors import UserError

    with pytest.raises(UserError, match="use one of de, nl, en"):
        PhraseBook("fr")
