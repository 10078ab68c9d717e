"""The referee at the table: what the pile watcher sees and what the buttons say, through the rules.

Every input becomes one typed observation for the pure rules core; the verdict is journalled
*before* it is spoken (a pulled plug loses nothing that was announced) and its events are turned
into sentences by the phrase book. The app holds no game state of its own beyond the open
"which player?" prompt: the rules core is the single source of truth. It does learn from which
side each player reaches for the pile (:mod:`referee.table.seats`), so that a jump-in brought
from another player's side than the turn's is that player's.

Buttons mean what the table needs at that moment (the core's ``waiting_for``):

==============  ============================================================================
button          meaning
==============  ============================================================================
DRAW            take one card; after drawing, pass; take a pending +2/+4 (stack) instead of
                challenging or stacking; while a hand is owed for counting or a challenge:
                "my cards are laid out in the scoring zone, read them"
colour buttons  declare the wild's colour; otherwise they drive the "which player?" prompt
                (BLUE next, YELLOW previous, GREEN confirm, RED cancel)
UNO             the player who just played calls UNO
CATCH           catch a player who forgot UNO (asks which one when several could be caught)
CHALLENGE       the victim challenges the Wild Draw Four on top
UNDO            take back the last accepted observation (or cancel an open prompt)
==============  ============================================================================

Long presses (new game, next round, end of match, shut down) never reach the app: the pipeline
hands them to :class:`referee.table.controls.TableControls`.

>>> from hardware.speaker import RecordingSpeaker
>>> from referee.rules import Table
>>> app = RefereeApp(Table.deal(["Anna", "Ben"], "official"), RecordingSpeaker(), PhraseBook("en"))
>>> landed = CardLanded("red-4", 0.9, (10, 10, 60, 90), ((14, 16), (56, 84)), timestamp=0.0, replayed=False)
>>> app.on_pile(landed).ok
True
>>> app.on_button(ButtonName.DRAW).ok, app.table.state().counts
(True, {'Anna': 8, 'Ben': 7})
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hardware.buttons import BUTTON_COLOUR, ButtonName, SeatPicker
from hardware.camera import CameraBack, CameraLost
from hardware.speaker import Announcer
from referee.rules import (
    Accept,
    Card,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Flip,
    Observation,
    Pass,
    Play,
    Reveal,
    Table,
    Target,
    Undo,
    Uno,
    Verdict,
    can_stack,
    parse_card,
    parse_colour,
)
from referee.rules.events import (
    CardPlayed,
    ColourChosen,
    DirectionChanged,
    Drew,
    Event,
    NextTurn,
    RoundWon,
    Skipped,
    UnoCalled,
)
from referee.table.journal import Journal, Sighting, to_plain, verdict_to_plain
from referee.table.phrases import QUESTIONS, PhraseBook
from referee.table.pictures import small_jpeg
from referee.table.pile import CardLanded, CardTakenBack, CardUnreadable, PileCleared, PileEvent
from referee.table.repeats import RepeatFilter
from referee.table.seats import SeatDirections
from referee.table.stream import EventSink, Moment, NullEvents

log = logging.getLogger(__name__)

#: What the table waits for while a hand is owed: laid out in the scoring zone, DRAW has it read.
HAND_OWED = frozenset({"reveal", "scores"})

#: Sentences that only matter while they are the latest: what the table sees for itself (a card
#: played, whose turn it is) and questions (once anything newer happened, they were answered). When
#: speech falls behind only the latest of these is said (:func:`hardware.speaker.catch_up`);
#: penalties, refusals, requests to the table and results always are.
ROUTINE: tuple[type[Event], ...] = (
    CardPlayed,
    NextTurn,
    Drew,
    Skipped,
    ColourChosen,
    DirectionChanged,
    UnoCalled,
    *QUESTIONS,
)

#: What the app is asking the table with the colour buttons, and for whom the answer is.
PromptPurpose = str  # "target" | "catch"


@dataclass
class _Prompt:
    purpose: PromptPurpose
    picker: SeatPicker


class RefereeApp:
    """Joins the eyes (pile watcher), the hands (buttons) and the rules core; speaks and journals.

    ``read_scoring_zone`` is called when a hand is owed and DRAW confirms it is laid out; it
    returns the card names read there (the product passes the pile watcher's scoring-zone reader).

    ``unattended``: nobody presses buttons (a recording refereed without its presses). A table
    that does not press a colour button still says the colour aloud, and the next player plays on
    it: the card that lands next tells the colour (see :meth:`_answer_for_the_table`).
    """

    def __init__(
        self,
        table: Table,
        speaker: Announcer,
        phrases: PhraseBook,
        *,
        journal: Journal | None = None,
        game_id: int | None = None,
        read_scoring_zone: Callable[[], Sequence[str]] | None = None,
        events: EventSink | None = None,
        unattended: bool = False,
    ) -> None:
        self.table = table
        self.speaker = speaker
        self.phrases = phrases.for_rules(table.rules)
        self.journal = journal
        self.game_id = game_id
        self.read_scoring_zone = read_scoring_zone
        self.prompt: _Prompt | None = None
        #: Which side each player reaches in from, learnt as they play.
        self.seats = SeatDirections(table.players)
        #: Every verdict in order, for summaries and tests.
        self.verdicts: list[tuple[Observation, Verdict]] = []
        self.events: EventSink = events or NullEvents()
        self.unattended = unattended
        #: Where the game stands in its stream; the pipeline moves it on with every frame.
        self.moment = Moment()
        self.repeats = RepeatFilter()
        #: The colour in play before the latest wild: what a wild on an uncalled wild keeps.
        self._colour_before_wild: str | None = None
        #: The pile was gathered up since the last accepted observation (a new round is coming).
        self._pile_cleared = False

    def restart(self, table: Table, game_id: int | None) -> None:
        """Referee another game (a new match from the buttons) with the same speaker and journal."""
        self.table = table
        self.game_id = game_id
        self.phrases = self.phrases.for_rules(table.rules)
        self.prompt = None
        self.seats = SeatDirections(table.players)
        self.verdicts = []

    # --- inputs ---------------------------------------------------------------------------------

    def on_pile(self, event: PileEvent, picture: np.ndarray | None = None) -> Verdict | None:
        """A card landed on the discard pile (a flip when the dealer owes one), or the watcher needs help.

        ``picture``: the discard zone as the camera saw it; the journal keeps a small JPEG of it
        with the verdict of a landing, and on its own for a card that could not be read.
        """
        self._emit_pile_event(event)
        if isinstance(event, CardLanded):
            card = parse_card(event.card)
            seen = self._sighting(picture, event.confidence)
            if self.table.waiting_for in ("flip", "next_round"):
                return self.submit(Flip(card), seen)
            if self.unattended:
                self._answer_for_the_table(card)
            return self._play(card, event.reached_from_deg, seen)
        if isinstance(event, CardUnreadable):
            seen = self._sighting(picture)
            if seen is not None and self.journal is not None and self.game_id is not None:
                self.journal.record_unreadable(self.game_id, seen)
            self.announce("straighten_card")
        else:  # a refused card taken back, or the pile gathered up: the rules already know
            self._pile_cleared = isinstance(event, PileCleared)
            log.debug("pile event needs no verdict: %r", event)
        return None

    def _sighting(self, picture: np.ndarray | None, confidence: float | None = None) -> Sighting | None:
        """What to journal of the camera's picture, when there is a journal to keep it."""
        if picture is None or self.journal is None or self.game_id is None:
            return None
        return Sighting(small_jpeg(picture), self.moment.t, None if confidence is None else float(confidence))

    def _play(self, card: Card, reached_from_deg: float | None, seen: Sighting | None = None) -> Verdict:
        """A played card: the player on turn's, or a jump-in's from the side the arm came from
        (:meth:`SeatDirections.who_played`). Accepted turn plays teach the players' sides."""
        on_turn = self.table.turn
        if reached_from_deg is None or on_turn is None:
            return self.submit(Play(card), seen)
        possible_jump_in = self.table.rules.jump_in and card == self.table.top
        by = self.seats.who_played(reached_from_deg, on_turn, possible_jump_in=possible_jump_in)
        verdict = self.submit(Play(card, by=by), seen)
        if verdict.ok and by is None:
            self.seats.learn(on_turn, reached_from_deg)
        return verdict

    def _answer_for_the_table(self, card: Card) -> None:
        """Unattended, a card lands while the referee still waits for a button: take the answer the
        table gave aloud. A colour nobody pressed is the landed card's colour (the next player plays
        on the colour called; a wild on it keeps the colour from before the first wild, red when
        none is known); a draw card nobody challenged or stacked on was accepted."""
        if self.table.waiting_for in ("reveal", "scores") and self.table.can_undo and not self._pile_cleared:
            self._reopen_miscounted_round()
        if self.table.waiting_for == "colour":
            colour = card.colour.label if card.colour is not None else self._colour_before_wild or "red"
            self.submit(ChooseColour(parse_colour(colour)))
        if self.table.waiting_for == "challenge_or_accept" and not (
            self.table.rules.stacking != "off" and can_stack(card, self.table.top, self.table.rules)
        ):
            self.submit(Accept())

    def _reopen_miscounted_round(self) -> None:
        """Cards still land on the same pile after the round ended by counting alone: the winner
        had drawn a card nobody reported. Take the last card back, count the unseen draw, and play
        it again. (A round really over is followed by the pile gathered up, not by more cards.)"""
        last_play = next((obs for obs, verdict in reversed(self.verdicts) if verdict.ok), None)
        if not isinstance(last_play, Play):
            return
        self.submit(Undo())
        self.submit(Draw(1))
        self.submit(last_play)

    def _emit_pile_event(self, event: PileEvent) -> None:
        """The watcher's event in the stream, in the words of docs/events.md."""
        if isinstance(event, CardLanded):
            fields = {
                "card": event.card,
                "confidence": round(float(event.confidence), 3),
                "replayed": event.replayed,
                "reached_from_deg": None
                if event.reached_from_deg is None
                else round(float(event.reached_from_deg), 1),
            }
            self.events.emit(self.moment, "landed", fields)
        elif isinstance(event, CardTakenBack):
            self.events.emit(self.moment, "taken_back", {"card": event.card, "top": event.top})
        elif isinstance(event, CardUnreadable):
            self.events.emit(self.moment, "unreadable")
        else:
            self.events.emit(self.moment, "cleared")

    def on_camera(self, event: CameraLost | CameraBack) -> None:
        if isinstance(event, CameraLost):
            self.events.emit(self.moment, "camera_lost", {"camera": event.description})
            self.announce("camera_lost")
        else:
            fields = {"camera": event.description, "outage_s": round(event.outage_s, 2)}
            self.events.emit(self.moment, "camera_back", fields)
            self.announce("camera_back")

    def on_button(self, button: ButtonName) -> Verdict | None:
        """One button press; returns the verdict when it became an observation."""
        self.events.emit(self.moment, "button", {"button": button.name})
        if self.journal is not None and self.game_id is not None:
            self.journal.record_press(self.game_id, self.moment.t, button.name, self.moment.frame)
        if self.prompt is not None:
            return self._answer_prompt(button)
        waiting = self.table.waiting_for
        if button in BUTTON_COLOUR:
            if waiting == "colour":
                return self.submit(ChooseColour(parse_colour(BUTTON_COLOUR[button])))
            if waiting == "target":
                return self._ask("target", self._target_candidates())
            return None
        if button is ButtonName.DRAW:
            return self._draw_button(waiting)
        if button is ButtonName.UNO:
            return self.submit(Uno())
        if button is ButtonName.CHALLENGE:
            return self.submit(Challenge())
        if button is ButtonName.UNDO:
            return self.submit(Undo())
        if button is ButtonName.CATCH:
            catchable = self.table.state().catchable
            if catchable:  # one candidate is taken at once; several are asked for
                return self._ask("catch", catchable)
            return self._catch(self._nobody_to_catch())
        return None

    def _draw_button(self, waiting: str) -> Verdict | None:
        if waiting == "challenge_or_accept":
            return self.submit(Accept())
        if waiting in HAND_OWED:
            return self._reveal()
        if waiting == "play" and self.table.drawn_this_turn:
            return self.submit(Pass())
        return self.submit(Draw(1))

    def _reveal(self) -> Verdict | None:
        owed = self.table.state().to_reveal
        if not owed or self.read_scoring_zone is None:
            return None
        names = list(self.read_scoring_zone())
        return self.submit(Reveal(tuple(parse_card(name) for name in names), by=owed[0]))

    # --- "which player?" ------------------------------------------------------------------------

    def _ask(self, purpose: PromptPurpose, candidates: Sequence[str]) -> Verdict | None:
        self.prompt = _Prompt(purpose, SeatPicker(candidates))
        if self.prompt.picker.done:  # a single candidate needs no question
            return self._finish_prompt()
        question = "ask_catch_target" if purpose == "catch" else "ask_swap_target"
        self.announce(question, player=self.prompt.picker.highlighted)
        self.announce("pick_help")
        return None

    def _answer_prompt(self, button: ButtonName) -> Verdict | None:
        assert self.prompt is not None
        step = self.prompt.picker.feed(button)
        if step.state == "highlight":
            self.announce("pick_candidate", player=step.player)
        elif step.state in ("chosen", "cancelled"):
            return self._finish_prompt()
        return None

    def _finish_prompt(self) -> Verdict | None:
        assert self.prompt is not None
        prompt, self.prompt = self.prompt, None
        result = prompt.picker.result
        if result is None or result.player is None:
            self.announce("pick_cancelled")
            return None
        if prompt.purpose == "catch":
            return self._catch(result.player)
        return self.submit(Target(result.player))

    def _target_candidates(self) -> list[str]:
        owed_by = self.table.owed_by
        return [player for player in self.table.players if player != owed_by]

    def _catch(self, player: str) -> Verdict:
        """A catch is called out by whoever is on turn now (the rules need a catcher, not a button).

        With nobody on turn (the round is over) or the culprit on turn, the next other seat calls it.
        """
        catcher = self.table.turn
        if catcher is None or catcher == player:
            catcher = next(seat for seat in self.table.players if seat != player)
        return self.submit(Catch(player, by=catcher))

    def _nobody_to_catch(self) -> str:
        """With nobody catchable, the core still judges the catch (a false catch may cost cards)."""
        state = self.table.state()
        last = [player for player, count in state.counts.items() if count == 1]
        return last[0] if last else self.table.players[0]

    # --- output ---------------------------------------------------------------------------------

    def submit(self, observation: Observation, seen: Sighting | None = None) -> Verdict:
        """Judge one observation: journal it (with the picture of what the camera saw, when it saw
        it), then say what it means (and put both in the stream)."""
        colour_before = self.table.active_colour
        verdict = self.table.observe(observation)
        self.verdicts.append((observation, verdict))
        if self.journal is not None and self.game_id is not None:
            self.journal.record(self.game_id, observation, verdict, seen)
        if verdict.ok:
            self._pile_cleared = False
        if verdict.ok and self.table.waiting_for == "colour":
            self._colour_before_wild = colour_before.label if colour_before is not None else None
        pairs = list(self.phrases.sentences(verdict.events))
        sentences = [sentence for _, sentence in pairs]
        spoken = [self.say(sentence, routine=isinstance(event, ROUTINE)) for event, sentence in pairs]
        self._emit_verdict(observation, verdict, sentences, spoken)
        return verdict

    def _emit_verdict(
        self, observation: Observation, verdict: Verdict, sentences: list[str], spoken: list[bool]
    ) -> None:
        """The verdict in the stream with the table after it, then the scores when a round ended."""
        plain = verdict_to_plain(verdict)
        state = self.table.state()
        fields = {
            "observation": to_plain(observation),
            "ok": plain["ok"],
            "reason": plain["reason"],
            "penalties": plain["penalties"],
            "turn": state.turn,
            "colour": state.colour,
            "direction": state.direction,
            "waiting_for": state.waiting_for,
            "top": state.top,
            "counts": state.counts,
            "pending_draw": state.pending_draw,
            "scores": state.scores,
            "said": [text for text, out_loud in zip(sentences, spoken, strict=True) if out_loud],
            "held_back": [text for text, out_loud in zip(sentences, spoken, strict=True) if not out_loud],
        }
        self.events.emit(self.moment, "verdict", fields)
        for event in verdict.events:
            if isinstance(event, RoundWon):
                scores = {"winner": event.player, "points": event.points, "scores": dict(event.scores)}
                self.events.emit(self.moment, "scores", {**scores, "match_winner": state.match_winner})

    def announce(self, key: str, **values: object) -> bool:
        """One of the table's own sentences (a prompt, a request): said, and put in the stream."""
        sentence = self.phrases.message(key, **values)
        spoken = self.say(sentence)
        self.events.emit(self.moment, "message", {"key": key, "text": sentence, "spoken": spoken})
        return spoken

    def say(self, sentence: str, *, routine: bool = False) -> bool:
        """Speak ``sentence`` unless it only repeats what was just said (:class:`RepeatFilter`);
        ``routine`` sentences may be left out by a speaker that has fallen behind."""
        if not sentence or not self.repeats.should_say(sentence, self.moment.t):
            return False
        self.speaker.say(sentence, self.phrases.language, routine=routine)
        return True
