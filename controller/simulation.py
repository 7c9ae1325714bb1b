"""Simulated players at a table: a bots' game turned into what people do at the felt.

The bots play a whole game in the engine's full mode (the truth: every hand known). From it this
module writes the *script* of physical actions a table would see: cards placed into seat zones, tricks
collected, cards shown, buttons pressed. The script drives two things:

- :func:`direct_inputs`: the vision events a perfect camera would report (tests, the SIGKILL test);
- the demo's synthetic table renderer, whose frames go through the real recogniser and tracker.

The truth (``Truth``) stays with the caller for the report: true trick winners and true scores.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, Rank, Suit
from engine.threefiveeight.bots import RandomBot, SimpleBot, play_hand, random_deal
from engine.threefiveeight.rules import PRESETS, Contract, ExchangeTiming, KittyMode, Rules, TargetsLayout
from engine.threefiveeight.session import Session
from hardware.events import Press, SeatButton
from vision.events import CardPlaced, CardRemoved, ZoneCleared

__all__ = [
    "Collect",
    "Gather",
    "MakaoTruth",
    "Pick",
    "Place",
    "Truth",
    "direct_inputs",
    "script_358",
    "script_makao",
]

TWO_OF_CLUBS = Card(Rank.TWO, Suit.CLUBS)
CONTRACT_ORDER = ("S", "H", "D", "C", "NT", "MISERE")


@dataclass(frozen=True, slots=True)
class _CardInZone:
    """A seat's card and the zone it is in (``seatN`` unless another zone is named)."""

    seat: int
    card: Card
    zone: str = ""

    @property
    def where(self) -> str:
        return self.zone or f"seat{self.seat}"


@dataclass(frozen=True, slots=True)
class Place(_CardInZone):
    """A player lays ``card`` face up in ``zone`` (``seatN`` by default)."""


@dataclass(frozen=True, slots=True)
class Pick(_CardInZone):
    """A shown card is taken back into the hand."""


