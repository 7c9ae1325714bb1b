"""Small builders for 3-5-8 tests: deals with chosen cards, hands ready to play."""

from __future__ import annotations

from engine.cards import FULL_DECK, Card
from engine.threefiveeight.hand import Deal


def cards(text: str) -> list[Card]:
    return [Card.from_text(t) for t in text.split()]


def deal_with(fixed: dict[int, str], avoid: dict[int, str] | None = None, kitty: str = "") -> Deal:
    """Seat s holds the cards of ``fixed[s]`` and no other card of the suits in ``avoid[s]``; the
    rest is filled in deck order; the kitty takes what nobody may hold."""
    avoid = avoid or {}
    hands = [cards(fixed.get(s, "")) for s in range(3)]
    fixed_kitty = cards(kitty)
    used = {c for h in hands for c in h} | set(fixed_kitty)
    free = [c for c in FULL_DECK if c not in used]

    def seats_for(card: Card) -> list[int]:
        return [s for s in range(3) if card.suit.value not in avoid.get(s, "")]

    rest: list[Card] = []
    for card in sorted(free, key=lambda c: len(seats_for(c))):  # the most constrained first
        open_seats = [s for s in seats_for(card) if len(hands[s]) < 16]
        if open_seats:
            hands[max(open_seats, key=lambda s: 16 - len(hands[s]))].append(card)
        else:
            rest.append(card)
    assert len(fixed_kitty) + len(rest) == 4, rest
    return Deal.from_cards(hands, fixed_kitty + rest)
