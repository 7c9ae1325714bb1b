"""The Makao game state: who holds what, what is pending, whose turn it is, and who is out.

One rules core serves the two knowledge modes of ARCHITECTURE.md:

- **FULL** (bots, simulations, records with the deal): every hand and the stock order are known.
  :meth:`MakaoGame.legal_actions` lists every legal action, :meth:`MakaoGame.play` checks an action
  and raises :class:`~engine.errors.IllegalActionError` with a readable reason, :meth:`MakaoGame.push`
  applies one without checking (python-chess's trusted path), :meth:`MakaoGame.pop` undoes.
- **TABLE** (a real table): hands and stock order are unknown. The controller reports what happened
  with :meth:`MakaoGame.observe`: ``observe(seat, Play(cards))`` for the cards the camera saw land on
  the pile, ``observe(seat, Draw())`` / ``Accept()`` / ``Pass()`` from the seat buttons. The engine
  flags only what is proven (wrong turn, a card that matches nothing, a penalty, skip or demand not
  answered, more cards played than the player holds, a physical card seen more often than the decks
  hold it), records the violation, and applies the action anyway, because the cards are physically on
  the table. It keeps counting the cards each player holds, so it knows who is out and who lost.

``observe`` works in FULL mode too (records are replayed through it), and every ``observe`` or
``push`` can be undone with ``pop`` (a correction at the table: "the camera misread that card").

A table-mode game as the controller drives it (camera sees 7H, then 2H; Cem presses "accept"):

>>> from engine.cards import parse_cards
>>> from engine.makao import MakaoGame, Play, Accept, preset
>>> game = MakaoGame.table(preset("makao"), ["Ada", "Ben", "Cem"], parse_cards(["7C"]))
>>> game.observe(0, Play(tuple(parse_cards(["7H"]))))
[]
>>> game.observe(1, Play(tuple(parse_cards(["2H"]))))
[]
>>> game.penalty, game.to_move
(2, 2)
>>> game.observe(2, Accept())
[]
>>> game.cards_left, game.to_move
((4, 4, 7), 0)
>>> [v.reason for v in game.observe(0, Play(tuple(parse_cards(["9S"]))))]
['Ada cannot play 9S on 2H: it matches neither rank nor suit']

Turn structure (RULES.md, Makao): on a turn the player plays, or draws one card and then may play
that card if it fits, else passes. Against a pending penalty (2, 3, K♥, K♠) or skip (4) he adds a
card that passes it on, or accepts (draws the total, or loses the turns), which ends his turn.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.cards import Card, Rank, Suit, deck
from engine.errors import IllegalActionError
from engine.makao.actions import (
    Accept,
    Action,
    Demand,
    Draw,
    Pass,
    Play,
    Rule,
    Violation,
    demand_text,
)
from engine.makao.rules import DemandDuration, MakaoRules, StarterRule

__all__ = ["Knowledge", "MakaoGame", "Outcome", "Phase"]


class Knowledge(enum.Enum):
    FULL = "full"
    """All hands and the stock order are known."""
    TABLE = "table"
    """Only what lands on the pile is seen; draws are told by buttons."""


class Phase(enum.Enum):
    TURN = "turn"
    """The player to move has not acted yet this turn."""
    DRAWN = "drawn"
    """The player to move drew one card voluntarily: he may play that card if it fits, or pass."""
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended (python-chess's ``Outcome``)."""

    ended_by: str
    """``"last-holder"`` (2-4 players: one player still holds cards) or ``"third-out"`` (5-6 players)."""
    out: tuple[int, ...]
    """Seats in the order they went out; the first is the winner."""
    losers: tuple[int, ...]
    """The last holder (2-4 players), or every seat not out (5-6 players)."""

    def to_dict(self) -> dict[str, Any]:
        return {"ended_by": self.ended_by, "out": list(self.out), "losers": list(self.losers)}


_Flag = Callable[[Rule, str], Violation]


def _article(code: str) -> str:
    return "an" if code in ("8", "A") else "a"


