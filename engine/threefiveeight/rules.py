"""The 3-5-8 rule switches and the four presets (../shared/rules/RULES.md).

Every difference between the seed texts is one named field of :class:`Rules`, so a preset is data,
not a subclass, and a house rule is ``dataclasses.replace(PRESETS["pagat"], must_overtake=True)``.
The field docstrings say which source each value comes from; docs/rules-presets.md has the table.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "PRESETS",
    "AfPhase",
    "Contract",
    "Direction",
    "ExchangeCount",
    "ExchangeResolution",
    "ExchangeTiming",
    "FirstLead",
    "KittyMode",
    "PlusOrder",
    "Rotation",
    "Rules",
    "TargetsLayout",
    "TieBreak",
    "TrumpExchangeRule",
    "rules_from_json",
]


class Contract(enum.Enum):
    """What the declarer names. ``PASS`` is the ucbessekiz "pas": same roles, new deal."""

    __hash__ = object.__hash__  # identity, as for Suit: contract sets are looked up every hand

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"
    NO_TRUMP = "NT"
    MISERE = "MISERE"
    PASS = "PASS"

    @classmethod
    def from_text(cls, text: str) -> Contract:
        for c in cls:
            if c.value == text:
                return c
        raise ValueError(f"not a contract: {text!r} (expected one of S H D C NT MISERE PASS)")

    @property
    def trump_int(self) -> int | None:
        """The trump suit as a suit int (0..3, order S H D C), or None for NT, misère and pass."""
        return _TRUMP_INT.get(self)

    @property
    def noun(self) -> str:
        return {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs", "NT": "no trump"}.get(
            self.value, self.value.lower()
        )


_TRUMP_INT: Final = {Contract.SPADES: 0, Contract.HEARTS: 1, Contract.DIAMONDS: 2, Contract.CLUBS: 3}
SUIT_CONTRACTS: Final = frozenset({Contract.SPADES, Contract.HEARTS, Contract.DIAMONDS, Contract.CLUBS})


class Direction(enum.Enum):
    CLOCKWISE = "clockwise"
    COUNTERCLOCKWISE = "counterclockwise"


class TargetsLayout(enum.Enum):
    """Who is the 8 in a hand: the dealer; the dealer's next in play; or (hand 1) the holder of 2♣."""

    DEALER_8 = "dealer-8"
    NEXT_OF_DEALER_8 = "next-of-dealer-8"
    BY_2C_THEN_ROTATE = "by-2c-then-rotate"


class Rotation(enum.Enum):
    """Between hands: the 8 passes to the next in play (pagat), or the 3 becomes 8 (seed 000)."""

    EIGHT_TO_NEXT_IN_PLAY = "eight-to-next"
    EIGHT_TO_PREVIOUS_IN_PLAY = "eight-to-previous"


class KittyMode(enum.Enum):
    BLIND_SWAP = "blind-swap"
    PICKUP_THEN_DISCARD = "pickup-then-discard"


class FirstLead(enum.Enum):
    DECLARER = "declarer"
    FIVE_PLAYER = "five-player"


class ExchangeTiming(enum.Enum):
    BEFORE_CONTRACT = "before-contract"
    AFTER_CONTRACT = "after-contract"


class AfPhase(enum.Enum):
    """``AFTER_ROUND``: the exchange that would follow hand 4k is skipped (hands 5, 9 have none);
    ``IN_ROUND``: hands 4, 8, 12 have none."""

    AFTER_ROUND = "after-round"
    IN_ROUND = "in-round"


class ExchangeCount(enum.Enum):
    EXACT = "exact"
    UP_TO = "up-to"


class TrumpExchangeRule(enum.Enum):
    NONE = "none"
    TRUMP_NOT_GIVABLE = "trump-not-givable"
    TRUMP_ANY_RETURN = "trump-any-return"


class PlusOrder(enum.Enum):
    PREV_ROLE = "prev-role"
    CURRENT_TARGET = "current-target"
    MOST_UP = "most-up"


class ExchangeResolution(enum.Enum):
    IN_GIVE_ORDER = "in-give-order"
    HIGHEST_GIVEN_FIRST = "highest-given-first"


