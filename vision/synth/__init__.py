"""Synthetic training data: card faces from Debian's vector decks and overhead-table scenes."""
