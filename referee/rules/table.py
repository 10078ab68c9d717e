"""The table referee: it sees the discard pile and the buttons, never a hidden hand — it counts.

:meth:`Table.observe` takes one :mod:`observation <referee.rules.observations>` and answers a
:class:`~referee.rules.verdict.Verdict`. A rejected observation leaves the state exactly as it was
(unless the rules make the mistake cost cards: ``misplay_penalty``, ``false_catch_penalty``);
:class:`~referee.rules.observations.Undo` takes back the last accepted one. The referee is a
deterministic function of its :class:`~referee.rules.setup.Setup` and the observations it recorded,
which is what the journal replays after a crash (:meth:`Table.replay`).

>>> from referee.rules.observations import Flip, Play
>>> from referee.rules.cards import parse_card as card
>>> table = Table.deal(["Anna", "Ben", "Clara", "Dan"])
>>> table.observe(Flip(card("green-skip"))).ok, table.turn
(True, 'Ben')
>>> verdict = table.observe(Play(card("green-3"), by="Anna"))
>>> verdict.ok, verdict.reason
(False, 'not_your_turn')
>>> table.observe(Play(card("green-3"))).events
(CardPlayed(player='Ben', card=Card('green-3'), jump_in=False), NextTurn(player='Clara'))

Performance: the state is a handful of ints, small tuples and interned cards; dispatch is a dict on
the observation type; undo keeps a bounded stack of flat snapshots taken with one ``attrgetter``;
frequent events are interned per seat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from referee.rules.cards import Card, Colour, Rank, deck, hand_points
from referee.rules.events import (
    CardPlayed,
    ChallengePrompt,
    ChallengeSettled,
    ColourChosen,
    ColourOwed,
    DirectionChanged,
    DrawnCardPrompt,
    DrawPending,
    Drew,
    Eliminated,
    Event,
    FlipNeeded,
    HandsPassed,
    HandsShuffled,
    HandsSwapped,
    IllegalPlay,
    MatchWon,
    NextTurn,
    NoCardsLeft,
    PenaltyDrawn,
    Rejected,
    ReshuffleNeeded,
    RevealNeeded,
    RoundStarted,
    RoundWon,
    ScoresNeeded,
    Skipped,
    TargetOwed,
    Undone,
    UnoCalled,
    UnoCaught,
    UnoMissed,
    WentOut,
)
from referee.rules.legality import can_play, can_stack, declarable_colours, wd4_is_legal
from referee.rules.observations import (
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
)
from referee.rules.options import Rules
from referee.rules.setup import Setup
from referee.rules.verdict import Penalty, Verdict

# Enum members as plain module constants: ``Rank.SKIP`` is a slow class-attribute lookup in Python 3.11.
_ZERO, _SEVEN, _SKIP, _REVERSE, _DRAW2 = Rank.ZERO, Rank.SEVEN, Rank.SKIP, Rank.REVERSE, Rank.DRAW2
_WILD_DRAW4, _WILD_SWAP, _WILD_SHUFFLE = Rank.WILD_DRAW4, Rank.WILD_SWAP, Rank.WILD_SHUFFLE

# What the referee waits for. DRAWN is PLAY after a voluntary draw (only the drawn card, or pass).
FLIP, PLAY, DRAWN, COLOUR, TARGET, PENDING, REVEAL, SCORES, NEXT_ROUND, MATCH_OVER, REFLIP = range(11)
WAITING_FOR: tuple[str, ...] = (
    "flip",
    "play",
    "play",
    "colour",
    "target",
    "challenge_or_accept",
    "reveal",
    "scores",
    "next_round",
    "match_over",
    "flip",
)
_ROUND_OVER = frozenset({SCORES, NEXT_ROUND, MATCH_OVER})
_OWED = frozenset({COLOUR, TARGET})

# Who owes a colour or target, and what follows once it is given.
_AFTER_PLAY, _AFTER_FIRST_CARD, _AFTER_REFLIP = range(3)

# UNO window of one seat (R27, R28).
UNO_NONE, UNO_FRESH, UNO_STALE, UNO_CLOSED, UNO_CALLED = range(5)
# FRESH: just left with one card, nobody else has acted yet; a catch counts and the call is "with the play".
# STALE: caught_any_time after others acted: still catchable. CLOSED: no longer catchable (too_late).

DIRECTION_NAMES = {1: "clockwise", -1: "counterclockwise"}
_MISPLAY_REASONS = frozenset({"no_match", "must_draw", "only_drawn_card", "not_identical", "not_your_turn"})

# Every attribute that changes during a game; an undo snapshot is these values, all immutable.
_STATE_FIELDS: tuple[str, ...] = (
    "_phase",
    "_turn",
    "_direction",
    "_top",
    "_colour",
    "_counts",
    "_in_round",
    "_active_count",
    "_draw_pile",
    "_discard",
    "_aside",
    "_pending",
    "_stack",
    "_under",
    "_challenge",
    "_owed_by",
    "_owed_context",
    "_owed_card",
    "_reflip",
    "_resume_phase",
    "_uno",
    "_fresh",
    "_shouts",
    "_armed",
    "_last_player",
    "_round_winner",
    "_points",
    "_scores",
    "_hand_points",
    "_to_reveal",
    "_match_winner",
    "_eliminated",
    "_dealer",
    "_first_player",
    "_round_number",
    "_known",
)
_state_of = attrgetter(*_STATE_FIELDS)
_NO_PENALTIES: tuple[Penalty, ...] = ()
#: Build a Verdict without the named tuple's Python-level ``__new__`` (one per observation).
_new_verdict = tuple.__new__
#: Recorded observations between two undo checkpoints, and how many checkpoints are kept
#: (so undo reaches back at least (UNDO_CHECKPOINTS - 1) × CHECKPOINT_EVERY observations).
CHECKPOINT_EVERY = 64
UNDO_CHECKPOINTS = 16


#: The state keys of the scenario format (SCENARIOS.md "Expectations"), each a :class:`TableState` field.
STATE_KEYS: tuple[str, ...] = (
    "turn",
    "colour",
    "direction",
    "top",
    "counts",
    "draw_pile",
    "pending_draw",
    "waiting_for",
    "round_winner",
    "points",
    "scores",
    "match_winner",
    "eliminated",
)


@dataclass(frozen=True)
class TableState:
    """A snapshot with the scenario's expectation keys, plus what a table app shows.

    Values are plain names and numbers (JSON-ready): ``colour`` is ``choose`` while a wild's colour
    is owed; ``turn`` is ``None`` once the round is over.
    """

    turn: str | None
    colour: str | None
    direction: str
    top: str | None
    counts: dict[str, int]
    draw_pile: int
    discard_pile: int
    pending_draw: int
    waiting_for: str
    round_winner: str | None
    points: int | None
    scores: dict[str, int]
    match_winner: str | None
    eliminated: list[str]
    #: Who owes the colour or target now (``None`` when nothing is owed).
    owed_by: str | None
    #: Who may challenge the Wild Draw Four on top right now.
    may_challenge: str | None
    #: Players who could be caught for a missing UNO call right now.
    catchable: list[str]
    #: Players whose UNO call stands.
    uno_called: list[str]
    #: Players who still have to show their hand (challenge or scoring).
    to_reveal: list[str]
    dealer: str
    round_number: int

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain mapping."""
        return dict(self.__dict__)


