"""Playing cards as small immutable values.

A card is what the camera reads, what the engine reasons about and what a record stores, so it is a
value: frozen, slotted, hashable, parsed from the forms people and models write (``"10H"``, ``"TH"``,
``"10♥"``, ``"ah"``) and printed back in one canonical form (``"10H"``). Malformed text raises
:class:`CardError`, which quotes the input, in the way python-chess's ``Move.from_uci`` does.

Two-deck Makao needs two physically distinct cards with the same face, so a card carries a ``copy``
index (0 for the first deck, 1 for the second). It is part of the card's identity but not of its face:
:meth:`Card.same_face` compares faces, and ``str()`` prints the copy only when it is not 0
(``"10H#1"``), so single-deck games never see it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

__all__ = [
    "FULL_DECK",
    "Card",
    "CardError",
    "Rank",
    "Suit",
    "deck",
    "parse_cards",
]


class CardError(ValueError):
    """Text that does not name a card (or a suit or rank). The message quotes the text."""


class Suit(enum.Enum):
    """The four suits; the value is the one-letter code used in records."""

    # Members are singletons compared by identity, so the identity hash agrees with ==; Enum's own
    # __hash__ is a Python function (hash of the name), and every Card in a dict or set pays it.
    __hash__ = object.__hash__

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """The suit sign, for people: ``♠ ♥ ♦ ♣``."""
        return _SUIT_SYMBOLS[self]

    @property
    def noun(self) -> str:
        """The plural English name ("hearts"), for readable reasons."""
        return self.name.lower()

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @classmethod
    def from_text(cls, text: str) -> Suit:
        """Parse ``"S"``, ``"s"``, ``"♠"``, ``"spades"`` (and the other suits alike)."""
        key = text.strip().upper()
        suit = _SUIT_ALIASES.get(key)
        if suit is None:
            raise CardError(f"not a suit: {text!r} (expected one of S H D C or ♠ ♥ ♦ ♣)")
        return suit

    def __str__(self) -> str:
        return self.value


_SUIT_SYMBOLS: Final = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_ALIASES: Final[dict[str, Suit]] = {}
for _s in Suit:
    _SUIT_ALIASES[_s.value] = _s
    _SUIT_ALIASES[_SUIT_SYMBOLS[_s]] = _s
    _SUIT_ALIASES[_s.name] = _s
    _SUIT_ALIASES[_s.name[:-1]] = _s  # "HEART"
_SUIT_ALIASES["♤"] = Suit.SPADES
_SUIT_ALIASES["♡"] = Suit.HEARTS
_SUIT_ALIASES["♢"] = Suit.DIAMONDS
_SUIT_ALIASES["♧"] = Suit.CLUBS


class Rank(enum.IntEnum):
    """Ranks ordered by strength in trick games: two lowest, ace highest."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def code(self) -> str:
        """The record form: ``2``..``10``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_CODES[self]

    @property
    def noun(self) -> str:
        return self.name.lower()

    @classmethod
    def from_text(cls, text: str) -> Rank:
        """Parse ``"10"``, ``"T"``, ``"q"``, ``"ace"``..."""
        key = text.strip().upper()
        rank = _RANK_ALIASES.get(key)
        if rank is None:
            raise CardError(f"not a rank: {text!r} (expected one of A K Q J 10 9 8 7 6 5 4 3 2)")
        return rank

    def __str__(self) -> str:
        return self.code


_RANK_CODES: Final = {r: (str(int(r)) if r <= 10 else r.name[0]) for r in Rank}
_RANK_ALIASES: Final[dict[str, Rank]] = {}
for _r in Rank:
    _RANK_ALIASES[_RANK_CODES[_r]] = _r
    _RANK_ALIASES[_r.name] = _r
_RANK_ALIASES["T"] = Rank.TEN
_RANK_ALIASES["1"] = Rank.ACE


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One playing card: a rank, a suit and (for two-deck games) which copy it is."""

    rank: Rank
    suit: Suit
    copy: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank):
            raise CardError(f"not a rank: {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise CardError(f"not a suit: {self.suit!r}")
        if not isinstance(self.copy, int) or isinstance(self.copy, bool) or not 0 <= self.copy <= 7:
            raise CardError(f"card copy must be an integer 0..7, not {self.copy!r}")

    @classmethod
    def from_text(cls, text: str) -> Card:
        """Parse a card: rank then suit, as ``"10H"``, ``"TH"``, ``"10♥"``, ``"ah"``, ``"QS#1"``.

        Raises :class:`CardError` quoting ``text`` when it names no card.
        """
        if not isinstance(text, str):
            raise CardError(f"not a card: {text!r} (expected text such as '10H')")
        body = text.strip()
        copy = 0
        if "#" in body:
            body, _, copy_text = body.partition("#")
            if not copy_text.isdigit():
                raise CardError(f"not a card: {text!r} (the copy after '#' must be a number)")
            copy = int(copy_text)
        if len(body) < 2:
            raise CardError(f"not a card: {text!r} (expected rank then suit, such as '10H' or 'QS')")
        try:
            rank = Rank.from_text(body[:-1])
            suit = Suit.from_text(body[-1])
        except CardError:
            raise CardError(f"not a card: {text!r} (expected rank then suit, such as '10H' or 'QS')") from None
        if copy > 7:
            raise CardError(f"not a card: {text!r} (copy {copy} is out of range 0..7)")
        return cls(rank, suit, copy)

    @property
    def face(self) -> Card:
        """The same card with copy 0: what is printed on it."""
        return self if self.copy == 0 else Card(self.rank, self.suit)

    def same_face(self, other: Card) -> bool:
        return self.rank == other.rank and self.suit == other.suit

    @property
    def symbol(self) -> str:
        """For people: ``"10♥"``."""
        return f"{self.rank.code}{self.suit.symbol}"

    @property
    def index(self) -> int:
        """0..51 for the face: suit-major in the order S H D C, ranks 2..A. Stable: models use it."""
        return _SUIT_ORDER.index(self.suit) * 13 + (self.rank - 2)

    @classmethod
    def from_index(cls, index: int, copy: int = 0) -> Card:
        if not 0 <= index < 52:
            raise CardError(f"card index must be 0..51, not {index!r}")
        return cls(Rank(index % 13 + 2), _SUIT_ORDER[index // 13], copy)

    def __str__(self) -> str:
        text = f"{self.rank.code}{self.suit.value}"
        return text if self.copy == 0 else f"{text}#{self.copy}"

    def __repr__(self) -> str:
        return f"Card.from_text({str(self)!r})"


_SUIT_ORDER: Final = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


def deck(copies: int = 1) -> list[Card]:
    """A fresh ordered deck of 52 cards per copy (two copies for five- or six-player Makao)."""
    return [Card.from_index(i, c) for c in range(copies) for i in range(52)]


FULL_DECK: Final[tuple[Card, ...]] = tuple(deck())


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse many cards; the first bad one raises :class:`CardError` naming it."""
    return [Card.from_text(t) for t in texts]


def iter_suit(cards: Iterable[Card], suit: Suit) -> Iterator[Card]:
    return (c for c in cards if c.suit == suit)