class _State:
    """Every mutable field of a game, copied whole for undo (python-chess's ``_BoardState``)."""

    __slots__ = (
        "counts",
        "current",
        "demand",
        "demand_by",
        "demand_turns",
        "drawn",
        "draws_since_reshuffle",
        "hands",
        "known_stock",
        "makao_missed",
        "out",
        "penalty",
        "penalty_back",
        "penalty_card",
        "penalty_from",
        "phase",
        "pile",
        "reshuffles",
        "skip",
        "skips_owed",
        "stock",
        "stock_count",
        "turn",
        "violations",
    )

    def __init__(self) -> None:
        self.current = 0
        self.phase = Phase.TURN
        self.hands: list[list[Card]] | None = None
        self.counts: list[int] = []
        self.stock: list[Card] = []  # FULL only; the top card is the last element
        self.stock_count = 0
        self.known_stock: Counter[Card] = Counter()  # TABLE only: faces put into the stock by a reshuffle
        self.draws_since_reshuffle = 0
        self.pile: list[Card] = []  # the top card is the last element
        self.penalty = 0
        self.penalty_card: Card | None = None
        self.penalty_from = 0
        self.penalty_back = False
        self.skip = 0
        self.demand: Demand | None = None
        self.demand_by = 0
        self.demand_turns = 0
        self.skips_owed: list[int] = []
        self.out: list[int] = []
        self.drawn: Card | None = None
        self.turn = 0
        self.reshuffles = 0
        self.violations: list[Violation] = []
        self.makao_missed: list[tuple[int, int]] = []

    def copy(self) -> _State:
        o = _State.__new__(_State)
        o.current, o.phase, o.stock_count = self.current, self.phase, self.stock_count
        o.hands = None if self.hands is None else [h[:] for h in self.hands]
        o.counts, o.stock, o.pile = self.counts[:], self.stock[:], self.pile[:]
        o.known_stock = self.known_stock.copy() if self.known_stock else Counter()
        o.draws_since_reshuffle = self.draws_since_reshuffle
        o.penalty, o.penalty_card = self.penalty, self.penalty_card
        o.penalty_from, o.penalty_back = self.penalty_from, self.penalty_back
        o.skip, o.demand, o.demand_by, o.demand_turns = self.skip, self.demand, self.demand_by, self.demand_turns
        o.skips_owed, o.out = self.skips_owed[:], self.out[:]
        o.drawn, o.turn, o.reshuffles = self.drawn, self.turn, self.reshuffles
        o.violations, o.makao_missed = self.violations[:], self.makao_missed[:]
        return o


