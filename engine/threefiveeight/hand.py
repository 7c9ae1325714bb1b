"""One hand of 3-5-8: exchange, contract, kitty, sixteen tricks and the score.

One rules core serves two kinds of knowledge (ARCHITECTURE.md), per seat:

- **known** seats (full mode: the deal is known, as in simulations, bots and records with a deal):
  every play is checked at once against the exact hand;
- **unknown** seats (table mode: the camera never sees hands): a play is accepted as observed, and a
  violation is flagged only once it is *proven*. Every card a player plays at trick *t* or later was
  in his hand at trick *t* (no card enters a hand during play), so each new play is evidence against
  his earlier plays: a heart played at trick 9 proves that his discard on hearts at trick 3 was a
  revoke. When the hand is complete every hand is known exactly, so the same check is then a complete
  audit (missed overtakes included).

Driving a hand from the camera (the controller's path)::

    hand = session.new_hand()              # roles, targets and the exchange due come from the session
    hand.set_contract(Contract.HEARTS)     # what the declarer announced
    result = hand.play(seat, card)         # an observed card in a seat's zone
    result.violations                      # proven now (out of turn, card seen twice, a revoke...)
    result.trick                           # the completed Trick (with its winner) or None
    hand.to_move                           # whose zone the next card should land in
    hand.undo()                            # the camera misread: take the last play back
    hand.is_possible(seat, card)           # False if the card was seen already or is proven elsewhere
    hand.is_complete, hand.score()

Before the first card (each step optional at a real table, where the camera may not see it)::

    hand.exchange_due / hand.effective_exchange_due   # who hands whom how many (none in hand 1, Af...)
    hand.give(giver, receiver, card, back)   # cards shown in the exchange zone; back None if unseen
    hand.close_exchange()                    # counts and returns are checked (the kitty closes it too)
    hand.take_kitty(discards or None)        # the declarer's 4 discards, if shown
    hand.disclosures                         # kitty cards the declarer must show (ucbessekiz)

What may be shown is computed by :mod:`engine.threefiveeight.view` (public and per-seat views).

``play`` on a checked hand (``strict=True``) raises :class:`~engine.errors.IllegalActionError` for a
play that is illegal *as far as the engine can tell right now* and leaves the hand unchanged;
``strict=False`` (replaying a record) records the violation and goes on. Bots use the trusted integer
path (:meth:`Hand.legal_mask`, :meth:`Hand.push`), which checks nothing, in python-chess's manner.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from engine.cards import Card, Suit
from engine.errors import IllegalActionError
from engine.threefiveeight.rules import (
    Contract,
    ExchangeCount,
    ExchangeResolution,
    ExchangeTiming,
    FirstLead,
    KittyMode,
    Rules,
    TrumpExchangeRule,
)
from engine.tricks import CARD_OF, INT_OF, SUIT_MASK, SUITS_BY_INT, Trick, cards_of_mask, winner_position

__all__ = [
    "Deal",
    "Disclosure",
    "ExchangeDue",
    "ExchangeStep",
    "Hand",
    "Phase",
    "PlayResult",
    "Violation",
]

ALL_CARDS = (1 << 52) - 1
TRICKS_PER_HAND = 16


def _above(card: int) -> int:
    """Mask of every card index above ``card`` (callers intersect it with one suit)."""
    return ALL_CARDS & ~((2 << card) - 1)


def _nth_bit(mask: int, n: int) -> int:
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


#: The set bits of every 13-bit value (one suit of a mask), for picking a random card fast.
_BITS13: Final = tuple(tuple(i for i in range(13) if v >> i & 1) for v in range(1 << 13))
#: ``1 << card`` for every card int, made once (CPython builds every int above 2**30 anew).
_BIT: Final = tuple(1 << c for c in range(52))
#: Position of each role in ``Rules.targets`` (ordered 8, 5, 3).
_ROLE_POS: Final = {8: 0, 5: 1, 3: 2}
#: Seats in play order from each leader, for each direction (+1 clockwise, -1 counterclockwise).
_ORDER: Final = {step: tuple(((s, (s + step) % 3, (s + 2 * step) % 3)) for s in range(3)) for step in (1, -1)}


def _pick(mask: int, r: float) -> int:
    """The card of ``mask`` at position ``int(r * count)``, suit by suit (``r`` in [0, 1))."""
    k = int(r * mask.bit_count())
    for shift in (0, 13, 26, 39):
        choices = _BITS13[(mask >> shift) & 8191]
        if k < len(choices):
            return shift + choices[k]
        k -= len(choices)
    raise ValueError("no card to pick from an empty mask")


def _top(mask: int) -> int:
    return mask.bit_length() - 1


class Phase(enum.Enum):
    EXCHANGE = "exchange"
    CONTRACT = "contract"
    KITTY = "kitty"
    PLAY = "play"
    DONE = "done"
    PASSED = "passed"


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule, with the proof.

    ``trick`` is the trick (from 1) in which the offending card was played, 0 for the exchange and the
    contract; ``proven_at`` the trick at which the engine could first prove it (equal to ``trick`` in
    full knowledge); ``card`` the offending card; ``evidence`` the later card that completed the proof
    in table mode (the 7H of "they played 7H at trick 9 after discarding on hearts at trick 3"), if any.
    """

    trick: int
    seat: int
    card: Card | None
    rule: str
    proven_at: int
    reason: str
    evidence: Card | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "trick": self.trick,
            "seat": self.seat,
            "card": None if self.card is None else str(self.card),
            "rule": self.rule,
            "proven_at": self.proven_at,
            "reason": self.reason,
            **({} if self.evidence is None else {"evidence": str(self.evidence)}),
        }


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards as dealt: three hands of 16 in dealing order and the 4-card kitty, as card ints."""

    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    kitty: tuple[int, ...]

    @classmethod
    def from_cards(cls, hands: Sequence[Sequence[Card]], kitty: Sequence[Card]) -> Deal:
        """Build a deal from cards; raises ValueError for wrong sizes, a card twice or a second-deck card."""
        if len(hands) != 3:
            raise ValueError(f"a deal has 3 hands, not {len(hands)}")
        seen: set[Card] = set()
        for i, cards in enumerate([*hands, kitty]):
            want = 16 if i < 3 else 4
            where = f"hand {i}" if i < 3 else "the kitty"
            if len(cards) != want:
                raise ValueError(f"{where} has {len(cards)} cards, not {want}")
            for card in cards:
                if card.copy:
                    raise ValueError(f"{card} is from a second deck; 3-5-8 uses one")
                if card in seen:
                    raise ValueError(f"{card} is dealt twice")
                seen.add(card)
        h = tuple(tuple(INT_OF[c] for c in cards) for cards in hands)
        return cls((h[0], h[1], h[2]), tuple(INT_OF[c] for c in kitty))

    def cards(self, seat: int) -> list[Card]:
        return [CARD_OF[c] for c in self.hands[seat]]

    @property
    def kitty_cards(self) -> list[Card]:
        return [CARD_OF[c] for c in self.kitty]


@dataclass(frozen=True, slots=True)
class ExchangeDue:
    """``giver`` (plus in the previous hand) hands ``count`` cards to ``receiver`` (minus)."""

    giver: int
    receiver: int
    count: int


@dataclass(frozen=True, slots=True)
class ExchangeStep:
    """One card handed over and what came back (``back`` is None when nobody saw it)."""

    giver: int
    receiver: int
    give: Card
    back: Card | None


@functools.cache
def _step(giver: int, receiver: int, g: int, b: int | None) -> ExchangeStep:
    """The shared ExchangeStep for these card ints: values are immutable, and building a frozen
    dataclass costs more than the rest of a bot's exchange. (At most 3 x 3 x 52 x 53 of them.)"""
    return ExchangeStep(giver, receiver, CARD_OF[g], None if b is None else CARD_OF[b])


