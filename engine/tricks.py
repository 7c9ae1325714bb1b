"""Tricks: who wins one, as a value type and as a fast integer core.

Every trick game the table knows decides a trick the same way: the highest trump wins, else the
highest card of the suit that was led. :func:`trick_winner` says that for :class:`~engine.cards.Card`
values; the 3-5-8 engine runs its hot path on small integers instead (``card.index``: suit-major in
the order S H D C, ranks 2..A), because bots and the benchmark play thousands of hands a second and
a bit mask per hand makes "which cards of the led suit does he hold?" a single ``&``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.cards import FULL_DECK, Card, Suit

__all__ = [
    "CARD_OF",
    "INT_OF",
    "SUITS_BY_INT",
    "SUIT_INT",
    "SUIT_MASK",
    "Trick",
    "cards_of_mask",
    "mask_of",
    "trick_winner",
    "winner_position",
]

#: ``CARD_OF[i]`` is the card with index ``i`` (0..51).
CARD_OF: Final[tuple[Card, ...]] = FULL_DECK
#: The inverse of :data:`CARD_OF` (copy-0 cards only: 3-5-8 uses one deck).
INT_OF: Final[dict[Card, int]] = {card: i for i, card in enumerate(FULL_DECK)}
#: Suits in index order: ``card_int // 13`` is the position here.
SUITS_BY_INT: Final[tuple[Suit, ...]] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
SUIT_INT: Final[dict[Suit, int]] = {s: i for i, s in enumerate(SUITS_BY_INT)}
#: ``SUIT_MASK[s]`` has the 13 bits of suit ``s`` set.
SUIT_MASK: Final[tuple[int, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))


def mask_of(cards: Sequence[Card]) -> int:
    """The bit mask of some (copy-0) cards."""
    mask = 0
    for card in cards:
        mask |= 1 << INT_OF[card]
    return mask


def cards_of_mask(mask: int) -> list[Card]:
    """The cards of a bit mask, in index order (suits S H D C, low to high)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARD_OF[low.bit_length() - 1])
        mask ^= low
    return out


def winner_position(cards: Sequence[int], trump: int | None) -> int:
    """Position (0-based, in play order) of the winning card among card ints; ``trump`` a suit int."""
    best = 0
    best_card = cards[0]
    for pos in range(1, len(cards)):
        card = cards[pos]
        if card // 13 == best_card // 13:
            if card > best_card:
                best, best_card = pos, card
        elif trump is not None and card // 13 == trump:
            best, best_card = pos, card
    return best


def trick_winner(cards: Sequence[Card], trump: Suit | None) -> int:
    """The position (0-based, in play order) of the card that wins: highest trump, else highest of the led suit.

    >>> trick_winner([Card.from_text("KH"), Card.from_text("7H"), Card.from_text("AH")], Suit.SPADES)
    2
    """
    if not cards:
        raise ValueError("an empty trick has no winner")
    return winner_position([INT_OF[c.face] for c in cards], None if trump is None else SUIT_INT[trump])


@dataclass(frozen=True, slots=True)
class Trick:
    """One completed (or partial) trick as the table saw it.

    ``seats`` and ``cards`` are in the order the cards reached the table; ``leader`` is the seat whose
    turn it was to lead (whose card sets the led suit); ``winner`` is ``None`` until the trick is full.
    ``number`` counts from 1 within the hand.
    """

    number: int
    leader: int
    seats: tuple[int, ...]
    cards: tuple[Card, ...]
    winner: int | None = None

    @property
    def led_suit(self) -> Suit | None:
        for seat, card in zip(self.seats, self.cards, strict=True):
            if seat == self.leader:
                return card.suit
        return None

    def to_json(self) -> dict[str, object]:
        """The record/report form: ``{"leader": 1, "cards": ["QS", ...], "winner": 0}``."""
        return {"leader": self.leader, "cards": [str(c) for c in self.cards], "winner": self.winner}
