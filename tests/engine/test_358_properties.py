"""Property tests over random full-mode games, per preset (hypothesis).

The oracles here (trick winner, legality) are written again, independently of the engine, on Card
values. The default run is modest; ``-m slow`` plays thousands of games per preset.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK, Card, Suit
from engine.check import check_record
from engine.threefiveeight.bots import RandomBot, SimpleBot, simulate
from engine.threefiveeight.rules import PRESETS, Rules
from engine.threefiveeight.session import Session

PRESET_NAMES = sorted(PRESETS)
PLAY_RULES = {"follow-suit", "overtake", "must-trump"}
TRUMP = {"S": Suit.SPADES, "H": Suit.HEARTS, "D": Suit.DIAMONDS, "C": Suit.CLUBS}


def oracle_winner(cards: list[Card], trump: Suit | None) -> int:
    """Index of the winning card; ``cards[0]`` was led."""
    trumps = [i for i, c in enumerate(cards) if trump is not None and c.suit == trump]
    if trumps:
        return max(trumps, key=lambda i: cards[i].rank)
    led = [i for i, c in enumerate(cards) if c.suit == cards[0].suit]
    return max(led, key=lambda i: cards[i].rank)


def oracle_legal(hand: set[Card], before: list[Card], card: Card, trump: Suit | None, rules: Rules) -> bool:
    """May ``card`` be played from ``hand`` after ``before`` (leader first)?"""
    if not before:
        return True
    led = before[0].suit
    same = [c for c in hand if c.suit == led]
    if same:
        if card.suit != led:
            return False
        trumped = trump is not None and led != trump and any(c.suit == trump for c in before)
        if rules.must_overtake and (rules.overtake_if_trumped or not trumped):
            best = max(c.rank for c in before if c.suit == led)
            higher = [c for c in same if c.rank > best]
            if higher:
                return card.rank > best
        return True
    if rules.must_trump_when_void and trump is not None:
        trumps = [c for c in hand if c.suit == trump]
        if trumps:
            on_table = [c.rank for c in before if c.suit == trump]
            if rules.must_overtrump and on_table:
                over = [c for c in trumps if c.rank > max(on_table)]
                return card in over if over else True
            return card.suit == trump
    return True


def hands_played(record_hand: dict[str, Any]) -> list[list[tuple[int, Card]]]:
    """The plays grouped in tricks of three: (seat, card)."""
    plays = [(p["seat"], Card.from_text(p["card"])) for p in record_hand["plays"]]
    return [plays[i : i + 3] for i in range(0, len(plays), 3)]


def oracle_violations(record_hand: dict[str, Any], rules: Rules) -> set[tuple[int, int]]:
    """(trick, seat) of every illegal play, auditing each seat's hand from the cards it played."""
    trump = TRUMP.get(record_hand["contract"])
    tricks = hands_played(record_hand)
    bad = set()
    for t, trick in enumerate(tricks):
        for pos, (seat, card) in enumerate(trick):
            hand = {c for tr in tricks[t:] for s, c in tr if s == seat}
            if not oracle_legal(hand, [c for _s, c in trick[:pos]], card, trump, rules):
                bad.add((t + 1, seat))
    return bad


def game(preset: str, seed: int, smart: bool, max_hands: int = 20) -> Session:
    rng = random.Random(seed)
    bots = [SimpleBot(rng.randrange(1 << 20)) if smart else RandomBot(rng.randrange(1 << 20)) for _ in range(3)]
    return simulate(PRESETS[preset], seed, bots=bots, max_hands=max_hands)


