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
    CardPlayed,
    ChallengePrompt,
    ChallengeSettled,
    ColourChosen,
    DirectionChanged,
    Eliminated,
    FlipNeeded,
    IllegalPlay,
    NextTurn,
    NoCardsLeft,
    PenaltyDrawn,
    Rejected,
    RevealNeeded,
    RoundWon,
    ScoresNeeded,
    Skipped,
    UnoCalled,
    UnoCaught,
)
from referee.rules.observations import Draw, Flip, Observation, Play, Undo
from referee.rules.options import OPTION_NAMES, Rules
from referee.rules.setup import DIRECTIONS
from referee.rules.verdict import PENALTY_REASONS, REJECTION_CODES
from referee.table.phrases import LANGUAGES, ROUND_WON_VARIANTS, VARIANTS, PhraseBook, load_phrases


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
    books = [PhraseBook(language, match_mode=mode) for mode in ROUND_WON_VARIANTS]
    for book, event in itertools.product(books, instances(event_type)):
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
    assert set(ROUND_WON_VARIANTS.values()) == set(phrases["RoundWon"])
    with_variants = {cls.__name__ for cls in VARIANTS} | {"RoundWon"}
    for name, entry in phrases.items():
        leaves = entry.values() if name in with_variants else [entry]
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


#: A value for every placeholder of the table's own messages.
MESSAGE_VALUES = {
    "player": "Ben",
    "players": ("Anna", "Ben"),
    "scores": {"Anna": 12, "Ben": 30},
    "colour": "yellow",
    "cards": "x",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_and_message_can_be_spoken(language):
    book = PhraseBook(language)
    spoken = {name: book.card(card) for name, card in CARDS_BY_NAME.items()}
    assert len(set(spoken.values())) == len(spoken)  # no two cards sound the same
    values = MESSAGE_VALUES
    for key in load_phrases()["messages"]:
        sentence = book.message(key, **values)
        assert "{" not in sentence and sentence[-1] in ".!?", sentence


#: German articles other than the feminine "die": a card named with one breaks after "legt" (accusative).
NOT_FEMININE = re.compile(r"\b(der|das|den|dem|des)\s+(rote|gelbe|grüne|blaue|roten|gelben|grünen|blauen)\b")
#: Words espeak-ng spells out letter by letter in German and Dutch ("UNO" → [uː ɛn oː]).
ALL_CAPS = re.compile(r"\b[A-ZÄÖÜ]{2,}\b")


def every_sentence(book: PhraseBook) -> list[str]:
    """Every event variant with every sample value, every card, every message, in both scoring kinds."""
    sentences = []
    for mode in ROUND_WON_VARIANTS:
        scored = PhraseBook(book.language, match_mode=mode)
        sentences += [scored.event(event) for cls in EVENT_TYPES for event in instances(cls)]
    values = MESSAGE_VALUES
    sentences += [book.message(key, **values) for key in load_phrases()["messages"]]
    for card in CARDS_BY_NAME.values():
        sentences += [
            book.event(CardPlayed("Anna", card, False)),
            book.event(IllegalPlay("Anna", card, "no_match")),
        ]
    return sentences


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_placeholder_shouted_word_or_wrong_article_is_left(language):
    book = PhraseBook(language)
    article = {"de": "die ", "nl": "de ", "en": "the "}[language]
    for name, card in CARDS_BY_NAME.items():
        assert book.card(card).startswith(article), name
    for sentence in every_sentence(book):
        assert not re.search(r"[{}]", sentence), sentence
        if language != "en":  # English voices read "UNO" as the word
            assert not ALL_CAPS.search(sentence), sentence
        if language == "de":
            assert not NOT_FEMININE.search(sentence), sentence
            assert "eins Punkt" not in sentence and "1 Punkt" not in sentence, sentence


def test_native_sentences():
    """The sentences of the native-speaker review (shared/notes/phrases-review.md), as corrected."""
    de, nl, en = PhraseBook("de"), PhraseBook("nl"), PhraseBook("en")
    assert de.event(NextTurn("Ben")) == "Ben ist dran."
    assert nl.event(NextTurn("Ben")) == "Ben is aan de beurt."
    assert de.event(PenaltyDrawn("Ben", 2, "draw2")) == "Ben muss zwei Karten ziehen."
    assert nl.event(PenaltyDrawn("Ben", 2, "draw2")) == "Ben moet twee kaarten pakken."
    assert de.event(PenaltyDrawn("Ben", 1, "misplay")) == "Falsche Karte: Ben muss eine Karte ziehen."
    assert nl.event(PenaltyDrawn("Ben", 14, "stack")) == "Ben moet alle 14 kaarten pakken."
    assert de.event(PenaltyDrawn("Ben", 6, "stack")) == "Ben muss alle sechs Karten ziehen."
    assert en.event(ChallengePrompt("Ben", "Anna", 4)) == "Ben, draw four cards or challenge Anna?"
    assert de.event(ChallengePrompt("Ben", "Anna", 4)) == "Ben, vier Karten ziehen oder Anna herausfordern?"
    assert de.event(ColourChosen("Anna", Colour.GREEN)) == "Anna wählt Grün."
    assert nl.event(DirectionChanged("counterclockwise")) == "Andersom! Nu tegen de klok in."
    assert de.event(DirectionChanged("clockwise")) == "Andersrum! Jetzt im Uhrzeigersinn."
    # (1) 1: "legen" takes the accusative; every German card is feminine, so "die" is right in every case
    assert (
        de.event(CardPlayed("Anna", parse_card("red-reverse"), False))
        == "Anna legt die rote Richtungswechselkarte."
    )
    assert de.event(CardPlayed("Anna", parse_card("wild"), False)) == "Anna legt die Farbwahlkarte."
    # (1) 4
    assert (
        de.event(IllegalPlay("Clara", parse_card("red-skip"), "no_match"))
        == "Clara, die rote Aussetzkarte geht nicht. Das passt weder in Farbe noch in Zahl oder Symbol. "
        "Bitte zurücknehmen."
    )
    assert de.event(Rejected("Anna", "not_your_turn")) == "Anna, du bist nicht dran."
    assert en.event(Rejected("", "too_late")) == "Too late, that moment has passed."
    # (1) 2: "Uno" as a word, not U-N-O; the penalty after a catch adds only the consequence
    assert de.event(UnoCalled("Ben")) == "Ben ruft Uno!"
    assert nl.event(UnoCaught("Ben", "Anna")) == "Anna betrapt Ben: geen Uno geroepen!"
    assert de.event(PenaltyDrawn("Ben", 2, "uno")) == "Zur Strafe muss Ben zwei Karten ziehen."
    assert nl.event(PenaltyDrawn("Ben", 2, "uno")) == "Als straf moet Ben twee kaarten pakken."
    assert en.event(UnoCalled("Ben")) == "Ben calls UNO!"
    # (1) 3
    assert (
        de.event(RoundWon("Anna", 1, (("Ben", 80), ("Anna", 563))))
        == "Anna gewinnt die Runde und bekommt einen Punkt. Stand: Anna 563 und Ben 80."
    )
    assert (
        de.event(RoundWon("Anna", 63, (("Ben", 80), ("Anna", 563))))
        == "Anna gewinnt die Runde und bekommt 63 Punkte. Stand: Anna 563 und Ben 80."
    )
    # (1) 6, 7: one player, or several, addressed correctly
    assert de.event(ScoresNeeded(("Ben",))) == "Runde vorbei. Ben: Karten bitte ins Zählfeld legen."
    assert nl.event(ScoresNeeded(("Ben", "Clara"))) == (
        "De ronde is voorbij. Ben en Clara: leg je kaarten in het telvak."
    )
    # (1) 8, 9, 10
    assert nl.event(Rejected("", "not_allowed")) == "Dat mag niet volgens jullie regels."
    assert nl.event(ChallengeSettled("Ben", "Anna", True)) == "Ben heeft gelijk, Anna heeft gebluft."
    assert nl.event(ChallengeSettled("Ben", "Anna", False)) == "Anna heeft niet gebluft."
    assert (
        nl.event(NoCardsLeft("Ben", 3))
        == "Er zijn geen kaarten meer. Ben krijgt er later nog drie kaarten bij."
    )
    assert de.event(Eliminated("Ben")) == "Ben hat zu viele Punkte und scheidet aus."
    assert nl.card(parse_card("wild-shuffle")) == "de schudkaart"
    assert (
        nl.message("calibration_lay_card", colour="red")
        == "Leg één rode kaart in het midden van het aflegvak."
    )
    assert de.card(parse_card("wild-draw4")) == "die Zieh vier" and en.cards(1) == "one card"


@pytest.mark.parametrize("mode", ["lowest_total", "elimination"])
def test_where_the_lowest_total_leads_the_winner_scores_nothing_and_the_leader_is_said_first(mode):
    scores = (("Anna", 0), ("Ben", 80), ("Clara", 35))
    assert (
        PhraseBook("de", match_mode=mode).event(RoundWon("Anna", 115, scores))
        == "Anna gewinnt die Runde. Stand: Anna 0, Clara 35 und Ben 80."
    )
    assert (
        PhraseBook("en")
        .for_rules(Rules.preset("official", match_mode=mode))
        .event(RoundWon("Anna", 115, scores))
        == "Anna wins the round. Score: Anna 0, Clara 35 and Ben 80."
    )


def test_a_question_is_not_cut_off_by_the_turn_of_the_player_it_asks():
    de = PhraseBook("de")
    asked = [ColourChosen("Anna", Colour.RED), ChallengePrompt("Ben", "Anna", 4), NextTurn("Ben")]
    assert de.events(asked) == ["Anna wählt Rot.", "Ben, vier Karten ziehen oder Anna herausfordern?"]
    assert de.events([NextTurn("Ben")]) == ["Ben ist dran."]


def test_a_reverse_between_two_players_says_no_direction():
    played = CardPlayed("Anna", parse_card("red-reverse"), False)
    two = [played, DirectionChanged("counterclockwise"), Skipped("Ben"), NextTurn("Anna")]
    assert PhraseBook("en").events(two) == [
        "Anna plays the red reverse.",
        "Ben is skipped.",
        "Anna's turn.",
    ]
    three = [played, DirectionChanged("counterclockwise"), NextTurn("Clara")]
    assert len(PhraseBook("en").events(three)) == 3


def test_unknown_language_is_a_user_error():
    from referee.errors import UserError

    with pytest.raises(UserError, match="use one of de, nl, en"):
        PhraseBook("fr")
