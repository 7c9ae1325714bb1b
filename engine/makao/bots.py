"""Makao bots for simulations, benchmarks and property tests (FULL mode: they read their own hand).

Both bots only ever return an action from :meth:`MakaoGame.legal_actions`, so a game driven by them
is legal by construction; the property tests check exactly that through the checked path.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol

from engine.cards import Rank, Suit
from engine.makao.actions import Action, Play
from engine.makao.game import MakaoGame

__all__ = ["Bot", "RandomBot", "SimpleBot", "play_out"]


class Bot(Protocol):
    def choose(self, game: MakaoGame) -> Action:
        """An action for the player to move; must be legal."""
        ...


class RandomBot:
    """Picks uniformly among the legal actions, reproducibly for one *seed*."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: MakaoGame) -> Action:
        actions = list(game.legal_actions())
        if not actions:
            raise ValueError("no legal action: the game is over")
        return self._rng.choice(actions)


class SimpleBot:
    """A little smarter: always plays when it can, sheds many cards, keeps battle cards for defence.

    Against a penalty it passes it on when it can; it demands the rank or suit it holds most of; it
    draws only when it cannot play, and plays the drawn card whenever that is legal.
    """

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: MakaoGame) -> Action:
        actions = list(game.legal_actions())
        if not actions:
            raise ValueError("no legal action: the game is over")
        plays = [a for a in actions if isinstance(a, Play)]
        if not plays:
            return actions[0]  # Draw, Accept or Pass: only one of them is offered
        seat = game.to_move
        assert seat is not None
        hand = game.hand(seat)
        rules = game.rules
        ranks = Counter(c.rank for c in hand)
        suits = Counter(c.suit for c in hand)

        def score(play: Play) -> float:
            value = 10.0 * len(play.cards)
            first = play.cards[0]
            if not game.penalty and rules.is_battle(first):
                value -= 6  # keep battle cards to defend with, unless the hand is nearly empty
            if first.rank in (Rank.JACK, Rank.ACE):
                value -= 4
                if play.demand is not None:
                    value += self._demand_value(play, ranks, suits)
            left = len(hand) - len(play.cards)
            if left == 0:
                value += 100
            return value + self._rng.random()

        return max(plays, key=score)

    @staticmethod
    def _demand_value(play: Play, ranks: Counter[Rank], suits: Counter[Suit]) -> float:
        demand = play.demand
        if isinstance(demand, Rank):
            return 2.0 * ranks[demand] - 1 if ranks[demand] else -3.0
        if isinstance(demand, Suit):
            return 2.0 * suits[demand] - 1 if suits[demand] else -3.0
        return 0.0


def play_out(game: MakaoGame, bots: list[Bot] | Bot, *, max_turns: int = 100_000, checked: bool = False) -> int:
    """Drive *game* with *bots* (one per seat, or one for all) until it ends; returns the turns taken.

    *checked* routes every action through :meth:`MakaoGame.play` (raises on an illegal one) instead of
    the trusted :meth:`MakaoGame.push`.
    """
    turns = 0
    while not game.is_over and turns < max_turns:
        seat = game.to_move
        assert seat is not None
        bot = bots[seat] if isinstance(bots, list) else bots
        action = bot.choose(game)
        if checked:
            game.play(action)
        else:
            game.push(action)
        turns += 1
    return turns
