"""Whole bot games (FULL mode) turned into feed events and state snapshots, step by step, the way the
controller does at a real table, with the engine's truth of which cards are hidden at each step.

Used by the leak test; also a worked example of the event and state schema in docs/mqtt-topics.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, deck
from engine.makao.actions import Accept, Draw, Pass, Play, demand_text
from engine.makao.bots import SimpleBot as MakaoBot
from engine.makao.game import MakaoGame
from engine.makao.rules import preset as makao_preset
from engine.threefiveeight.bots import SimpleBot, random_deal
from engine.threefiveeight.hand import Hand
from engine.threefiveeight.rules import PRESETS, Contract
from engine.threefiveeight.session import Session
from engine.threefiveeight.view import public_view
from engine.tricks import CARD_OF

ROLE_NAMES = {8: "declarer (8)", 5: "five", 3: "three"}


@dataclass(frozen=True)
class Step:
    """One thing that happened: an event, the snapshot after it, and the cards hidden at that moment."""

    type: str
    data: dict[str, Any]
    state: dict[str, Any]
    hidden: frozenset[Card]


@dataclass
class _Scores:
    rows: list[dict[str, Any]] = field(default_factory=list)


def snapshot_358(session: Session, hand: Hand, scores: _Scores, preset: str, message: str = "") -> dict[str, Any]:
    """The public state: built only from the engine's public view and the session's totals."""
    view: dict[str, Any] = public_view(hand)
    players = []
    for seat, name in enumerate(view["players"]):
        players.append(
            {
                "seat": seat,
                "name": name,
                "role": ROLE_NAMES.get(view["roles"][seat], "") + (" · deals" if seat == view["dealer"] else ""),
                "target": view["targets"][seat],
                "tricks": view["taken"][seat],
                "cards_left": view["cards_left"][seat],
            }
        )
    current = view["current_trick"]
    trick_cards = [{"seat": s, "card": c} for s, c in zip(current["seats"], current["cards"], strict=True)]
    winner = None
    if not trick_cards and hand.tricks:  # the last full trick stays on show until the next lead
        last = hand.tricks[-1]
        trick_cards = [{"seat": seat, "card": str(c)} for seat, c in zip(last.seats, last.cards, strict=True)]
        winner = last.winner
    contract = view["contract"]
    return {
        "v": 1,
        "game": "358",
        "preset": preset,
        "phase": view["phase"],
        "message": message,
        "hand": {"number": view["hand"]},
        "turn": view["to_move"],
        "players": players,
        "contract": None
        if contract is None
        else {
            "declarer": view["declarer"],
            "trump": contract if contract in ("S", "H", "D", "C") else None,
            "label": Contract(contract).noun,
        },
        "trick": {"number": current["number"], "cards": trick_cards, "winner": winner},
        "scores": {"columns": list(view["players"]), "rows": list(scores.rows), "totals": list(session.totals)},
        "violations": view["violations"],
    }


def game_358(seed: int, preset: str = "online-18", max_hands: int = 18) -> Iterator[Step]:
    rules = PRESETS[preset]
    rng = random.Random(seed)
    session = Session(rules, ("Ada", "Ben", "Cem"), first_dealer=rng.randrange(3))
    bots = [SimpleBot(rng.randrange(1 << 30)) for _ in range(3)]
    scores = _Scores()
    everything = frozenset(deck())
    hand: Hand | None = None

    def step(kind: str, data: dict[str, Any], message: str = "") -> Step:
        assert hand is not None
        hidden = everything - {card for _, card in hand.plays}
        return Step(kind, data, snapshot_358(session, hand, scores, preset, message), hidden)

    for _ in range(max_hands):
        if session.is_over:
            break
        hand = session.new_hand(deal=random_deal(rng))
        yield step(
            "hand_started",
            {"hand": hand.number, "dealer": hand.dealer, "declarer": hand.eight, "targets": list(hand.targets)},
        )
        before = rules.exchange_timing.value == "before-contract"

        def exchange(h: Hand = hand) -> Iterator[Step]:
            for due in h.effective_exchange_due:
                for g in bots[due.giver].gives(h, due.giver, due.count):
                    h.give(due.giver, due.receiver, CARD_OF[g])
                    yield step("exchange", {"from": due.giver, "to": due.receiver, "count": 1})

        if before:
            yield from exchange()
        contract = bots[hand.eight].contract(hand)
        hand.set_contract(contract)
        yield step(
            "contract",
            {"declarer": hand.eight, "contract": contract.value, "trump": hand.trump.value if hand.trump else None},
        )
        if contract is Contract.PASS:
            continue
        if not before:
            yield from exchange()
        hand.take_kitty([CARD_OF[c] for c in bots[hand.eight].discards(hand)])
        yield step("kitty_taken", {"declarer": hand.eight})
        while not hand.is_complete:
            seat = hand.to_move
            card = CARD_OF[bots[seat].card(hand)]
            result = hand.play(seat, card)
            yield step("card_played", {"seat": seat, "card": str(card), "trick": hand.trick_number})
            for violation in result.violations:
                yield step("violation", violation.to_json())
            if result.trick is not None:
                yield step(
                    "trick_won",
                    {
                        "seat": result.trick.winner,
                        "trick": result.trick.number,
                        "cards": [str(c) for c in result.trick.cards],
                    },
                )
        score = hand.score()
        if score is not None:
            scores.rows.append({"hand": hand.number, "values": list(score)})
            yield step("hand_scored", {"hand": hand.number, "scores": list(score), "totals": list(session.totals)})
    if hand is not None:
        yield step("game_over", {"totals": list(session.totals), "text": "game over"})


def game_makao(seed: int, players: int = 4, max_turns: int = 400) -> Iterator[Step]:
    names = ["Ada", "Ben", "Cem", "Dot", "Eve", "Fay"][:players]
    game = MakaoGame.deal(makao_preset("makao"), names, seed=seed)
    bots = [MakaoBot(seed * 10 + i) for i in range(players)]

    def step(kind: str, data: dict[str, Any]) -> Step:
        view = game.public_view()
        hidden = set(game.cards_in_play()) - set(game.pile)
        state = {
            "v": 1,
            "game": "makao",
            "preset": view["preset"],
            "phase": view["phase"],
            "turn": view["to_move"],
            "players": [
                {"seat": s, "name": n, "cards_left": view["cards_left"][s], "out": s in view["out"]}
                for s, n in enumerate(view["players"])
            ],
            "makao": {
                "pile_top": view["top"],
                "stock": view["stock_size"],
                "pending_draw": (view["penalty"] or {}).get("cards", 0),
                "pending_skip": (view["skip"] or {}).get("turns", 0),
                "demand": view["demand"],
            },
        }
        return Step(kind, data, state, frozenset(hidden))

    yield step("hand_started", {"hand": 1, "players": names})
    turns = 0
    while not game.is_over and turns < max_turns:
        seat = game.to_move
        assert seat is not None
        action = bots[seat].choose(game)
        game.play(action)
        turns += 1
        if isinstance(action, Play):
            data: dict[str, Any] = {"seat": seat, "card": str(action.cards[-1])}
            data["cards"] = [str(c) for c in action.cards]
            if action.demand is not None:
                data["demand"] = demand_text(action.demand)
            yield step("card_played", data)
        elif isinstance(action, Draw):
            yield step("drew", {"seat": seat, "count": 1})  # never which card: it is hidden
        elif isinstance(action, Accept):
            yield step("penalty_accepted", {"seat": seat})
        elif isinstance(action, Pass):
            yield step("passed", {"seat": seat})
    outcome = game.outcome()
    yield step("game_over", {"outcome": None if outcome is None else outcome.to_dict()})


GAMES: dict[str, Callable[[int], Iterator[Step]]] = {"358": game_358, "makao": game_makao}
