"""Bots that play legal 3-5-8, for simulations, property tests and the benchmark.

Both bots work on the trusted integer path of :class:`~engine.threefiveeight.hand.Hand` (a legal
mask, then ``push``), which is what lets ``cardtable bench engine`` play thousands of hands a second.
``RandomBot`` picks uniformly among the legal choices with its own seeded generator, so a seed
reproduces a game exactly; ``SimpleBot`` plays a little better: it wins a trick as cheaply as it can
or throws its lowest card (the other way round in misère), and names its longest suit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import starmap

from engine.threefiveeight.hand import _BITS13, Deal, Hand
from engine.threefiveeight.rules import (
    SUIT_CONTRACTS,
    Contract,
    ExchangeTiming,
    KittyMode,
    Rules,
    TrumpExchangeRule,
)
from engine.threefiveeight.session import Session
from engine.tricks import SUIT_MASK

__all__ = ["RandomBot", "SimpleBot", "play_hand", "random_deal", "simulate"]


def random_deal(rng: random.Random) -> Deal:
    keys = list(starmap(rng.random, _NO_ARGS))  # 52 floats, the calls made in C
    cards = sorted(_DECK, key=keys.__getitem__)  # a uniform shuffle, several times faster than rng.shuffle
    return Deal((tuple(cards[0:16]), tuple(cards[16:32]), tuple(cards[32:48])), tuple(cards[48:52]))


_DECK = range(52)
_NO_ARGS = ((),) * 52


def _take(pool: int, count: int, random: Callable[[], float]) -> list[int]:
    """``count`` different cards of the mask ``pool``, uniformly at random (all of them if fewer):
    the first steps of a Fisher-Yates shuffle of its cards."""
    cards = _bits(pool)
    n = len(cards)
    for i in range(min(count, n)):
        j = i + int(random() * (n - i))
        cards[i], cards[j] = cards[j], cards[i]
    return cards[:count]


def _nth_bit(mask: int, n: int) -> int:
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def _bits(mask: int) -> list[int]:
    return [shift + b for shift in (0, 13, 26, 39) for b in _BITS13[(mask >> shift) & 8191]]


class RandomBot:
    """Uniformly random legal choices from a seeded generator."""

    def __init__(self, seed: int | None = None, *, pass_rate: float = 0.05) -> None:
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate
        self._sorted: dict[frozenset[Contract], list[Contract]] = {}

    def contract(self, hand: Hand) -> Contract:
        pool = hand.contracts_left if hand.contracts_left is not None else hand.rules.contracts
        if not pool:  # the quota is used up (only when a game runs past its length)
            pool = hand.rules.contracts
        allowed = self._sorted.get(pool)
        if allowed is None:
            allowed = self._sorted[pool] = sorted(pool, key=lambda c: c.value)
        random = self.rng.random
        if hand.rules.pass_redeal and random() < self.pass_rate:
            return Contract.PASS
        return allowed[int(random() * len(allowed))]

    def gives(self, hand: Hand, giver: int, count: int) -> list[int]:
        pool = hand._hand[giver]
        trump = hand.contract.trump_int if hand.contract is not None else None
        if trump is not None and hand.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_NOT_GIVABLE:
            pool &= ~SUIT_MASK[trump]
        return _take(pool, count, self.rng.random)

    def discards(self, hand: Hand) -> list[int]:
        pool = hand._hand[hand.eight]
        if hand.rules.kitty_mode is KittyMode.PICKUP_THEN_DISCARD:
            pool |= hand._kitty
        return _take(pool, 4, self.rng.random)

    def card(self, hand: Hand) -> int:
        mask = hand.legal_mask()
        return _nth_bit(mask, int(self.rng.random() * mask.bit_count()))


class SimpleBot(RandomBot):
    """Cheapest winning card, else the lowest; longest suit as trump; lowest cards handed over."""

    def contract(self, hand: Hand) -> Contract:
        allowed = hand.contracts_left if hand.contracts_left is not None else hand.rules.contracts
        if not allowed:
            allowed = hand.rules.contracts
        cards = hand._hand[hand.eight]
        if hand.rules.declarer_sees_first_6 and hand.deal is not None:
            cards = 0
            for c in hand.deal.hands[hand.eight][:6]:
                cards |= 1 << c
        suits = [s for s in SUIT_CONTRACTS if s in allowed]
        if suits:
            return max(suits, key=lambda s: ((cards & SUIT_MASK[s.trump_int or 0]).bit_count(), s.value))
        return sorted(allowed, key=lambda c: c.value)[0]

    def gives(self, hand: Hand, giver: int, count: int) -> list[int]:
        pool = hand._hand[giver]
        trump = hand.contract.trump_int if hand.contract is not None else None
        if trump is not None and hand.rules.trump_exchange_rule is TrumpExchangeRule.TRUMP_NOT_GIVABLE:
            pool &= ~SUIT_MASK[trump]
        return sorted(_bits(pool), key=lambda c: c % 13)[:count]

    def discards(self, hand: Hand) -> list[int]:
        pool = hand._hand[hand.eight]
        if hand.rules.kitty_mode is KittyMode.PICKUP_THEN_DISCARD:
            pool |= hand._kitty
        return sorted(_bits(pool), key=lambda c: c % 13)[:4]

    def card(self, hand: Hand) -> int:
        legal = _bits(hand.legal_mask())
        led, best, best_trump = hand._ctx
        misere = hand.contract is Contract.MISERE
        if led < 0:
            return min(legal, key=lambda c: c % 13) if misere else max(legal, key=lambda c: c % 13)
        trump = hand._trump

        def wins(c: int) -> bool:
            if best_trump >= 0:
                return c // 13 == trump and c > best_trump
            if c // 13 == led // 13:
                return c > best
            return c // 13 == trump

        winners = [c for c in legal if wins(c)]
        losers = [c for c in legal if not wins(c)]
        if misere:
            return max(losers, key=lambda c: c % 13) if losers else min(legal, key=lambda c: c % 13)
        if winners:
            return min(winners, key=lambda c: c % 13)
        return min(legal, key=lambda c: c % 13)


def play_hand(hand: Hand, bots: Sequence[RandomBot]) -> None:
    """Play ``hand`` to its end (or its pass) with one bot per seat, on the trusted path."""
    rules = hand.rules
    before = rules.exchange_timing is ExchangeTiming.BEFORE_CONTRACT

    def exchange() -> None:
        for due in hand.effective_exchange_due:
            for g in bots[due.giver].gives(hand, due.giver, due.count):
                hand.push_exchange(due.giver, due.receiver, g)  # bots give legal cards: the trusted path

    if before:
        exchange()
    hand.set_contract(bots[hand.eight].contract(hand))
    if hand.contract is Contract.PASS:
        return
    if not before:
        exchange()
    hand.take_kitty_ints(bots[hand.eight].discards(hand))
    if type(bots[0]) is RandomBot and type(bots[1]) is RandomBot and type(bots[2]) is RandomBot:
        hand.random_playout(bots[hand.eight].rng.random)  # uniform legal choices, loop inlined
        return
    push = hand.push
    for _ in range(48):
        push(bots[hand.to_move].card(hand))


def simulate(
    rules: Rules,
    seed: int = 0,
    *,
    bots: Sequence[RandomBot] | None = None,
    players: Sequence[str] = ("Ada", "Ben", "Cem"),
    max_hands: int = 200,
) -> Session:
    """A whole game in full mode with bots (random ones seeded from ``seed`` by default).

    Stops when the game is over or after ``max_hands`` hands (a pagat game ends only when someone takes
    12 tricks, which random play rarely does).
    """
    rng = random.Random(seed)
    if bots is None:
        bots = [RandomBot(rng.randrange(1 << 30)) for _ in range(3)]
    session = Session(rules, players, first_dealer=rng.randrange(3))
    for _ in range(max_hands):
        if session.is_over:
            break
        hand = session.new_hand(deal=random_deal(rng))
        play_hand(hand, bots)
    return session
