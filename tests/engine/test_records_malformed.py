"""Malformed records: every kind gets a RecordError naming the field and the value (exit 2 in the CLI)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.check import check_record
from engine.errors import RecordError
from engine.records import load_json
from engine.threefiveeight.bots import simulate
from engine.threefiveeight.rules import PRESETS

GOOD = simulate(PRESETS["sergeant-major"], 11, max_hands=2).to_record()
GOOD["hands"] = GOOD["hands"][:2]


def edit(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    record = copy.deepcopy(GOOD)
    change(record)
    return record


def h0(r: dict[str, Any]) -> dict[str, Any]:
    return r["hands"][0]  # type: ignore[no-any-return]


def setitem(obj: dict[str, Any] | list[Any], key: Any, value: Any) -> None:
    obj[key] = value


CASES: list[tuple[str, Callable[[], Any], str, str]] = [
    # (id, record maker, expected path, a fragment of the message)
    ("top-not-object", lambda: [1, 2], "(top level)", "expected an object"),
    ("no-format", lambda: edit(lambda r: r.pop("format")), "format", "missing"),
    ("wrong-format", lambda: edit(lambda r: setitem(r, "format", "pgn")), "format", "'pgn'"),
    ("no-game", lambda: edit(lambda r: r.pop("game")), "game", "missing"),
    ("unknown-game", lambda: edit(lambda r: setitem(r, "game", "bridge")), "game", "'bridge'"),
    ("unknown-preset", lambda: edit(lambda r: setitem(r, "preset", "whist")), "preset", "'whist'"),
    ("preset-not-text", lambda: edit(lambda r: setitem(r, "preset", 358)), "preset", "358"),
    ("no-players", lambda: edit(lambda r: r.pop("players")), "players", "missing"),
    ("two-players", lambda: edit(lambda r: setitem(r, "players", ["Ada", "Ben"])), "players", "got 2"),
    ("blank-player", lambda: edit(lambda r: setitem(r["players"], 1, " ")), "players[1]", "expected a name"),
    ("same-names", lambda: edit(lambda r: setitem(r, "players", ["Ada", "Ada", "Cem"])), "players", "differ"),
    ("unknown-top-key", lambda: edit(lambda r: setitem(r, "hand", [])), "hand", "unknown field"),
    ("no-hands", lambda: edit(lambda r: r.pop("hands")), "hands", "missing"),
    ("hands-not-list", lambda: edit(lambda r: setitem(r, "hands", {})), "hands", "expected a list"),
    ("hand-not-object", lambda: edit(lambda r: setitem(r["hands"], 0, "AS")), "hands[0]", "expected an object"),
    ("unknown-hand-key", lambda: edit(lambda r: setitem(h0(r), "contrat", "S")), "hands[0].contrat", "unknown field"),
    ("dealer-out-of-range", lambda: edit(lambda r: setitem(h0(r), "dealer", 3)), "hands[0].dealer", "got a number 3"),
    ("dealer-bool", lambda: edit(lambda r: setitem(h0(r), "dealer", True)), "hands[0].dealer", "true"),
    (
        "dealer-against-rotation",
        lambda: edit(lambda r: setitem(r["hands"][1], "dealer", (h0(r)["dealer"] + 2) % 3)),
        "hands[1].dealer",
        "by the rotation",
    ),
    (
        "declarer-disagrees",
        lambda: edit(lambda r: setitem(h0(r), "declarer", (h0(r)["declarer"] + 1) % 3)),
        "hands[0].declarer",
        "the declarer is seat",
    ),
    ("deal-not-object", lambda: edit(lambda r: setitem(h0(r), "deal", [])), "hands[0].deal", "expected an object"),
    ("deal-no-kitty", lambda: edit(lambda r: h0(r)["deal"].pop("kitty")), "hands[0].deal.kitty", "missing"),
    ("deal-two-hands", lambda: edit(lambda r: h0(r)["deal"]["hands"].pop()), "hands[0].deal.hands", "expected 3 hands"),
    (
        "seventeen-cards",
        lambda: edit(lambda r: h0(r)["deal"]["hands"][1].append("AS")),
        "hands[0].deal.hands[1]",
        "expected 16 cards, got 17",
    ),
    (
        "kitty-three",
        lambda: edit(lambda r: h0(r)["deal"]["kitty"].pop()),
        "hands[0].deal.kitty",
        "expected 4 cards, got 3",
    ),
    (
        "bad-card-text",
        lambda: edit(lambda r: setitem(h0(r)["deal"]["hands"][0], 5, "1Z")),
        "hands[0].deal.hands[0][5]",
        "'1Z'",
    ),
    (
        "card-not-text",
        lambda: edit(lambda r: setitem(h0(r)["deal"]["hands"][0], 5, 10)),
        "hands[0].deal.hands[0][5]",
        "got a number 10",
    ),
    (
        "card-twice-in-deal",
        lambda: edit(lambda r: setitem(h0(r)["deal"]["kitty"], 0, h0(r)["deal"]["hands"][2][0])),
        "hands[0].deal.kitty[0]",
        "dealt twice",
    ),
    (
        "card-twice-in-one-hand",
        lambda: edit(lambda r: setitem(h0(r)["deal"]["hands"][0], 1, h0(r)["deal"]["hands"][0][0])),
        "hands[0].deal.hands[0][1]",
        "appears twice",
    ),
    (
        "second-deck-card",
        lambda: edit(lambda r: setitem(h0(r)["plays"][0], "card", "AS#1")),
        "hands[0].plays[0].card",
        "second-deck",
    ),
    ("unknown-contract", lambda: edit(lambda r: setitem(h0(r), "contract", "SPADES")), "hands[0].contract", "'SPADES'"),
    (
        "contract-not-in-preset",
        lambda: edit(lambda r: setitem(h0(r), "contract", "NT")),
        "hands[0].contract",
        "NT is not a contract in sergeant-major",
    ),
    ("pass-not-allowed", lambda: edit(lambda r: setitem(h0(r), "contract", "PASS")), "hands[0].contract", "no pass"),
    ("no-contract-but-plays", lambda: edit(lambda r: h0(r).pop("contract")), "hands[0].contract", "missing"),
    ("discards-three", lambda: edit(lambda r: h0(r)["discards"].pop()), "hands[0].discards", "expected 4 cards"),
    ("plays-not-list", lambda: edit(lambda r: setitem(h0(r), "plays", "AS KS")), "hands[0].plays", "expected a list"),
    ("play-no-card", lambda: edit(lambda r: h0(r)["plays"][4].pop("card")), "hands[0].plays[4].card", "missing"),
    (
        "play-seat-text",
        lambda: edit(lambda r: setitem(h0(r)["plays"][4], "seat", "Ben")),
        "hands[0].plays[4].seat",
        "'Ben'",
    ),
    (
        "play-unknown-key",
        lambda: edit(lambda r: setitem(h0(r)["plays"][4], "player", 1)),
        "hands[0].plays[4].player",
        "unknown field",
    ),
    (
        "too-many-plays",
        lambda: edit(lambda r: h0(r)["plays"].append({"seat": 0, "card": "AS"})),
        "hands[0].plays",
        "got 49",
    ),
    (
        "seat-plays-twice-in-a-trick",
        lambda: edit(lambda r: setitem(h0(r)["plays"], 1, dict(h0(r)["plays"][0], card="2S"))),
        "hands[0].plays[1]",
        "already played to trick 1",
    ),
    (
        "unfinished-hand-then-more",
        lambda: edit(lambda r: setitem(h0(r), "plays", h0(r)["plays"][:30])),
        "hands[0].plays",
        "only the last hand may be unfinished",
    ),
    (
        "exchange-to-self",
        lambda: edit(lambda r: setitem(r["hands"][1], "exchange", [{"from": 0, "to": 0, "give": "2S"}])),
        "hands[1].exchange[0].to",
        "himself",
    ),
    (
        "exchange-missing-give",
        lambda: edit(lambda r: setitem(r["hands"][1], "exchange", [{"from": 0, "to": 1}])),
        "hands[1].exchange[0].give",
        "missing",
    ),
    (
        "rules-unknown-switch",
        lambda: edit(lambda r: setitem(r, "rules", {"overtake": True})),
        "rules",
        "unknown rule switch 'overtake'",
    ),
    ("rules-bad-value", lambda: edit(lambda r: setitem(r, "rules", {"game_length": 0})), "rules", "positive integer"),
]


@pytest.mark.parametrize(("name", "make", "path", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_malformed_record(name: str, make: Callable[[], Any], path: str, fragment: str) -> None:
    with pytest.raises(RecordError) as info:
        check_record(make())
    assert info.value.path == path, str(info.value)
    assert fragment in info.value.message, str(info.value)


def test_at_least_thirty_kinds() -> None:
    assert len(CASES) + len(JSON_CASES) >= 30


def test_the_good_record_is_good() -> None:
    report = check_record(copy.deepcopy(GOOD))
    assert len(report["hands"]) == 2


def test_hands_after_a_twelve_trick_win_are_malformed() -> None:
    path = Path(__file__).parent / "cases" / "358" / "s4-ucbessekiz.record.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["hands"].append({"contract": "S", "plays": []})
    with pytest.raises(RecordError, match=r"hands\[1\]: the game was over after hand 1"):
        check_record(record)


def test_first_ucbessekiz_hand_without_deal_needs_a_declarer() -> None:
    record = {
        "format": "cardtable-record/1",
        "game": "358",
        "preset": "ucbessekiz",
        "players": ["A", "B", "C"],
        "hands": [{"contract": "S", "plays": [{"seat": 0, "card": "AS"}]}],
    }
    with pytest.raises(RecordError, match=r"hands\[0\]\.declarer: the first 8 is the holder of 2♣"):
        check_record(record)


JSON_CASES = [
    ("truncated", b'{"format": "cardtable-record/1", "game": "358", "hands": [', "not valid JSON"),
    ("empty", b"", "is empty"),
    ("not-utf8", b'{"format": "\xff\xfe"}', "not UTF-8"),
    ("nan", b'{"format": NaN}', "NaN"),
    ("duplicate-key", b'{"format": "a", "format": "b"}', "appears twice"),
]


@pytest.mark.parametrize(("name", "data", "fragment"), JSON_CASES, ids=[c[0] for c in JSON_CASES])
def test_malformed_json(name: str, data: bytes, fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment):
        load_json(data, "game.json")
