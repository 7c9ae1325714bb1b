"""Makao's rule switches as data, and the named presets.

Every place where the sources (seed 004 and the Polish texts in ../shared/research/rules-research.md
§2) disagree or are silent is one named field of :class:`MakaoRules`, so the game code reads a switch
instead of branching on a preset name, and a new house rule is a new preset, not new code.
``PRESETS`` holds the two presets RULES.md fixes: ``makao`` (seed 004 as RULES.md settles it) and
``makao-polish`` (common Polish house rules).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Final

from engine.cards import Card, Rank, Suit

__all__ = [
    "PRESETS",
    "DemandDuration",
    "MakaoRules",
    "StarterRule",
    "preset",
]


class StarterRule(enum.Enum):
    """What happens to the card turned up after the deal."""

    NO_EFFECT = "no-effect"
    """Whatever it is, it only sets rank and suit: a 2 makes nobody draw, a jack demands nothing."""
    TURN_UNTIL_PLAIN = "turn-until-plain"
    """Cards are turned until one is not a battle card, 4, J or A (Polish Wikipedia); the others stay
    under it on the pile."""


class DemandDuration(enum.Enum):
    """How long a jack's or an ace's demand binds the table."""

    ROUND_INCLUDING_DEMANDER = "round-including-demander"
    """Every other player once, then the demander's own next turn too (ajoz ADR 0004); default."""
    ROUND_EXCLUDING_DEMANDER = "round-excluding-demander"
    """Every other player once; it ends when the turn reaches the demander."""
    NEXT_ONLY = "next-only"
    """Only the next player (hejmsdz: "obowiązuje tylko następnego gracza")."""


_JACK_DEMANDABLE: Final = (Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.QUEEN)


@dataclass(frozen=True, slots=True)
class MakaoRules:
    """One complete set of Makao rule switches. Build variants with :func:`dataclasses.replace`."""

    name: str = "makao"
    """The preset name, echoed in records and reports."""
    min_players: int = 2
    max_players: int = 6
    hand_size: int = 5
    """Cards dealt to each player (seed 004: five)."""
    two_decks_from: int = 5
    """Tables of at least this many players use two 52-card decks; smaller ones use one."""
    starter: StarterRule = StarterRule.NO_EFFECT
    clockwise: bool = True
    """Play passes to seat+1 (RULES.md: clockwise)."""
    multi_same_rank: bool = True
    """Several cards of one rank may be laid in one turn, the first matching; the last is the top."""
    play_drawn_if_match: bool = True
    """After a voluntary draw the drawn card may be played at once if it fits (004-3)."""
    penalty_two: int = 2
    penalty_three: int = 3
    penalty_king: int = 5
    battle_king_suits: frozenset[Suit] = field(default_factory=lambda: frozenset({Suit.HEARTS, Suit.SPADES}))
    """Kings that are battle cards; the others are plain cards."""
    king_of_spades_hits_previous: bool = True
    """K♠ aims its penalty at the previous player instead of the next (Polish practice)."""
    fours_stack: bool = True
    """A player facing a skip may add a 4 and pass it on, the skip growing by one per four."""
    jack_demand_ranks: tuple[Rank, ...] = _JACK_DEMANDABLE
    """Ranks a jack may demand (seed 004: not 2, 3, 4, J, K, A)."""
    jack_demand_duration: DemandDuration = DemandDuration.ROUND_INCLUDING_DEMANDER
    ace_demand_duration: DemandDuration = DemandDuration.ROUND_INCLUDING_DEMANDER
    queen_wild: bool = False
    """"Queen on anything, anything on a queen" in ordinary play (never against a penalty, skip or demand)."""
    makao_call: bool = False
    """A player left with one card must say "makao" with that play, or draw :attr:`makao_penalty`."""
    makao_penalty: int = 5
    large_table_from: int = 5
    """Tables of at least this many players stop when :attr:`large_table_stop_after_out` are out;
    smaller ones play on until one player still holds cards, and that player loses."""
    large_table_stop_after_out: int = 3

    def __post_init__(self) -> None:
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError(f"players must be 2 <= min <= max, not {self.min_players}..{self.max_players}")
        if self.hand_size < 1:
            raise ValueError(f"hand_size must be at least 1, not {self.hand_size}")
        if Rank.JACK in self.jack_demand_ranks:
            raise ValueError("a jack cannot demand jacks")

    def decks_for(self, players: int) -> int:
        """How many 52-card decks a table of *players* uses."""
        return 2 if players >= self.two_decks_from else 1

    def penalty_of(self, card: Card) -> int:
        """Cards the victim draws for this card (0 for a card that is not a battle card)."""
        if card.rank == Rank.TWO:
            return self.penalty_two
        if card.rank == Rank.THREE:
            return self.penalty_three
        if card.rank == Rank.KING and card.suit in self.battle_king_suits:
            return self.penalty_king
        return 0

    def is_battle(self, card: Card) -> bool:
        return self.penalty_of(card) > 0

    def hits_previous(self, card: Card) -> bool:
        """Whether this battle card aims at the previous player (K♠ under Polish practice)."""
        return self.king_of_spades_hits_previous and card.rank == Rank.KING and card.suit == Suit.SPADES

    def is_functional(self, card: Card) -> bool:
        """A battle card, a 4, a jack or an ace: what TURN_UNTIL_PLAIN turns past (RULES.md)."""
        return self.is_battle(card) or card.rank in (Rank.FOUR, Rank.JACK, Rank.ACE)

    def ends_by_third_out(self, players: int) -> bool:
        return players >= self.large_table_from


MAKAO: Final = MakaoRules()
"""Seed 004 as RULES.md settles it."""

MAKAO_POLISH: Final = replace(
    MAKAO,
    name="makao-polish",
    starter=StarterRule.TURN_UNTIL_PLAIN,
    queen_wild=True,
    ace_demand_duration=DemandDuration.NEXT_ONLY,
    makao_call=True,
)
"""Common Polish house rules (RULES.md, optional preset)."""

PRESETS: Final[dict[str, MakaoRules]] = {MAKAO.name: MAKAO, MAKAO_POLISH.name: MAKAO_POLISH}


def preset(name: str) -> MakaoRules:
    """The preset called *name*; raises :class:`KeyError` naming the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise KeyError(f"unknown Makao preset {name!r} (known: {known})") from None
