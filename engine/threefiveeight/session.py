"""A game of 3-5-8: the hands in sequence and everything that carries from one to the next.

The session decides each new hand's roles (who is 8, 5, 3: by the dealer, by 2♣ in the first
ucbessekiz hand, then by the preset's rotation; a PASS keeps them), the exchange due from the previous
scored hand (none in hand 1 or an "Af" hand), the contracts the declarer may still name (the 18-deal
quota), and when the game is over (length, twelve-trick win) and who won (with the tie-break).

    session = Session(PRESETS["ucbessekiz"], ["Ada", "Ben", "Cem"])
    hand = session.new_hand(declarer=2)    # table mode: nobody saw who held 2♣, the players say
    ...                                    # drive the hand (see engine.threefiveeight.hand)
    session.totals, session.is_over, session.outcome(), session.to_record()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalActionError
from engine.threefiveeight.hand import Deal, ExchangeDue, Hand
from engine.threefiveeight.rules import (
    AfPhase,
    Contract,
    PlusOrder,
    Rotation,
    Rules,
    TargetsLayout,
    TieBreak,
)
from engine.tricks import CARD_OF

__all__ = ["RECORD_FORMAT", "Outcome", "RoleError", "Session"]

RECORD_FORMAT = "cardtable-record/1"


class RoleError(ValueError):
    """A dealer or declarer that disagrees with the rules; ``field`` is ``"dealer"`` or ``"declarer"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game stands: ``winner`` None while unfinished or shared; ``ended_by`` None,
    ``"twelve-tricks"`` or ``"complete"``; ``disqualified`` seats (ucbessekiz exchange cheating)."""

    winner: int | None
    ended_by: str | None
    disqualified: tuple[int, ...] = ()


class Session:
    """One game: a sequence of hands under one set of rules, for three named players."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str] = ("seat 0", "seat 1", "seat 2"),
        *,
        first_dealer: int = 0,
        strict: bool = True,
    ) -> None:
        if len(players) != 3:
            raise ValueError(f"3-5-8 is for 3 players, not {len(players)}")
        if first_dealer not in (0, 1, 2):
            raise ValueError(f"no seat {first_dealer!r}: seats are 0, 1 and 2")
        self.rules = rules
        self.players = tuple(players)
        self.first_dealer = first_dealer
        self.strict = strict
        self.hands: list[Hand] = []
        self._outcome: tuple[tuple[object, ...] | None, Outcome] | None = None
        # Hands before the last are complete and never change (new_hand insists): which of them count,
        # and the first twelve-trick hand among them, are kept as the game grows instead of recomputed.
        self._counted: list[Hand] = []
        self._counted_upto = 0
        self._twelve: Hand | None = None

    # ------------------------------------------------------------------ the next hand

    def expected_roles(self, deal: Deal | None = None) -> tuple[int | None, int | None]:
        """(the 8's seat, the dealer) the rules give the next hand; the 8 is None where it is decided
        by a card nobody saw (the first ucbessekiz hand without a deal)."""
        rules = self.rules
        step = rules.step
        prev = self.hands[-1] if self.hands else None
        if prev is None:
            if rules.targets_layout is TargetsLayout.BY_2C_THEN_ROTATE:
                return (None if deal is None else _lowest_club_holder(deal)), None
            dealer = self.first_dealer
            eight = dealer if rules.targets_layout is TargetsLayout.DEALER_8 else (dealer + step) % 3
            return eight, dealer
        if prev.contract is Contract.PASS:
            return prev.eight, prev.dealer
        forward = rules.rotation is Rotation.EIGHT_TO_NEXT_IN_PLAY
        eight = (prev.eight + step) % 3 if forward else (prev.eight - step) % 3
        if rules.targets_layout is TargetsLayout.DEALER_8:
            return eight, eight
        if rules.targets_layout is TargetsLayout.NEXT_OF_DEALER_8:
            return eight, (eight - step) % 3
        return eight, None  # by-2c: the dealer does not decide roles; any seat may deal

    def new_hand(self, *, deal: Deal | None = None, dealer: int | None = None, declarer: int | None = None) -> Hand:
        """Start the next hand. ``deal`` known: full mode; None: table mode.

        ``dealer`` may be given for the first hand (it fixes the roles where the preset ties them to the
        dealer) and must agree with the rotation afterwards; ``declarer`` names the 8 where nobody saw
        the card that decides it, and must agree with the deal and the rotation otherwise. Raises
        ValueError when they disagree, IllegalActionError when the last hand is not finished or the
        game is over.
        """
        if self.hands and not self.hands[-1].is_complete:
            raise IllegalActionError(f"hand {len(self.hands)} is not finished", "hand-over")
        if self.is_over:
            raise IllegalActionError("the game is over", "game-over")
        rules = self.rules
        step = rules.step
        for what, seat in (("dealer", dealer), ("declarer", declarer)):
            if seat is not None and seat not in (0, 1, 2):
                raise RoleError(what, f"no seat {seat!r} for the {what}: seats are 0, 1 and 2")
        if not self.hands and dealer is not None and rules.targets_layout is not TargetsLayout.BY_2C_THEN_ROTATE:
            self.first_dealer = dealer
        eight, expected_dealer = self.expected_roles(deal)
        if dealer is not None and expected_dealer is not None and dealer != expected_dealer:
            raise RoleError(
                "dealer",
                f"the dealer of hand {len(self.hands) + 1} is {self.players[expected_dealer]} (seat "
                f"{expected_dealer}) by the rotation, not seat {dealer}",
            )
        if eight is None:
            if declarer is None:
                raise RoleError(
                    "declarer", "the first 8 is the holder of 2♣ (else 3♣...): give the deal or name the declarer"
                )
            eight = declarer
        elif declarer is not None and declarer != eight:
            why = "holds the lowest club" if not self.hands else "is the 8 by the rotation"
            raise RoleError(
                "declarer", f"the declarer is seat {eight} ({self.players[eight]} {why}), not seat {declarer}"
            )
        if dealer is None:
            dealer = expected_dealer
        if dealer is None and rules.targets_layout is not TargetsLayout.BY_2C_THEN_ROTATE:
            dealer = eight if rules.targets_layout is TargetsLayout.DEALER_8 else (eight - step) % 3
        scored = self._scored_list()
        number = len(scored) + 1
        contracts_left = None
        if rules.contract_quota:
            used = {h.contract for h in scored if h.eight == eight}
            contracts_left = frozenset(rules.contracts - used)
        hand = Hand(
            rules,
            eight=eight,
            number=number,
            dealer=dealer,
            deal=deal,
            exchange_due=self._exchange_due(eight, number, scored),
            contracts_left=contracts_left,
            players=self.players,
            strict=self.strict,
        )
        self.hands.append(hand)
        return hand

    def _exchange_due(self, eight: int, number: int, scored: list[Hand]) -> tuple[ExchangeDue, ...]:
        """Who hands whom how many this hand: each plus player of the last counted hand gives one card
        per trick over his target to the minus players, in the orders the rules set.

        Plain lists and shared ExchangeDue values rather than dicts and new objects: it runs for every
        hand of a simulation.
        """
        rules = self.rules
        if not scored or self._is_af(number):
            return ()
        prev = scored[-1]
        score = prev.score()
        assert score is not None
        step = rules.step
        new_roles = [0, 0, 0]
        new_roles[eight], new_roles[(eight + step) % 3], new_roles[(eight + 2 * step) % 3] = 8, 5, 3
        plus = [s for s in (0, 1, 2) if score[s] > 0]
        if not plus:
            return ()
        minus = [s for s in (0, 1, 2) if score[s] < 0]
        if len(plus) > 1:
            old = prev._roles
            order = rules.plus_order
            if order is PlusOrder.PREV_ROLE:
                plus.sort(key=lambda s: -old[s])
            elif order is PlusOrder.CURRENT_TARGET:
                plus.sort(key=lambda s: -new_roles[s])
            else:  # the bigger plus first, then the higher role of the last hand
                plus.sort(key=lambda s: (-score[s], -old[s]))
        if len(minus) > 1:  # the higher target receives first
            minus.sort(key=lambda s: -new_roles[s])
        owed = [0, 0, 0]
        for m in minus:
            owed[m] = -score[m]
        due = []
        for p in plus:
            left = score[p]
            for m in minus:
                n = left if left < owed[m] else owed[m]
                if n:
                    due.append(_due(p, m, n))
                    left -= n
                    owed[m] -= n
        return tuple(due)

    def _is_af(self, number: int) -> bool:
        period = self.rules.af_period
        if period <= 0:
            return False
        if self.rules.af_phase is AfPhase.AFTER_ROUND:
            return number > 1 and (number - 1) % period == 0
        return number % period == 0

    # ------------------------------------------------------------------ standings

    @property
    def scored_hands(self) -> list[Hand]:
        """The complete hands that count (passes left out)."""
        return self._scored_list()

    def _scored_list(self) -> list[Hand]:
        # Earlier hands are complete (new_hand insists), so only the last one can change.
        hands = self.hands
        upto = len(hands) - 1
        if self._counted_upto > upto:  # hands were taken away behind our back: start again
            self._counted, self._counted_upto, self._twelve = [], 0, None
        while self._counted_upto < upto:
            h = hands[self._counted_upto]
            self._counted_upto += 1
            if _counts(h):
                self._counted.append(h)
                if self._twelve is None and max(h._taken) >= 12:
                    self._twelve = h
        if hands and _counts(hands[-1]):
            return [*self._counted, hands[-1]]
        return list(self._counted)

    @property
    def totals(self) -> tuple[int, int, int]:
        t = [0, 0, 0]
        for h in self.scored_hands:
            score = h.score()
            assert score is not None
            for s in range(3):
                t[s] += score[s]
        return (t[0], t[1], t[2])

    @property
    def is_over(self) -> bool:
        return self.outcome().ended_by is not None

    def outcome(self) -> Outcome:
        """Who won and how the game ended (cached until the last hand changes)."""
        last = self.hands[-1] if self.hands else None
        # another hand, or any change to the last one (a play, an undo, a violation, the contract)
        key = (len(self.hands), last, last._version) if last else None
        if self._outcome is None or self._outcome[0] != key:
            self._outcome = (key, self._compute_outcome())
        return self._outcome[1]

    def _compute_outcome(self) -> Outcome:
        rules = self.rules
        scored = self.scored_hands
        disqualified: tuple[int, ...] = ()
        if rules.exchange_cheat_disqualifies:
            disqualified = tuple(
                sorted({v.seat for h in self.hands for v in h.violations if v.rule == "exchange-return"})
            )
        if rules.twelve_trick_win:
            twelve = self._twelve
            if twelve is None and scored and scored[-1] is self.hands[-1] and max(scored[-1]._taken) >= 12:
                twelve = scored[-1]
            if twelve is not None:
                best = max(twelve.taken)
                return Outcome(twelve.taken.index(best), "twelve-tricks", disqualified)
        if rules.game_length is None or len(scored) < rules.game_length:
            return Outcome(None, None, disqualified)
        totals = self.totals
        candidates = [s for s in range(3) if s not in disqualified]
        if not candidates:
            return Outcome(None, "complete", disqualified)
        top = max(totals[s] for s in candidates)
        tied = [s for s in candidates if totals[s] == top]
        if len(tied) > 1 and rules.tie_break is TieBreak.LAST_HAND_THEN_LAST_TRICK:
            last = scored[-1]
            last_score = last.score()
            assert last_score is not None
            best_last = max(last_score[s] for s in tied)
            tied = [s for s in tied if last_score[s] == best_last]
            if len(tied) > 1:
                for trick in reversed(last.tricks):
                    if trick.winner in tied:
                        tied = [trick.winner]
                        break
        return Outcome(tied[0] if len(tied) == 1 else None, "complete", disqualified)

    # ------------------------------------------------------------------ records

    def to_record(self) -> dict[str, Any]:
        """The game as a record (docs/record-format.md), replayable by ``cardtable check``."""
        hands = []
        for h in self.hands:
            entry: dict[str, object] = {}
            if h.dealer is not None:
                entry["dealer"] = h.dealer
            entry["declarer"] = h.eight
            if h.deal is not None:
                entry["deal"] = {
                    "hands": [[str(CARD_OF[c]) for c in cards] for cards in h.deal.hands],
                    "kitty": [str(CARD_OF[c]) for c in h.deal.kitty],
                }
            if h.exchange:
                entry["exchange"] = [
                    {"from": e.giver, "to": e.receiver, "give": str(e.give)}
                    | ({} if e.back is None else {"back": str(e.back)})
                    for e in h.exchange
                ]
            if h.contract is not None:
                entry["contract"] = h.contract.value
            if h.discards is not None:
                entry["discards"] = [str(c) for c in h.discards]
            entry["plays"] = [{"seat": s, "card": str(c)} for s, c in h.plays]
            hands.append(entry)
        return {
            "format": RECORD_FORMAT,
            "game": "358",
            "preset": self.rules.name,
            "players": list(self.players),
            "hands": hands,
        }


def _lowest_club_holder(deal: Deal) -> int | None:
    """The seat holding 2♣, else 3♣, 4♣... (clubs are card ints 39..51); None if all are in the kitty."""
    holder = {c: s for s in range(3) for c in deal.hands[s]}
    for c in range(39, 52):
        if c in holder:
            return holder[c]
    return None


_DUES: dict[tuple[int, int, int], ExchangeDue] = {}


def _due(giver: int, receiver: int, count: int) -> ExchangeDue:
    """The one shared ExchangeDue value for these numbers (a frozen dataclass is slow to build)."""
    key = (giver, receiver, count)
    due = _DUES.get(key)
    if due is None:
        due = _DUES[key] = ExchangeDue(giver, receiver, count)
    return due


def _counts(hand: Hand) -> bool:
    """A hand counts in the standings once it is complete and not a pass."""
    return hand.contract is not Contract.PASS and hand.score() is not None