class MakaoGame:
    """One game of Makao. Build it with :meth:`deal`, :meth:`from_deal` (FULL) or :meth:`table` (TABLE).

    Seats are 0..n-1 clockwise; ``players`` are their names, used in reasons.
    """

    def __init__(
        self,
        rules: MakaoRules,
        players: Sequence[str],
        *,
        knowledge: Knowledge,
        starter: Sequence[Card],
        hands: Sequence[Sequence[Card]] | None = None,
        stock_top_first: Sequence[Card] = (),
        first: int = 0,
        reshuffle_seed: int = 0,
    ) -> None:
        n = len(players)
        if not rules.min_players <= n <= rules.max_players:
            raise ValueError(f"Makao needs {rules.min_players} to {rules.max_players} players, not {n}")
        if not 0 <= first < n:
            raise ValueError(f"first player must be a seat 0..{n - 1}, not {first!r}")
        if not starter:
            raise ValueError("a game needs a starter card turned up")
        self.rules = rules
        self.players: tuple[str, ...] = tuple(players)
        self.knowledge = knowledge
        self.decks = rules.decks_for(n)
        self.reshuffle_seed = reshuffle_seed
        s = _State()
        s.current = first
        s.pile = list(starter)
        s.skips_owed = [0] * n
        if knowledge is Knowledge.FULL:
            if hands is None or len(hands) != n:
                raise ValueError("full mode needs one hand per player")
            s.hands = [list(h) for h in hands]
            s.counts = [len(h) for h in hands]
            s.stock = list(reversed(stock_top_first))
            s.stock_count = len(s.stock)
            every = [c for h in s.hands for c in h] + s.pile + s.stock
            if Counter(every) != Counter(deck(self.decks)):
                raise ValueError(f"the deal does not hold exactly {self.decks} deck(s) of 52 cards")
        else:
            s.counts = [rules.hand_size] * n
            s.stock_count = 52 * self.decks - rules.hand_size * n - len(starter)
            if s.stock_count < 0:
                raise ValueError("the starter cards and hands need more cards than the decks hold")
        self.first = first
        self.starter: tuple[Card, ...] = tuple(starter)
        self.initial_hands: tuple[tuple[Card, ...], ...] | None = (
            None if s.hands is None else tuple(tuple(h) for h in s.hands)
        )
        """The deal (FULL mode), kept so that a finished simulation can be written as a record."""
        self.initial_stock: tuple[Card, ...] = tuple(stock_top_first)
        self._s = s
        self._stack: list[tuple[_State, Action, int]] = []

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(cls, rules: MakaoRules, players: Sequence[str], *, seed: int = 0, first: int = 0) -> MakaoGame:
        """A FULL-mode game shuffled with *seed*: hands of ``rules.hand_size``, then the starter."""
        cards = deck(rules.decks_for(len(players)))
        rng = random.Random(seed)
        rng.shuffle(cards)
        size = rules.hand_size
        hands = [cards[i * size : (i + 1) * size] for i in range(len(players))]
        rest = cards[size * len(players) :]
        starter = [rest.pop(0)]
        if rules.starter is StarterRule.TURN_UNTIL_PLAIN:
            while rules.is_functional(starter[-1]) and rest:
                starter.append(rest.pop(0))
        return cls.from_deal(rules, players, hands, starter, rest, first=first, reshuffle_seed=seed)

    @classmethod
    def from_deal(
        cls,
        rules: MakaoRules,
        players: Sequence[str],
        hands: Sequence[Sequence[Card]],
        starter: Sequence[Card],
        stock_top_first: Sequence[Card],
        *,
        first: int = 0,
        reshuffle_seed: int = 0,
    ) -> MakaoGame:
        """A FULL-mode game from a known deal. *starter* lists the turned cards, the face-up one last.

        :raises ValueError: when the cards are not exactly the decks the table uses.
        """
        return cls(
            rules,
            players,
            knowledge=Knowledge.FULL,
            starter=starter,
            hands=hands,
            stock_top_first=stock_top_first,
            first=first,
            reshuffle_seed=reshuffle_seed,
        )

    @classmethod
    def table(cls, rules: MakaoRules, players: Sequence[str], starter: Sequence[Card], *, first: int = 0) -> MakaoGame:
        """A TABLE-mode game: hands unknown, ``rules.hand_size`` each, *starter* as seen by the camera."""
        return cls(rules, players, knowledge=Knowledge.TABLE, starter=starter, first=first)

    # ------------------------------------------------------------------ queries

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def to_move(self) -> int | None:
        """The seat that acts next (``None`` when the game is over)."""
        return None if self._s.phase is Phase.OVER else self._s.current

    @property
    def phase(self) -> Phase:
        return self._s.phase

    @property
    def top(self) -> Card:
        return self._s.pile[-1]

    @property
    def pile(self) -> tuple[Card, ...]:
        return tuple(self._s.pile)

    @property
    def stock_size(self) -> int:
        return self._s.stock_count

    @property
    def cards_left(self) -> tuple[int, ...]:
        return tuple(self._s.counts)

    @property
    def penalty(self) -> int:
        """Cards the player to move must draw unless he passes the penalty on (0: none)."""
        return self._s.penalty

    @property
    def skip(self) -> int:
        """Turns the player to move loses unless he adds a 4 (0: none)."""
        return self._s.skip

    @property
    def demand(self) -> Demand | None:
        return self._s.demand

    @property
    def out_order(self) -> tuple[int, ...]:
        return tuple(self._s.out)

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every violation :meth:`observe` has recorded, in order."""
        return tuple(self._s.violations)

    @property
    def makao_penalties(self) -> tuple[tuple[int, int], ...]:
        """(turn, seat) of each play that left one card without the "makao" call (``makao_call``)."""
        return tuple(self._s.makao_missed)

    @property
    def turn_count(self) -> int:
        """Actions applied so far (the next one is number ``turn_count + 1`` in reports)."""
        return self._s.turn

    @property
    def reshuffles(self) -> int:
        """How often the stock ran out and the pile under its top card became the new stock. At a real table
        the players did it by hand, and the camera has to be told: the cards beneath are no longer there."""
        return self._s.reshuffles

    @property
    def drawn(self) -> Card | None:
        """The card drawn voluntarily this turn (FULL mode, phase DRAWN)."""
        return self._s.drawn

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards *seat* holds (FULL mode only: at a real table nobody sees hands)."""
        if self._s.hands is None:
            raise ValueError("hands are unknown in table mode")
        return tuple(self._s.hands[seat])

    @property
    def is_over(self) -> bool:
        return self._s.phase is Phase.OVER

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        s = self._s
        if s.phase is not Phase.OVER:
            return None
        losers = tuple(seat for seat in range(self.n) if s.counts[seat] > 0)
        ended_by = "third-out" if self.rules.ends_by_third_out(self.n) else "last-holder"
        return Outcome(ended_by, tuple(s.out), losers)

    def cards_in_play(self) -> list[Card]:
        """Every card in hands, pile and stock (FULL mode): the conservation invariant's input."""
        s = self._s
        if s.hands is None:
            raise ValueError("hands are unknown in table mode")
        return [c for h in s.hands for c in h] + s.pile + s.stock

    # ------------------------------------------------------------------ views

    def public_view(self) -> dict[str, Any]:
        """What everyone at the table and every spectator may see; JSON-able, no hidden card."""
        s = self._s
        outcome = self.outcome()
        penalty = None
        if s.penalty and s.penalty_card is not None:
            penalty = {"cards": s.penalty, "card": str(s.penalty_card), "target": s.current}
        skip = {"turns": s.skip, "target": s.current} if s.skip else None
        demand: dict[str, Any] | None = None
        if s.demand is not None:
            key = "rank" if isinstance(s.demand, Rank) else "suit"
            demand = {key: demand_text(s.demand), "by": s.demand_by, "turns_left": s.demand_turns}
        return {
            "game": "makao",
            "preset": self.rules.name,
            "players": list(self.players),
            "decks": self.decks,
            "mode": self.knowledge.value,
            "turn": s.turn,
            "to_move": self.to_move,
            "phase": s.phase.value,
            "top": str(self.top),
            "pile_size": len(s.pile),
            "stock_size": s.stock_count,
            "penalty": penalty,
            "skip": skip,
            "demand": demand,
            "skips_owed": list(s.skips_owed),
            "cards_left": list(s.counts),
            "out": list(s.out),
            "outcome": None if outcome is None else outcome.to_dict(),
        }

    def seat_view(self, seat: int) -> dict[str, Any]:
        """The public view plus what *seat* alone knows: his own hand and the card he just drew."""
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat!r} at a table of {self.n}")
        view = self.public_view()
        view["seat"] = seat
        s = self._s
        view["hand"] = None if s.hands is None else [str(c) for c in s.hands[seat]]
        mine = s.current == seat and s.phase is Phase.DRAWN and s.drawn is not None
        view["drawn"] = str(s.drawn) if mine else None
        return view

    # ------------------------------------------------------------------ seats and turns

    def _next_active(self, seat: int) -> int:
        step = 1 if self.rules.clockwise else -1
        counts = self._s.counts
        for i in range(1, self.n + 1):
            other = (seat + step * i) % self.n
            if counts[other] > 0:
                return other
        return seat

    def _prev_active(self, seat: int) -> int:
        step = -1 if self.rules.clockwise else 1
        counts = self._s.counts
        for i in range(1, self.n):
            other = (seat + step * i) % self.n
            if counts[other] > 0:
                return other
        return seat

    def _advance(self, seat: int) -> int:
        """The next seat that really gets a turn after *seat*, using up owed skipped turns on the way."""
        s = self._s
        nxt = self._next_active(seat)
        while s.skips_owed[nxt] > 0:
            s.skips_owed[nxt] -= 1
            self._tick_demand()
            nxt = self._next_active(nxt)
        return nxt

    def _tick_demand(self) -> None:
        s = self._s
        if s.demand is not None:
            s.demand_turns -= 1
            if s.demand_turns <= 0:
                s.demand = None
                s.demand_turns = 0

    def _set_demand(self, demand: Demand, seat: int) -> None:
        s = self._s
        duration = self.rules.jack_demand_duration if isinstance(demand, Rank) else self.rules.ace_demand_duration
        active = sum(1 for c in s.counts if c > 0)
        if duration is DemandDuration.NEXT_ONLY:
            turns = 1
        elif duration is DemandDuration.ROUND_EXCLUDING_DEMANDER:
            turns = active - (1 if s.counts[seat] > 0 else 0)
        else:
            turns = active
        s.demand, s.demand_by, s.demand_turns = demand, seat, max(1, turns)

    def _drawable(self) -> int:
        return self._s.stock_count + max(0, len(self._s.pile) - 1)

    # ------------------------------------------------------------------ legality

    def _name(self, seat: int) -> str:
        return self.players[seat]

    def _stacks_on(self, attack: Card, card: Card) -> bool:
        """Whether *card* passes on the penalty of battle card *attack* (RULES.md stacking table)."""
        if not self.rules.is_battle(card):
            return False
        if attack.rank in (Rank.TWO, Rank.THREE):
            return card.rank == attack.rank or card.suit == attack.suit
        if card.rank == Rank.KING:
            return card.suit != attack.suit
        return card.suit == attack.suit

    def _penalty_options(self, attack: Card) -> str:
        suit = attack.suit.value
        kings = sorted(self.rules.battle_king_suits, key=lambda x: x.value)
        if attack.rank in (Rank.TWO, Rank.THREE):
            other = "3" if attack.rank == Rank.TWO else "2"
            king = f" or K{suit}" if attack.suit in self.rules.battle_king_suits else ""
            return f"any {attack.rank.code}, {other}{suit}{king}"
        others = ", ".join(f"K{k.value}" for k in kings if k != attack.suit)
        return f"{others}, 2{suit} or 3{suit}"

    def _can_start(self, card: Card) -> bool:
        """Whether *card* may begin a play now: the fast twin of :meth:`_why_not_first`."""
        s = self._s
        if s.penalty and s.penalty_card is not None:
            return self._stacks_on(s.penalty_card, card)
        if s.skip:
            return card.rank == Rank.FOUR and self.rules.fours_stack
        demand = s.demand
        if demand is not None:
            if isinstance(demand, Rank):
                return card.rank == demand or card.rank == Rank.JACK
            return card.suit == demand or card.rank == Rank.ACE
        top = s.pile[-1]
        if card.rank == top.rank or card.suit == top.suit:
            return True
        return self.rules.queen_wild and (card.rank == Rank.QUEEN or top.rank == Rank.QUEEN)

    def _why_not_first(self, seat: int, card: Card) -> tuple[Rule, str] | None:
        """Why *card* cannot begin a play by *seat* now, or ``None`` when it can."""
        s = self._s
        who = self._name(seat)
        top = s.pile[-1]
        if s.penalty and s.penalty_card is not None:
            if self._stacks_on(s.penalty_card, card):
                return None
            return (
                Rule.PENALTY,
                f"{who} cannot play {card} against the pending penalty of {s.penalty} cards from "
                f"{s.penalty_card}: only {self._penalty_options(s.penalty_card)} passes it on (or accept)",
            )
        if s.skip:
            if card.rank == Rank.FOUR and self.rules.fours_stack:
                return None
            return (
                Rule.SKIP,
                f"{who} cannot play {card} while a skip of {s.skip} turn(s) is pending: "
                + ("only a 4 passes it on (or accept)" if self.rules.fours_stack else "accept it"),
            )
        if s.demand is not None:
            by = self._name(s.demand_by)
            if isinstance(s.demand, Rank):
                if card.rank in (s.demand, Rank.JACK):
                    return None
                return (
                    Rule.DEMAND,
                    f"{who} cannot play {card}: {by}'s jack demands {s.demand.code}s "
                    f"(play {_article(s.demand.code)} {s.demand.code} or a jack, or draw)",
                )
            if card.suit == s.demand or card.rank == Rank.ACE:
                return None
            return (
                Rule.DEMAND,
                f"{who} cannot play {card}: {by}'s ace demands {s.demand.noun} "
                f"(play a card of {s.demand.noun} or an ace, or draw)",
            )
        if self.rules.queen_wild and (card.rank == Rank.QUEEN or top.rank == Rank.QUEEN):
            return None
        if card.rank == top.rank or card.suit == top.suit:
            return None
        return Rule.NO_MATCH, f"{who} cannot play {card} on {top}: it matches neither rank nor suit"

    def _why_bad_demand(self, seat: int, play: Play) -> tuple[Rule, str] | None:
        demand = play.demand
        if demand is None:
            return None
        who = self._name(seat)
        last = play.cards[-1].rank
        if last == Rank.JACK:
            if isinstance(demand, Rank) and demand in self.rules.jack_demand_ranks:
                return None
            allowed = " ".join(r.code for r in self.rules.jack_demand_ranks)
            return Rule.BAD_DEMAND, f"{who}'s jack cannot demand {demand_text(demand)}: only one of {allowed}"
        if last == Rank.ACE:
            if isinstance(demand, Suit):
                return None
            return Rule.BAD_DEMAND, f"{who}'s ace must demand a suit (S H D C), not {demand_text(demand)}"
        text = demand_text(demand)
        return Rule.BAD_DEMAND, f"{who} demanded {text} with {play.cards[-1]}: only a jack or an ace demands"

    def _table_duplicates(self, cards: Sequence[Card]) -> Card | None:
        """In TABLE mode, a face seen more often than the decks hold it (pile plus proven stock)."""
        s = self._s
        for card in cards:
            face = card.face
            on_pile = sum(1 for c in s.pile if c.same_face(face))
            in_play = sum(1 for c in cards if c.same_face(face))
            in_stock = max(0, s.known_stock[face] - s.draws_since_reshuffle)
            if on_pile + in_play + in_stock > self.decks:
                return card
        return None

    def check(self, action: Action, seat: int | None = None) -> Violation | None:
        """Why *action* by *seat* (default: the player to move) breaks the rules now, or ``None``.

        In TABLE mode only what is provable is checked (hands are unknown).
        """
        s = self._s
        if seat is None:
            seat = s.current
        turn = s.turn + 1
        cards = action.cards if isinstance(action, Play) else ()

        def v(rule: Rule, reason: str) -> Violation:
            return Violation(turn, seat, rule, reason, cards)

        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat!r} at a table of {self.n}")
        if s.phase is Phase.OVER:
            return v(Rule.GAME_OVER, f"the game is over: {self._name(seat)} cannot {action}")
        if seat != s.current:
            return v(
                Rule.OUT_OF_TURN,
                f"{self._name(seat)} acted out of turn ({action}): it is {self._name(s.current)}'s turn",
            )
        return self._check_for_mover(seat, action, v)

    def _check_for_mover(self, seat: int, action: Action, v: _Flag) -> Violation | None:
        s = self._s
        who = self._name(seat)
        if isinstance(action, Play):
            return self._check_play(seat, action, v)
        if isinstance(action, Draw):
            if s.phase is Phase.DRAWN:
                return v(Rule.AFTER_DRAW, f"{who} already drew this turn: play the drawn card or pass")
            if s.penalty:
                return v(Rule.MUST_ANSWER, f"{who} faces a penalty of {s.penalty}: pass it on or accept it")
            if s.skip:
                return v(Rule.MUST_ANSWER, f"{who} faces a skip of {s.skip}: add a 4 or accept it")
            if self._drawable() == 0:
                return v(Rule.EMPTY_STOCK, f"{who} cannot draw: every card is in a hand or on top")
            return None
        if isinstance(action, Pass):
            if s.phase is Phase.DRAWN:
                return None
            if s.penalty or s.skip:
                pending = "penalty" if s.penalty else "skip"
                return v(Rule.MUST_ANSWER, f"{who} cannot pass a pending {pending}: accept it")
            if self._drawable() > 0:
                return v(Rule.PASS, f"{who} cannot pass without drawing: play or draw a card")
            return None
        if s.penalty or s.skip:
            return None
        return v(Rule.NOTHING_PENDING, f"{who} has no penalty or skip to accept")

    def _check_play(self, seat: int, play: Play, v: _Flag) -> Violation | None:
        s = self._s
        who = self._name(seat)
        cards = play.cards
        if s.phase is Phase.DRAWN:
            if not self.rules.play_drawn_if_match:
                return v(Rule.AFTER_DRAW, f"{who} drew this turn and may not play")
            if len(cards) != 1:
                return v(Rule.AFTER_DRAW, f"{who} drew this turn: only the drawn card may be played, alone")
            if s.drawn is not None and cards[0] != s.drawn:
                return v(Rule.AFTER_DRAW, f"{who} drew {s.drawn} this turn and may play only that card, not {cards[0]}")
        if s.hands is not None:
            if len(set(cards)) != len(cards):
                twice = next(c for c in cards if cards.count(c) > 1)
                return v(Rule.DUPLICATE_CARD, f"{who} laid {twice} twice in one play")
            hand = s.hands[seat]
            for card in cards:
                if card not in hand:
                    return v(Rule.NOT_IN_HAND, f"{who} does not hold {card}")
        else:
            if len(cards) > s.counts[seat]:
                return v(Rule.CARD_COUNT, f"{who} laid {len(cards)} cards but holds only {s.counts[seat]}")
            seen = self._table_duplicates(cards)
            if seen is not None:
                return v(
                    Rule.DUPLICATE_CARD,
                    f"{seen.face} is seen more often than the {self.decks} deck(s) hold it",
                )
        if len(cards) > 1:
            if not self.rules.multi_same_rank:
                return v(Rule.SAME_RANK, f"{who} may lay only one card per turn")
            odd = next((c for c in cards if c.rank != cards[0].rank), None)
            if odd is not None:
                return v(Rule.SAME_RANK, f"{who} laid {cards[0]} and {odd} together: several cards must share one rank")
        why = self._why_not_first(seat, cards[0])
        if why is not None:
            return v(*why)
        bad = self._why_bad_demand(seat, play)
        if bad is not None:
            return v(*bad)
        return None

    def is_legal(self, action: Action) -> bool:
        """Whether the player to move may take *action* now."""
        return self.check(action) is None

    def legal_actions(self) -> Iterator[Action]:
        """The legal actions of the player to move, lazily (python-chess's ``legal_moves``).

        In FULL mode every legal play is listed once per set of cards, first card and top card; the
        cards between first and last are in a fixed order (any order is legal, see :meth:`check`).
        A play leaving one card carries the "makao" call when ``makao_call`` is on. In TABLE mode
        hands are unknown, so only draws, passes and accepts are listed.
        """
        s = self._s
        if s.phase is Phase.OVER:
            return
        seat = s.current
        if s.phase is Phase.DRAWN:
            drawn = s.drawn
            if self.rules.play_drawn_if_match and drawn is not None and self._can_start(drawn):
                yield from self._with_demands((drawn,), s.counts[seat])
            yield Pass()
            return
        if s.hands is not None:
            hand = s.hands[seat]
            for i, first in enumerate(hand):
                if not self._can_start(first):
                    continue
                yield from self._with_demands((first,), len(hand))
                if not self.rules.multi_same_rank:
                    continue
                rest = sorted(
                    (c for j, c in enumerate(hand) if j != i and c.rank == first.rank),
                    key=lambda c: (c.suit.value, c.copy),
                )
                for size in range(1, len(rest) + 1):
                    for subset in combinations(rest, size):
                        for last in subset:
                            middle = tuple(c for c in subset if c is not last)
                            yield from self._with_demands((first, *middle, last), len(hand))
        if s.penalty or s.skip:
            yield Accept()
        elif self._drawable() > 0:
            yield Draw()
        else:
            yield Pass()

    def _with_demands(self, cards: tuple[Card, ...], held: int) -> Iterator[Play]:
        makao = self.rules.makao_call and held - len(cards) == 1
        last = cards[-1].rank
        if last == Rank.JACK:
            yield Play(cards, None, makao)
            for rank in self.rules.jack_demand_ranks:
                yield Play(cards, rank, makao)
        elif last == Rank.ACE:
            yield Play(cards, None, makao)
            for suit in Suit:
                yield Play(cards, suit, makao)
        else:
            yield Play(cards, None, makao)

    # ------------------------------------------------------------------ applying

    def play(self, action: Action) -> None:
        """Checked path: apply *action* for the player to move.

        :raises IllegalActionError: with a readable reason and the rule id, leaving the game unchanged.
        """
        action = self._resolve_copies(self._s.current, action)
        violation = self.check(action)
        if violation is not None:
            raise IllegalActionError(violation.reason, str(violation.rule))
        self.push(action)

    def push(self, action: Action) -> None:
        """Trusted path: apply *action* for the player to move without checking it (undo with :meth:`pop`).

        Like python-chess's ``Board.push``, legality is the caller's responsibility (bots that chose
        from :meth:`legal_actions`). An illegal action is applied as well as it can be.
        """
        seat = self._s.current
        self._stack.append((self._s.copy(), action, seat))
        self._s.turn += 1
        self._apply(seat, action)

    def observe(self, seat: int, action: Action) -> list[Violation]:
        """Record what happened at the table: *seat* took *action*. Returns the violations it proves.

        This is the controller's entry point in TABLE mode (and the record checker's in both modes):

        - ``Play(cards, demand, makao)``: cards the camera saw land on the pile, in order, attributed
          to *seat*; *demand* from the seat's demand choice (jack: a rank, ace: a suit).
        - ``Draw()``: the seat's "draw" button (one card, voluntary or against a demand).
        - ``Accept()``: the seat's "accept" button (take the pending penalty, or the skip).
        - ``Pass()``: the seat's "done" button after drawing a card it does not play.

        The action is applied even when it is illegal (the cards are on the table): a play out of
        turn makes *seat* the player to move first. Nothing is applied once the game is over. Each
        call can be undone with :meth:`pop`.
        """
        s = self._s
        action = self._resolve_copies(seat, action)
        found: list[Violation] = []
        violation = self.check(action, seat)
        self._stack.append((s.copy(), action, seat))
        if violation is not None and violation.rule is Rule.GAME_OVER:
            s.turn += 1
            s.violations.append(violation)
            return [violation]
        if violation is not None and violation.rule is Rule.OUT_OF_TURN:
            found.append(violation)
            s.current, s.phase, s.drawn = seat, Phase.TURN, None
            violation = self.check(action, seat)
        if violation is not None:
            found.append(violation)
        s.turn += 1
        s.violations.extend(found)
        self._apply(seat, action)
        return found

    def pop(self) -> Action:
        """Undo the last :meth:`push`, :meth:`play` or :meth:`observe`; returns its action.

        :raises IndexError: when there is nothing to undo.
        """
        if not self._stack:
            raise IndexError("nothing to undo")
        state, action, _seat = self._stack.pop()
        self._s = state
        return action

    def renew_stock(self) -> int:
        """Make the pile under its top card the stock now, outside any action; returns how many cards went in.

        Why: at a table the players renew the stock by hand and shuffle it. When the draw that ran the stock out
        is taken back (:meth:`pop`), its cards go back on the stock, but the pile's cards cannot be un-shuffled
        and laid back under the top card: the controller undoes the draw, then renews the stock again with this.
        Cards still in the stock stay on top of the new one.
        """
        moved = max(0, len(self._s.pile) - 1)
        self._reshuffle()
        return moved

    def peek(self) -> tuple[int, Action] | None:
        """The last applied (seat, action), or ``None``."""
        if not self._stack:
            return None
        _state, action, seat = self._stack[-1]
        return seat, action

    def _resolve_copies(self, seat: int, action: Action) -> Action:
        """In FULL mode with two decks, map a card the player lacks to a same-face copy he holds.

        The camera cannot tell the copies apart, so ``7H`` means "a seven of hearts".
        """
        s = self._s
        if not isinstance(action, Play) or s.hands is None or self.decks == 1:
            return action
        hand = s.hands[seat]
        cards = list(action.cards)
        drawn = s.drawn if s.phase is Phase.DRAWN and seat == s.current else None
        if drawn is not None and len(cards) == 1 and cards[0].same_face(drawn):
            return action if cards[0] == drawn else Play((drawn,), action.demand, action.makao)
        changed = False
        for i, card in enumerate(cards):
            if card in hand:
                continue
            for other in hand:
                if other.same_face(card) and other not in cards:
                    cards[i] = other
                    changed = True
                    break
        return Play(tuple(cards), action.demand, action.makao) if changed else action

    def _draw(self, seat: int, k: int) -> Card | None:
        """Move up to *k* cards from the stock to *seat*, reshuffling the pile when the stock runs out."""
        s = self._s
        last = None
        for _ in range(k):
            if s.stock_count == 0:
                self._reshuffle()
                if s.stock_count == 0:
                    break
            s.stock_count -= 1
            s.counts[seat] += 1
            if s.hands is not None:
                last = s.stock.pop()
                s.hands[seat].append(last)
            else:
                s.draws_since_reshuffle += 1
        return last

    def _reshuffle(self) -> None:
        s = self._s
        if len(s.pile) <= 1:
            return
        rest, s.pile = s.pile[:-1], s.pile[-1:]
        s.reshuffles += 1
        if s.hands is not None:
            random.Random(self.reshuffle_seed * 1_000_003 + s.reshuffles).shuffle(rest)
            s.stock = rest + s.stock  # under what is left of it (only :meth:`renew_stock` leaves any)
        else:
            s.known_stock = Counter(c.face for c in rest)
            s.draws_since_reshuffle = 0
        s.stock_count += len(rest)

    def _end_turn(self, seat: int) -> None:
        s = self._s
        self._tick_demand()
        s.phase, s.drawn = Phase.TURN, None
        s.current = self._advance(seat)

    def _apply(self, seat: int, action: Action) -> None:
        s = self._s
        if s.phase is Phase.OVER:
            return
        if isinstance(action, Play):
            self._apply_play(seat, action)
        elif isinstance(action, Draw):
            card = self._draw(seat, 1)
            if self.rules.play_drawn_if_match:
                s.phase, s.drawn = Phase.DRAWN, card
            else:
                self._end_turn(seat)
        elif isinstance(action, Pass):
            self._end_turn(seat)
        elif s.penalty:
            self._draw(seat, s.penalty)
            back, attacker = s.penalty_back, s.penalty_from
            s.penalty, s.penalty_card, s.penalty_back = 0, None, False
            self._end_turn(attacker if back else seat)
        elif s.skip:
            s.skips_owed[seat] += s.skip - 1
            s.skip = 0
            self._end_turn(seat)
        else:
            self._end_turn(seat)

    def _take_from_table(self, seat: int, cards: Iterable[Card]) -> None:
        s = self._s
        if s.hands is None:
            taken = sum(1 for _ in cards)
            s.counts[seat] = max(0, s.counts[seat] - taken)
            return
        for card in cards:
            hand = s.hands[seat]
            if card in hand:
                hand.remove(card)
                continue
            # Only an illegal play gets here: take the card from wherever it is, to keep counts honest.
            for other in s.hands:
                if card in other:
                    other.remove(card)
                    break
            else:
                if card in s.stock:
                    s.stock.remove(card)
                    s.stock_count -= 1
        for i, h in enumerate(s.hands):
            s.counts[i] = len(h)

    def _apply_play(self, seat: int, play: Play) -> None:
        s = self._s
        cards = play.cards
        self._take_from_table(seat, cards)
        s.pile.extend(cards)
        s.phase, s.drawn = Phase.TURN, None
        rules = self.rules
        if rules.makao_call and s.counts[seat] == 1 and not play.makao:
            s.makao_missed.append((s.turn, seat))
            self._draw(seat, rules.makao_penalty)
        if s.counts[seat] == 0 and seat not in s.out:
            s.out.append(seat)
        if self._game_over():
            s.phase = Phase.OVER
            return
        pen = 0
        last_battle: Card | None = None
        for card in cards:
            value = rules.penalty_of(card)
            if value:
                pen += value
                last_battle = card
        fours = sum(1 for c in cards if c.rank == Rank.FOUR)
        last = cards[-1]
        new_demand: Demand | None = None
        if last.rank in (Rank.JACK, Rank.ACE):
            # A new jack or ace replaces any demand; without a demand of its own it clears it.
            s.demand, s.demand_turns = None, 0
            new_demand = play.demand
        self._tick_demand()
        if new_demand is not None:
            self._set_demand(new_demand, seat)
        s.skip = s.skip + fours if fours else 0
        if last_battle is not None:
            s.penalty += pen
            s.penalty_card = last_battle
            s.penalty_from = seat
            s.penalty_back = rules.hits_previous(last_battle)
            s.current = self._prev_active(seat) if s.penalty_back else self._advance(seat)
            return
        s.penalty, s.penalty_card, s.penalty_back = 0, None, False
        s.current = self._advance(seat)

    def _game_over(self) -> bool:
        s = self._s
        if self.rules.ends_by_third_out(self.n):
            return len(s.out) >= self.rules.large_table_stop_after_out or sum(c > 0 for c in s.counts) <= 1
        return sum(1 for c in s.counts if c > 0) <= 1

    def __repr__(self) -> str:
        return (
            f"<MakaoGame {self.rules.name} {self.knowledge.value} players={list(self.players)} "
            f"top={self.top} to_move={self.to_move} cards_left={list(self._s.counts)}>"
        )
