"""What a Makao player can do on a turn, and what the referee says about it.

Actions are frozen values without a seat: the game knows whose turn it is, and the table mode's
:meth:`~engine.makao.game.MakaoGame.observe` takes the seat the camera or a button attributed the
action to, so that a play out of turn can be flagged instead of silently re-attributed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, TypeAlias

from engine.cards import Card, Rank, Suit

__all__ = [
    "Accept",
    "Action",
    "Demand",
    "Draw",
    "Pass",
    "Play",
    "Rule",
    "Violation",
    "demand_text",
]

Demand: TypeAlias = Rank | Suit
"""A jack demands a rank, an ace a suit."""


def demand_text(demand: Demand) -> str:
    """The record form of a demand: a rank code (``"8"``, ``"Q"``) or a suit letter (``"H"``)."""
    return demand.code if isinstance(demand, Rank) else demand.value


@dataclass(frozen=True, slots=True)
class Play:
    """Lay *cards* on the pile in this order: one card, or several of one rank, the first matching.

    *demand* is the jack's rank or the ace's suit (``None``: no demand). *makao* says the player
    called "makao" with this play (only the ``makao_call`` switch looks at it).
    """

    cards: tuple[Card, ...]
    demand: Demand | None = None
    makao: bool = False

    def __post_init__(self) -> None:
        if not self.cards:
            raise ValueError("a play needs at least one card")

    def __str__(self) -> str:
        text = "play " + " ".join(str(c) for c in self.cards)
        if self.demand is not None:
            text += f" demanding {demand_text(self.demand)}"
        return text + (" makao" if self.makao else "")


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the stock instead of playing (voluntary, or against a demand)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn after a voluntary draw without playing the drawn card.

    Also the only move left when nothing can be played and nothing can be drawn (every card is in
    the hands or is the top card).
    """

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Accept:
    """Give up against a pending penalty (draw the whole total) or skip (lose the turns)."""

    def __str__(self) -> str:
        return "accept"


Action: TypeAlias = Play | Draw | Pass | Accept


class Rule(enum.StrEnum):
    """Rule ids that reports and :class:`~engine.errors.IllegalActionError` carry."""

    GAME_OVER = "game-over"
    OUT_OF_TURN = "out-of-turn"
    NOT_IN_HAND = "not-in-hand"
    DUPLICATE_CARD = "duplicate-card"
    CARD_COUNT = "card-count"
    NO_MATCH = "no-match"
    SAME_RANK = "same-rank"
    PENALTY = "penalty"
    SKIP = "skip"
    DEMAND = "demand"
    BAD_DEMAND = "bad-demand"
    AFTER_DRAW = "after-draw"
    MUST_ANSWER = "must-answer"
    NOTHING_PENDING = "nothing-pending"
    PASS = "pass"
    EMPTY_STOCK = "empty-stock"
    STARTER = "starter"


@dataclass(frozen=True, slots=True)
class Violation:
    """One proven breach of the rules: which turn (1-based), who, which cards, the rule id, and why."""

    turn: int
    seat: int
    rule: Rule
    reason: str
    cards: tuple[Card, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "rule": str(self.rule),
            "reason": self.reason,
        }
