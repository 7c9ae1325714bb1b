"""The public state of the table: what anyone at or around the table may see.

The referee builds one :class:`TableState` after every input it acts on; the outputs that show a
picture rather than a sentence (the e-ink board, the feed's retained ``state`` topic) render it.
It holds only public knowledge: cards on the felt and cards already played, never a hand, the kitty or
an exchanged card, which the feed's leak guard checks again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card

__all__ = ["TableState"]


@dataclass(frozen=True, slots=True)
class TableState:
    """A snapshot; seats index ``players``. Fields not used by a game keep their defaults."""

    game: str
    preset: str
    players: tuple[str, ...]
    phase: str = "idle"
    hand: int = 0
    hands_total: int | None = None
    dealer: int | None = None
    declarer: int | None = None
    targets: tuple[int, ...] = ()
    contract: str = ""
    turn: int | None = None
    trick: int = 0
    current_trick: tuple[tuple[int, Card], ...] = ()
    tricks_taken: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    last_trick_winner: int | None = None
    message: str = ""
    hand_over: bool = False
    game_over: bool = False
    # Makao
    top_card: Card | None = None
    penalty: int = 0
    demand: str = ""
    skip: int = 0
    cards_left: tuple[int, ...] = ()
    out: tuple[int, ...] = ()
    violations: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (cards as text), the body of the feed's ``state`` topic."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, Card):
                value = str(value)
            elif name == "current_trick":
                value = [{"seat": s, "card": str(c)} for s, c in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out
