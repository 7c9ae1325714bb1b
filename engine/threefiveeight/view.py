"""What may be shown: the public view of a hand, and the view of one seat.

The feed, the e-ink board and the spectators' phones publish only :func:`public_view`; it carries
the cards that lie face up on the table (tricks) and counts, never a hand, the kitty, the discards or
a card passed in the exchange. :func:`seat_view` adds what that one player knows: his own hand (when
the engine knows it), the cards he handed over and got back, and, for the declarer, the kitty he took
and the cards he laid aside. Both are plain JSON-able dicts.
"""

from __future__ import annotations

from engine.threefiveeight.hand import Hand

__all__ = ["public_view", "seat_view"]


def public_view(hand: Hand) -> dict[str, object]:
    """The state of ``hand`` that everyone at and around the table may see."""
    tricks = [t.to_json() for t in hand.tricks]
    current = hand.current_trick
    played_by = [0, 0, 0]
    for seat, _card in hand.plays:
        played_by[seat] += 1
    exchanged: dict[str, int] = {}
    for step in hand.exchange:
        key = f"{step.giver}->{step.receiver}"
        exchanged[key] = exchanged.get(key, 0) + 1
    score = hand.score()
    return {
        "hand": hand.number,
        "phase": hand.phase.value,
        "players": list(hand.players),
        "dealer": hand.dealer,
        "declarer": hand.eight,
        "roles": list(hand.roles),
        "targets": list(hand.targets),
        "contract": None if hand.contract is None else hand.contract.value,
        "exchange_due": [{"from": d.giver, "to": d.receiver, "count": d.count} for d in hand.effective_exchange_due],
        "exchanged": exchanged,
        "tricks": tricks,
        "current_trick": {
            "number": current.number,
            "leader": current.leader,
            "seats": list(current.seats),
            "cards": [str(c) for c in current.cards],
        },
        "to_move": None if hand.is_complete else hand.to_move,
        "taken": list(hand.taken),
        "cards_left": [16 - n for n in played_by],
        "score": None if score is None else list(score),
        "violations": [v.to_json() for v in hand.violations],
    }


def seat_view(hand: Hand, seat: int) -> dict[str, object]:
    """The public view plus what ``seat`` alone knows."""
    view = public_view(hand)
    own = hand.hand_of(seat)
    view["seat"] = seat
    view["hand_cards"] = None if own is None else [str(c) for c in own]
    view["my_exchange"] = [
        {"from": e.giver, "to": e.receiver, "give": str(e.give), "back": None if e.back is None else str(e.back)}
        for e in hand.exchange
        if seat in (e.giver, e.receiver)
    ]
    if seat == hand.eight:
        view["kitty"] = None if hand.deal is None else [str(c) for c in hand.deal.kitty_cards]
        view["discards"] = None if hand.discards is None else [str(c) for c in hand.discards]
    return view
