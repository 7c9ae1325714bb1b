"""Build Makao positions by hand: chosen hands, starter and stock top, the rest of the deck below."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, deck
from engine.makao import Demand, Knowledge, MakaoGame, MakaoRules, Play, Violation, preset

NAMES = ("Ada", "Ben", "Cem", "Dan", "Eve", "Fay")


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.from_text(t) for t in text.split())


def play(text: str, demand: Demand | None = None, makao: bool = False) -> Play:
    return Play(cards(text), demand, makao)


def refused(violation: Violation | None) -> Violation:
    """The violation a check found (failing the test when the action was legal)."""
    assert violation is not None, "expected the action to be refused"
    return violation


def game(
    hands: Sequence[str],
    starter: str,
    *,
    stock_top: str = "",
    rules: MakaoRules | str = "makao",
    first: int = 0,
    seed: int = 0,
    stock_size: int | None = None,
) -> MakaoGame:
    """A FULL-mode game: *hands* (may hold fewer or more than 5 cards), *starter* (turned cards),
    *stock_top* the first cards of the stock; every other card goes under them, or (with
    *stock_size*) onto the pile under the starter so that the stock holds exactly *stock_size*."""
    r = preset(rules) if isinstance(rules, str) else rules
    held = [cards(h) for h in hands]
    turned = cards(starter)
    top = cards(stock_top)
    used = [c for h in held for c in h] + list(turned) + list(top)
    assert len(set(used)) == len(used), "a card is used twice in the position"
    rest = [c for c in deck(r.decks_for(len(hands))) if c not in set(used)]
    pile = list(turned)
    stock = list(top) + rest
    if stock_size is not None:
        extra = len(stock) - stock_size
        pile = stock[len(top) : len(top) + extra] + pile
        stock = list(top) + stock[len(top) + extra :]
    return MakaoGame(
        r,
        NAMES[: len(hands)],
        knowledge=Knowledge.FULL,
        starter=pile,
        hands=held,
        stock_top_first=stock,
        first=first,
        reshuffle_seed=seed,
    )
