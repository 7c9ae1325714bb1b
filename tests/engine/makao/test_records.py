"""Makao records: golden replays (records/*.json with *.expected.json) and malformed input."""

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import RecordError
from engine.makao import MakaoGame, preset
from engine.makao.bots import SimpleBot
from engine.makao.records import check_record, parse_record, record_of

from .support import NAMES

CASES = Path(__file__).parent / "records"
RECORDS = sorted(p for p in CASES.glob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_golden_records(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    assert check_record(json.loads(path.read_text())) == expected


def bot_record(n: int = 3, seed: int = 1, rules: str = "makao") -> tuple[MakaoGame, dict[str, Any]]:
    g = MakaoGame.deal(preset(rules), NAMES[:n], seed=seed)
    bot = SimpleBot(seed)
    turns = []
    while not g.is_over:
        seat = g.to_move
        assert seat is not None
        action = bot.choose(g)
        turns.append((seat, action))
        g.play(action)
    return g, record_of(g, turns)


def test_a_legal_full_record_has_no_violations_and_reports_the_end():
    g, record = bot_record(4)
    report = check_record(record)
    outcome = g.outcome()
    assert outcome is not None
    assert report["mode"] == "full" and report["violations"] == []
    assert report["finished"] and report["ended_by"] == "last-holder"
    assert report["out"] == list(outcome.out) and report["loser"] == outcome.losers[0]
    assert report["winner"] == outcome.out[0]
    assert json.loads(json.dumps(report)) == report


def test_a_full_record_finds_a_card_the_player_does_not_hold():
    _g, record = bot_record(3, seed=2)
    first_play = next(t for t in record["turns"] if t["action"] == "play")
    index = record["turns"].index(first_play)
    seat = first_play["seat"]
    other = record["deal"]["hands"][(seat + 1) % 3][0]
    first_play["cards"] = [other]
    report = check_record(record)
    first = report["violations"][0]
    assert first["turn"] == index + 1 and first["seat"] == seat and first["cards"] == [other]
    assert first["rule"] in ("not-in-hand", "no-match")


def test_a_two_deck_deal_may_write_both_copies_as_the_same_face():
    _g, record = bot_record(5, seed=3)
    record["deal"]["hands"] = [[c.split("#")[0] for c in h] for h in record["deal"]["hands"]]
    record["deal"]["stock"] = [c.split("#")[0] for c in record["deal"]["stock"]]
    parsed = parse_record(record)
    assert parsed.deal is not None and len(set(parsed.deal.stock)) == len(parsed.deal.stock)


def test_starter_rule_of_the_polish_preset_is_checked():
    record = {
        "format": "cardtable-record/1",
        "game": "makao",
        "preset": "makao-polish",
        "players": ["Ada", "Ben"],
        "starter": ["2H"],
        "turns": [],
    }
    report = check_record(record)
    assert [v["rule"] for v in report["violations"]] == ["starter"]
    record["starter"] = ["2H", "9C"]
    assert check_record(record)["violations"] == []


TABLE: dict[str, Any] = {
    "format": "cardtable-record/1",
    "game": "makao",
    "preset": "makao",
    "players": ["Ada", "Ben", "Cem"],
    "starter": "7C",
    "turns": [{"seat": 0, "action": "play", "cards": ["7H"]}, {"seat": 1, "action": "draw"}],
}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = record
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.pop(key)


def _with_deal(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def both(record: dict[str, Any]) -> None:
        _g, full = bot_record(3, seed=5)
        record.clear()
        record.update(full)
        change(record)

    return both


MALFORMED: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("wrong format", _set("format", "pgn"), "format", "cardtable-record/1"),
    ("wrong game", _set("game", "358"), "game", "'358'"),
    ("unknown preset", _set("preset", "uno"), "preset", "'uno'"),
    ("preset not text", _set("preset", 3), "preset", "3"),
    ("no players", _drop("players"), "players", "missing"),
    ("one player", _set("players", ["Ada"]), "players", "2 to 6"),
    ("seven players", _set("players", list("ABCDEFG")), "players", "got 7"),
    ("players not a list", _set("players", "Ada,Ben"), "players", "expected a list"),
    ("empty name", _set("players", ["Ada", ""]), "players[1]", "non-empty"),
    ("wrong deck count", _set("decks", 2), "decks", "1 deck"),
    ("first out of range", _set("first", 3), "first", "out of range"),
    ("unknown top field", _set("dealer", 0), "dealer", "unknown field"),
    ("no starter", _drop("starter"), "starter", "missing"),
    ("bad starter card", _set("starter", "1Z"), "starter", "'1Z'"),
    ("empty starter list", _set("starter", []), "starter", "at least one"),
    ("no turns", _drop("turns"), "turns", "missing"),
    ("turns not a list", _set("turns", {}), "turns", "expected a list"),
    ("turn not an object", _set("turns.0", "7H"), "turns[0]", "expected an object"),
    ("seat out of range", _set("turns.0.seat", 5), "turns[0].seat", "out of range 0..2"),
    ("seat not a number", _set("turns.0.seat", "0"), "turns[0].seat", "expected an integer"),
    ("seat true", _set("turns.0.seat", True), "turns[0].seat", "a boolean"),
    ("unknown action", _set("turns.1.action", "fold"), "turns[1].action", "'fold'"),
    ("bad card in play", _set("turns.0.cards", ["7X"]), "turns[0].cards[0]", "'7X'"),
    ("card not text", _set("turns.0.cards", [7]), "turns[0].cards[0]", "7"),
    ("empty play", _set("turns.0.cards", []), "turns[0].cards", "at least one card"),
    ("bad demand", _set("turns.0.demand", "X"), "turns[0].demand", "'X'"),
    ("makao not bool", _set("turns.0.makao", "yes"), "turns[0].makao", "'yes'"),
    ("cards on a draw", _set("turns.1.cards", ["7D"]), "turns[1].cards", "only a play"),
    ("unknown turn field", _set("turns.1.card", "7D"), "turns[1].card", "unknown field"),
    ("copy beyond the decks", _set("starter", "7C#1"), "starter", "7C#1"),
    ("meta not an object", _set("meta", 3), "meta", "expected an object"),
    ("deal and starter", _with_deal(_set("starter", "7C")), "starter", "given twice"),
    ("deal missing stock", _with_deal(lambda r: r["deal"].pop("stock")), "deal.stock", "missing"),
    ("deal two hands", _with_deal(lambda r: r["deal"]["hands"].pop()), "deal.hands", "expected 3 hands"),
    (
        "a 17-card hand",
        _with_deal(lambda r: r["deal"]["hands"][0].extend(r["deal"]["stock"].pop() for _ in range(12))),
        "deal.hands[0]",
        "expected 5 cards, got 17",
    ),
    ("a bad card in the deal", _with_deal(_set("deal.hands.1.2", "ZZ")), "deal.hands[1][2]", "'ZZ'"),
    (
        "a six-card hand",
        _with_deal(lambda r: r["deal"]["hands"][0].append(r["deal"]["stock"].pop())),
        "deal.hands[0]",
        "expected 5 cards, got 6",
    ),
    (
        "a card twice in the deal",
        _with_deal(lambda r: r["deal"]["stock"].__setitem__(0, r["deal"]["hands"][0][0])),
        "deal.stock[0]",
        "dealt twice",
    ),
    ("a card missing", _with_deal(lambda r: r["deal"]["stock"].pop()), "deal", "missing:"),
    ("bad reshuffle seed", _with_deal(_set("deal.reshuffle_seed", -1)), "deal.reshuffle_seed", "out of range"),
    ("unknown deal field", _with_deal(_set("deal.kitty", [])), "deal.kitty", "unknown field"),
]


@pytest.mark.parametrize(("change", "path", "words"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_records_name_the_field_and_value(
    change: Callable[[dict[str, Any]], None], path: str, words: str
) -> None:
    record = copy.deepcopy(TABLE)
    change(record)
    with pytest.raises(RecordError) as err:
        check_record(record)
    assert err.value.path == path, str(err.value)
    assert words in str(err.value)


@pytest.mark.parametrize("data", [[], "record", None, 3])
def test_a_record_must_be_an_object(data: Any) -> None:
    with pytest.raises(RecordError, match="expected an object"):
        check_record(data)
