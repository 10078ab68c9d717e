"""A full-information UNO game: the independent ground truth the table referee is held to.

The simulator plays real cards: a shuffled deck (108 or 112 cards), real hands, a real draw pile
and discard pile with reshuffles (R33), seats that choose what to do through a small
:class:`Player` protocol. It applies the game's physics itself — who holds which card, who draws,
whose turn it is — and shares with the referee only the pure predicates of
:mod:`referee.rules.legality` and the card points, so that a rule is written once but the referee's
bookkeeping is checked against an independent account of the same game.

Each step is what a referee over the table would observe (a scenario step dict: ``{"flip": ...}``,
``{"play": "red-7", "by": "Ben"}``, ``{"colour": "red", "by": "Ben"}``, ``{"reveal": [...], "by": ...}``
…) together with the :class:`Truth` right after it: real hands, piles, turn, colour, scores.

>>> from referee.rules.options import Rules
>>> sim = Simulator({"Anna": RandomPlayer(), "Ben": RandomPlayer()}, Rules(target_score=50), seed=7)
>>> steps = list(sim)
>>> steps[0].observation["flip"] == steps[0].landed.name
True
>>> final = steps[-1].truth
>>> final.match_winner in ("Anna", "Ben"), final.waiting_for
(True, 'match_over')
>>> all(step.truth.cards_total == 108 for step in steps)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple, Protocol

from referee.rules.cards import Card, Colour, Rank, deck, hand_points
from referee.rules.legality import can_play, can_stack, declarable_colours, wd4_is_legal
from referee.rules.options import Rules
from referee.rules.table import STATE_KEYS
from referee.rules.verdict import Penalty

CLOCKWISE, COUNTERCLOCKWISE = 1, -1
DIRECTION_NAMES = {CLOCKWISE: "clockwise", COUNTERCLOCKWISE: "counterclockwise"}
#: What a seat answers to a pending draw besides playing a card on it.
CHALLENGE, ACCEPT = "challenge", "accept"
_ROUND_OVER = frozenset({"scores", "next_round", "match_over"})
#: Moments at which the dealer turns up a new card after the whole discard pile was reshuffled (R33).
_REFLIP_FROM = frozenset({"play", "challenge_or_accept"})


_new_truth = _new_step = tuple.__new__


class SimulationError(RuntimeError):
    """The simulated match cannot go on (a player broke the protocol, or a match never ends)."""


class Truth(NamedTuple):
    """What really is on the table right after a step (hands included, which the referee never sees).

    A named tuple rather than a dataclass: one is built per step, and this is the cheapest immutable record.
    """

    round_number: int
    dealer: str
    waiting_for: str
    turn: str | None
    colour: str | None
    direction: str
    top: str | None
    #: Seat names, clockwise, and each seat's real cards in the same order.
    names: tuple[str, ...]
    seat_hands: tuple[tuple[Card, ...], ...]
    draw_pile_cards: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    set_aside: tuple[Card, ...]
    pending_draw: int
    penalties: tuple[Penalty, ...]
    round_winner: str | None
    points: int | None
    scores: Mapping[str, int]
    match_winner: str | None
    eliminated: tuple[str, ...]

    @property
    def hands(self) -> dict[str, tuple[Card, ...]]:
        """Every seat's real cards by name."""
        return dict(zip(self.names, self.seat_hands, strict=True))

    @property
    def counts(self) -> dict[str, int]:
        """Every seat's real hand size."""
        return dict(zip(self.names, map(len, self.seat_hands), strict=True))

    @property
    def draw_pile(self) -> int:
        """Cards in the face-down draw pile."""
        return len(self.draw_pile_cards)

    @property
    def cards_total(self) -> int:
        """Hands + draw pile + discard pile + cards set aside: the deck size when nothing got lost."""
        in_hands = sum(map(len, self.seat_hands))
        return in_hands + len(self.draw_pile_cards) + len(self.discard_pile) + len(self.set_aside)

    def expectations(self) -> dict[str, object]:
        """The scenario state keys (:data:`~referee.rules.table.STATE_KEYS`) with their true values."""
        values = {key: getattr(self, key) for key in STATE_KEYS}
        values["scores"] = dict(self.scores)
        values["eliminated"] = list(self.eliminated)
        return values


class SimStep(NamedTuple):
    """One observation of the game and the truth right after it.

    ``accepted`` is what a correct referee answers (``False`` for a deliberate misplay or a wrong
    catch, with the rejection code in ``reason``); ``landed`` is the card that physically landed on
    the discard pile in this step (a flip or a play, also a refused one that goes back), else ``None``.
    """

    observation: dict[str, object]
    truth: Truth
    accepted: bool = True
    reason: str | None = None
    landed: Card | None = None


class GameView(Protocol):
    """What a seat may look at when it decides (the simulator is full-information: hands included)."""

    rules: Rules
    rng: random.Random

    @property
    def top(self) -> Card | None: ...

    @property
    def active_colour(self) -> Colour | None: ...

    def hand(self, name: str) -> tuple[Card, ...]: ...

    def seats_in_round(self) -> tuple[str, ...]: ...


