"""Game records (our PGN): read the JSON, validate its shape, replay a 3-5-8 record.

A record is what a table writes and anyone can replay (docs/record-format.md). Everything malformed
raises :class:`~engine.errors.RecordError` naming the field path and the bad value, such as
``hands[0].plays[3].card: not a card: 'ZZ'``; what is well-formed but against the rules is not an
error here: the replay records it as a violation, and ``cardtable check`` reports it.

Hands with a ``deal`` replay in full knowledge; hands without one in table knowledge, as at a real
table. Makao records (``"game": "makao"``) are parsed by :mod:`engine.makao.records`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from engine.cards import Card, CardError
from engine.errors import IllegalActionError, RecordError
from engine.threefiveeight.hand import Deal, Hand
from engine.threefiveeight.rules import PRESETS, Contract, ExchangeTiming, Rules, rules_from_json
from engine.threefiveeight.session import RECORD_FORMAT, RoleError, Session

__all__ = ["RECORD_FORMAT", "load_json", "replay_358"]

_TOP_KEYS: Final = {"format", "game", "preset", "players", "hands", "rules", "first_dealer", "description", "meta"}
_HAND_KEYS: Final = {"dealer", "declarer", "deal", "exchange", "contract", "discards", "plays", "meta"}


def load_json(data: bytes | str, source: str = "record") -> Any:
    """Parse JSON text strictly: bad UTF-8, bad syntax, NaN and duplicate keys are RecordErrors."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                "", f"{source} is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})"
            ) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise RecordError("", f"{source} is empty")

    def no_constants(name: str) -> Any:
        raise RecordError("", f"{source} is not valid JSON: {name} is not a number JSON allows")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise RecordError("", f"{source} is not valid: the key {key!r} appears twice in one object")
            out[key] = value
        return out

    try:
        return json.loads(text, parse_constant=no_constants, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise RecordError(
            "", f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise RecordError("", f"{source} is nested too deeply to be a record") from None


# ---------------------------------------------------------------------------------------------- helpers


def _obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object, got {_show(value)}")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(path, f"expected a list, got {_show(value)}")
    return value


def _seat(value: Any, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 3:
        raise RecordError(path, f"expected a seat 0, 1 or 2 (an index into players), got {_show(value)}")
    return value


def _card(value: Any, path: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(path, f"expected a card such as '10H', got {_show(value)}")
    try:
        card = Card.from_text(value)
    except CardError as exc:
        raise RecordError(path, str(exc)) from None
    if card.copy:
        raise RecordError(path, f"{value!r} names a second-deck copy; 3-5-8 uses one deck")
    return card


def _cards(value: Any, path: str, count: int | None = None, what: str = "cards") -> list[Card]:
    items = _list(value, path)
    if count is not None and len(items) != count:
        raise RecordError(path, f"{what}: expected {count} cards, got {len(items)}")
    cards = [_card(v, f"{path}[{i}]") for i, v in enumerate(items)]
    seen: dict[Card, int] = {}
    for i, card in enumerate(cards):
        if card in seen:
            raise RecordError(f"{path}[{i}]", f"{card} appears twice (also at [{seen[card]}])")
        seen[card] = i
    return cards


def _unknown_keys(obj: dict[str, Any], allowed: set[str], path: str) -> None:
    for key in obj:
        if key not in allowed:
            where = f"{path}." if path else ""
            raise RecordError(f"{where}{key}", f"unknown field {key!r} (known: {', '.join(sorted(allowed))})")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    kind = {
        dict: "an object",
        list: "a list",
        str: "text",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    return f"{kind} {text}" if value is not None else "null"


def _action(path: str, fn: Callable[[], object]) -> None:
    """Run a replay step; an action the engine cannot apply at all makes the record malformed."""
    try:
        fn()
    except IllegalActionError as exc:
        raise RecordError(path, exc.reason) from None
    except ValueError as exc:
        raise RecordError(path, str(exc)) from None


# ---------------------------------------------------------------------------------------------- 3-5-8


def header(data: Any) -> tuple[dict[str, Any], str]:
    """The top-level object and its ``game``, with ``format`` checked."""
    top = _obj(data, "(top level)")
    if "format" not in top:
        raise RecordError("format", f'missing: a record starts with "format": "{RECORD_FORMAT}"')
    if top["format"] != RECORD_FORMAT:
        raise RecordError("format", f"expected {RECORD_FORMAT!r}, got {_show(top['format'])}")
    if "game" not in top:
        raise RecordError("game", 'missing: expected "358" or "makao"')
    game = top["game"]
    if game not in ("358", "makao"):
        raise RecordError("game", f'unknown game {_show(game)} (expected "358" or "makao")')
    return top, game


def rules_of(top: dict[str, Any]) -> Rules:
    preset = top.get("preset")
    if preset is None:
        raise RecordError("preset", f"missing: one of {', '.join(PRESETS)}")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RecordError("preset", f"unknown preset {_show(preset)} (expected one of {', '.join(PRESETS)})")
    rules = PRESETS[preset]
    if "rules" in top:
        overrides = _obj(top["rules"], "rules")
        try:
            rules = rules_from_json(rules, overrides)
        except ValueError as exc:
            raise RecordError("rules", str(exc)) from None
    return rules


def replay_358(data: Any) -> Session:
    """Validate a 3-5-8 record and replay it; the session holds every hand with its violations."""
    top, game = header(data)
    if game != "358":
        raise RecordError("game", f'expected "358" here, got {_show(game)}')
    _unknown_keys(top, _TOP_KEYS, "")
    rules = rules_of(top)
    if "players" not in top:
        raise RecordError("players", "missing: the three player names")
    players = _list(top["players"], "players")
    if len(players) != 3:
        raise RecordError("players", f"3-5-8 is for 3 players, got {len(players)}")
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"players[{i}]", f"expected a name, got {_show(name)}")
    if len(set(players)) != 3:
        raise RecordError("players", f"player names must differ: {players}")
    first_dealer = _seat(top["first_dealer"], "first_dealer") if "first_dealer" in top else 0
    if "hands" not in top:
        raise RecordError("hands", "missing: the list of hands (it may be empty)")
    hands = _list(top["hands"], "hands")
    session = Session(rules, players, first_dealer=first_dealer, strict=False)
    for i, raw in enumerate(hands):
        path = f"hands[{i}]"
        if session.is_over:
            raise RecordError(
                path, f"the game was over after hand {i} ({session.outcome().ended_by}); no hand may follow"
            )
        if session.hands and not session.hands[-1].is_complete:
            raise RecordError(
                f"hands[{i - 1}].plays",
                f"hand {i} stops after {len(session.hands[-1].plays)} of 48 cards; "
                "only the last hand may be unfinished",
            )
        _replay_hand(session, _obj(raw, path), path)
    return session


def _replay_hand(session: Session, raw: dict[str, Any], path: str) -> Hand:
    _unknown_keys(raw, _HAND_KEYS, path)
    rules = session.rules
    dealer = _seat(raw["dealer"], f"{path}.dealer") if "dealer" in raw else None
    declarer = _seat(raw["declarer"], f"{path}.declarer") if "declarer" in raw else None
    deal = None
    if "deal" in raw:
        d = _obj(raw["deal"], f"{path}.deal")
        _unknown_keys(d, {"hands", "kitty"}, f"{path}.deal")
        for key in ("hands", "kitty"):
            if key not in d:
                raise RecordError(f"{path}.deal.{key}", "missing")
        hand_lists = _list(d["hands"], f"{path}.deal.hands")
        if len(hand_lists) != 3:
            raise RecordError(f"{path}.deal.hands", f"expected 3 hands, got {len(hand_lists)}")
        cards = [_cards(h, f"{path}.deal.hands[{s}]", 16, f"seat {s}'s hand") for s, h in enumerate(hand_lists)]
        kitty = _cards(d["kitty"], f"{path}.deal.kitty", 4, "the kitty")
        seen: dict[Card, str] = {}
        for where, group in [
            *((f"{path}.deal.hands[{s}]", c) for s, c in enumerate(cards)),
            (f"{path}.deal.kitty", kitty),
        ]:
            for j, card in enumerate(group):
                if card in seen:
                    raise RecordError(f"{where}[{j}]", f"{card} is dealt twice (also in {seen[card]})")
                seen[card] = where
        deal = Deal.from_cards(cards, kitty)
    try:
        hand = session.new_hand(deal=deal, dealer=dealer, declarer=declarer)
    except RoleError as exc:
        raise RecordError(f"{path}.{exc.field}", str(exc)) from None

    contract: Contract | None = None
    if "contract" in raw:
        text = raw["contract"]
        try:
            contract = Contract.from_text(text) if isinstance(text, str) else None
        except ValueError:
            contract = None
        if contract is None:
            raise RecordError(f"{path}.contract", f"expected one of S H D C NT MISERE PASS, got {_show(text)}")

    steps = _list(raw.get("exchange", []), f"{path}.exchange")

    def do_exchange() -> None:
        for j, step in enumerate(steps):
            spath = f"{path}.exchange[{j}]"
            e = _obj(step, spath)
            _unknown_keys(e, {"from", "to", "give", "back"}, spath)
            for key in ("from", "to", "give"):
                if key not in e:
                    raise RecordError(f"{spath}.{key}", "missing")
            giver = _seat(e["from"], f"{spath}.from")
            receiver = _seat(e["to"], f"{spath}.to")
            if giver == receiver:
                raise RecordError(f"{spath}.to", f"a player cannot hand a card to himself (seat {giver})")
            give = _card(e["give"], f"{spath}.give")
            back = _card(e["back"], f"{spath}.back") if e.get("back") is not None else None
            _action(spath, partial(hand.give, giver, receiver, give, back))

    def do_contract() -> None:
        if contract is not None:
            _action(f"{path}.contract", lambda: hand.set_contract(contract))

    if rules.exchange_timing is ExchangeTiming.BEFORE_CONTRACT:
        do_exchange()
        do_contract()
    else:
        if steps and contract is None:
            raise RecordError(f"{path}.contract", "missing: in this game the exchange follows the contract")
        do_contract()
        do_exchange()
    if steps or "discards" in raw or raw.get("plays"):
        hand.close_exchange()

    plays = _list(raw.get("plays", []), f"{path}.plays")
    if contract is Contract.PASS:
        if plays or "discards" in raw:
            raise RecordError(
                f"{path}.plays" if plays else f"{path}.discards",
                "a passed hand (PASS) is redealt: it has no discards and no plays",
            )
        return hand
    if contract is None and (plays or "discards" in raw):
        raise RecordError(f"{path}.contract", "missing: cards were played, so a contract was named")
    if "discards" in raw:
        discards = _cards(raw["discards"], f"{path}.discards", 4, "the declarer's discards")
        _action(f"{path}.discards", lambda: hand.take_kitty(discards))
    if len(plays) > 48:
        raise RecordError(f"{path}.plays", f"a hand has 48 cards (16 tricks), got {len(plays)}")
    for j, p in enumerate(plays):
        ppath = f"{path}.plays[{j}]"
        play = _obj(p, ppath)
        _unknown_keys(play, {"seat", "card"}, ppath)
        for key in ("seat", "card"):
            if key not in play:
                raise RecordError(f"{ppath}.{key}", "missing")
        seat = _seat(play["seat"], f"{ppath}.seat")
        card = _card(play["card"], f"{ppath}.card")
        _action(ppath, partial(hand.play, seat, card))
    return hand
