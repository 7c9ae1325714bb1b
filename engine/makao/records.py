"""Makao game records (JSON, ``"game": "makao"``): validation, replay and the ``cardtable check`` report.

A record is what a table writes and anyone can replay. With a ``deal`` (every hand, the starter and
the stock order) it is replayed in FULL mode and every illegal action is found; without one it is
replayed in TABLE mode, as the table saw it, and only what is provable is flagged. The format is
documented in docs/record-format-makao.md.

Malformed input raises :class:`~engine.errors.RecordError` naming the field path and the value;
rule violations are never errors, they are listed in the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.cards import Card, CardError, Rank, Suit
from engine.errors import RecordError
from engine.makao.actions import Accept, Action, Demand, Draw, Pass, Play, Rule, Violation, demand_text
from engine.makao.game import MakaoGame
from engine.makao.rules import PRESETS, MakaoRules, StarterRule

__all__ = ["FORMAT", "MakaoRecord", "check_record", "parse_record", "record_of"]

FORMAT: Final = "cardtable-record/1"
_TOP_KEYS: Final = {"format", "game", "preset", "players", "decks", "first", "deal", "starter", "turns", "meta"}
_DEAL_KEYS: Final = {"hands", "starter", "stock", "reshuffle_seed"}
_TURN_KEYS: Final = {"seat", "action", "cards", "demand", "makao"}
_ACTIONS: Final = ("play", "draw", "pass", "accept")


@dataclass(frozen=True, slots=True)
class Deal:
    hands: tuple[tuple[Card, ...], ...]
    starter: tuple[Card, ...]
    stock: tuple[Card, ...]
    """Top card first."""
    reshuffle_seed: int = 0


@dataclass(frozen=True, slots=True)
class MakaoRecord:
    """A validated record."""

    rules: MakaoRules
    players: tuple[str, ...]
    first: int
    starter: tuple[Card, ...]
    turns: tuple[tuple[int, Action], ...]
    deal: Deal | None = None

    def new_game(self) -> MakaoGame:
        """The game at its start: FULL mode with a deal, TABLE mode without."""
        if self.deal is None:
            return MakaoGame.table(self.rules, self.players, self.starter, first=self.first)
        d = self.deal
        return MakaoGame.from_deal(
            self.rules, self.players, d.hands, d.starter, d.stock, first=self.first, reshuffle_seed=d.reshuffle_seed
        )


def _type_name(value: object) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _object(value: object, path: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object, got {_type_name(value)} {value!r}"[:200])
    for key in value:
        if key not in allowed:
            raise RecordError(
                f"{path}.{key}" if path else str(key), f"unknown field (allowed: {', '.join(sorted(allowed))})"
            )
    return value


def _list(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(path, f"expected a list, got {_type_name(value)} {value!r}"[:200])
    return value


def _int(value: object, path: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(path, f"expected an integer, got {_type_name(value)} {value!r}")
    if not low <= value <= high:
        raise RecordError(path, f"{value} is out of range {low}..{high}")
    return value


def _card(value: object, path: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(path, f"expected a card such as '10H', got {_type_name(value)} {value!r}")
    try:
        return Card.from_text(value)
    except CardError as exc:
        raise RecordError(path, str(exc)) from None


def _cards(value: object, path: str) -> list[Card]:
    return [_card(item, f"{path}[{i}]") for i, item in enumerate(_list(value, path))]


def _starter(value: object, path: str) -> list[Card]:
    cards = [_card(value, path)] if isinstance(value, str) else _cards(value, path)
    if not cards:
        raise RecordError(path, "expected at least one card turned up")
    return cards


def _demand(value: object, path: str) -> Demand:
    if not isinstance(value, str):
        raise RecordError(path, f"expected a rank (5..10, Q) or a suit (S H D C), got {_type_name(value)} {value!r}")
    text = value.strip().upper()
    try:
        if text in ("S", "H", "D", "C", "♠", "♥", "♦", "♣"):
            return Suit.from_text(text)
        return Rank.from_text(text)
    except CardError:
        raise RecordError(path, f"not a rank or a suit: {value!r}") from None


def _assign_copies(cards: list[tuple[str, Card]], decks: int) -> list[Card]:
    """Give faces written without ``#copy`` the next free copy, so two-deck deals may write ``7H`` twice.

    :raises RecordError: for a card dealt more often than the decks hold it.
    """
    seen: dict[Card, str] = {}
    result = []
    for path, card in cards:
        if card.copy >= decks:
            raise RecordError(path, f"{card} is copy {card.copy}, but this table uses {decks} deck(s)")
        if card in seen:
            if card.copy == 0 and decks > 1:
                for copy in range(1, decks):
                    other = Card(card.rank, card.suit, copy)
                    if other not in seen:
                        card = other
                        break
            if card in seen:
                raise RecordError(path, f"{card} is dealt twice (also at {seen[card]})")
        seen[card] = path
        result.append(card)
    return result


def _parse_deal(value: object, rules: MakaoRules, n: int) -> Deal:
    deal = _object(value, "deal", _DEAL_KEYS)
    for key in ("hands", "starter", "stock"):
        if key not in deal:
            raise RecordError(f"deal.{key}", "missing (a deal lists every hand, the starter and the stock)")
    hands = _list(deal["hands"], "deal.hands")
    if len(hands) != n:
        raise RecordError("deal.hands", f"expected {n} hands (one per player), got {len(hands)}")
    flat: list[tuple[str, Card]] = []
    for i, hand in enumerate(hands):
        cards = _cards(hand, f"deal.hands[{i}]")
        if len(cards) != rules.hand_size:
            raise RecordError(f"deal.hands[{i}]", f"expected {rules.hand_size} cards, got {len(cards)}")
        flat += [(f"deal.hands[{i}][{j}]", c) for j, c in enumerate(cards)]
    raw_starter = deal["starter"]
    starter = _starter(raw_starter, "deal.starter")
    if isinstance(raw_starter, str):
        flat.append(("deal.starter", starter[0]))
    else:
        flat += [(f"deal.starter[{j}]", c) for j, c in enumerate(starter)]
    flat += [(f"deal.stock[{j}]", c) for j, c in enumerate(_cards(deal["stock"], "deal.stock"))]
    decks = rules.decks_for(n)
    cards = _assign_copies(flat, decks)
    if len(cards) != 52 * decks:
        present = set(cards)
        missing = [
            str(Card.from_index(i, c)) for c in range(decks) for i in range(52) if Card.from_index(i, c) not in present
        ]
        raise RecordError(
            "deal",
            f"hands, starter and stock hold {len(cards)} cards, not {52 * decks}; missing: {' '.join(missing[:12])}",
        )
    size = rules.hand_size
    hand_cards = tuple(tuple(cards[i * size : (i + 1) * size]) for i in range(n))
    k = len(starter)
    seed = _int(deal.get("reshuffle_seed", 0), "deal.reshuffle_seed", 0, 2**63 - 1)
    return Deal(hand_cards, tuple(cards[n * size : n * size + k]), tuple(cards[n * size + k :]), seed)


def _parse_turn(value: object, path: str, n: int) -> tuple[int, Action]:
    turn = _object(value, path, _TURN_KEYS)
    if "seat" not in turn:
        raise RecordError(f"{path}.seat", "missing")
    seat = _int(turn["seat"], f"{path}.seat", 0, n - 1)
    kind = turn.get("action")
    if kind not in _ACTIONS:
        raise RecordError(f"{path}.action", f"expected one of {', '.join(_ACTIONS)}, got {kind!r}")
    if kind != "play":
        for key in ("cards", "demand", "makao"):
            if key in turn:
                raise RecordError(f"{path}.{key}", f"only a play has {key}")
        simple: dict[str, Action] = {"draw": Draw(), "pass": Pass(), "accept": Accept()}
        return seat, simple[kind]
    if "cards" not in turn:
        raise RecordError(f"{path}.cards", "missing (a play lists the cards laid, in order)")
    cards = _cards(turn["cards"], f"{path}.cards")
    if not cards:
        raise RecordError(f"{path}.cards", "a play needs at least one card")
    demand = None if turn.get("demand") is None else _demand(turn["demand"], f"{path}.demand")
    makao = turn.get("makao", False)
    if not isinstance(makao, bool):
        raise RecordError(f"{path}.makao", f"expected true or false, got {makao!r}")
    return seat, Play(tuple(cards), demand, makao)


def parse_record(data: object) -> MakaoRecord:
    """Validate a decoded JSON record.

    :raises RecordError: naming the first malformed field and its value.
    """
    top = _object(data, "", _TOP_KEYS)
    if top.get("format") != FORMAT:
        raise RecordError("format", f"expected {FORMAT!r}, got {top.get('format')!r}")
    if top.get("game") != "makao":
        raise RecordError("game", f"expected 'makao', got {top.get('game')!r}")
    name = top.get("preset")
    if not isinstance(name, str) or name not in PRESETS:
        raise RecordError("preset", f"unknown Makao preset {name!r} (known: {', '.join(sorted(PRESETS))})")
    rules = PRESETS[name]
    if "players" not in top:
        raise RecordError("players", "missing (the players' names, one per seat, clockwise)")
    players = _list(top["players"], "players")
    if not rules.min_players <= len(players) <= rules.max_players:
        raise RecordError(
            "players", f"Makao needs {rules.min_players} to {rules.max_players} players, got {len(players)}"
        )
    for i, player in enumerate(players):
        if not isinstance(player, str) or not player.strip():
            raise RecordError(f"players[{i}]", f"expected a non-empty name, got {player!r}")
    n = len(players)
    if "decks" in top:
        decks = _int(top["decks"], "decks", 1, 2)
        if decks != rules.decks_for(n):
            raise RecordError("decks", f"{n} players use {rules.decks_for(n)} deck(s), not {decks}")
    first = _int(top.get("first", 0), "first", 0, n - 1)
    deal = None
    if "deal" in top:
        if "starter" in top:
            raise RecordError("starter", "given twice: with a deal the starter is deal.starter")
        deal = _parse_deal(top["deal"], rules, n)
        starter = deal.starter
    else:
        if "starter" not in top:
            raise RecordError("starter", "missing (without a deal the record names the card turned up)")
        starter = tuple(_starter(top["starter"], "starter"))
        too_many = [c for c in starter if c.copy >= rules.decks_for(n)]
        if too_many:
            raise RecordError("starter", f"{too_many[0]} needs more decks than {n} players use")
    if "meta" in top and not isinstance(top["meta"], dict):
        raise RecordError("meta", f"expected an object, got {_type_name(top['meta'])}")
    if "turns" not in top:
        raise RecordError("turns", "missing (a list of the actions in order; it may be empty)")
    turns = tuple(_parse_turn(t, f"turns[{i}]", n) for i, t in enumerate(_list(top["turns"], "turns")))
    return MakaoRecord(rules, tuple(str(p) for p in players), first, tuple(starter), turns, deal)


def _starter_violations(record: MakaoRecord) -> list[Violation]:
    rules, starter = record.rules, record.starter
    if rules.starter is StarterRule.NO_EFFECT:
        if len(starter) > 1:
            return [Violation(0, record.first, Rule.STARTER, "only one card is turned up under this preset", starter)]
        return []
    for card in starter[:-1]:
        if not rules.is_functional(card):
            reason = f"{card} is a plain card: turning should have stopped there"
            return [Violation(0, record.first, Rule.STARTER, reason, starter)]
    if rules.is_functional(starter[-1]):
        reason = f"{starter[-1]} is a battle card, 4, J or A: turning should go on"
        return [Violation(0, record.first, Rule.STARTER, reason, starter)]
    return []


def replay(record: MakaoRecord) -> MakaoGame:
    """The game after every turn of *record* (violations recorded in ``game.violations``)."""
    game = record.new_game()
    for seat, action in record.turns:
        game.observe(seat, action)
    return game


def check_record(data: dict[str, Any]) -> dict[str, Any]:
    """Replay a decoded record and report on it (the ``cardtable check`` output for Makao).

    :raises RecordError: for a malformed record.
    """
    record = parse_record(data)
    game = replay(record)
    violations = _starter_violations(record) + list(game.violations)
    outcome = game.outcome()
    view = game.public_view()
    return {
        "game": "makao",
        "preset": record.rules.name,
        "mode": game.knowledge.value,
        "players": list(record.players),
        "turns": len(record.turns),
        "violations": [v.to_dict() for v in violations],
        "out": list(game.out_order),
        "finished": outcome is not None,
        "ended_by": None if outcome is None else outcome.ended_by,
        "winner": outcome.out[0] if outcome is not None and outcome.out else None,
        "losers": [] if outcome is None else list(outcome.losers),
        "loser": outcome.losers[0] if outcome is not None and len(outcome.losers) == 1 else None,
        "cards_left": list(game.cards_left),
        "to_move": game.to_move,
        "top": str(game.top),
        "penalty": view["penalty"],
        "skip": view["skip"],
        "demand": view["demand"],
        "makao_penalties": [{"turn": t, "seat": s} for t, s in game.makao_penalties],
    }


def record_of(game: MakaoGame, turns: Sequence[tuple[int, Action]], *, with_deal: bool = True) -> dict[str, Any]:
    """A JSON-able record of *turns* played from *game*'s start (for simulations and tests).

    *with_deal* writes the deal of a FULL-mode game, so the record replays in FULL mode; without it
    the record names only the starter and replays in TABLE mode, as a real table would write it.
    """
    out: dict[str, Any] = {
        "format": FORMAT,
        "game": "makao",
        "preset": game.rules.name,
        "players": list(game.players),
        "decks": game.decks,
        "first": game.first,
    }
    if with_deal and game.initial_hands is not None:
        out["deal"] = {
            "hands": [[str(c) for c in h] for h in game.initial_hands],
            "starter": [str(c) for c in game.starter],
            "stock": [str(c) for c in game.initial_stock],
            "reshuffle_seed": game.reshuffle_seed,
        }
    else:
        out["starter"] = [str(c) for c in game.starter]
    rows = []
    for seat, action in turns:
        row: dict[str, Any] = {"seat": seat}
        if isinstance(action, Play):
            row["action"] = "play"
            row["cards"] = [str(c) for c in action.cards]
            if action.demand is not None:
                row["demand"] = demand_text(action.demand)
            if action.makao:
                row["makao"] = True
        else:
            row["action"] = {Draw: "draw", Pass: "pass", Accept: "accept"}[type(action)]
        rows.append(row)
    out["turns"] = rows
    return out