class Player(Protocol):
    """A seat's decisions. Every method gets the game and the seat's own name."""

    def choose_play(self, game: GameView, me: str, playable: Sequence[Card], may_draw: bool) -> Card | None:
        """The card to play, or ``None`` to draw (only when ``may_draw``).

        A card outside ``playable`` is a misplay: the referee refuses it and the seat is asked again.
        """

    def play_drawn(self, game: GameView, me: str, card: Card) -> bool:
        """Whether to play the playable card just drawn (``drawn_card=may_play``) instead of passing."""

    def choose_colour(self, game: GameView, me: str, allowed: Sequence[Colour]) -> Colour:
        """The colour to declare for a wild."""

    def choose_target(self, game: GameView, me: str, candidates: Sequence[str]) -> str:
        """Whom to swap hands with; ``me`` (offered only for a first card, R11) means no swap."""

    def answer_draw(
        self, game: GameView, me: str, stackable: Sequence[Card], may_challenge: bool
    ) -> Card | str:
        """A card of ``stackable`` to stack, :data:`CHALLENGE` (when allowed) or :data:`ACCEPT`."""

    def calls_uno(self, game: GameView, me: str) -> bool:
        """Whether the seat, just left with one card, calls UNO now."""

    def calls_uno_early(self, game: GameView, me: str) -> bool:
        """With ``uno_call_moment=with_second_to_last``: call while laying down the second-to-last card."""

    def catches(self, game: GameView, me: str, culprit: str) -> bool:
        """Whether the seat catches ``culprit`` holding one card without a call."""

    def calls_back(self, game: GameView, me: str) -> bool:
        """Whether a forgetful seat calls UNO after a catcher shouted it but before the catch."""

    def jumps_in(self, game: GameView, me: str, card: Card) -> bool:
        """Whether the seat plays its ``card`` (identical to the top card) out of turn (R39)."""

    def plays_out_of_turn(self, game: GameView, me: str) -> Card | None:
        """A card the seat wrongly plays while it is not its turn (the referee refuses it), or ``None``."""

    def catches_wrongly(self, game: GameView, me: str, target: str) -> bool:
        """Whether the seat "catches" ``target``, who did call UNO (a false catch, refused)."""


@dataclass(frozen=True)
class Habits:
    """How a :class:`RandomPlayer` plays: probabilities of its habits (0 never, 1 always)."""

    forget_uno: float = 0.15
    call_early: float = 0.5
    call_back: float = 0.3
    bluff: float = 0.25
    challenge: float = 0.3
    catch: float = 0.6
    stack: float = 0.8
    jump_in: float = 0.5
    voluntary_draw: float = 0.05
    pass_drawn: float = 0.1
    misplay: float = 0.0
    out_of_turn: float = 0.0
    false_catch: float = 0.0
    swap_on_first_card: float = 0.5

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"habit {name} is a probability, got {value!r}")


#: Named habit profiles for simulated tables: ordinary players, sloppy ones, and careful ones.
HABIT_PROFILES: dict[str, Habits] = {
    "default": Habits(),
    "sloppy": Habits(
        forget_uno=0.4,
        bluff=0.5,
        challenge=0.5,
        catch=0.8,
        voluntary_draw=0.15,
        misplay=0.05,
        out_of_turn=0.02,
        false_catch=0.1,
    ),
    "careful": Habits(forget_uno=0.02, bluff=0.05, challenge=0.1, catch=0.3, voluntary_draw=0.0, jump_in=0.9),
}


class RandomPlayer:
    """A seat that plays a random legal move, coloured by its :class:`Habits`.

    It never cheats by accident: a Wild Draw Four it may not play is a deliberate bluff (``bluff``),
    and a card that does not fit is a deliberate misplay (``misplay``).
    """

    def __init__(self, habits: Habits | None = None) -> None:
        self.habits = habits or Habits()

    def choose_play(self, game: GameView, me: str, playable: Sequence[Card], may_draw: bool) -> Card | None:
        rng = game.rng
        habits = self.habits
        if habits.misplay and rng.random() < habits.misplay:
            wrong = [card for card in game.hand(me) if card not in playable]
            if wrong:
                return rng.choice(wrong)
        if may_draw and (not playable or rng.random() < habits.voluntary_draw):
            return None
        choices = [card for card in playable if card.rank is not Rank.WILD_DRAW4]
        if len(choices) < len(playable):
            rest = [card for card in game.hand(me) if card.rank is not Rank.WILD_DRAW4]
            if rng.random() < habits.bluff or wd4_is_legal(rest, game.top, game.active_colour, game.rules):
                choices.append(next(card for card in playable if card.rank is Rank.WILD_DRAW4))
        if not choices:
            # Only an illegal Wild Draw Four fits: bluff anyway when drawing is not allowed.
            return None if may_draw else playable[0]
        return rng.choice(choices)

    def play_drawn(self, game: GameView, me: str, card: Card) -> bool:
        rng = game.rng
        if card.rank is Rank.WILD_DRAW4 and rng.random() >= self.habits.bluff:
            rest = _without_one(game.hand(me), card)
            if not wd4_is_legal(rest, game.top, game.active_colour, game.rules):
                return False
        return rng.random() >= self.habits.pass_drawn

    def choose_colour(self, game: GameView, me: str, allowed: Sequence[Colour]) -> Colour:
        held = [card.colour for card in game.hand(me) if card.colour in allowed]
        return game.rng.choice(held or list(allowed))

    def choose_target(self, game: GameView, me: str, candidates: Sequence[str]) -> str:
        rng = game.rng
        if me in candidates:
            if rng.random() >= self.habits.swap_on_first_card:
                return me
            candidates = [name for name in candidates if name != me]
        fewest = min(len(game.hand(name)) for name in candidates)
        return rng.choice([name for name in candidates if len(game.hand(name)) == fewest])

    def answer_draw(
        self, game: GameView, me: str, stackable: Sequence[Card], may_challenge: bool
    ) -> Card | str:
        rng = game.rng
        if stackable and rng.random() < self.habits.stack:
            return rng.choice(stackable)
        if may_challenge and rng.random() < self.habits.challenge:
            return CHALLENGE
        return ACCEPT

    def calls_uno(self, game: GameView, me: str) -> bool:
        return game.rng.random() >= self.habits.forget_uno

    def calls_uno_early(self, game: GameView, me: str) -> bool:
        return game.rng.random() < self.habits.call_early

    def catches(self, game: GameView, me: str, culprit: str) -> bool:
        return game.rng.random() < self.habits.catch

    def calls_back(self, game: GameView, me: str) -> bool:
        return game.rng.random() < self.habits.call_back

    def jumps_in(self, game: GameView, me: str, card: Card) -> bool:
        return game.rng.random() < self.habits.jump_in

    def plays_out_of_turn(self, game: GameView, me: str) -> Card | None:
        rng = game.rng
        if not self.habits.out_of_turn or rng.random() >= self.habits.out_of_turn:
            return None
        # Never the card identical to the top one: under Jump-In that would be a legal play (R39).
        cards = [card for card in game.hand(me) if card is not game.top]
        return rng.choice(cards) if cards else None

    def catches_wrongly(self, game: GameView, me: str, target: str) -> bool:
        return self.habits.false_catch > 0 and game.rng.random() < self.habits.false_catch