@dataclass(frozen=True, slots=True)
class Collect:
    """The trick's winner sweeps the cards of ``seats``' zones."""

    seats: tuple[int, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class Gather:
    """Makao: the stock ran out, so ``seat`` takes the pile from under its top card and shuffles it into a
    new stock (before drawing, and before pressing the button that says so)."""

    seat: int
    zone: str = "pile"


Action = Place | Pick | Collect | Gather | SeatButton


@dataclass
class Truth:
    """What really happened: the full-mode session, and per hand the trick winners in order."""

    session: Session
    winners: list[list[int]] = field(default_factory=list)

    @property
    def scores(self) -> tuple[int, int, int]:
        return self.session.totals


def _contract_presses(rules: Rules, hand_contracts_left: frozenset[Contract] | None, contract: Contract) -> int:
    allowed = hand_contracts_left if hand_contracts_left is not None else rules.contracts
    options = [c for c in CONTRACT_ORDER if Contract(c) in allowed]
    if rules.pass_redeal:
        options.append("PASS")
    return options.index(contract.value) + 1


def script_358(
    preset: str | Rules = "sergeant-major",
    *,
    seed: int = 0,
    hands: int = 1,
    players: Sequence[str] = ("Ada", "Ben", "Cem"),
    smart: bool = True,
) -> tuple[list[Action], Truth]:
    """Bots play ``hands`` hands (fewer if the game ends first); returns the table script and the truth.

    Roles follow the session from dealer seat 0, the same as a referee started fresh.
    """
    rules = preset if isinstance(preset, Rules) else PRESETS[preset]
    rng = random.Random(seed)
    bot_cls = SimpleBot if smart else RandomBot
    bots = [bot_cls(rng.randrange(1 << 30), pass_rate=0.1) for _ in range(3)]
    session = Session(rules, players, first_dealer=0)
    truth = Truth(session)
    actions: list[Action] = []
    for _ in range(hands):
        if session.is_over:
            break
        deal = random_deal(rng)
        first_by_2c = rules.targets_layout is TargetsLayout.BY_2C_THEN_ROTATE and not session.hands
        hand = session.new_hand(deal=deal)
        if first_by_2c:
            holder = hand.eight
            lowest = next(
                c
                for c in deal.cards(holder)
                if c.suit is Suit.CLUBS and all(k.rank >= c.rank for k in deal.cards(holder) if k.suit is Suit.CLUBS)
            )
            # Whoever holds 2♣ shows it (if 2♣ is in the kitty, the holder of the lowest club shows that;
            # the referee then needs the operator: the demo avoids it by showing 2♣'s stand-in).
            shown = TWO_OF_CLUBS if TWO_OF_CLUBS in deal.cards(holder) else lowest
            actions += [Place(holder, shown), Pick(holder, shown)]
        before = rules.exchange_timing is ExchangeTiming.BEFORE_CONTRACT
        due = hand.exchange_due
        contracts_left = hand.contracts_left
        play_hand(hand, bots)
        contract = hand.contract
        assert contract is not None
        if before and due:
            actions += [SeatButton(r, Press.SHORT) for r in sorted({d.receiver for d in due})]
        presses = _contract_presses(rules, contracts_left, contract)
        actions += [SeatButton(hand.eight, Press.SHORT)] * presses + [SeatButton(hand.eight, Press.LONG)]
        if contract is Contract.PASS:
            truth.winners.append([])
            continue
        eff_due = hand.effective_exchange_due
        if not before and eff_due:
            if rules.kitty_mode is KittyMode.PICKUP_THEN_DISCARD:
                actions.append(SeatButton(hand.eight, Press.SHORT))
            actions += [SeatButton(r, Press.SHORT) for r in sorted({d.receiver for d in eff_due})]
        else:
            actions.append(SeatButton(hand.eight, Press.SHORT))
        winners = []
        for trick in hand.tricks:
            for seat, card in zip(trick.seats, trick.cards, strict=True):
                actions.append(Place(seat, card))
            assert trick.winner is not None
            actions.append(Collect(tuple(trick.seats), trick.winner))
            winners.append(trick.winner)
        truth.winners.append(winners)
    return actions, truth


def direct_inputs(actions: Sequence[Action], *, fps: float = 10.0) -> Iterator[object]:
    """The inputs a perfect camera and the buttons would give the referee for ``actions``."""
    frame = 0
    for action in actions:
        frame += 5
        t = frame / fps
        if isinstance(action, Place):
            yield CardPlaced(
                action.where,
                action.card,
                0.99,
                candidates=((action.card, 0.99),),
                frame=frame,
                t=t,
                still_frame=frame - 2,
                still_t=t - 2 / fps,
            )
        elif isinstance(action, Pick):
            yield CardRemoved(action.where, action.card, frame=frame, t=t)
        elif isinstance(action, Collect):
            for seat in action.seats:
                yield ZoneCleared(f"seat{seat}", frame=frame, t=t)
        elif isinstance(action, Gather):
            continue  # the top card stays: nothing a camera reports changes
        else:
            yield action


@dataclass
class MakaoTruth:
    """The full-mode Makao game the bots played, and its actions as ``(seat, action)``."""

    game: Any
    turns: list[tuple[int, Any]] = field(default_factory=list)


def script_makao(
    preset: str = "makao",
    *,
    seed: int = 0,
    players: Sequence[str] = ("Ada", "Ben", "Cem"),
    max_turns: int = 2000,
) -> tuple[list[Action], MakaoTruth]:
    """Bots play a whole Makao game; the script lays each played card on the pile and presses buttons.

    When a player must draw from an empty stock, he first takes the pile from under its top card (``Gather``), as
    the rules have it, so a card played again later lands on the pile a second time, not a copy of it.

    A play ends with the player's short press; a jack's or an ace's demand is chosen by short presses
    (cycling from "no demand") and confirmed with a long press. Draw, accept and pass are short presses.
    """
    from controller.referee.makao import PILE, demand_options
    from engine.makao.actions import Play as MakaoPlay
    from engine.makao.bots import SimpleBot as MakaoBot
    from engine.makao.game import MakaoGame
    from engine.makao.rules import PRESETS as MAKAO_PRESETS

    rules = MAKAO_PRESETS[preset]
    game = MakaoGame.deal(rules, players, seed=seed)
    truth = MakaoTruth(game)
    bots = [MakaoBot(seed * 10 + i) for i in range(len(players))]
    actions: list[Action] = [Place(0, game.starter[-1], zone=PILE)]
    while not game.is_over and len(truth.turns) < max_turns:
        seat = game.to_move
        assert seat is not None
        action = bots[seat].choose(game)
        reshuffles = game.reshuffles
        game.push(action)
        truth.turns.append((seat, action))
        if game.reshuffles > reshuffles:
            actions.append(Gather(seat, zone=PILE))
        if isinstance(action, MakaoPlay):
            actions += [Place(seat, card, zone=PILE) for card in action.cards]
            options = demand_options(rules, action.cards[-1])
            if options:
                index = options.index(action.demand)
                actions += [SeatButton(seat, Press.SHORT)] * (index + 1) + [SeatButton(seat, Press.LONG)]
            else:
                actions.append(SeatButton(seat, Press.SHORT))
        else:
            actions.append(SeatButton(seat, Press.SHORT))
    return actions, truth