_CARDS_IN_DECK: dict[tuple[str, str], frozenset[Card]] = {}


def _cards_in_deck(rules: Rules) -> frozenset[Card]:
    """The distinct cards of the deck in use (built once per deck kind)."""
    key = (rules.deck, rules.extra_wild)
    cards = _CARDS_IN_DECK.get(key)
    if cards is None:
        cards = _CARDS_IN_DECK[key] = frozenset(deck(rules))
    return cards


class _Announcements:
    """Events built once per list of players and shared by every table seating them (events are immutable)."""

    __slots__ = ("drew", "interned", "played", "prompt", "skipped", "turn")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.turn = tuple(NextTurn(name) for name in names)
        self.skipped = tuple(Skipped(name) for name in names)
        self.drew = tuple(Drew(name, 1) for name in names)
        #: DrawnCardPrompt per ``must_play_if_fits`` (False, True), then per seat.
        self.prompt = tuple(tuple(DrawnCardPrompt(name, must) for name in names) for must in (False, True))
        self.played: tuple[dict[Card, CardPlayed], ...] = tuple({} for _ in names)
        self.interned: dict[tuple[Any, ...], Any] = {}


_ANNOUNCEMENTS: dict[tuple[str, ...], _Announcements] = {}


def _announcements_for(names: tuple[str, ...]) -> _Announcements:
    announcements = _ANNOUNCEMENTS.get(names)
    if announcements is None:
        if len(_ANNOUNCEMENTS) >= 64:
            _ANNOUNCEMENTS.clear()  # a long-running process seating many different tables: stay small
        announcements = _ANNOUNCEMENTS[names] = _Announcements(names)
    return announcements