class TieBreak(enum.Enum):
    NONE = "none"
    LAST_HAND_THEN_LAST_TRICK = "last-hand-then-last-trick"


ALL_CONTRACTS: Final = frozenset(SUIT_CONTRACTS | {Contract.NO_TRUMP, Contract.MISERE})


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete set of 3-5-8 switch values. Defaults are ``sergeant-major`` (seed 001)."""

    name: str = "sergeant-major"
    direction: Direction = Direction.CLOCKWISE
    """000: counterclockwise; 001, 002 (inferred), pagat: clockwise."""
    targets_layout: TargetsLayout = TargetsLayout.DEALER_8
    rotation: Rotation = Rotation.EIGHT_TO_NEXT_IN_PLAY
    declarer_sees_first_6: bool = False
    """002: the declarer names the contract from his first six cards (affects bots and views only)."""
    contracts: frozenset[Contract] = SUIT_CONTRACTS
    contract_quota: bool = False
    """002: each player declares each contract of ``contracts`` exactly once per session."""
    misere_maxima: tuple[int, int, int] = (3, 5, 8)
    """Maxima for the 8-, 5- and 3-roles in a misère deal (zasadygry: declarer 3, next 5, dealer 8)."""
    pass_redeal: bool = False
    kitty_mode: KittyMode = KittyMode.BLIND_SWAP
    first_lead: FirstLead = FirstLead.DECLARER
    must_overtake: bool = False
    """000: play higher than the best card of the led suit in the trick if able."""
    overtake_if_trumped: bool = True
    """000 is silent; RULES.md: the overtake duty stays when the trick has been trumped."""
    must_trump_when_void: bool = False
    must_overtrump: bool = False
    exchange_timing: ExchangeTiming = ExchangeTiming.BEFORE_CONTRACT
    exchange_skip_contracts: frozenset[Contract] = frozenset()
    af_period: int = 0
    af_phase: AfPhase = AfPhase.AFTER_ROUND
    exchange_count: ExchangeCount = ExchangeCount.EXACT
    trump_exchange_rule: TrumpExchangeRule = TrumpExchangeRule.NONE
    plus_order: PlusOrder = PlusOrder.CURRENT_TARGET
    exchange_resolution: ExchangeResolution = ExchangeResolution.IN_GIVE_ORDER
    kitty_show_rule: bool = False
    exchange_cheat_disqualifies: bool = False
    revoke_voids_hand: bool = False
    """RULES.md: no seed punishes a revoke, but "a setting may void the hand": with it, a hand in which
    an illegal play (follow-suit, overtake, must-trump) is proven scores 0 for everyone."""
    twelve_trick_win: bool = False
    game_length: int | None = 12
    """Scored hands in a game; ``None``: until someone takes 12 tricks (pagat)."""
    tie_break: TieBreak = TieBreak.LAST_HAND_THEN_LAST_TRICK
    targets: tuple[int, int, int] = field(default=(8, 5, 3))

    def __post_init__(self) -> None:
        if sum(self.targets) != 16 or sum(self.misere_maxima) != 16:
            raise ValueError("targets and misère maxima must each sum to 16 (the tricks of a hand)")
        if self.game_length is not None and self.game_length < 1:
            raise ValueError(f"game_length must be at least 1, not {self.game_length}")
        if self.game_length is None and not self.twelve_trick_win:
            raise ValueError("a game without a length must end by the twelve-trick win")
        if self.af_period < 0:
            raise ValueError(f"af_period must be 0 (off) or positive, not {self.af_period}")
        if not self.contracts or Contract.PASS in self.contracts:
            raise ValueError("contracts must name at least one of S H D C NT MISERE")

    @property
    def step(self) -> int:
        """+1 clockwise, -1 counterclockwise: the next seat in play is ``(seat + step) % 3``."""
        return 1 if self.direction is Direction.CLOCKWISE else -1

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            out[f.name] = _jsonable(getattr(self, f.name))
        return out


def _jsonable(value: object) -> object:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(_jsonable(v) for v in value)  # type: ignore[type-var]
    if isinstance(value, tuple):
        return list(value)
    return value


def rules_from_json(base: Rules, overrides: dict[str, object]) -> Rules:
    """``base`` with some switches replaced by their JSON forms; raises ValueError naming the switch."""
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    changes: dict[str, object] = {}
    for key, raw in overrides.items():
        if key not in fields or key == "name":
            known = ", ".join(sorted(k for k in fields if k != "name"))
            raise ValueError(f"unknown rule switch {key!r} (known: {known})")
        current = getattr(base, key)
        changes[key] = _parse_switch(key, current, raw)
    try:
        return dataclasses.replace(base, **changes)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        raise ValueError(str(exc)) from None


def _parse_switch(key: str, current: object, raw: object) -> object:
    if isinstance(current, bool):
        if not isinstance(raw, bool):
            raise ValueError(f"rule switch {key!r} must be true or false, not {raw!r}")
        return raw
    if isinstance(current, enum.Enum):
        enum_type = type(current)
        for member in enum_type:
            if member.value == raw:
                return member
        values = ", ".join(repr(m.value) for m in enum_type)
        raise ValueError(f"rule switch {key!r} must be one of {values}, not {raw!r}")
    if key == "game_length":
        if raw is None or (isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1):
            return raw
        raise ValueError(f"rule switch 'game_length' must be a positive integer or null, not {raw!r}")
    if isinstance(current, int):
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise ValueError(f"rule switch {key!r} must be an integer, not {raw!r}")
    if isinstance(current, frozenset):
        if not isinstance(raw, list):
            raise ValueError(f"rule switch {key!r} must be a list of contracts, not {raw!r}")
        try:
            return frozenset(Contract.from_text(str(v)) for v in raw)
        except ValueError as exc:
            raise ValueError(f"rule switch {key!r}: {exc}") from None
    if isinstance(current, tuple):
        if not (isinstance(raw, list) and len(raw) == 3 and all(isinstance(v, int) for v in raw)):
            raise ValueError(f"rule switch {key!r} must be a list of three integers, not {raw!r}")
        return tuple(raw)
    raise ValueError(f"rule switch {key!r} cannot be changed in a record")


SERGEANT_MAJOR: Final = Rules()

UCBESSEKIZ: Final = Rules(
    name="ucbessekiz",
    direction=Direction.COUNTERCLOCKWISE,
    targets_layout=TargetsLayout.BY_2C_THEN_ROTATE,
    rotation=Rotation.EIGHT_TO_PREVIOUS_IN_PLAY,
    contracts=SUIT_CONTRACTS | {Contract.NO_TRUMP},
    pass_redeal=True,
    must_overtake=True,
    overtake_if_trumped=True,
    af_period=4,
    af_phase=AfPhase.AFTER_ROUND,
    plus_order=PlusOrder.PREV_ROLE,
    kitty_show_rule=True,
    exchange_cheat_disqualifies=True,
    twelve_trick_win=True,
    game_length=12,
    tie_break=TieBreak.NONE,
)

ONLINE_18: Final = Rules(
    name="online-18",
    targets_layout=TargetsLayout.NEXT_OF_DEALER_8,
    declarer_sees_first_6=True,
    contracts=ALL_CONTRACTS,
    contract_quota=True,
    kitty_mode=KittyMode.PICKUP_THEN_DISCARD,
    exchange_timing=ExchangeTiming.AFTER_CONTRACT,
    exchange_skip_contracts=frozenset({Contract.NO_TRUMP, Contract.MISERE}),
    trump_exchange_rule=TrumpExchangeRule.TRUMP_NOT_GIVABLE,
    plus_order=PlusOrder.CURRENT_TARGET,
    game_length=18,
    tie_break=TieBreak.NONE,
)

PAGAT: Final = Rules(
    name="pagat",
    first_lead=FirstLead.FIVE_PLAYER,
    twelve_trick_win=True,
    game_length=None,
    tie_break=TieBreak.NONE,
)

#: The named presets of RULES.md.
PRESETS: Final[dict[str, Rules]] = {
    "sergeant-major": SERGEANT_MAJOR,
    "ucbessekiz": UCBESSEKIZ,
    "online-18": ONLINE_18,
    "pagat": PAGAT,
}