def check_game(session: Session) -> None:
    rules = session.rules
    record = session.to_record()
    for hand, entry in zip(session.hands, record["hands"], strict=True):
        if hand.contract is not None and hand.contract.value == "PASS":
            continue
        # cards are conserved: deal -> exchange -> kitty -> plays
        deal = entry["deal"]
        held = [set(map(Card.from_text, h)) for h in deal["hands"]]
        kitty = set(map(Card.from_text, deal["kitty"]))
        assert set().union(*held, kitty) == set(FULL_DECK)
        for step in entry.get("exchange", []):
            give, back = Card.from_text(step["give"]), Card.from_text(step["back"])
            held[step["from"]] -= {give}
            held[step["to"]] |= {give}
            held[step["to"]] -= {back}
            held[step["from"]] |= {back}
        discards = set(map(Card.from_text, entry["discards"]))
        declarer = entry["declarer"]
        if rules.kitty_mode.value == "blind-swap":
            assert discards <= held[declarer]
        held[declarer] = (held[declarer] | kitty) - discards
        played = [{c for s, c in (p for tr in hands_played(entry) for p in tr) if s == seat} for seat in range(3)]
        assert played == held and all(len(p) == 16 for p in played)
        # scores sum to zero; the trick winner agrees with the oracle
        score = hand.score()
        assert score is not None and sum(score) == 0 and sum(hand.taken) == 16
        trump = TRUMP.get(entry["contract"])
        for trick, tr in zip(hand.tricks, hands_played(entry), strict=True):
            cards = [c for _s, c in tr]
            assert tr[0][0] == trick.leader
            assert tr[oracle_winner(cards, trump)][0] == trick.winner
        assert oracle_violations(entry, rules) == set()
    assert sum(session.totals) == 0
    # the record replays to the same report, in full and in table mode, with no violations
    full = check_record(record)
    assert full["totals"] == list(session.totals)
    table = copy.deepcopy(record)
    for entry in table["hands"]:
        entry.pop("deal", None)
        entry.pop("discards", None)
    report = check_record(table)
    assert report["totals"] == full["totals"]
    assert all(h["violations"] == [] for h in report["hands"]), report


def inject_and_audit(session: Session, data: st.DataObject) -> None:
    """Swap two cards one seat played in a hand; the audits must find exactly the illegal plays."""
    record = session.to_record()
    rules = session.rules
    candidates = [i for i, h in enumerate(record["hands"]) if len(h["plays"]) == 48]
    assume(candidates)
    index = data.draw(st.sampled_from(candidates))
    entry = record["hands"][index]
    seat = data.draw(st.integers(0, 2))
    mine = [i for i, p in enumerate(entry["plays"]) if p["seat"] == seat]
    a, b = sorted(data.draw(st.lists(st.sampled_from(mine), min_size=2, max_size=2, unique=True)))
    before = hands_played(entry)
    plays = entry["plays"]
    plays[a]["card"], plays[b]["card"] = plays[b]["card"], plays[a]["card"]
    after = hands_played(entry)
    trump = TRUMP.get(entry["contract"])
    for t in (a // 3, b // 3):  # keep the order of play: the two tricks keep their winners
        w0 = before[t][oracle_winner([c for _s, c in before[t]], trump)][0]
        w1 = after[t][oracle_winner([c for _s, c in after[t]], trump)][0]
        assume(w0 == w1)
    expected = oracle_violations(entry, rules)
    record["hands"] = record["hands"][: index + 1]
    full = check_record(record)["hands"][index]["violations"]
    assert {(v["trick"], v["seat"]) for v in full if v["rule"] in PLAY_RULES} == expected
    assert all(v["proven_at"] == v["trick"] for v in full)
    table = copy.deepcopy(record)
    for e in table["hands"]:
        e.pop("deal", None)
        e.pop("discards", None)
    found = check_record(table)["hands"][index]["violations"]
    assert {(v["trick"], v["seat"]) for v in found if v["rule"] in PLAY_RULES} == expected
    assert all(v["proven_at"] >= v["trick"] for v in found)
    assert not [v for v in found if v["rule"] not in PLAY_RULES]


FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("preset", PRESET_NAMES)
@FAST
@given(seed=st.integers(0, 2**31), smart=st.booleans())
def test_random_games_hold_the_invariants(preset: str, seed: int, smart: bool) -> None:
    check_game(game(preset, seed, smart, max_hands=6))


@pytest.mark.parametrize("preset", PRESET_NAMES)
@FAST
@given(seed=st.integers(0, 2**31), data=st.data())
def test_audit_finds_exactly_the_injected_illegal_plays(preset: str, seed: int, data: st.DataObject) -> None:
    inject_and_audit(game(preset, seed, False, max_hands=3), data)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("preset", PRESET_NAMES)
@SLOW
@given(seed=st.integers(0, 2**31), smart=st.booleans(), data=st.data())
def test_thousands_of_games(preset: str, seed: int, smart: bool, data: st.DataObject) -> None:
    session = game(preset, seed, smart, max_hands=12)
    check_game(session)
    inject_and_audit(session, data)