class Table:
    """The referee of one table. Build it with :meth:`deal`, :meth:`from_dict` or a :class:`Setup`."""

    __slots__ = (
        *_STATE_FIELDS,
        "_checkpoints",
        "_deck_cards",
        "_deck_size",
        "_events",
        "_interned",
        "_ev_drew",
        "_ev_played",
        "_ev_prompt",
        "_ev_skipped",
        "_ev_turn",
        "_keep_top",
        "_misplay",
        "_n",
        "_names",
        "_jump_in",
        "_log",
        "_penalties",
        "_rules",
        "_seat",
        "_setup",
        "_seven_o",
        "_stacking",
        "_two_player",
    )

    def __init__(self, setup: Setup) -> None:
        if not isinstance(setup, Setup):
            raise TypeError("Table(setup) takes a Setup; use Table.from_dict for the scenario mapping")
        self._setup = setup
        rules = self._rules = setup.rules
        names = self._names = setup.players
        self._n = len(names)
        self._seat = {name: seat for seat, name in enumerate(names)}
        self._deck_size = rules.deck_size
        self._deck_cards = _cards_in_deck(rules)
        self._stacking = rules.stacking != "off"
        self._keep_top = rules.reshuffle_keep_top
        self._misplay = rules.misplay_penalty
        self._two_player = rules.two_player_rules
        self._seven_o = rules.seven_o
        self._jump_in = rules.jump_in
        announcements = _announcements_for(names)
        self._interned = announcements.interned
        self._ev_turn = announcements.turn
        self._ev_skipped = announcements.skipped
        self._ev_played = announcements.played
        self._ev_drew = announcements.drew
        self._ev_prompt = announcements.prompt[rules.drawn_card == "must_play"]
        self._events: list[Event] = []
        self._penalties: Sequence[Penalty] = _NO_PENALTIES
        self._set_initial_state()
        self._log: list[Observation] = []
        # The first checkpoint is the construction itself (None): rebuilt from the setup, not copied.
        self._checkpoints: list[tuple[int, tuple[Any, ...] | None]] = [(0, None)]

    def _set_initial_state(self) -> None:
        """The state the setup describes, before any observation."""
        setup, rules = self._setup, self._rules
        self._scores = self._team_scores([setup.scores.get(name, 0) for name in self._names])
        eliminated = [False] * self._n
        if rules.match_mode == "elimination":
            eliminated = [score >= rules.target_score for score in self._scores]
        self._eliminated = eliminated
        self._match_winner = -1
        self._round_number = 1
        self._dealer = self._seat[setup.dealer]
        self._start_round()
        if setup.mid_round:
            self._resume_mid_round(setup)

    # ----------------------------------------------------------------------------------- construction

    @classmethod
    def deal(
        cls,
        players: Iterable[str],
        rules: Rules | str | Mapping[str, Any] = "official",
        *,
        dealer: str | None = None,
        hand_size: int = 7,
        scores: Mapping[str, int] | None = None,
    ) -> Table:
        """A referee at the deal: the next observation is the first card turned up.

        >>> Table.deal(["Anna", "Ben"], "spielhilfe").waiting_for
        'flip'
        """
        return cls(
            Setup(
                players=tuple(players),
                rules=Rules.from_spec(rules),
                dealer=dealer or "",
                hand_size=hand_size,
                scores=dict(scores or {}),
            )
        )

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Any]) -> Table:
        """A referee from the scenario header / journal form (see :class:`Setup`)."""
        return cls(Setup.from_dict(mapping))

    @classmethod
    def replay(cls, setup: Setup, observations: Iterable[Observation]) -> Table:
        """Rebuild a referee from its construction and its journal (the recorded observations).

        Raises :class:`ObservationError` when an observation is not recorded again the same way,
        which means the journal does not belong to this setup.
        """
        table = cls(setup)
        for number, observation in enumerate(observations, 1):
            if not table.observe(observation).recorded:
                raise ObservationError(
                    f"journal entry {number} ({observation.to_dict()}) is refused on replay; "
                    "the journal does not match this game's setup"
                )
        return table

    def to_dict(self) -> dict[str, Any]:
        """The construction in mapping form (store it beside the journal)."""
        return self._setup.to_dict()

    def _team_scores(self, scores: tuple[int, ...]) -> tuple[int, ...]:
        if not self._rules.partners:
            return scores
        team = (max(scores[0], scores[2]), max(scores[1], scores[3]))
        return (team[0], team[1], team[0], team[1])

    def _start_round(self) -> None:
        """Deal a round: counts, piles and all round state fresh; the first card is still to come."""
        n = self._n
        in_round = [not out for out in self._eliminated]
        self._in_round = in_round
        self._active_count = sum(in_round)
        hand = self._setup.hand_size
        self._counts = [hand if playing else 0 for playing in in_round]
        self._draw_pile = self._deck_size - hand * self._active_count
        self._discard = 0
        self._aside = 0
        self._direction = 1
        self._top = None
        self._colour = None
        self._pending = 0
        self._stack = ()
        self._under = None
        self._challenge = None
        self._owed_by = -1
        self._owed_context = _AFTER_PLAY
        self._owed_card = None
        self._resume_phase = PLAY
        self._reflip = False
        self._uno = [UNO_NONE] * n
        self._fresh = []
        self._shouts = [0] * n
        self._armed = -1
        self._last_player = -1
        self._round_winner = -1
        self._points = None
        self._hand_points = [0] * n
        self._to_reveal = []
        self._known = [()] * n
        self._first_player = self._next_clockwise(self._dealer)
        self._turn = self._first_player
        self._phase = FLIP

    def _resume_mid_round(self, setup: Setup) -> None:
        seat = self._seat
        counts = [0] * self._n
        for name in setup.players:
            if self._in_round[seat[name]]:
                counts[seat[name]] = setup.count_of(name)
        self._counts = counts
        self._top = setup.top
        self._colour = setup.colour if setup.colour is not None else setup.top.colour
        self._discard = 1
        self._draw_pile = self._deck_size - sum(counts) - 1
        self._direction = 1 if setup.direction == "clockwise" else -1
        self._turn = seat[setup.turn] if setup.turn is not None else self._first_player
        # "The player whose turn it was last" (the default caller of UNO) sat before the player on turn.
        self._last_player = self._previous(self._turn)
        uno = [UNO_NONE] * self._n
        fresh = []
        for s, count in enumerate(counts):
            if count == 1:
                if self._names[s] in setup.uno_called:
                    uno[s] = UNO_CALLED
                else:
                    uno[s] = UNO_FRESH
                    fresh.append(s)
        self._uno = uno
        self._fresh = fresh
        self._phase = PLAY

    # ----------------------------------------------------------------------------------- public reading

    @property
    def rules(self) -> Rules:
        """The rule set this table plays by."""
        return self._rules

    @property
    def setup(self) -> Setup:
        """The construction (what the journal stores before the observations)."""
        return self._setup

    @property
    def players(self) -> tuple[str, ...]:
        """Seat names, clockwise."""
        return self._names

    @property
    def waiting_for(self) -> str:
        """What the referee waits for: ``flip``, ``play``, ``colour``, ``target``, ``challenge_or_accept``,
        ``reveal``, ``scores``, ``next_round`` or ``match_over``."""
        return WAITING_FOR[self._phase]

    @property
    def turn(self) -> str | None:
        """The player who must act now (``None`` once the round is over)."""
        return None if self._phase in _ROUND_OVER or self._turn < 0 else self._names[self._turn]

    @property
    def top(self) -> Card | None:
        """The top card of the discard pile."""
        return self._top

    @property
    def active_colour(self) -> Colour | None:
        """The colour to match; ``None`` while a wild's colour is still owed."""
        return self._colour

    @property
    def direction(self) -> int:
        """+1 clockwise, -1 counter-clockwise."""
        return self._direction

    @property
    def pending_draw(self) -> int:
        """Cards the player on turn must take unless they stack or challenge."""
        return self._pending

    @property
    def owed_by(self) -> str | None:
        """Who owes a colour or target now."""
        return self._names[self._owed_by] if self._phase in _OWED else None

    @property
    def drawn_this_turn(self) -> bool:
        """Whether the player on turn has drawn, so only the drawn card may still be played (R17)."""
        return self._phase == DRAWN

    @property
    def draw_pile(self) -> int:
        """Cards in the draw pile, as counted."""
        return self._draw_pile

    def count(self, player: str) -> int:
        """How many cards ``player`` holds, as counted."""
        return self._counts[self._seat_of(player)]

    @property
    def counts(self) -> dict[str, int]:
        """Every player's hand size, as counted."""
        return dict(zip(self._names, self._counts, strict=True))

    @property
    def can_undo(self) -> bool:
        """Whether an :class:`Undo` would be accepted."""
        return bool(self._log)

    def state(self) -> TableState:
        """A snapshot with the scenario keys (see :class:`TableState`)."""
        names = self._names
        phase = self._phase
        over = phase in _ROUND_OVER

        def name(seat: int) -> str | None:
            return names[seat] if seat >= 0 else None

        challenge = self._challenge
        return TableState(
            turn=self.turn,
            colour="choose"
            if phase == COLOUR
            else (self._colour.label if self._colour is not None else None),
            direction=DIRECTION_NAMES[self._direction],
            top=self._top.name if self._top is not None else None,
            counts=dict(zip(names, self._counts, strict=True)),
            draw_pile=self._draw_pile,
            discard_pile=self._discard,
            pending_draw=self._pending,
            waiting_for=WAITING_FOR[phase],
            round_winner=name(self._round_winner),
            points=self._points,
            scores=dict(zip(names, self._scores, strict=True)),
            match_winner=name(self._match_winner),
            eliminated=[n for n, out in zip(names, self._eliminated, strict=True) if out],
            owed_by=self.owed_by,
            may_challenge=names[challenge[1]] if phase == PENDING and challenge is not None else None,
            catchable=[]
            if over
            else [names[s] for s, st in enumerate(self._uno) if st in (UNO_FRESH, UNO_STALE)],
            uno_called=[names[s] for s, st in enumerate(self._uno) if st == UNO_CALLED],
            to_reveal=(
                [names[self._challenge[0]]]
                if phase == REVEAL and self._challenge is not None
                else [names[s] for s in self._to_reveal]
            ),
            dealer=names[self._dealer],
            round_number=self._round_number,
        )

    # ----------------------------------------------------------------------------------- observing

    def observe(self, observation: Observation) -> Verdict:
        """Judge one observation; on rejection the state is unchanged (apart from a rule's penalty)."""
        handler = _HANDLERS.get(observation.__class__)
        if handler is None:
            if observation.__class__ is Undo:
                return self._take_back()
            raise ObservationError(f"not an observation: {observation!r}")
        self._events = []
        self._penalties = _NO_PENALTIES
        try:
            verdict = handler(self, observation)
        except BaseException:
            # Never leave half a change behind (names are checked before any change; a bug might not be).
            self._rebuild(len(self._log))
            raise
        if verdict.ok or verdict.penalties:
            self._log.append(observation)
            if len(self._log) % CHECKPOINT_EVERY == 0:
                self._checkpoint()
        return verdict

    def _seat_of(self, name: str) -> int:
        seat = self._seat.get(name)
        if seat is None:
            raise ObservationError(f"unknown player {name!r}; players are {', '.join(self._names)}")
        return seat

    # Undo without a copy per observation: the recorded observations since a checkpoint, and a flat
    # snapshot every CHECKPOINT_EVERY of them. Undo restores the checkpoint and replays the rest.

    def _snapshot(self) -> tuple[Any, ...]:
        return tuple([value.copy() if value.__class__ is list else value for value in _state_of(self)])

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        for field_name, value in zip(_STATE_FIELDS, snapshot, strict=True):
            setattr(self, field_name, value.copy() if value.__class__ is list else value)

    def _checkpoint(self) -> None:
        checkpoints = self._checkpoints
        checkpoints.append((len(self._log), self._snapshot()))
        if len(checkpoints) > UNDO_CHECKPOINTS:
            del checkpoints[0]
            base = checkpoints[0][0]
            del self._log[:base]
            self._checkpoints = [(index - base, snapshot) for index, snapshot in checkpoints]

    def _rebuild(self, length: int) -> None:
        """Set the state to what the first ``length`` recorded observations made of the latest checkpoint."""
        checkpoints = self._checkpoints
        while checkpoints[-1][0] > length:
            checkpoints.pop()
        index, snapshot = checkpoints[-1]
        if snapshot is None:
            self._set_initial_state()
        else:
            self._restore(snapshot)
        for observation in self._log[index:length]:
            self._events = []
            self._penalties = _NO_PENALTIES
            _HANDLERS[observation.__class__](self, observation)
        self._events = []
        self._penalties = _NO_PENALTIES

    def _take_back(self) -> Verdict:
        """Undo: take back the last observation that changed the state (several go further back)."""
        if not self._log:
            return self._reject("not_allowed")
        observation = self._log.pop()
        self._rebuild(len(self._log))
        return _new_verdict(Verdict, (True, None, (), (Undone(observation),)))

    def _note(self, event_type: type[Event], *fields: Any) -> None:
        """Announce an event; equal events are built once per table (events are immutable)."""
        key = (event_type, *fields)
        event = self._interned.get(key)
        if event is None:
            event = self._interned[key] = event_type(*fields)
        self._events.append(event)

    def _verdict(self, reason: str | None = None) -> Verdict:
        """The verdict of a change just made: accepted, or rejected with a rule's penalty (``reason``)."""
        if self._reflip:
            self._owe_reflip()
        return _new_verdict(Verdict, (reason is None, reason, tuple(self._penalties), tuple(self._events)))

    def _reject(self, reason: str, seat: int = -1) -> Verdict:
        event = Rejected(self._names[seat] if seat >= 0 else "", reason)
        return _new_verdict(Verdict, (False, reason, (), (event,)))

    def _reject_in_phase(self, seat: int = -1) -> Verdict:
        """The rejection for an observation that does not fit what the referee waits for."""
        phase = self._phase
        if phase in _ROUND_OVER:
            return self._reject("round_over", seat)
        if phase in _OWED:
            return self._reject("colour_first", seat)
        return self._reject("not_allowed", seat)

    # ----------------------------------------------------------------------------------- seats

    def _next(self, seat: int) -> int:
        """The next seat in the direction of play that takes part in the round."""
        n = self._n
        step = self._direction
        seat = (seat + step) % n
        if self._active_count != n:
            in_round = self._in_round
            while not in_round[seat]:
                seat = (seat + step) % n
        return seat

    def _previous(self, seat: int) -> int:
        """The seat before ``seat`` in the direction of play (taking part in the round)."""
        n = self._n
        step = -self._direction
        seat = (seat + step) % n
        while not self._in_round[seat]:
            seat = (seat + step) % n
        return seat

    def _next_clockwise(self, seat: int) -> int:
        n = self._n
        eliminated = self._eliminated
        seat = (seat + 1) % n
        while eliminated[seat]:
            seat = (seat + 1) % n
        return seat

    def _teammates(self, a: int, b: int) -> bool:
        return a == b or (self._rules.partners and a % 2 == b % 2)

    def _set_uno(self, seat: int, state: int) -> None:
        self._uno[seat] = state
        if state != UNO_CALLED:
            self._shouts[seat] = 0

    # ----------------------------------------------------------------------------------- cards moving

    def _take(self, wanted: int) -> int:
        """Take ``wanted`` cards from the draw pile, reshuffling the discard pile when it runs out (R33)."""
        pile = self._draw_pile
        if wanted < pile:
            self._draw_pile = pile - wanted
            return wanted
        taken = pile
        pile = 0
        while True:
            keep = 1 if self._keep_top and self._top is not None else 0
            reshuffled = self._discard - keep
            if reshuffled <= 0:
                break
            self._discard = keep
            self._events.append(ReshuffleNeeded(reshuffled, self._keep_top))
            if not keep and self._top is not None:
                # The top card went into the new pile (and a wild loses its colour): a new one is turned up.
                self._top = None
                self._colour = None
                self._reflip = True
            missing = wanted - taken
            if missing < reshuffled:
                pile = reshuffled - missing
                taken = wanted
                break
            taken += reshuffled
        self._draw_pile = pile
        if not pile and self._phase == REFLIP:
            self._reflip = True  # a penalty took the last card that was to be turned up
        return taken

    def _give(self, seat: int, cards: int, reason: str) -> None:
        """``seat`` draws ``cards`` as a penalty (or a pending draw) for ``reason``."""
        taken = self._take(cards)
        self._counts[seat] += taken
        if self._uno[seat]:
            self._set_uno(seat, UNO_NONE)
        name = self._names[seat]
        key = (Penalty, name, taken, reason)
        penalty = self._interned.get(key)
        if penalty is None:
            penalty = self._interned[key] = Penalty(name, taken, reason)
        self._penalties = [*self._penalties, penalty]  # rare: a fresh list, the shared empty one stays empty
        self._note(PenaltyDrawn, name, taken, reason)
        if taken < cards:
            self._events.append(NoCardsLeft(name, cards - taken))

    def _owe_reflip(self) -> None:
        """After R33 without ``reshuffle_keep_top`` the discard pile is empty: a card must be turned up.

        While a colour, target or challenged hand is still owed the flip waits (the owed step belongs to
        the card just played); it is asked for when play resumes. With every card in the hands there is
        nothing to turn up: play resumes without a top card and the next card played starts the pile.
        """
        phase = self._phase
        if phase == REFLIP:
            phase = self._phase = self._resume_phase
        if phase in (PLAY, DRAWN, PENDING):
            self._reflip = False
            if self._draw_pile:
                self._resume_phase = phase
                self._phase = REFLIP
                self._events.append(FlipNeeded("discard_reshuffled"))
        elif phase in _ROUND_OVER:
            self._reflip = False

    # ----------------------------------------------------------------------------------- UNO windows

    def _close_windows(self, actor: int) -> None:
        """``actor`` begins a turn action: other players' fresh UNO windows pass (R28). Windows that
        pass together are judged in seat order, however they opened (a 0 passing every hand on
        leaves several players holding one card at once)."""
        trigger = self._rules.uno_penalty_trigger
        still_fresh = []
        for holder in sorted(self._fresh):
            if self._uno[holder] != UNO_FRESH:
                continue
            if holder == actor:
                still_fresh.append(holder)
            elif trigger == "caught_before_next_turn":
                self._set_uno(holder, UNO_CLOSED)
            elif trigger == "caught_any_time":
                self._set_uno(holder, UNO_STALE)
            else:
                self._events.append(UnoMissed(self._names[holder]))
                self._give(holder, 2, "uno")
        self._fresh = still_fresh

    def _left_with(self, seat: int, count: int) -> None:
        """UNO bookkeeping after ``seat``'s hand changed to ``count`` cards other than by a draw."""
        if count == 1:
            self._set_uno(seat, UNO_FRESH)
            if seat not in self._fresh:
                self._fresh.append(seat)
        elif self._uno[seat]:
            self._set_uno(seat, UNO_NONE)

    # ----------------------------------------------------------------------------------- play

    def _on_play(self, obs: Play) -> Verdict:
        card = obs.card
        seat = self._turn if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        if card not in self._deck_cards:
            return self._reject_play(seat, card, "not_allowed")  # not in this deck: a misread card
        phase = self._phase
        if phase in (PLAY, DRAWN):
            if seat != self._turn:
                if self._jump_in:
                    if card is self._top and not card.is_wild and self._in_round[seat]:
                        return self._play(seat, card, True)
                    return self._reject_play(seat, card, "not_identical")
                return self._reject_play(seat, card, "not_your_turn")
            if card.colour is self._colour or can_play(card, self._top, self._colour, self._rules):
                # After a draw (R17) the card is taken for the drawn one: even a card seen in the hand
                # before may have been drawn a second time, and the referee gives the benefit of the doubt.
                return self._play(seat, card, False)
            return self._reject_play(seat, card, "no_match")
        if phase == PENDING:
            if seat != self._turn:
                return self._reject_play(seat, card, "not_your_turn")
            if self._stacking and can_stack(card, self._top, self._rules):
                self._challenge = None
                return self._play(seat, card, False)
            return self._reject_play(seat, card, "must_draw")
        if self._declines_first_swap(seat):
            return self._declining_first_swap(self._on_play, obs)
        return self._reject_in_phase(seat)

    def _reject_play(self, seat: int, card: Card, reason: str) -> Verdict:
        event = IllegalPlay(self._names[seat], card, reason)
        if self._misplay and reason in _MISPLAY_REASONS:
            self._events.append(event)
            self._give(seat, self._misplay, "misplay")
            return self._verdict(reason)
        return _new_verdict(Verdict, (False, reason, (), (event,)))

    def _play(self, seat: int, card: Card, jump_in: bool) -> Verdict:
        events = self._events
        if self._known[seat]:
            self._forget_played(seat, card)
        left = self._counts[seat] - 1
        self._counts[seat] = left
        self._discard += 1
        if card.is_wild:
            self._under = (self._top, self._colour)  # what the colour choice and a challenge look at
        self._top = card
        self._last_player = seat
        if self._fresh:
            self._close_windows(seat)
        if jump_in:
            events.append(CardPlayed(self._names[seat], card, True))
        else:
            played = self._ev_played[seat]
            event = played.get(card)
            if event is None:
                event = played[card] = CardPlayed(self._names[seat], card)
            events.append(event)
        if left == 1:
            if self._armed == seat:
                self._set_uno(seat, UNO_CALLED)
                self._note(UnoCalled, self._names[seat])
            else:
                self._left_with(seat, 1)
        elif self._uno[seat]:
            self._set_uno(seat, UNO_NONE)
        self._armed = -1
        if left == 0:
            events.append(WentOut(self._names[seat]))
            if self._round_winner < 0:
                self._round_winner = seat
            if self._round_ends_with(seat):
                self._end_round_on(seat, card)
                return self._verdict()
            self._in_round[seat] = False
            self._active_count -= 1
        self._apply(seat, card)
        return self._verdict()

    def _forget_played(self, seat: int, card: Card) -> None:
        """Keep a shown hand's known cards up to date when one of its cards is played."""
        known = list(self._known[seat])
        if card in known:
            known.remove(card)
        elif len(known) >= self._counts[seat]:
            known = []  # a card the shown hand did not hold and no card drawn since: trust the camera now
        self._known[seat] = tuple(known)

    def _known_fits(self, seat: int) -> bool:
        """Whether ``seat`` is known to hold a card that may be played now (from a hand shown earlier)."""
        top, colour, rules = self._top, self._colour, self._rules
        return any(can_play(card, top, colour, rules) for card in self._known[seat])

    def _apply(self, seat: int, card: Card) -> None:
        """The effect of ``card`` just played by ``seat`` (R18–R22, R34–R38)."""
        events = self._events
        if card.is_wild:
            self._colour = None
            self._owe(COLOUR, seat, _AFTER_PLAY, card)
            return
        self._colour = card.colour
        rank = card.rank
        if rank is _SKIP:
            skipped = self._next(seat)
            events.append(self._ev_skipped[skipped])
            following = self._next(skipped)
        elif rank is _REVERSE:
            self._direction = -self._direction
            self._note(DirectionChanged, DIRECTION_NAMES[self._direction])
            following = self._next(seat)
            if self._active_count == 2 and self._two_player:
                events.append(self._ev_skipped[following])
                following = self._next(following)
        elif rank is _DRAW2:
            victim = self._next(seat)
            if self._stacking:
                self._pending += 2
                self._stack += (2,)
                self._turn = victim
                self._phase = PENDING
                self._note(DrawPending, self._names[victim], self._pending)
                events.append(self._ev_turn[victim])
                return
            self._give(victim, 2, "draw2")
            events.append(self._ev_skipped[victim])
            following = self._next(victim)
        elif self._seven_o and rank is _SEVEN and self._counts[seat]:
            self._owe(TARGET, seat, _AFTER_PLAY, card)
            return
        else:
            if self._seven_o and rank is _ZERO:
                self._pass_hands()
            following = self._next(seat)
        self._turn = following
        self._phase = PLAY
        events.append(self._ev_turn[following])

    def _owe(self, phase: int, seat: int, context: int, card: Card) -> None:
        """``seat`` owes a colour or target for ``card`` (kept: a reshuffle may take it off the pile)."""
        self._phase = phase
        self._owed_by = seat
        self._owed_context = context
        self._owed_card = card
        self._turn = seat
        name = self._names[seat]
        self._note(ColourOwed if phase == COLOUR else TargetOwed, name)

    # ----------------------------------------------------------------------------------- colour, target

    def _on_colour(self, obs: ChooseColour) -> Verdict:
        if self._phase != COLOUR:
            return self._reject_in_phase()
        seat = self._owed_by if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        if seat != self._owed_by:
            return self._reject("not_your_turn", seat)
        colour = obs.colour
        card = self._owed_card
        under = self._under if self._owed_context == _AFTER_PLAY else None
        if under is not None and colour not in declarable_colours(card, under[0], under[1], self._rules):
            return self._reject("no_match", seat)
        self._colour = colour
        events = self._events
        self._note(ColourChosen, self._names[seat], colour)
        context = self._owed_context
        if context == _AFTER_REFLIP:
            self._phase = self._resume_phase
            events.append(self._ev_turn[self._turn])
            return self._verdict()
        rank = card.rank
        if rank is _WILD_SWAP and self._counts[seat]:
            self._owe(TARGET, seat, context, card)
            return self._verdict()
        if context == _AFTER_FIRST_CARD:
            self._phase = PLAY
            events.append(self._ev_turn[seat])
            return self._verdict()
        if rank is _WILD_DRAW4:
            victim = self._next(seat)
            self._pending += 4
            self._stack += (4,)
            # Who, against whom, what lay below, and the hand size that decides the challenge (R25).
            self._challenge = (seat, victim, *self._under, self._counts[seat])
            self._turn = victim
            self._phase = PENDING
            self._note(ChallengePrompt, self._names[victim], self._names[seat], self._pending)
            events.append(self._ev_turn[victim])
            return self._verdict()
        if rank is _WILD_SHUFFLE:
            self._shuffle_hands(seat)
        following = self._next(seat)
        self._turn = following
        self._phase = PLAY
        events.append(self._ev_turn[following])
        return self._verdict()

    def _on_target(self, obs: Target) -> Verdict:
        if self._phase != TARGET:
            return self._reject_in_phase()
        seat = self._owed_by if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        target = self._seat_of(obs.player)
        if seat != self._owed_by:
            return self._reject("not_your_turn", seat)
        first_card = self._owed_context == _AFTER_FIRST_CARD
        if not self._in_round[target] or (target == seat and not first_card):
            return self._reject("not_allowed", seat)
        events = self._events
        events.append(HandsSwapped(self._names[seat], self._names[target]))
        if target != seat:
            counts = self._counts
            mine, theirs = counts[seat], counts[target]
            counts[seat] = theirs
            counts[target] = mine
            known = self._known
            known[seat], known[target] = known[target], known[seat]
            self._left_with(seat, theirs)
            self._left_with(target, mine)
        following = seat if first_card else self._next(seat)
        self._turn = following
        self._phase = PLAY
        events.append(self._ev_turn[following])
        return self._verdict()

    def _declines_first_swap(self, seat: int) -> bool:
        """R11: the first player *may* swap after a Wild Swap Hands turned up; playing or drawing declines."""
        return self._phase == TARGET and self._owed_context == _AFTER_FIRST_CARD and seat == self._owed_by

    def _declining_first_swap(self, handler: Callable[[Any], Verdict], obs: Observation) -> Verdict:
        self._phase = PLAY
        verdict = handler(obs)
        if not verdict.recorded:
            self._phase = TARGET
        return verdict

    def _pass_hands(self) -> None:
        """Seven-O 0: every hand moves to the next player in the direction of play (R38)."""
        counts = list(self._counts)
        moved = list(counts)
        known = list(self._known)
        for seat in range(self._n):
            if self._in_round[seat]:
                moved[self._next(seat)] = counts[seat]
                self._known[self._next(seat)] = known[seat]
        self._counts = moved
        for seat in range(self._n):
            if self._in_round[seat]:
                self._left_with(seat, moved[seat])
        self._events.append(HandsPassed(DIRECTION_NAMES[self._direction]))

    def _shuffle_hands(self, seat: int) -> None:
        """Wild Shuffle Hands: all hands dealt again one at a time, starting left of ``seat`` (R35)."""
        seats = [s for s in range(self._n) if self._in_round[s]]
        total = sum(self._counts[s] for s in seats)
        start = self._next_clockwise(seat)
        while not self._in_round[start]:
            start = self._next_clockwise(start)
        order = sorted(seats, key=lambda s: (s - start) % self._n)
        share, extra = divmod(total, len(seats))
        counts = list(self._counts)
        for position, s in enumerate(order):
            counts[s] = share + (1 if position < extra else 0)
        self._counts = counts
        self._known = [()] * self._n
        for s in seats:
            self._left_with(s, counts[s])
        self._events.append(HandsShuffled(self._names[start]))

    # ----------------------------------------------------------------------------------- draw, pass

    def _on_draw(self, obs: Draw) -> Verdict:
        seat = self._turn if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        phase = self._phase
        if phase not in (PLAY, DRAWN, PENDING):
            if self._declines_first_swap(seat):
                return self._declining_first_swap(self._on_draw, obs)
            return self._reject_in_phase(seat)
        if seat != self._turn:
            return self._reject("not_your_turn", seat)
        if phase == PENDING:
            # Taking the pending cards by hand is the same as accepting them.
            if obs.cards == self._pending:
                return self._accept(seat)
            return self._reject("not_allowed", seat)
        if phase == DRAWN:
            return self._reject("only_drawn_card", seat)
        if obs.cards != 1:
            return self._reject("not_allowed", seat)
        if not self._rules.voluntary_draw and self._known[seat] and self._known_fits(seat):
            # R16 (S2): drawing only when nothing fits; the hand shown earlier still holds a card that fits.
            return self._reject("not_allowed", seat)
        if not self._can_draw():
            return self._reject("not_allowed", seat)  # no card left in either pile
        if self._fresh:
            self._close_windows(seat)
            if not self._can_draw():
                # The UNO penalty this draw set off took the last card: nothing is left, the draw is refused
                # (the penalty stands) and the player plays, or passes with nothing to draw.
                self._events.append(Rejected(self._names[seat], "not_allowed"))
                return self._verdict("not_allowed")
        self._take(1)
        self._counts[seat] += 1
        if self._uno[seat]:
            self._set_uno(seat, UNO_NONE)
        self._armed = -1
        self._phase = DRAWN
        self._events += (self._ev_drew[seat], self._ev_prompt[seat])
        return self._verdict()

    def _on_pass(self, obs: Pass) -> Verdict:
        seat = self._turn if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        phase = self._phase
        if phase not in (PLAY, DRAWN, PENDING):
            return self._reject_in_phase(seat)
        if seat != self._turn:
            return self._reject("not_your_turn", seat)
        if phase != DRAWN:
            if phase == PENDING or not self._may_pass_undrawn(seat):
                return self._reject("not_allowed", seat)
            self._armed = -1
        if self._fresh:
            self._close_windows(seat)
        following = self._next(seat)
        self._turn = following
        self._phase = PLAY
        self._events.append(self._ev_turn[following])
        return self._verdict()

    def _can_draw(self) -> bool:
        """Whether a card can be drawn: the draw pile, or a discard pile to reshuffle into one (R33)."""
        return self._draw_pile > 0 or self._discard - (1 if self._keep_top else 0) > 0

    def _may_pass_undrawn(self, seat: int) -> bool:
        """A pass without a draw: only when neither pile holds a card to draw and nothing fits (R16, R17).

        The hand is hidden, so the referee takes the player's word unless it knows better: with no top card
        every card fits, and a hand shown earlier may still hold a card that fits.
        """
        if self._can_draw() or self._top is None:
            return False
        return not (self._known[seat] and self._known_fits(seat))

    # ----------------------------------------------------------------------------------- pending draws

    def _on_accept(self, obs: Accept) -> Verdict:
        seat = self._turn if obs.by is None else self._seat.get(obs.by, -1)
        if seat < 0:
            self._seat_of(obs.by)  # raises: unknown player
        if self._phase != PENDING:
            return self._reject_in_phase(seat)
        if seat != self._turn:
            return self._reject("not_your_turn", seat)
        return self._accept(seat)

    def _pending_reason(self) -> str:
        """Why the pending cards are drawn: ``stack`` when several draw cards built them up (R37)."""
        stack = self._stack
        if len(stack) > 1:
            return "stack"
        return "draw4" if stack == (4,) else "draw2"

    def _accept(self, seat: int) -> Verdict:
        if self._fresh:
            self._close_windows(seat)
        self._give(seat, self._pending, self._pending_reason())
        self._pending = 0
        self._stack = ()
        self._challenge = None
        self._events.append(self._ev_skipped[seat])
        following = self._next(seat)
        self._turn = following
        self._phase = PLAY
        self._events.append(self._ev_turn[following])
        return self._verdict()

    # ----------------------------------------------------------------------------------- challenge

    def _on_challenge(self, obs: Challenge) -> Verdict:
        challenge = self._challenge
        if self._phase == PENDING and challenge is not None:
            victim = challenge[1]
            seat = victim if obs.by is None else self._seat_of(obs.by)
            if seat != victim:
                return self._reject("not_your_challenge", seat)
            if self._fresh:
                self._close_windows(seat)
            self._phase = REVEAL
            self._note(RevealNeeded, self._names[challenge[0]], "challenge")
            return self._verdict()
        seat = -1 if obs.by is None else self._seat_of(obs.by)
        if self._phase in _ROUND_OVER or self._phase in _OWED:
            return self._reject_in_phase(seat)
        top = self._top
        if top is not None and top.rank is _WILD_DRAW4:
            return self._reject("too_late", seat)
        return self._reject("nothing_to_challenge", seat)

    def _settle_challenge(self, hand: tuple[Card, ...]) -> Verdict:
        player, victim, under_top, under_colour, _ = self._challenge
        guilty = not wd4_is_legal(hand, under_top, under_colour, self._rules)
        events = self._events
        events.append(ChallengeSettled(self._names[victim], self._names[player], guilty))
        self._challenge = None
        if guilty:
            self._give(player, 4, "challenge_guilty")
            self._pending -= 4
            self._stack = self._stack[:-1]
            if self._pending > 0:
                # Stacking: the draws stacked below the Wild Draw Four still wait for the challenger.
                self._phase = PENDING
                self._turn = victim
                self._note(DrawPending, self._names[victim], self._pending)
                return self._verdict()
            following = victim
            if self._rules.challenge_success_next == "challenger_skipped":
                events.append(self._ev_skipped[victim])
                following = self._next(victim)
        else:
            self._give(victim, self._pending + 2, "challenge_failed")
            events.append(self._ev_skipped[victim])
            following = self._next(victim)
        self._pending = 0
        self._stack = ()
        self._turn = following
        self._phase = PLAY
        events.append(self._ev_turn[following])
        return self._verdict()

    # ----------------------------------------------------------------------------------- reveal, scores

    def _on_reveal(self, obs: Reveal) -> Verdict:
        phase = self._phase
        if phase == REVEAL:
            expected = self._challenge[0]
        elif phase == SCORES:
            expected = self._to_reveal[0]
        else:
            return self._reject_in_phase(-1 if obs.by is None else self._seat_of(obs.by))
        seat = expected if obs.by is None else self._seat_of(obs.by)
        if phase == REVEAL and seat != expected:
            return self._reject("not_allowed", seat)
        if phase == SCORES and seat not in self._to_reveal:
            return self._reject("not_allowed", seat)
        shown = len(obs.cards)
        # The camera must see the whole hand: a count that differs means cards are missing or extra; a card
        # that is not in this deck is a misread. A challenged hand may leave out UNO penalty cards drawn
        # after the Wild Draw Four: the hand as it was when the card was played decides (R25).
        whole = shown == self._counts[seat] or (phase == REVEAL and shown == self._challenge[4])
        if not whole or not self._deck_cards.issuperset(obs.cards):
            return self._reject("not_allowed", seat)
        if phase == REVEAL:
            if shown == self._counts[seat]:
                self._known[seat] = obs.cards
            return self._settle_challenge(obs.cards)
        points = hand_points(obs.cards, self._rules)
        self._hand_points[seat] = points
        self._to_reveal.remove(seat)
        if not self._to_reveal:
            self._score_round()
        return self._verdict()

    def _round_ends_with(self, seat: int) -> bool:
        """Whether ``seat`` going out ends the round (R29, R32; ``round_end``)."""
        if self._rules.round_end == "first_out" or self._rules.partners:
            return True
        holding = sum(1 for s in range(self._n) if s != seat and self._in_round[s] and self._counts[s] > 0)
        return holding <= 1

    def _end_round_on(self, seat: int, card: Card) -> None:
        """The last card is down: a Draw Two / Wild Draw Four still makes the next player draw (R29)."""
        if card.draw_amount:
            victim = self._next(seat)
            reason = "stack" if self._stack else ("draw4" if card.draw_amount == 4 else "draw2")
            self._give(victim, self._pending + card.draw_amount, reason)
        self._colour = card.colour
        self._pending = 0
        self._stack = ()
        self._challenge = None
        self._uno = [UNO_NONE] * self._n
        self._fresh = []
        self._shouts = [0] * self._n
        self._phase = SCORES
        winner = self._round_winner
        self._to_reveal = [
            s
            for s in self._seats_from(winner)
            if not self._eliminated[s] and self._counts[s] > 0 and not self._teammates(s, winner)
        ]
        self._events.append(ScoresNeeded(tuple(self._names[s] for s in self._to_reveal)))
        if not self._to_reveal:
            self._score_round()

    def _seats_from(self, seat: int) -> list[int]:
        """All seats clockwise, starting left of ``seat``."""
        return [(seat + offset) % self._n for offset in range(1, self._n + 1)]

    def _score_round(self) -> None:
        """Count the revealed hands (R30) and settle the match (R31, R32)."""
        rules = self._rules
        winner = self._round_winner
        hands = self._hand_points
        points = sum(hands[s] for s in range(self._n) if not self._teammates(s, winner))
        scores = list(self._scores)
        if rules.match_mode == "first_to_target":
            for s in range(self._n):
                if self._teammates(s, winner):
                    scores[s] += points
            if scores[winner] >= rules.target_score:
                self._match_winner = winner
        else:
            # lowest_total and elimination record each hand against its own player (or team).
            for s in range(self._n):
                if self._eliminated[s] or self._teammates(s, winner):
                    continue
                mate = (s + 2) % 4 if rules.partners else s
                scores[s] += hands[s] + (hands[mate] if mate != s else 0)
        self._scores = scores
        self._points = points
        events = self._events
        events.append(RoundWon(self._names[winner], points, tuple(zip(self._names, scores, strict=True))))
        if rules.match_mode == "lowest_total":
            if max(scores) >= rules.target_score:
                self._match_winner = self._lowest(scores, winner)
        elif rules.match_mode == "elimination":
            eliminated = list(self._eliminated)
            for s in range(self._n):
                if not eliminated[s] and scores[s] >= rules.target_score:
                    eliminated[s] = True
                    events.append(Eliminated(self._names[s]))
            self._eliminated = eliminated
            remaining = [s for s in range(self._n) if not eliminated[s]]
            teams = {s % 2 if rules.partners else s for s in remaining}
            if len(teams) == 1:
                self._match_winner = winner if winner in remaining else remaining[0]
        if self._match_winner >= 0:
            self._phase = MATCH_OVER
            events.append(MatchWon(self._names[self._match_winner]))
        else:
            self._phase = NEXT_ROUND

    def _lowest(self, scores: list[int], winner: int) -> int:
        """The lowest total wins (S2 §1); on a tie the round's winner, else the first such seat."""
        best = min(scores)
        if scores[winner] == best:
            return winner
        return scores.index(best)

    # ----------------------------------------------------------------------------------- flips

    def _on_flip(self, obs: Flip) -> Verdict:
        phase = self._phase
        if phase not in (FLIP, REFLIP, NEXT_ROUND):
            return self._reject_in_phase()
        if obs.card not in self._deck_cards:
            return self._reject("not_allowed")
        if phase == NEXT_ROUND:
            self._round_number += 1
            self._dealer = self._next_clockwise(self._dealer)
            self._start_round()
            self._events.append(RoundStarted(self._round_number, self._names[self._dealer]))
        elif self._draw_pile < 1:
            return self._reject("not_allowed")
        card = obs.card
        self._draw_pile -= 1
        self._discard += 1
        self._under = (self._top, self._colour)  # an ignored first card below, if any
        self._top = card
        if phase == REFLIP:
            if card.is_wild:
                self._colour = None
                self._owe(COLOUR, self._turn, _AFTER_REFLIP, card)
            else:
                self._colour = card.colour
                self._phase = self._resume_phase
                self._events.append(self._ev_turn[self._turn])
            return self._verdict()
        self._first_card(card)
        return self._verdict()

    def _first_card(self, card: Card) -> None:
        """The card turned up to start the discard pile (R7–R11; the ``first_card_*`` options)."""
        rules = self._rules
        events = self._events
        first = self._first_player
        if card.rank is _WILD_DRAW4:
            how = rules.first_card_wild_draw4
            if how == "reshuffle":
                self._draw_pile += 1
                self._discard -= 1
                self._top, self._colour = self._under
                events.append(FlipNeeded("first_card_reshuffled"))
            elif how == "set_aside":
                self._aside += 1
                self._discard -= 1
                self._top, self._colour = self._under
                events.append(FlipNeeded("first_card_set_aside"))
            else:
                events.append(FlipNeeded("first_card_ignored"))
            return
        if card.is_wild:
            if rules.first_card_wild == "ignore":
                events.append(FlipNeeded("first_card_ignored"))
                return
            self._colour = None
            self._under = None
            self._owe(COLOUR, first, _AFTER_FIRST_CARD, card)
            return
        self._colour = card.colour
        if card.is_action and rules.first_card_action == "ignore":
            events.append(FlipNeeded("first_card_ignored"))
            return
        following = first
        if card.rank is _SKIP:
            events.append(self._ev_skipped[first])
            following = self._next(first)
        elif card.rank is _REVERSE:
            self._direction = -1
            self._note(DirectionChanged, DIRECTION_NAMES[-1])
            following = self._dealer
        elif card.rank is _DRAW2:
            self._give(first, 2, "first_card")
            events.append(self._ev_skipped[first])
            following = self._next(first)
        self._turn = following
        self._phase = PLAY
        events.append(self._ev_turn[following])

    # ----------------------------------------------------------------------------------- UNO

    def _on_uno(self, obs: Uno) -> Verdict:
        if obs.by is not None:
            seat = self._seat_of(obs.by)
        else:
            seat = self._last_player if self._last_player >= 0 else self._turn
        phase = self._phase
        if phase in _ROUND_OVER or phase in _OWED:
            return self._reject_in_phase(seat)
        state = self._uno[seat]
        rules = self._rules
        holding_one = rules.uno_call_moment == "holding_one"
        own = state in (UNO_FRESH, UNO_CALLED) or (holding_one and state in (UNO_STALE, UNO_CLOSED))
        early = (
            not own
            and not holding_one
            and seat == self._turn
            and phase in (PLAY, DRAWN, PENDING)
            and self._counts[seat] == 2
        )  # called together with the second-to-last card, a moment before it lands (S1)
        if own and state != UNO_CALLED:
            self._set_uno(seat, UNO_CALLED)
        if early or state == UNO_FRESH or (holding_one and state == UNO_STALE):
            # A first call that still protects the caller is about the caller's own card (R27), never a
            # shout at another player left with one card at the same moment, who may still call at once.
            if early:
                self._armed = seat
        else:
            # Any other "UNO!" is a call at every player left with one card who has not called (S3's catch).
            holders = [s for s, st in enumerate(self._uno) if st in (UNO_FRESH, UNO_STALE) and s != seat]
            if not (own or holders):
                return self._reject("too_late" if state in (UNO_STALE, UNO_CLOSED) else "not_allowed", seat)
            shouts = self._shouts
            for holder in holders:
                shouts[holder] |= 1 << seat
        self._note(UnoCalled, self._names[seat])
        return self._verdict()

    def _on_catch(self, obs: Catch) -> Verdict:
        if obs.by is None:
            raise ObservationError("catch: say who caught the player ('by: NAME')")
        catcher = self._seat_of(obs.by)
        target = self._seat_of(obs.player)
        if self._phase in _ROUND_OVER or self._phase in _OWED:
            return self._reject_in_phase(catcher)
        if catcher == target or self._eliminated[catcher]:
            return self._reject("not_allowed", catcher)
        state = self._uno[target]
        rules = self._rules
        if state in (UNO_FRESH, UNO_STALE) or (
            state == UNO_CALLED and rules.uno_catcher_must_call_first and self._shouts[target] >> catcher & 1
        ):
            self._events.append(UnoCaught(self._names[target], self._names[catcher]))
            self._give(target, 2, "uno")
            return self._verdict()
        if state == UNO_CLOSED:
            return self._reject("too_late", catcher)
        if rules.false_catch_penalty:
            self._events.append(Rejected(self._names[catcher], "nothing_to_catch"))
            self._give(catcher, rules.false_catch_penalty, "false_catch")
            return self._verdict("nothing_to_catch")
        return self._reject("nothing_to_catch", catcher)


#: How each observation type is judged (dispatch on the exact type: one dict lookup per observation).
_HANDLERS: dict[type, Callable[[Table, Any], Verdict]] = {
    Play: Table._on_play,
    Draw: Table._on_draw,
    Pass: Table._on_pass,
    ChooseColour: Table._on_colour,
    Accept: Table._on_accept,
    Uno: Table._on_uno,
    Catch: Table._on_catch,
    Challenge: Table._on_challenge,
    Reveal: Table._on_reveal,
    Target: Table._on_target,
    Flip: Table._on_flip,
}
