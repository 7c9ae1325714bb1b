"""The rules of the games the table referees: pure Python, no I/O, nothing of ours imported.

Every other part of cardtable builds on these value types and rule engines; keeping them free of
I/O lets the same code referee a real table (table mode), simulate bots (full mode) and replay
records anywhere.
"""

from engine.cards import FULL_DECK, Card, CardError, Rank, Suit, deck, parse_cards

__all__ = ["FULL_DECK", "Card", "CardError", "Rank", "Suit", "deck", "parse_cards"]