class ScriptedPlayer(RandomPlayer):
    """A seat that plays the given cards in order when it can, and otherwise like a :class:`RandomPlayer`.

    For demos and tests that need a particular card at a particular moment: the first scripted card
    that is in the seat's hand and playable is played; ``None`` in the script means "draw".
    """

    def __init__(self, script: Sequence[Card | None], habits: Habits | None = None) -> None:
        super().__init__(habits)
        self.script = list(script)

    def choose_play(self, game: GameView, me: str, playable: Sequence[Card], may_draw: bool) -> Card | None:
        if self.script:
            wanted = self.script[0]
            if (wanted is None and may_draw) or (wanted is not None and wanted in playable):
                self.script.pop(0)
                return wanted
        return super().choose_play(game, me, playable, may_draw)


class Simulator:
    """A whole match at a real table, as observations plus ground truth (see the module docstring).

    ``players`` maps seat names (clockwise) to their :class:`Player`; the dealer of the first round
    is the last seat, and the deal moves one seat clockwise each round. Iterating yields
    :class:`SimStep` objects until the match is won; ``max_steps`` guards against a match that
    cannot end (:class:`SimulationError`). The same seed gives the same match.
    """

    def __init__(
        self,
        players: Mapping[str, Player],
        rules: Rules | None = None,
        seed: int | str = 0,
        *,
        hand_size: int = 7,
        max_steps: int = 1_000_000,
    ) -> None:
        names = tuple(players)
        if not 2 <= len(names) <= 10:
            raise ValueError(f"2 to 10 players are needed (R4), got {len(names)}")
        self.rules = rules if rules is not None else Rules()
        if self.rules.partners and len(names) != 4:
            raise ValueError(f"partners: play needs exactly 4 players (R32), got {len(names)}")
        if len(names) * hand_size + 1 > self.rules.deck_size:
            raise ValueError(f"{len(names)} players × {hand_size} cards do not fit the deck")
        self.rng = random.Random(seed)
        self.names = names
        self.hand_size = hand_size
        self.max_steps = max_steps
        self._players = [players[name] for name in names]
        self._n = len(names)
        self._seat = {name: seat for seat, name in enumerate(names)}
        self._deck = deck(self.rules)
        self._hands: list[list[Card]] = [[] for _ in names]
        self._draw: list[Card] = []
        self._discard: list[Card] = []
        self._aside: list[Card] = []
        self._scores = [0] * self._n
        self._eliminated = [False] * self._n
        self._dealer = self._n - 1
        self._publish_scores()
        self._round_number = 0
        self._match_winner = -1
        self._steps = 0
        self._start_round_state()

    # ------------------------------------------------------------------------------ what players see

    @property
    def top(self) -> Card | None:
        """The top card of the discard pile."""
        return self._discard[-1] if self._discard else None

    @property
    def active_colour(self) -> Colour | None:
        """The colour to match (``None`` while a wild's colour is owed or no card is up)."""
        return self._colour

    def hand(self, name: str) -> tuple[Card, ...]:
        """The cards ``name`` really holds."""
        return tuple(self._hands[self._seat[name]])

    def seats_in_round(self) -> tuple[str, ...]:
        """Seats that take part in the round (not eliminated, not yet out under ``round_end=all_out``)."""
        return tuple(name for seat, name in enumerate(self.names) if self._in_round[seat])

    # ------------------------------------------------------------------------------ running

    def __iter__(self) -> Iterator[SimStep]:
        return self._match()

    def run(self) -> list[SimStep]:
        """Play the whole match and return every step."""
        return list(self)

    def _match(self) -> Iterator[SimStep]:
        while True:
            yield from self._round()
            if self._match_winner >= 0:
                return
            self._dealer = self._next_clockwise(self._dealer)

    def _round(self) -> Iterator[SimStep]:
        self._round_number += 1
        self._deal()
        yield from self._first_card()
        while self._waiting not in _ROUND_OVER:
            if self._stale:
                yield from self._offer_late_catches()
            if self._silent_decline:
                # Nobody can tell yet that the first player kept its hand (the referee still waits for a
                # target), so no card is laid out of turn before that player acts.
                self._silent_decline = False
            else:
                yield from self._offer_out_of_turn()
            if self.rules.jump_in and self._waiting == "play":
                jumped = yield from self._offer_jump_in()
                if jumped:
                    continue
            if self._waiting == "challenge_or_accept":
                yield from self._answer_pending(self._turn)
            else:
                yield from self._take_turn(self._turn)
        yield from self._show_hands()

    # ------------------------------------------------------------------------------ state

    def _start_round_state(self) -> None:
        self._in_round = [not out for out in self._eliminated]
        self._turn = self._next_clockwise(self._dealer)
        self._direction = CLOCKWISE
        self._colour: Colour | None = None
        self._waiting = "flip"
        # The draw cards stacked for the seat on turn (R37), and the Wild Draw Four that may be
        # challenged: (its player, the victim, the hand it was played from, top and colour before it).
        self._stack: list[Card] = []
        self._pending = 0
        self._challengeable: tuple[int, int, tuple[Card, ...], Card | None, Colour | None] | None = None
        # UNO (R27, R28): seats whose window is open (just left with one card, no one else acted
        # since), in the order they opened; seats still catchable later under caught_any_time.
        self._fresh: list[int] = []
        self._stale: set[int] = set()
        self._called: set[int] = set()
        self._round_winner = -1
        self._to_show: list[int] = []
        self._own_points = [0] * self._n
        self._points: int | None = None
        self._penalties: list[Penalty] = []
        self._reflip_owed = False
        # R11 declined without a word: until the first player acts, the table still seems to owe a target.
        self._silent_decline = False

    def _deal(self) -> None:
        """Collect every card, shuffle, deal ``hand_size`` each one at a time from left of the dealer."""
        self._start_round_state()
        self._draw = list(self._deck)
        self.rng.shuffle(self._draw)
        self._discard = []
        self._aside = []
        self._hands = [[] for _ in self.names]
        order = self._clockwise_from(self._dealer)
        for _ in range(self.hand_size):
            for seat in order:
                self._hands[seat].append(self._draw.pop())

    def _clockwise_from(self, seat: int) -> list[int]:
        """Seats in the round, clockwise, starting left of ``seat`` (``seat`` itself last if in the round)."""
        n = self._n
        return [(seat + k) % n for k in range(1, n + 1) if self._in_round[(seat + k) % n]]

    def _next_clockwise(self, seat: int) -> int:
        n = self._n
        seat = (seat + 1) % n
        while self._eliminated[seat]:
            seat = (seat + 1) % n
        return seat

    def _next(self, seat: int) -> int:
        """The next seat in the direction of play that is still in the round."""
        n = self._n
        seat = (seat + self._direction) % n
        while not self._in_round[seat]:
            seat = (seat + self._direction) % n
        return seat

    def _step(
        self,
        observation: dict[str, object],
        *,
        accepted: bool = True,
        reason: str | None = None,
        landed: Card | None = None,
    ) -> SimStep:
        """The observation and the truth after it; the step's penalties start afresh for the next one."""
        self._steps += 1
        if self._steps > self.max_steps:
            raise SimulationError(f"the match did not end within {self.max_steps} steps")
        names = self.names
        top = self.top
        waiting = self._waiting
        if self._reflip_owed and waiting in _REFLIP_FROM and self._draw:
            waiting = "flip"
        colour = self._colour
        # Positional, in field order: the fastest way to build the per-step record.
        truth = _new_truth(
            Truth,
            (
                self._round_number,
                names[self._dealer],
                waiting,
                None if waiting in _ROUND_OVER else names[self._turn],
                "choose" if waiting == "colour" else (colour.label if colour is not None else None),
                DIRECTION_NAMES[self._direction],
                top.name if top is not None else None,
                names,
                tuple(map(tuple, self._hands)),
                tuple(self._draw),
                tuple(self._discard),
                tuple(self._aside),
                self._pending,
                tuple(self._penalties),
                names[self._round_winner] if self._round_winner >= 0 else None,
                self._points,
                self._score_view,
                names[self._match_winner] if self._match_winner >= 0 else None,
                self._eliminated_view,
            ),
        )
        self._penalties = []
        return _new_step(SimStep, (observation, truth, accepted, reason, landed))

    # ------------------------------------------------------------------------------ cards moving

    def _reshuffle(self) -> None:
        """R33: the discard pile (but its top card, with ``reshuffle_keep_top``) becomes the draw pile."""
        keep = 1 if self.rules.reshuffle_keep_top and self._discard else 0
        if len(self._discard) <= keep:
            return
        cards = self._discard[: len(self._discard) - keep]
        self._discard = self._discard[len(self._discard) - keep :]
        self.rng.shuffle(cards)
        self._draw = cards
        if not keep:
            # The top card went into the new pile and lost its colour: the dealer turns up a new one.
            self._colour = None
            self._reflip_owed = True

    def _take(self, seat: int, wanted: int) -> int:
        """``seat`` takes up to ``wanted`` cards; the pile is rebuilt the moment it runs empty (R33)."""
        hand = self._hands[seat]
        taken = 0
        if not self._draw:
            self._reshuffle()
        while taken < wanted and self._draw:
            hand.append(self._draw.pop())
            taken += 1
            if not self._draw:
                self._reshuffle()
        return taken

    def _penalise(self, seat: int, cards: int, reason: str) -> None:
        """``seat`` draws ``cards`` for ``reason``; the step's penalty list records what was really taken."""
        taken = self._take(seat, cards)
        self._forget_uno(seat)
        self._penalties.append(Penalty(self.names[seat], taken, reason))

    def _can_draw(self) -> bool:
        keep = 1 if self.rules.reshuffle_keep_top and self._discard else 0
        return bool(self._draw) or len(self._discard) > keep

    # ------------------------------------------------------------------------------ UNO

    def _forget_uno(self, seat: int) -> None:
        """The seat's hand changed: a call, an open window or catchability is gone."""
        self._stale.discard(seat)
        self._called.discard(seat)
        if seat in self._fresh:
            self._fresh.remove(seat)

    def _hand_changed(self, seat: int) -> None:
        """After a play, swap, pass or shuffle: a seat left with one card must call (again) (R27)."""
        self._forget_uno(seat)
        if len(self._hands[seat]) == 1:
            self._fresh.append(seat)

    def _act(self, actor: int) -> None:
        """``actor`` begins a turn action: the other seats' UNO windows pass (R28)."""
        if not self._fresh:
            return
        trigger = self.rules.uno_penalty_trigger
        for seat in sorted(self._fresh):  # windows passing together: in seat order, as the referee judges
            if seat == actor:
                continue
            self._fresh.remove(seat)
            if trigger == "caught_any_time":
                self._stale.add(seat)
            elif trigger == "automatic":
                self._penalise(seat, 2, "uno")

    def _call_uno(self, seat: int) -> SimStep:
        self._forget_uno(seat)
        self._called.add(seat)
        return self._step({"uno": True, "by": self.names[seat]})

    def _uno_moment(self, seats: Sequence[int]) -> Iterator[SimStep]:
        """Seats just left with one card call UNO or forget it; the others may catch the forgetful."""
        for seat in seats:
            if seat in self._fresh and self._players[seat].calls_uno(self, self.names[seat]):
                yield self._call_uno(seat)
        for seat in seats:
            if seat in self._fresh:
                yield from self._offer_catch(seat)
            elif seat in self._called:
                yield from self._offer_false_catch(seat)

    def _offer_false_catch(self, target: int) -> Iterator[SimStep]:
        """A seat "catches" ``target``, who did call: refused, and ``false_catch_penalty`` is drawn."""
        others = [seat for seat in self._clockwise_from(target) if seat != target]
        catcher = others[self._steps % len(others)]
        by = self.names[catcher]
        if not self._players[catcher].catches_wrongly(self, by, self.names[target]):
            return
        if self.rules.false_catch_penalty:
            self._penalise(catcher, self.rules.false_catch_penalty, "false_catch")
        yield self._step({"catch": self.names[target], "by": by}, accepted=False, reason="nothing_to_catch")
        yield from self._reflip_if_owed()

    def _offer_catch(self, culprit: int) -> Iterator[SimStep]:
        """Seats in random order may catch ``culprit``; the first who does makes it draw 2 (R28)."""
        rules = self.rules
        if rules.uno_penalty_trigger == "automatic":
            return
        name = self.names[culprit]
        catchers = [seat for seat in self._clockwise_from(culprit) if seat != culprit]
        must_call_first = rules.uno_catcher_must_call_first
        if must_call_first and rules.uno_call_moment == "with_second_to_last":
            # The seat on turn holding two cards would call for its own next card, not at the culprit.
            catchers = [s for s in catchers if not (s == self._turn and len(self._hands[s]) == 2)]
        self.rng.shuffle(catchers)
        for catcher in catchers:
            by = self.names[catcher]
            if not self._players[catcher].catches(self, by, name):
                continue
            if must_call_first:
                # S3: the catcher calls UNO first. A catcher that still owes its own call makes that call
                # first: a player's own first "UNO" is about its own card, only the next one is a shout.
                if catcher in self._fresh or (
                    catcher in self._stale and rules.uno_call_moment == "holding_one"
                ):
                    yield self._call_uno(catcher)
                yield self._step({"uno": True, "by": by})
                if self._players[culprit].calls_back(self, name):
                    # Too late: the catcher called first, so the catch still counts. Under S1 a call
                    # after the window (not with the card) is no call at all.
                    if culprit in self._fresh or rules.uno_call_moment == "holding_one":
                        yield self._step({"uno": True, "by": name})
                    else:
                        yield self._step({"uno": True, "by": name}, accepted=False, reason="too_late")
            self._penalise(culprit, 2, "uno")
            yield self._step({"catch": name, "by": by})
            yield from self._reflip_if_owed()
            return

    def _offer_late_catches(self) -> Iterator[SimStep]:
        """``caught_any_time`` (S1): a forgetful seat may still be caught while it holds one card."""
        for culprit in sorted(self._stale):
            if culprit in self._stale:
                yield from self._offer_catch(culprit)

    # ------------------------------------------------------------------------------ first card

    def _first_card(self) -> Iterator[SimStep]:
        """Turn up cards until one starts the discard pile (R5, R7–R11; the ``first_card_*`` options)."""
        rules = self.rules
        first = self._turn
        while True:
            card = self._draw.pop()
            self._discard.append(card)
            if card.rank is Rank.WILD_DRAW4:
                how = rules.first_card_wild_draw4
                if how == "reshuffle":
                    self._draw.append(self._discard.pop())
                    self.rng.shuffle(self._draw)
                elif how == "set_aside":
                    self._aside.append(self._discard.pop())
                yield self._flip_step(card)
                continue
            if card.is_wild:
                if rules.first_card_wild == "ignore":
                    yield self._flip_step(card)
                    continue
                self._colour = None
                self._waiting = "colour"
                yield self._flip_step(card)
                self._colour = self._choose_colour(first, declarable_colours(card, None, None, rules))
                if card.rank is Rank.WILD_SWAP and self._hands[first]:
                    self._waiting = "target"
                    yield self._colour_step(first)
                    yield from self._swap(first, first_card=True, then=first)
                else:
                    self._waiting = "play"
                    yield self._colour_step(first)
                return
            self._colour = card.colour
            if card.is_action and rules.first_card_action == "ignore":
                yield self._flip_step(card)
                continue
            if card.rank is Rank.SKIP:
                self._turn = self._next(first)
            elif card.rank is Rank.REVERSE:
                self._direction = COUNTERCLOCKWISE
                self._turn = self._dealer
            elif card.rank is Rank.DRAW2:
                self._penalise(first, 2, "first_card")
                self._turn = self._next(first)
            self._waiting = "play"
            yield self._flip_step(card)
            yield from self._reflip_if_owed()
            return

    def _flip_step(self, card: Card) -> SimStep:
        return self._step({"flip": card.name, "by": self.names[self._dealer]}, landed=card)

    def _colour_step(self, seat: int) -> SimStep:
        return self._step({"colour": self._colour.label, "by": self.names[seat]})

    def _reflip_if_owed(self) -> Iterator[SimStep]:
        """After R33 without ``reshuffle_keep_top`` the pile is empty: the dealer turns up a new card."""
        if not self._reflip_owed or self._waiting not in _REFLIP_FROM:
            return
        self._reflip_owed = False
        if not self._draw:
            # Every card is in the players' hands: nothing to turn up, the next card played starts the pile.
            return
        resume = self._waiting
        card = self._draw.pop()
        self._discard.append(card)
        if card.is_wild:
            self._waiting = "colour"
            yield self._flip_step(card)
            self._colour = self._choose_colour(self._turn, declarable_colours(card, None, None, self.rules))
            self._waiting = resume
            yield self._colour_step(self._turn)
        else:
            self._colour = card.colour
            self._waiting = resume
            yield self._flip_step(card)

    # ------------------------------------------------------------------------------ a turn

    def _take_turn(self, seat: int) -> Iterator[SimStep]:
        rules = self.rules
        name = self.names[seat]
        player = self._players[seat]
        hand = self._hands[seat]
        playable = [card for card in hand if can_play(card, self.top, self._colour, rules)]
        may_draw = (rules.voluntary_draw or not playable) and self._can_draw()
        if not playable and not may_draw:
            # Every card is in the players' hands: nothing to play, nothing to draw — the turn passes.
            self._act(seat)
            self._turn = self._next(seat)
            yield self._step({"pass": True, "by": name})
            return
        choice = player.choose_play(self, name, playable, may_draw)
        if choice is None:
            if not may_draw:
                raise SimulationError(f"{name} wants to draw although it may not")
            yield from self._draw_one(seat)
        elif choice not in playable:
            if choice not in hand:
                raise SimulationError(f"{name} plays {choice.name}, which it does not hold")
            yield from self._misplay(seat, choice, "no_match")
        elif (
            len(hand) == 2
            and rules.uno_call_moment == "with_second_to_last"
            and player.calls_uno_early(self, name)
        ):
            # S1: UNO is called together with the second-to-last card, a moment before it lands.
            yield self._step({"uno": True, "by": name})
            yield from self._play(seat, choice, called=True)
        else:
            yield from self._play(seat, choice)

    def _misplay(self, seat: int, card: Card, reason: str) -> Iterator[SimStep]:
        """A card that may not be played lands and goes back; ``misplay_penalty`` cards are drawn."""
        if self.rules.misplay_penalty:
            self._penalise(seat, self.rules.misplay_penalty, "misplay")
        yield self._step(
            {"play": card.name, "by": self.names[seat]}, accepted=False, reason=reason, landed=card
        )
        yield from self._reflip_if_owed()

    def _draw_one(self, seat: int) -> Iterator[SimStep]:
        rules = self.rules
        name = self.names[seat]
        self._act(seat)
        if not self._can_draw():
            # An UNO penalty set off by this draw took the last card: the draw is refused, the turn goes on.
            yield self._step({"draw": 1, "by": name}, accepted=False, reason="not_allowed")
            yield from self._take_turn(seat)
            return
        self._take(seat, 1)
        self._forget_uno(seat)
        drawn = self._hands[seat][-1]
        yield self._step({"draw": 1, "by": name})
        yield from self._reflip_if_owed()
        if can_play(drawn, self.top, self._colour, rules) and (
            rules.drawn_card == "must_play" or self._players[seat].play_drawn(self, name, drawn)
        ):
            yield from self._play(seat, drawn)
            return
        self._turn = self._next(seat)
        yield self._step({"pass": True, "by": name})
        yield from self._reflip_if_owed()

    def _offer_out_of_turn(self) -> Iterator[SimStep]:
        """One seat not on turn (each in turn) may wrongly lay a card down; the referee refuses it."""
        waiting = self._waiting
        if waiting not in _REFLIP_FROM:
            return
        others = [seat for seat in self._clockwise_from(self._turn) if seat != self._turn]
        seat = others[self._steps % len(others)]
        card = self._players[seat].plays_out_of_turn(self, self.names[seat])
        if card is None:
            return
        if card not in self._hands[seat] or (self.rules.jump_in and card is self.top and not card.is_wild):
            raise SimulationError(f"{self.names[seat]} cannot play {card.name} out of turn as a mistake")
        identical_needed = self.rules.jump_in and waiting == "play"
        yield from self._misplay(seat, card, "not_identical" if identical_needed else "not_your_turn")

    def _offer_jump_in(self) -> Iterator[SimStep]:
        """R39: a seat holding a card identical to the top card may play it out of turn."""
        top = self.top
        if top is None or top.is_wild:
            return False
        for seat in self._clockwise_from(self._turn):
            if (
                seat != self._turn
                and top in self._hands[seat]
                and self._players[seat].jumps_in(self, self.names[seat], top)
            ):
                yield from self._play(seat, top)
                return True
        return False

    def _play(self, seat: int, card: Card, *, called: bool = False) -> Iterator[SimStep]:
        """``seat`` lays ``card`` down (on turn, on a pending draw, or jumping in); its effect follows."""
        under = (self.top, self._colour)
        held = tuple(self._hands[seat])
        self._hands[seat].remove(card)
        self._discard.append(card)
        self._act(seat)
        self._hand_changed(seat)
        if called:
            self._forget_uno(seat)
            self._called.add(seat)
        if card.draw_amount and self._stack:
            self._challengeable = None
        observation: dict[str, object] = {"play": card.name, "by": self.names[seat]}
        if not self._hands[seat]:
            if self._round_winner < 0:
                self._round_winner = seat
            if self._round_ends_with(seat):
                self._end_round(seat, card)
                yield self._step(observation, landed=card)
                return
            self._in_round[seat] = False
        if card.is_wild:
            yield from self._play_wild(seat, card, observation, under, held)
        else:
            yield from self._play_coloured(seat, card, observation)

    def _play_wild(
        self,
        seat: int,
        card: Card,
        observation: dict[str, object],
        under: tuple[Card | None, Colour | None],
        held: tuple[Card, ...],
    ) -> Iterator[SimStep]:
        """A wild: its player declares the colour, then its effect (R21, R22, R34–R36)."""
        self._colour = None
        self._waiting = "colour"
        self._turn = seat
        yield self._step(observation, landed=card)
        self._colour = self._choose_colour(seat, declarable_colours(card, under[0], under[1], self.rules))
        rank = card.rank
        changed = [seat]
        if rank is Rank.WILD_DRAW4:
            victim = self._next(seat)
            self._stack_up(card)
            self._challengeable = (seat, victim, _without_one(held, card), under[0], under[1])
            self._turn = victim
            self._waiting = "challenge_or_accept"
            yield self._colour_step(seat)
        elif rank is Rank.WILD_SWAP and self._hands[seat]:
            self._waiting = "target"
            yield self._colour_step(seat)
            target = yield from self._swap(seat, first_card=False, then=self._next(seat))
            changed.append(target)
        else:
            if rank is Rank.WILD_SHUFFLE:
                changed = self._shuffle_hands(seat)
            self._turn = self._next(seat)
            self._waiting = "play"
            yield self._colour_step(seat)
        yield from self._reflip_if_owed()
        yield from self._uno_moment(changed)

    def _play_coloured(self, seat: int, card: Card, observation: dict[str, object]) -> Iterator[SimStep]:
        """A number or action card (R18–R20, R37, R38)."""
        rules = self.rules
        rank = card.rank
        changed = [seat]
        self._colour = card.colour
        self._waiting = "play"
        if rank is Rank.SKIP:
            self._turn = self._next(self._next(seat))
        elif rank is Rank.REVERSE:
            self._direction = -self._direction
            following = self._next(seat)
            if sum(self._in_round) == 2 and rules.two_player_rules:
                following = self._next(following)
            self._turn = following
        elif rank is Rank.DRAW2:
            victim = self._next(seat)
            if rules.stacking != "off":
                self._stack_up(card)
                self._turn = victim
                self._waiting = "challenge_or_accept"
            else:
                self._penalise(victim, 2, "draw2")
                self._turn = self._next(victim)
        elif rules.seven_o and rank is Rank.SEVEN and self._hands[seat]:
            self._waiting = "target"
            self._turn = seat
            yield self._step(observation, landed=card)
            target = yield from self._swap(seat, first_card=False, then=self._next(seat))
            changed.append(target)
            yield from self._reflip_if_owed()
            yield from self._uno_moment(changed)
            return
        else:
            if rules.seven_o and rank is Rank.ZERO:
                changed = self._pass_hands()
            self._turn = self._next(seat)
        yield self._step(observation, landed=card)
        yield from self._reflip_if_owed()
        yield from self._uno_moment(changed)

    def _choose_colour(self, seat: int, allowed: Sequence[Colour]) -> Colour:
        colour = self._players[seat].choose_colour(self, self.names[seat], allowed)
        if colour not in allowed:
            raise SimulationError(f"{self.names[seat]} declared {colour.label}; allowed: {allowed}")
        return colour

    def _swap(self, seat: int, *, first_card: bool, then: int) -> Iterator[SimStep]:
        """``seat`` names whom to swap hands with (R34, R38; R11: may keep its hand on a first card)."""
        name = self.names[seat]
        others = [self.names[s] for s in self._clockwise_from(seat) if s != seat]
        candidates = [name, *others] if first_card else others
        target_name = self._players[seat].choose_target(self, name, candidates)
        if target_name not in candidates:
            raise SimulationError(f"{name} named {target_name!r} to swap with; choose one of {candidates}")
        target = self._seat[target_name]
        if target != seat:
            hands = self._hands
            hands[seat], hands[target] = hands[target], hands[seat]
            self._hand_changed(seat)
            self._hand_changed(target)
        self._turn = then
        self._waiting = "play"
        if target == seat and self.rng.random() < 0.5:
            self._silent_decline = True
            return target  # R11 declined without a word: the first player just plays or draws
        yield self._step({"target": target_name, "by": name})
        return target

    def _pass_hands(self) -> list[int]:
        """Seven-O 0: every hand in the round moves on to the next seat in the direction of play (R38)."""
        seats = [s for s in range(self._n) if self._in_round[s]]
        moved = {self._next(s): self._hands[s] for s in seats}
        for s in seats:
            self._hands[s] = moved[s]
            self._hand_changed(s)
        return seats

    def _shuffle_hands(self, seat: int) -> list[int]:
        """Wild Shuffle Hands: all hands collected, shuffled, dealt one by one from left of ``seat`` (R35)."""
        order = self._clockwise_from(seat)
        cards = [card for s in order for card in self._hands[s]]
        self.rng.shuffle(cards)
        for s in order:
            self._hands[s] = cards[order.index(s) :: len(order)]
            self._hand_changed(s)
        return order

    # ------------------------------------------------------------------------------ pending draws

    def _answer_pending(self, seat: int) -> Iterator[SimStep]:
        rules = self.rules
        name = self.names[seat]
        top = self.top
        stackable: list[Card] = []
        if rules.stacking != "off":
            stackable = [card for card in self._hands[seat] if can_stack(card, top, rules)]
        may_challenge = self._challengeable is not None and self._challengeable[1] == seat
        answer = self._players[seat].answer_draw(self, name, stackable, may_challenge)
        if isinstance(answer, Card):
            if answer not in stackable:
                raise SimulationError(f"{name} stacked {answer.name}, which does not go on {top}")
            yield from self._play(seat, answer)
        elif answer == CHALLENGE and may_challenge:
            yield from self._challenge(seat)
        elif answer == ACCEPT:
            self._act(seat)
            self._penalise(seat, self._pending, self._stack_reason())
            self._clear_pending()
            self._turn = self._next(seat)
            self._waiting = "play"
            yield self._step({"accept": True, "by": name})
            yield from self._reflip_if_owed()
        else:
            raise SimulationError(f"{name} answered {answer!r} to a pending draw")

    def _stack_reason(self) -> str:
        """The penalty reason of the pending draw: the one card's own, or ``stack`` for several (R37)."""
        if len(self._stack) > 1:
            return "stack"
        return "draw4" if self._stack[0].rank is Rank.WILD_DRAW4 else "draw2"

    def _stack_up(self, card: Card) -> None:
        """A draw card waits for the next seat (with stacking, on top of the ones before, R37)."""
        self._stack.append(card)
        self._pending += card.draw_amount

    def _clear_pending(self) -> None:
        self._stack = []
        self._pending = 0
        self._challengeable = None

    def _challenge(self, victim: int) -> Iterator[SimStep]:
        """R24, R25: the victim challenges; the player shows the hand; the guilty or the challenger draws."""
        player, _, held, under_top, under_colour = self._challengeable
        self._act(victim)
        self._waiting = "reveal"
        yield self._step({"challenge": True, "by": self.names[victim]})
        # R25 judges the hand the card was played from: cards drawn since (an UNO penalty) are kept apart.
        shown = [card.name for card in held]
        self._challengeable = None
        if not wd4_is_legal(held, under_top, under_colour, self.rules):
            self._penalise(player, 4, "challenge_guilty")
            self._pending -= self._stack.pop().draw_amount
            if self._stack:
                # Stacking: the draws stacked below the Wild Draw Four still wait for the challenger.
                self._waiting = "challenge_or_accept"
            else:
                skipped = self.rules.challenge_success_next == "challenger_skipped"
                self._turn = self._next(victim) if skipped else victim
                self._waiting = "play"
        else:
            self._penalise(victim, self._pending + 2, "challenge_failed")
            self._clear_pending()
            self._turn = self._next(victim)
            self._waiting = "play"
        yield self._step({"reveal": shown, "by": self.names[player]})
        yield from self._reflip_if_owed()

    # ------------------------------------------------------------------------------ end of round

    def _round_ends_with(self, seat: int) -> bool:
        """Whether ``seat`` going out ends the round (R29; ``all_out`` plays on, but not with partners)."""
        if self.rules.round_end == "first_out" or self.rules.partners:
            return True
        holding = sum(1 for s in range(self._n) if s != seat and self._in_round[s] and self._hands[s])
        return holding <= 1

    def _teammates(self, a: int, b: int) -> bool:
        return a == b or (self.rules.partners and a % 2 == b % 2)

    def _end_round(self, seat: int, card: Card) -> None:
        """The last card is down; a Draw Two or Wild Draw Four still makes the next seat draw (R29)."""
        if card.draw_amount:
            victim = self._next(seat)
            self._stack_up(card)
            self._penalise(victim, self._pending, self._stack_reason())
        self._colour = card.colour
        self._clear_pending()
        self._fresh, self._stale, self._called = [], set(), set()
        self._reflip_owed = False
        self._waiting = "scores"
        winner = self._round_winner
        self._to_show = [
            s for s in self._clockwise_from(winner) if self._hands[s] and not self._teammates(s, winner)
        ]
        if not self._to_show:
            self._score()

    def _show_hands(self) -> Iterator[SimStep]:
        """R30: the losing hands are shown to the camera and counted; the last one settles the round."""
        while self._to_show:
            seat = self._to_show.pop(0)
            self._own_points[seat] = hand_points(self._hands[seat], self.rules)
            if not self._to_show:
                self._score()
            yield self._step({"reveal": [card.name for card in self._hands[seat]], "by": self.names[seat]})

    def _score(self) -> None:
        """R30–R32: the winner (team) scores the shown hands, or each hand counts against its holder."""
        rules = self.rules
        winner = self._round_winner
        own = self._own_points
        n = self._n
        points = sum(own[s] for s in range(n) if not self._teammates(s, winner))
        scores = self._scores
        if rules.match_mode == "first_to_target":
            for s in range(n):
                if self._teammates(s, winner):
                    scores[s] += points
            if scores[winner] >= rules.target_score:
                self._match_winner = winner
        else:
            for s in range(n):
                if not self._eliminated[s] and not self._teammates(s, winner):
                    scores[s] += own[s] + (own[(s + 2) % 4] if rules.partners else 0)
            if rules.match_mode == "lowest_total":
                if max(scores) >= rules.target_score:
                    best = min(scores)
                    self._match_winner = winner if scores[winner] == best else scores.index(best)
            else:
                for s in range(n):
                    if not self._eliminated[s] and scores[s] >= rules.target_score:
                        self._eliminated[s] = True
                remaining = [s for s in range(n) if not self._eliminated[s]]
                if len({s % 2 if rules.partners else s for s in remaining}) == 1:
                    self._match_winner = winner if winner in remaining else remaining[0]
        self._points = points
        self._waiting = "match_over" if self._match_winner >= 0 else "next_round"
        self._publish_scores()

    def _publish_scores(self) -> None:
        """Immutable copies of the match totals and eliminations for the truths (they change per round)."""
        self._score_view = MappingProxyType(dict(zip(self.names, self._scores, strict=True)))
        self._eliminated_view = tuple(
            name for name, out in zip(self.names, self._eliminated, strict=True) if out
        )


def _without_one(cards: Sequence[Card], card: Card) -> tuple[Card, ...]:
    """``cards`` with one copy of ``card`` removed (the rest of a hand a card was played from)."""
    index = cards.index(card)
    return (*cards[:index], *cards[index + 1 :])