@dataclass(frozen=True, slots=True)
class Disclosure:
    """A card ``seat`` must show ``to`` (the kitty rule of seed 000): ``card`` came from the kitty and
    beats what he returned for ``requested``."""

    seat: int
    to: int
    card: Card
    requested: Card


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What one observed card did: the violations proven by it, and the trick it completed (if any)."""

    violations: tuple[Violation, ...]
    trick: Trick | None
    hand_complete: bool


class Hand:
    """One hand. Create it through :meth:`Session.new_hand`, which knows roles and the exchange due."""

    def __init__(
        self,
        rules: Rules,
        *,
        eight: int,
        number: int = 1,
        dealer: int | None = None,
        deal: Deal | None = None,
        exchange_due: Sequence[ExchangeDue] = (),
        contracts_left: frozenset[Contract] | None = None,
        players: Sequence[str] = ("seat 0", "seat 1", "seat 2"),
        strict: bool = True,
    ) -> None:
        self.rules = rules
        self.number = number
        self.dealer = dealer
        self.deal = deal
        self.players = tuple(players)
        self.strict = strict
        self.exchange_due: tuple[ExchangeDue, ...] = tuple(exchange_due)
        self.contracts_left = contracts_left
        step = rules.step
        self.eight = eight
        self.five = (eight + step) % 3
        self.three = (eight + 2 * step) % 3
        self._step = step
        self._roles = [0, 0, 0]
        self._roles[self.eight], self._roles[self.five], self._roles[self.three] = 8, 5, 3
        self.contract: Contract | None = None
        self._trump: int | None = None
        self._targets_now: tuple[int, int, int] | None = None
        self._score: tuple[int, int, int] | None = None  # cached once complete; undo clears it
        self.exchange: list[ExchangeStep] = []
        self.disclosures: list[Disclosure] = []  # cards the declarer must show (kitty_show_rule)
        self.discards: tuple[Card, ...] | None = None
        self.violations: list[Violation] = []
        self._flag_keys: list[tuple[int, int, str]] = []  # one per violation, to suppress repeats
        self._flagged: set[tuple[int, int, str]] = set()
        # knowledge: exact hands for known seats, possible cards for unknown ones
        self._known = [deal is not None] * 3
        if deal is not None:
            self._hand = [self._mask(deal.hands[s]) for s in range(3)]
            self._kitty = self._mask(deal.kitty)
        else:
            self._hand = [ALL_CARDS, ALL_CARDS, ALL_CARDS]
            self._kitty = 0
        self._exchange_start: list[int] | None = None
        self._gone = [0, 0, 0]  # per receiver: cards he returned (not the given card itself)
        self._given: dict[tuple[int, int], int] = {}  # (giver, receiver): cards handed over so far
        self._exchange_closed = False
        self._backs_supplied = False  # a return came from outside (a record, the camera)
        self._due_cache: tuple[Contract | None, dict[tuple[int, int], int]] | None = None
        self._kitty_done = False
        # play state
        self._plays: list[tuple[int, int]] = []  # (seat, card int) in the order seen
        self._trick_seats: list[int] = []
        self._trick_cards: list[int] = []
        self._log: list[tuple[int, list[int], list[int], int]] = []  # (leader, seats, cards, winner)
        self._taken = [0, 0, 0]
        self._seen = 0
        self._leader = self.eight if rules.first_lead is FirstLead.DECLARER else self.five
        self._to_move = self._leader
        self._ctx: tuple[int, int, int] = (-1, -1, -1)  # (led card, best of led suit, best trump) now
        self._undo: list[tuple[int, int, int, int, int]] = []
        self._version = 0  # bumped by every change a standing can depend on (plays, contract, violations)

    @staticmethod
    def _mask(cards: Sequence[int]) -> int:
        m = 0
        bit = _BIT  # a table lookup: CPython builds 1 << c anew for every card above 29
        for c in cards:
            m |= bit[c]
        return m

    # ------------------------------------------------------------------ properties

    @property
    def roles(self) -> tuple[int, int, int]:
        """The target role (8, 5 or 3) of each seat."""
        return (self._roles[0], self._roles[1], self._roles[2])

    @property
    def targets(self) -> tuple[int, int, int]:
        """Per seat: the tricks to take, or in misère the most tricks one may take."""
        by_role = self.rules.misere_maxima if self.contract is Contract.MISERE else self.rules.targets
        roles = self._roles
        return (by_role[_ROLE_POS[roles[0]]], by_role[_ROLE_POS[roles[1]]], by_role[_ROLE_POS[roles[2]]])

    @property
    def trump(self) -> Suit | None:
        return None if self._trump is None else SUITS_BY_INT[self._trump]

    @property
    def phase(self) -> Phase:
        if self.contract is Contract.PASS:
            return Phase.PASSED
        if self.is_complete:
            return Phase.DONE
        if self._plays:
            return Phase.PLAY
        before = self.rules.exchange_timing is ExchangeTiming.BEFORE_CONTRACT
        if self.contract is None:
            if before and self._exchange_open():
                return Phase.EXCHANGE
            return Phase.CONTRACT
        if not before and self._exchange_open():
            return Phase.EXCHANGE
        return Phase.KITTY if not self._kitty_done else Phase.PLAY

    def _exchange_open(self) -> bool:
        return sum(d.count for d in self.effective_exchange_due) > len(self.exchange)

    @property
    def effective_exchange_due(self) -> tuple[ExchangeDue, ...]:
        """The exchange due, or none when the contract is one the rules exchange nothing in."""
        if self.contract is not None and self.contract in self.rules.exchange_skip_contracts:
            return ()
        return self.exchange_due

    @property
    def to_move(self) -> int:
        """The seat whose card should land next (the zone the controller expects)."""
        return self._to_move

    @property
    def leader(self) -> int:
        return self._leader

    @property
    def trick_number(self) -> int:
        """The number (from 1) of the trick being played now, or 16 when the hand is complete."""
        return min(len(self._log) + 1, TRICKS_PER_HAND)

    @property
    def is_complete(self) -> bool:
        return len(self._log) == TRICKS_PER_HAND or self.contract is Contract.PASS

    @property
    def taken(self) -> tuple[int, int, int]:
        return (self._taken[0], self._taken[1], self._taken[2])

    @property
    def plays(self) -> list[tuple[int, Card]]:
        return [(s, CARD_OF[c]) for s, c in self._plays]

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks, from trick 1."""
        return [
            Trick(i + 1, leader, tuple(seats), tuple(CARD_OF[c] for c in cards), winner)
            for i, (leader, seats, cards, winner) in enumerate(self._log)
        ]

    @property
    def current_trick(self) -> Trick:
        """The cards of the trick in progress (winner None)."""
        return Trick(
            len(self._log) + 1, self._leader, tuple(self._trick_seats), tuple(CARD_OF[c] for c in self._trick_cards)
        )

    def score(self) -> tuple[int, int, int] | None:
        """Per seat: tricks - target (misère: maximum - tricks); None until complete or for a pass."""
        if len(self._log) != TRICKS_PER_HAND:
            return None
        if self.rules.revoke_voids_hand and self.voided:
            return (0, 0, 0)
        if self._score is None:
            t = self._targets_now if self._targets_now is not None else self.targets
            k = self._taken
            if self.contract is Contract.MISERE:
                self._score = (t[0] - k[0], t[1] - k[1], t[2] - k[2])
            else:
                self._score = (k[0] - t[0], k[1] - t[1], k[2] - t[2])
        return self._score

    @property
    def voided(self) -> bool:
        """True when the rules void a hand with a proven revoke (``revoke_voids_hand``) and this one has one."""
        return self.rules.revoke_voids_hand and any(v.rule in _PLAY_RULES for v in self.violations)

    def hand_of(self, seat: int) -> list[Card] | None:
        """The exact cards ``seat`` holds now, or None when unknown (table mode)."""
        return cards_of_mask(self._hand[seat]) if self._known[seat] else None

    def is_known(self, seat: int) -> bool:
        return self._known[seat]

    def name(self, seat: int) -> str:
        return self.players[seat]

    # ------------------------------------------------------------------ exchange, contract, kitty

    def give(self, giver: int, receiver: int, card: Card, back: Card | None = None) -> tuple[Violation, ...]:
        """The plus player ``giver`` hands ``card`` to ``receiver``, who returns ``back``.

        With ``back`` None and the receiver's hand known, the engine returns the card the rule demands
        (his highest card of that suit above ``card``, else ``card`` itself).
        """
        self._check_seat(giver)
        self._check_seat(receiver)
        g = self._card_int(card)
        return self.give_int(giver, receiver, g, None if back is None else self._card_int(back))

    def give_int(self, giver: int, receiver: int, g: int, back_int: int | None = None) -> tuple[Violation, ...]:
        """:meth:`give` with card ints (the bots' path: the same checks, no Card conversion)."""
        if self._plays or self._exchange_closed:
            raise IllegalActionError("the exchange is over", "exchange-give")
        if self.rules.exchange_timing is ExchangeTiming.AFTER_CONTRACT and self.contract is None:
            raise IllegalActionError("in this game the exchange follows the contract: name it first", "exchange-give")
        before = len(self.violations)
        if self._exchange_start is None:
            self._exchange_start = list(self._hand)
        if self._due_cache is None or self._due_cache[0] is not self.contract:
            self._due_cache = (self.contract, {(d.giver, d.receiver): d.count for d in self.effective_exchange_due})
        due = self._due_cache[1]
        done = self._given.get((giver, receiver), 0)
        new: list[Violation] = []
        if done >= due.get((giver, receiver), 0):
            owed = due.get((giver, receiver), 0)
            new.append(
                self._violation(
                    0,
                    giver,
                    g,
                    "exchange-give",
                    0,
                    f"{self.name(giver)} may not hand {self.name(receiver)} another card: "
                    f"{owed} {'was' if owed == 1 else 'were'} due",
                )
            )
        elif self.rules.exchange_count is ExchangeCount.EXACT and len(due) > 1:
            for d in self.effective_exchange_due:  # plus players go in the order of ``plus_order``
                if d.giver == giver:
                    break
                if self._given.get((d.giver, d.receiver), 0) < d.count:
                    new.append(
                        self._violation(
                            0,
                            giver,
                            g,
                            "exchange-give",
                            0,
                            f"{self.name(d.giver)} exchanges before {self.name(giver)} in this game",
                        )
                    )
                    break
        if not self._hand[giver] >> g & 1:
            new.append(
                self._violation(
                    0, giver, g, "not-in-hand", 0, f"{self.name(giver)} does not hold {CARD_OF[g]} to hand over"
                )
            )
        trump_given = self._trump is not None and g // 13 == self._trump
        if trump_given and self.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_NOT_GIVABLE:
            new.append(
                self._violation(
                    0, giver, g, "exchange-give", 0, f"{self.name(giver)} may not hand over a trump ({CARD_OF[g]})"
                )
            )
        b = back_int
        if b is None and self._known[receiver]:
            b = self._required_back(receiver, g)
        elif b is not None:
            self._backs_supplied = True
        if (
            b is not None
            and b != g
            and not (trump_given and self.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_ANY_RETURN)
        ):
            if b // 13 != g // 13 or b < g:
                new.append(
                    self._violation(
                        0,
                        receiver,
                        b,
                        "exchange-return",
                        0,
                        f"{self.name(receiver)} must return their highest {SUITS_BY_INT[g // 13].noun[:-1]} above "
                        f"{CARD_OF[g]}, or {CARD_OF[g]} itself, not {CARD_OF[b]}",
                    )
                )
            elif self._known[receiver] and not self._hand[receiver] >> b & 1:
                new.append(
                    self._violation(
                        0, receiver, b, "not-in-hand", 0, f"{self.name(receiver)} does not hold {CARD_OF[b]} to return"
                    )
                )
        if self.strict and new:
            raise IllegalActionError(new[0].reason, new[0].rule)
        self._add_violations(new)
        # move the cards
        if b is not None and b != g:
            bit = 1 << g
            if self._known[giver]:
                self._hand[giver] &= ~bit
            if self._known[receiver]:
                self._hand[receiver] |= bit
            bb = 1 << b
            if self._known[receiver]:
                self._hand[receiver] &= ~bb
            if self._known[giver]:
                self._hand[giver] |= bb
            self._place(g, receiver)
            self._place(b, giver)
        if b is not None and b != g:
            self._gone[receiver] |= 1 << b
        self._given[giver, receiver] = done + 1
        self.exchange.append(_step(giver, receiver, g, b))
        return tuple(self.violations[before:])

    def push_exchange(self, giver: int, receiver: int, g: int) -> None:
        """Trusted path (bots, the benchmark): ``giver`` hands card int ``g`` to ``receiver``, who
        returns what the rule demands. Nothing is checked; every hand must be known (full mode).
        The state is the same as :meth:`give_int` leaves after a legal give."""
        hands = self._hand
        if self._exchange_start is None:
            self._exchange_start = list(hands)
        b = self._required_back(receiver, g)
        if b != g:
            self._gone[receiver] |= 1 << b
            both = (1 << g) | (1 << b)
            hands[giver] ^= both
            hands[receiver] ^= both
        key = (giver, receiver)
        given = self._given
        given[key] = given.get(key, 0) + 1
        self.exchange.append(_step(giver, receiver, g, b))

    def _place(self, card: int, holder: int) -> None:
        """``card`` is known to be with ``holder``: no unknown seat can hold it."""
        for s in range(3):
            if not self._known[s]:
                if s == holder:
                    self._hand[s] |= 1 << card
                else:
                    self._hand[s] &= ~(1 << card)

    def _required_back(self, receiver: int, g: int) -> int:
        """The return the rule demands for ``g``, against the receiver's own cards not yet returned."""
        own = self._own_cards(receiver)
        higher = own & SUIT_MASK[g // 13] & _above(g)
        return _top(higher) if higher else g

    def _own_cards(self, receiver: int) -> int:
        start = self._exchange_start[receiver] if self._exchange_start is not None else self._hand[receiver]
        return start & ~self._gone[receiver]

    def required_returns(self, receiver: int, own: int) -> dict[int, int]:
        """For each exchange step to ``receiver`` (by index): the return the rule demands, given the
        receiver's own cards ``own`` (a mask) when the exchange began."""
        steps = [(i, INT_OF[e.give]) for i, e in enumerate(self.exchange) if e.receiver == receiver]
        if self.rules.exchange_resolution is ExchangeResolution.HIGHEST_GIVEN_FIRST:
            steps.sort(key=lambda item: -item[1])
        out: dict[int, int] = {}
        for i, g in steps:
            if (
                self._trump is not None
                and g // 13 == self._trump
                and self.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_ANY_RETURN
            ):
                back = self.exchange[i].back
                out[i] = g if back is None else INT_OF[back]
            else:
                higher = own & SUIT_MASK[g // 13] & _above(g)
                out[i] = _top(higher) if higher else g
            own &= ~(1 << out[i])
        return out

    def _audit_exchange(self, receivers: Sequence[int], own_of: dict[int, int], proven_at: int) -> None:
        for r in receivers:
            required = self.required_returns(r, own_of[r])
            for i, want in required.items():
                step = self.exchange[i]
                if step.back is None or INT_OF[step.back] == want:
                    continue
                key = (0, r, f"exchange-{i}")
                if key in self._flagged:
                    continue
                self._record(
                    Violation(
                        0,
                        r,
                        step.back,
                        "exchange-return",
                        proven_at,
                        f"{self.name(r)} had to return {CARD_OF[want]} for {step.give}, not {step.back}",
                    ),
                    key,
                )

    def set_contract(self, contract: Contract) -> tuple[Violation, ...]:
        """The declarer (the 8) names the contract; PASS (where allowed) ends the hand for a redeal."""
        if self._plays:
            raise IllegalActionError("the contract cannot change once play has started", "contract")
        if contract is Contract.PASS:
            if not self.rules.pass_redeal:
                raise IllegalActionError(f"{self.rules.name} has no pass and redeal", "contract")
        elif contract not in self.rules.contracts:
            allowed = " ".join(sorted(c.value for c in self.rules.contracts))
            raise IllegalActionError(f"{contract.value} is not a contract in {self.rules.name} ({allowed})", "contract")
        new: list[Violation] = []
        if self.contracts_left is not None and contract is not Contract.PASS and contract not in self.contracts_left:
            new.append(
                self._violation(
                    0,
                    self.eight,
                    None,
                    "contract-quota",
                    0,
                    f"{self.name(self.eight)} has already declared {contract.noun} in this game",
                )
            )
            if self.strict:
                raise IllegalActionError(new[0].reason, new[0].rule)
        self._add_violations(new)
        self.contract = contract
        self._trump = contract.trump_int
        self._targets_now = self.targets
        self._version += 1
        return tuple(new)

    def take_kitty(self, discards: Sequence[Card] | None) -> tuple[Violation, ...]:
        """The declarer lays 4 cards aside and takes the kitty (in the order of ``kitty_mode``).

        ``discards`` None means nobody saw them (table mode, or a record without them).
        """
        return self.take_kitty_ints(None if discards is None else [self._card_int(c) for c in discards])

    def take_kitty_ints(self, ints: Sequence[int] | None) -> tuple[Violation, ...]:
        """:meth:`take_kitty` with card ints (the bots' path)."""
        if self._kitty_done:
            raise IllegalActionError("the kitty was already taken", "kitty")
        if self._plays:
            raise IllegalActionError("the kitty is taken before play", "kitty")
        self.close_exchange()
        d = self.eight
        new: list[Violation] = []
        if ints is not None:
            if len(ints) != 4 or len(set(ints)) != 4:
                raise IllegalActionError(f"the declarer discards 4 different cards, not {len(ints)}", "kitty")
            dmask = self._mask(ints)
            if self._known[d]:
                pool = self._hand[d] if self.rules.kitty_mode is KittyMode.BLIND_SWAP else self._hand[d] | self._kitty
                for c in ints:
                    if not pool >> c & 1:
                        new.append(
                            self._violation(
                                0,
                                d,
                                c,
                                "not-in-hand",
                                0,
                                f"{self.name(d)} cannot discard {CARD_OF[c]}: they do not hold it",
                            )
                        )
                if self.strict and new:
                    raise IllegalActionError(new[0].reason, new[0].rule)
                if self.rules.kitty_mode is KittyMode.BLIND_SWAP:
                    self._hand[d] = (self._hand[d] & ~dmask) | self._kitty
                else:
                    self._hand[d] = (self._hand[d] | self._kitty) & ~dmask
            else:
                for s in range(3):
                    if not self._known[s]:
                        self._hand[s] &= ~dmask
            for s in range(3):
                if s != d and self._known[s] and self._hand[s] & dmask:
                    c = _top(self._hand[s] & dmask)
                    new.append(
                        self._violation(
                            0,
                            d,
                            c,
                            "not-in-hand",
                            0,
                            f"{self.name(d)} cannot discard {CARD_OF[c]}: {self.name(s)} holds it",
                        )
                    )
            self.discards = tuple(map(CARD_OF.__getitem__, ints))
        elif self._known[d]:
            # the deal is known but not the discards: the declarer holds 16 of these 20 cards
            self._known[d] = False
            self._hand[d] |= self._kitty
        self._add_violations(new)
        self._kitty_done = True
        if self.rules.kitty_show_rule and self.deal is not None:
            self._disclose()
        return tuple(new)

    def _disclose(self) -> None:
        """ucbessekiz (seed 000): a minus player who is now the 8 shows each requester any card of a
        requested suit in the kitty that is higher than what he returned."""
        for e in self.exchange:
            if e.receiver != self.eight or e.back is None:
                continue
            g, b = INT_OF[e.give], INT_OF[e.back]
            for k in self.deal.kitty if self.deal is not None else ():
                if k // 13 == g // 13 and k > max(g, b if b // 13 == g // 13 else g):
                    self.disclosures.append(Disclosure(self.eight, e.giver, CARD_OF[k], e.give))

    def close_exchange(self) -> None:
        """The exchange is over: check the counts and (hands known) every return. Idempotent; the
        kitty and the first card close it anyway."""
        if self._exchange_closed:
            return
        self._exchange_closed = True
        if self._exchange_start is None and not self.effective_exchange_due:
            return
        if self.deal is not None and self.rules.exchange_count is ExchangeCount.EXACT:
            for due in self.effective_exchange_due:
                done = self._given.get((due.giver, due.receiver), 0)
                if done < due.count:
                    self._add_violations(
                        [
                            self._violation(
                                0,
                                due.giver,
                                None,
                                "exchange-give",
                                0,
                                f"{self.name(due.giver)} had to hand {self.name(due.receiver)} {due.count} "
                                f"card{'s' if due.count != 1 else ''}, not {done}",
                            )
                        ]
                    )
        needed = self._backs_supplied or self.rules.exchange_resolution is not ExchangeResolution.IN_GIVE_ORDER
        if self._exchange_start is not None and self.deal is not None and needed:
            # the deal is known, so every hand was known when the exchange began (returns the engine
            # worked out itself, in give order, are right by construction)
            known = sorted({e.receiver for e in self.exchange})
            self._audit_exchange(known, {r: self._exchange_start[r] for r in known}, 0)

    # ------------------------------------------------------------------ play

    def _card_int(self, card: Card) -> int:
        if not isinstance(card, Card):
            raise TypeError(f"expected a Card, not {card!r}")
        if card.copy:
            raise IllegalActionError(f"{card} is from a second deck; 3-5-8 uses one", "not-in-hand")
        return INT_OF[card]

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 3:
            raise IllegalActionError(f"no seat {seat!r}: seats are 0, 1 and 2", "seat")

    def legal_mask(self, seat: int | None = None) -> int:
        """Trusted path: the legal cards (a mask) for ``seat`` (default: to move), from its known hand."""
        s = self._to_move if seat is None else seat
        return self._legal(self._hand[s], self._ctx)

    def legal_moves(self, seat: int | None = None) -> Iterator[Card]:
        """The legal cards for ``seat`` (default: to move), lazily; for an unknown hand, the possible ones."""
        mask = self.legal_mask(seat)
        while mask:
            low = mask & -mask
            yield CARD_OF[low.bit_length() - 1]
            mask ^= low

    def _context_of(self, leader: int, seats: Sequence[int], cards: Sequence[int]) -> tuple[int, int, int]:
        led = -1
        for s, c in zip(seats, cards, strict=False):
            if s == leader:
                led = c
        if led < 0:
            return -1, -1, -1
        suit = led // 13
        best = led
        best_trump = -1
        trump = self._trump
        for c in cards:
            cs = c // 13
            if cs == suit and c > best:
                best = c
            if trump is not None and cs == trump and c > best_trump:
                best_trump = c
        return led, best, best_trump

    def _legal(self, hand: int, context: tuple[int, int, int]) -> int:
        led, best, best_trump = context
        if led < 0:
            return hand
        rules = self.rules
        suit = led // 13
        same = hand & SUIT_MASK[suit]
        trump = self._trump
        if same:
            if rules.must_overtake and (rules.overtake_if_trumped or best_trump < 0 or suit == trump):
                higher = same & _above(best)
                if higher:
                    return higher
            return same
        if rules.must_trump_when_void and trump is not None:
            trumps = hand & SUIT_MASK[trump]
            if trumps:
                if rules.must_overtrump and best_trump >= 0:
                    over = trumps & _above(best_trump)
                    return over if over else hand
                return trumps
        return hand

    def _why(
        self, seat: int, card: int, hand: int, context: tuple[int, int, int], proof: tuple[int, int, int] | None
    ) -> tuple[str, str]:
        """Rule id and a readable reason why ``card`` was not legal with ``hand``.

        ``proof`` is (trick of the card, later trick, later card) when a later play is the evidence.
        """
        led, best, best_trump = context
        name = self.name(seat)
        suit = led // 13
        noun = SUITS_BY_INT[suit].noun
        same = hand & SUIT_MASK[suit]
        played = CARD_OF[card]
        if same and card // 13 != suit:
            rule, what = "follow-suit", f"must follow {noun}"
            act, needed = f"discarding {played} on {noun}", same
        elif same:
            rule, what = "overtake", f"must play higher than {CARD_OF[best]}"
            act, needed = f"playing {played} under {CARD_OF[best]}", same & _above(best)
        else:
            trump_noun = SUITS_BY_INT[self._trump].noun if self._trump is not None else "trumps"
            rule, what = "must-trump", f"must play {trump_noun} when void in {noun}"
            act = f"discarding {played} on {noun}"
            needed = hand & SUIT_MASK[self._trump] if self._trump is not None else hand
            if best_trump >= 0 and self.rules.must_overtrump:
                what = f"must play a trump above {CARD_OF[best_trump]}"
        if proof is None:
            return rule, f"{name} {what}: they hold {CARD_OF[_top(needed)]} but played {played}"
        t, later_t, later_c = proof
        return rule, f"{name} {what}: they played {CARD_OF[later_c]} at trick {later_t} after {act} at trick {t}"

    def is_possible(self, seat: int, card: Card) -> bool:
        """Could ``seat`` hold ``card`` now? False if it was played already, is known to be elsewhere
        (or discarded), is not in his known hand, or its suit is one he has shown void in."""
        if card.copy:
            return False
        c = INT_OF[card]
        if self._seen >> c & 1 or not self._hand[seat] >> c & 1:
            return False
        if self._known[seat]:
            return True
        return not self._void_suits(seat) >> (c // 13) & 1

    def _void_suits(self, seat: int) -> int:
        """Suits (bits 0..3) in which ``seat`` has shown void (did not follow when the suit was led)
        and has not played since, which would have disproved it (and proven a revoke)."""
        voids = 0
        for leader, seats, cards, _w in [*self._log, self._current_raw()]:
            led = -1
            for s, c in zip(seats, cards, strict=False):
                if s == leader:
                    led = c
            for s, c in zip(seats, cards, strict=False):
                if s == seat:
                    voids &= ~(1 << (c // 13))
                    if led >= 0 and c // 13 != led // 13:
                        voids |= 1 << (led // 13)
        return voids

    def _current_raw(self) -> tuple[int, list[int], list[int], int]:
        return (self._leader, self._trick_seats, self._trick_cards, -1)

    def play(self, seat: int, card: Card) -> PlayResult:
        """An observed card from ``seat``: check what can be checked, apply it, return what it proved.

        Raises :class:`IllegalActionError` (hand unchanged) when the play cannot be applied at all
        (no contract yet, hand over, the seat already played to this trick) and, if ``strict``, when it
        breaks a rule provably now.
        """
        self._check_seat(seat)
        if self.contract is None:
            raise IllegalActionError("no contract yet: the declarer names it before the first card", "contract")
        if self.is_complete:
            raise IllegalActionError("the hand is over: all 16 tricks are played", "hand-over")
        if seat in self._trick_seats:
            raise IllegalActionError(f"{self.name(seat)} already played to trick {len(self._log) + 1}", "out-of-turn")
        c = self._card_int(card)
        if not self._plays and not self._kitty_done:
            self.take_kitty(None)
        trick_no = len(self._log) + 1
        new: list[Violation] = []
        if seat != self._to_move:
            new.append(
                self._violation(
                    trick_no,
                    seat,
                    c,
                    "out-of-turn",
                    trick_no,
                    f"{self.name(seat)} played {CARD_OF[c]} out of turn: it was {self.name(self._to_move)}'s turn",
                )
            )
        if self._seen >> c & 1:
            new.append(
                self._violation(
                    trick_no, seat, c, "duplicate-card", trick_no, f"{CARD_OF[c]} was already played in this hand"
                )
            )
        elif not self._hand[seat] >> c & 1:
            if self._known[seat]:
                why = f"{self.name(seat)} does not hold {CARD_OF[c]}"
            else:
                holder = next((s for s in range(3) if s != seat and self._known[s] and self._hand[s] >> c & 1), None)
                where = f"{self.name(holder)} holds it" if holder is not None else "it is known to be elsewhere"
                why = f"{self.name(seat)} cannot hold {CARD_OF[c]}: {where}"
            new.append(self._violation(trick_no, seat, c, "not-in-hand", trick_no, why))
        elif self._known[seat]:
            context = self._ctx
            if not self._legal(self._hand[seat], context) >> c & 1:
                rule, why = self._why(seat, c, self._hand[seat], context, None)
                new.append(self._violation(trick_no, seat, c, rule, trick_no, why))
        if self.strict and new:
            raise IllegalActionError(new[0].reason, new[0].rule)
        before = len(self.violations)
        self._add_violations(new)
        tricks_before = len(self._log)
        self._apply(seat, c)
        if not self._known[seat]:
            self._prove(seat)
            if self.exchange and seat != self.eight:
                self._prove_exchange(seat, c, trick_no)
        if self.is_complete:
            self._final_audit()
        done = None
        if len(self._log) > tricks_before:
            leader, seats, cards, winner = self._log[-1]
            done = Trick(len(self._log), leader, tuple(seats), tuple(CARD_OF[x] for x in cards), winner)
        return PlayResult(tuple(self.violations[before:]), done, self.is_complete)

    def push(self, card: int) -> None:
        """Trusted path: the seat to move plays card int ``card``. Nothing is checked."""
        if not self._plays and not self._kitty_done:
            self.take_kitty(None)
        self._apply(self._to_move, card)

    def random_playout(self, random: Callable[[], float]) -> None:
        """Trusted path: play the rest of the hand with uniformly random legal cards (for simulations
        and the benchmark). Same state and undo entries as :meth:`push`, with the loop inlined.

        ``random`` returns floats in [0, 1), such as ``random.Random(seed).random``.
        """
        if not self._kitty_done:
            raise IllegalActionError("take the kitty (with the discards) before playing out", "kitty")
        if not all(self._known):
            raise IllegalActionError("a random playout needs every hand known (full mode)", "hand")
        if self._trick_cards:
            while not self.is_complete and self._trick_cards:  # finish the trick in progress
                mask = self.legal_mask()
                self._apply(self._to_move, _nth_bit(mask, int(random() * mask.bit_count())))
        hands = self._hand
        undo = self._undo
        plays = self._plays
        log = self._log
        taken = self._taken
        trump = self._trump
        rules = self.rules
        overtake = rules.must_overtake
        still_if_trumped = rules.overtake_if_trumped
        void_rule = rules.must_trump_when_void
        overtrump = rules.must_overtrump
        trump_shift = 13 * trump if trump is not None else 0
        order = _ORDER[self._step]
        leader = self._leader
        seen = self._seen
        nviol = len(self.violations)
        bits13 = _BITS13
        bits = _BIT
        while len(log) < TRICKS_PER_HAND:
            seats = order[leader]
            # the lead: any card, the k-th counted suit by suit
            hand = hands[leader]
            k = int(random() * hand.bit_count())
            for shift in (0, 13, 26, 39):
                choices = bits13[(hand >> shift) & 8191]
                if k < len(choices):
                    break
                k -= len(choices)
            c = shift + choices[k]
            led_suit = shift // 13
            best = c
            best_trump = c if led_suit == trump else -1
            win = 0
            undo.append((leader, leader, hand, seen, nviol))
            plays.append((leader, c))
            bit = bits[c]
            hands[leader] = hand ^ bit
            seen |= bit
            cards = [c]
            for pos in (1, 2):
                seat = seats[pos]
                hand = hands[seat]
                chunk = (hand >> shift) & 8191
                if chunk:  # he follows suit; must he go above the best card of the suit?
                    if overtake and (still_if_trumped or best_trump < 0 or led_suit == trump):
                        higher = chunk & ~((2 << (best - shift)) - 1)
                        if higher:
                            chunk = higher
                    choices = bits13[chunk]
                    c = shift + choices[int(random() * len(choices))]
                    if c > best:
                        best = c
                        if led_suit == trump:
                            best_trump = c
                            win = pos
                        elif best_trump < 0:
                            win = pos
                else:
                    if void_rule and trump is not None and (hand >> trump_shift) & 8191:
                        trumps = (hand >> trump_shift) & 8191  # void: he must trump (and overtrump?)
                        if overtrump and best_trump >= 0:
                            over = trumps & ~((2 << (best_trump - trump_shift)) - 1)
                            if over:
                                choices = bits13[over]
                                c = trump_shift + choices[int(random() * len(choices))]
                            else:
                                c = _pick(hand, random())
                        else:
                            choices = bits13[trumps]
                            c = trump_shift + choices[int(random() * len(choices))]
                    else:
                        c = _pick(hand, random())
                    if c // 13 == trump and c > best_trump:
                        best_trump = c
                        win = pos
                undo.append((seat, leader, hand, seen, nviol))
                plays.append((seat, c))
                bit = bits[c]
                hands[seat] = hand ^ bit
                seen |= bit
                cards.append(c)
            winner = seats[win]
            log.append((leader, list(seats), cards, winner))
            taken[winner] += 1
            leader = winner
        self._seen = seen
        self._leader = self._to_move = leader
        self._trick_seats = []
        self._trick_cards = []
        self._ctx = (-1, -1, -1)
        self._version += 1

    def _apply(self, seat: int, c: int) -> None:
        self._version += 1
        bit = 1 << c
        self._undo.append((self._to_move, self._leader, self._hand[seat], self._seen, len(self.violations)))
        self._plays.append((seat, c))
        self._hand[seat] &= ~bit
        self._seen |= bit
        seats = self._trick_seats
        cards = self._trick_cards
        seats.append(seat)
        cards.append(c)
        leader = self._leader
        n = len(cards)
        if n == 3:
            if seats[0] == leader:
                winner = seats[winner_position(cards, self._trump)]
            else:
                lead_pos = seats.index(leader)
                order = [lead_pos] + [i for i in range(3) if i != lead_pos]
                winner = seats[order[winner_position([cards[i] for i in order], self._trump)]]
            self._log.append((leader, seats, cards, winner))
            self._taken[winner] += 1
            self._trick_seats = []
            self._trick_cards = []
            self._leader = winner
            self._to_move = winner
            self._ctx = (-1, -1, -1)
            return
        step = self._step
        if seat == self._to_move and (n == 1 or seats[0] == leader):
            # the usual case: in turn, after the leader
            if n == 1:
                self._ctx = (c, c, c if c // 13 == self._trump else -1)
            else:
                led, best, best_trump = self._ctx
                if c // 13 == led // 13:
                    if c > best:
                        self._ctx = (led, c, best_trump)
                elif c // 13 == self._trump and c > best_trump:
                    self._ctx = (led, best, c)
            self._to_move = (seat + step) % 3
            return
        self._ctx = self._context_of(leader, seats, cards)
        for k in (0, 1, 2):
            s = (leader + k * step) % 3
            if s not in seats:
                self._to_move = s
                break

    def undo(self) -> tuple[int, Card]:
        """Take back the last play (a camera correction); returns (seat, card). Raises if none."""
        if not self._plays:
            raise IllegalActionError("nothing to undo: no card has been played", "undo")
        seat, c = self._plays.pop()
        self._score = None
        self._version += 1
        to_move, leader, hand, seen, nviol = self._undo.pop()
        if not self._trick_cards:
            _leader, seats, cards, winner = self._log.pop()
            self._taken[winner] -= 1
            self._trick_seats = list(seats[:-1])
            self._trick_cards = list(cards[:-1])
        else:
            self._trick_seats.pop()
            self._trick_cards.pop()
        self._to_move, self._leader, self._hand[seat], self._seen = to_move, leader, hand, seen
        self._ctx = self._context_of(self._leader, self._trick_seats, self._trick_cards)
        del self.violations[nviol:]
        del self._flag_keys[nviol:]
        self._flagged = set(self._flag_keys)
        return seat, CARD_OF[c]

    # ------------------------------------------------------------------ proofs (unknown hands)

    def _plays_of(self, seat: int) -> list[tuple[int, int, int]]:
        """(trick number, index within its trick, card) of every play by ``seat``."""
        out = []
        for i, (s, c) in enumerate(self._plays):
            if s == seat:
                out.append((i // 3 + 1, i % 3, c))
        return out

    def _trick_raw(self, number: int) -> tuple[int, list[int], list[int]]:
        if number <= len(self._log):
            leader, seats, cards, _w = self._log[number - 1]
            return leader, list(seats), list(cards)
        return self._leader, list(self._trick_seats), list(self._trick_cards)

    def _prove(self, seat: int) -> None:
        """Check ``seat``'s earlier plays against the cards he has played since (which he then held)."""
        mine = self._plays_of(seat)
        now = mine[-1][0] if mine else 0
        for idx, (t, pos, card) in enumerate(mine):
            if (t, seat, "play") in self._flagged:
                continue
            later = mine[idx:]
            known = 0
            for _t, _p, c in later:
                known |= 1 << c
            leader, seats, cards = self._trick_raw(t)
            context = self._context_of(leader, seats[:pos], cards[:pos])
            if self._legal(known, context) >> card & 1:
                continue
            legal = self._legal(known, context)
            proof_t, proof_c = next((lt, lc) for lt, _lp, lc in later if legal >> lc & 1)
            rule, why = self._why(seat, card, known, context, (t, proof_t, proof_c))
            self._record(
                Violation(
                    t,
                    seat,
                    CARD_OF[card],
                    rule,
                    max(proof_t, now),
                    why,
                    evidence=CARD_OF[proof_c] if proof_t > t else None,
                ),
                (t, seat, "play"),
            )

    def _prove_exchange(self, seat: int, c: int, trick_no: int) -> None:
        """A minus player plays ``c``: if it is of a suit he was handed, above the card handed and above
        what he returned, and did not come to him in the exchange, he kept it: a proven wrong return.
        (Not for the declarer: the unseen kitty may have brought it.)"""
        received = {INT_OF[e.give] for e in self.exchange if e.receiver == seat}
        if c in received:
            return
        for i, e in enumerate(self.exchange):
            if e.receiver != seat or e.back is None:
                continue
            g, b = INT_OF[e.give], INT_OF[e.back]
            if (
                self._trump is not None
                and g // 13 == self._trump
                and self.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_ANY_RETURN
            ):
                continue
            if c // 13 == g // 13 and c > g and (b // 13 != g // 13 or c > b):
                key = (0, seat, f"exchange-{i}")
                if key not in self._flagged:
                    self._record(
                        Violation(
                            0,
                            seat,
                            e.back,
                            "exchange-return",
                            trick_no,
                            f"{self.name(seat)} had to return a higher {SUITS_BY_INT[g // 13].noun[:-1]} for {e.give}, "
                            f"not {e.back}: they played {CARD_OF[c]} at trick {trick_no}",
                        ),
                        key,
                    )

    def _final_audit(self) -> None:
        """The hand is complete, so every hand is known: audit an exchange nobody could check before.

        (Plays were audited as they came: a seat's last play completes the proof against it.) A minus
        player's own cards at the exchange were the cards he played, less what he received, plus what he
        returned; for the declarer the unseen kitty swap hides that, so he is left out.
        """
        if self.deal is not None or not self.exchange:
            return
        own_of: dict[int, int] = {}
        for r in sorted({e.receiver for e in self.exchange}):
            if r == self.eight:
                continue
            own = 0
            for s, c in self._plays:
                if s == r:
                    own |= 1 << c
            for e in self.exchange:
                if e.receiver == r and e.back is not None and e.back != e.give:
                    own = (own & ~(1 << INT_OF[e.give])) | 1 << INT_OF[e.back]
            own_of[r] = own
        self._audit_exchange(sorted(own_of), own_of, TRICKS_PER_HAND)

    # ------------------------------------------------------------------ helpers

    def _violation(self, trick: int, seat: int, card: int | None, rule: str, proven_at: int, reason: str) -> Violation:
        return Violation(trick, seat, None if card is None else CARD_OF[card], rule, proven_at, reason)

    def _add_violations(self, new: Sequence[Violation]) -> None:
        for v in new:
            self._record(v, (v.trick, v.seat, "play" if v.rule in _PLAY_RULES else v.rule))

    def _record(self, violation: Violation, key: tuple[int, int, str]) -> None:
        self._version += 1
        self.violations.append(violation)
        self._flag_keys.append(key)
        self._flagged.add(key)


_PLAY_RULES = frozenset({"follow-suit", "overtake", "must-trump"})
