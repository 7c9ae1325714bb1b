"""Build the *records* of the 3-5-8 golden cases (run once: ``python -m tests.engine.cases.make_358_cases``).

The records need complete, legal hands with given trick counts, which are tedious to write by hand,
so this script searches seeded random deals and playouts for them. The *expected* reports are not
generated: they are written by hand in ``EXPECT`` from the worked examples of rules-research.md
section 3, so a golden case checks the engine against the research, not against itself.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine.cards import Card
from engine.threefiveeight.bots import random_deal
from engine.threefiveeight.hand import Deal
from engine.threefiveeight.rules import PRESETS, Contract, Rules, rules_from_json
from engine.threefiveeight.session import Session
from engine.tricks import CARD_OF, INT_OF

OUT = Path(__file__).parent / "358"


def c(text: str) -> Card:
    return Card.from_text(text)


def header(preset: str, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"format": "cardtable-record/1", "game": "358", "preset": preset}
    if rules:
        out["rules"] = rules
    out["players"] = ["Ada", "Ben", "Cem"]
    return out


def search_hand(
    session: Session,
    contract: Contract,
    taken: tuple[int, int, int] | None,
    seed: int,
    deal: Deal | None = None,
    check: Any = None,
    dealer: int | None = None,
) -> None:
    """Append to ``session`` a complete hand whose tricks taken per seat are ``taken``."""
    rng = random.Random(seed)
    for _ in range(200000):
        d = deal or random_deal(rng)
        hand = session.new_hand(deal=d, dealer=dealer)
        hand.set_contract(contract)
        hand.take_kitty([CARD_OF[x] for x in _low4(hand._hand[hand.eight])])
        hand.random_playout(rng.random)
        if (taken is None or hand.taken == taken) and (check is None or check(hand)):
            return
        session.hands.pop()
    raise RuntimeError("no hand found")


def _low4(mask: int) -> list[int]:
    bits = [i for i in range(52) if mask >> i & 1]
    return sorted(bits, key=lambda x: x % 13)[:4]


def deal_with(fixed: dict[int, list[str]], avoid_suits: dict[int, str], seed: int) -> Deal:
    """A deal where seat s holds ``fixed[s]`` and no other card of the suits ``avoid_suits[s]``."""
    rng = random.Random(seed)
    hands: list[list[int]] = [[INT_OF[c(t)] for t in fixed.get(s, [])] for s in range(3)]
    used = {x for h in hands for x in h}
    rest = [x for x in range(52) if x not in used]
    rng.shuffle(rest)
    kitty: list[int] = []
    for x in rest:
        suit = "SHDC"[x // 13]
        for s in range(3):
            if len(hands[s]) < 16 and suit not in avoid_suits.get(s, ""):
                hands[s].append(x)
                break
        else:
            kitty.append(x)
    assert all(len(h) == 16 for h in hands) and len(kitty) == 4, (list(map(len, hands)), len(kitty))
    return Deal((tuple(hands[0]), tuple(hands[1]), tuple(hands[2])), tuple(kitty))


def write(name: str, description: str, record: dict[str, Any]) -> None:
    path = OUT / f"{name}.record.json"
    path.write_text(json.dumps({"description": description, **record}, indent=1) + "\n", encoding="utf-8")


def table_hand(plays: list[tuple[int, str]], contract: str, **extra: Any) -> dict[str, Any]:
    return {**extra, "contract": contract, "plays": [{"seat": s, "card": t} for s, t in plays]}


def tricks_cases() -> None:
    # T1..T8: one trick each, table mode (sergeant-major: dealer 0 is the 8 and leads; clockwise)
    rows = [
        ("t1", "sergeant-major", "S", ["KH", "7H", "AH"]),
        ("t2", "sergeant-major", "S", ["AD", "2S", "KD"]),
        ("t3", "sergeant-major", "S", ["9C", "5S", "QS"]),
        ("t4", "sergeant-major", "S", ["4H", "2C", "3H"]),
        ("t6", "sergeant-major", "H", ["6H", "9H", "8H"]),
        ("t7", "sergeant-major", "S", ["QS", "3D", "KS"]),
    ]
    for name, preset, contract, cards in rows:
        rec = header(preset)
        rec["hands"] = [table_hand(list(zip((0, 1, 2), cards, strict=True)), contract, dealer=0)]
        write(name, f"worked example {name.upper()}: trick winner", rec)
    # T5: ucbessekiz NT, counterclockwise from the declarer (seat 0 -> 2 -> 1)
    rec = header("ucbessekiz")
    rec["hands"] = [table_hand([(0, "10C"), (2, "AS"), (1, "JC")], "NT", declarer=0)]
    write("t5", "worked example T5: in no-trump an off-suit ace is a discard", rec)
    # T8: online-18 misère: dealer 0, declarer (8) is seat 1 and leads
    rec = header("online-18")
    rec["hands"] = [table_hand([(1, "5D"), (2, "2D"), (0, "KD")], "MISERE", dealer=0)]
    write("t8", "worked example T8: in misère the highest of the led suit takes the trick", rec)


def legality_cases() -> None:
    # L1: ucbessekiz (must overtake): 10H led; seat 2 plays 9H holding JH, which he plays at trick 2
    plays = [(0, "10H"), (2, "9H"), (1, "3H"), (0, "2H"), (2, "JH"), (1, "4H")]
    for preset in ("ucbessekiz", "sergeant-major"):
        rec = header(preset)
        extra = {"declarer": 0} if preset == "ucbessekiz" else {"dealer": 0}
        seq = plays if preset == "ucbessekiz" else [(0, "10H"), (1, "3H"), (2, "9H"), (0, "2H"), (1, "4H"), (2, "JH")]
        rec["hands"] = [table_hand(seq, "C", **extra)]
        write(f"l1-{preset}", f"L1 in {preset}: 9H under 10H while holding JH (table mode, proven at trick 2)", rec)
    # L2: 10H, QH on the table; a club from a player with hearts is a revoke, JH is legal (nothing above QH)
    rec = header("ucbessekiz")
    rec["hands"] = [
        table_hand(
            [(0, "10H"), (2, "QH"), (1, "JH"), (2, "5H"), (1, "5C"), (0, "6H"), (0, "2S"), (2, "3S"), (1, "2H")],
            "S",
            declarer=0,
        )
    ]
    write(
        "l2",
        "L2: JH under QH is legal without a higher heart; 2H at trick 3 proves the club at trick 2 was a revoke",
        rec,
    )
    # L3: trump S, 10H then 3S (trumped), then 4H while holding JH
    for name, rules in (("l3-still-required", None), ("l3-not-required", {"overtake_if_trumped": False})):
        rec = header("ucbessekiz", rules)
        rec["hands"] = [
            table_hand([(0, "10H"), (2, "3S"), (1, "4H"), (2, "5D"), (1, "JH"), (0, "6D")], "S", declarer=0)
        ]
        write(name, f"L3 ({name}): must seat 1 still overtake 10H when the trick is trumped?", rec)
    # L4: must trump when void, and overtrump: trump S; AD, 9S; seat 2 plays 7C holding KS (shown later)
    rules = {"must_trump_when_void": True, "must_overtrump": True}
    rec = header("pagat", rules)  # pagat: the 5 (seat 1) leads; dealer 0 is the 8
    rec["hands"] = [table_hand([(1, "AD"), (2, "9S"), (0, "7C"), (2, "2H"), (0, "KS"), (1, "3H")], "S", dealer=0)]
    write("l4-overtrump", "L4: void in diamonds, seat 0 discards 7C though he holds KS above 9S", rec)
    rec = header("pagat", rules)
    rec["hands"] = [table_hand([(1, "AD"), (2, "9S"), (0, "7C"), (2, "2H"), (0, "5S"), (1, "3H")], "S", dealer=0)]
    write("l4-no-stronger-trump", "L4: holding only 5S below 9S, seat 0 need not trump", rec)


def scoring_cases() -> None:
    # S1: sergeant-major, 8 takes 10, 5 takes 4, 3 takes 2
    s = Session(PRESETS["sergeant-major"], ["Ada", "Ben", "Cem"])
    search_hand(s, Contract.HEARTS, (10, 4, 2), 1, dealer=0)
    write("s1", "S1: targets 8/5/3, tricks 10/4/2 score +2/-1/-1", s.to_record())
    # S3: online-18 misère: dealer 0 -> declarer seat 1 (max 3), seat 2 (max 5), dealer seat 0 (max 8)
    s = Session(PRESETS["online-18"], ["Ada", "Ben", "Cem"])
    search_hand(s, Contract.MISERE, (8, 2, 6), 3, dealer=0)
    write("s3", "S3: misère maxima 3/5/8; declarer 2, third 6, dealer 8 score +1/-1/0", s.to_record())
    # S4: twelve tricks, in ucbessekiz (the game ends) and sergeant-major (it goes on)
    strong = ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "AH", "KH", "AD", "KD", "AC", "2C", "3H", "3D"]
    for preset, seed in (("ucbessekiz", 5), ("sergeant-major", 5)):
        s = Session(PRESETS[preset], ["Ada", "Ben", "Cem"])
        rng = random.Random(seed)
        for k in range(100000):
            deal = deal_with({0: strong}, {}, seed * 1000 + k)
            s2 = Session(PRESETS[preset], ["Ada", "Ben", "Cem"])
            try:
                search_hand(
                    s2,
                    Contract.SPADES,
                    None,
                    rng.randrange(1 << 30),
                    deal=deal,
                    dealer=0,
                    check=lambda h: sorted(h.taken) == [1, 3, 12] and h.taken[h.eight] == 12 and h.taken[h.five] == 3,
                )
            except RuntimeError:
                continue
            s = s2
            break
        write(f"s4-{preset}", f"S4 in {preset}: the 8 takes 12 tricks", s.to_record())
    # S5: tie-break (sergeant-major with a 1-hand game): A and B tie on +1; C won the last trick
    rules = rules_from_json(PRESETS["sergeant-major"], {"game_length": 1})
    s = Session(rules, ["Ada", "Ben", "Cem"])
    search_hand(s, Contract.CLUBS, (9, 6, 1), 11, dealer=0, check=lambda h: h.tricks[-1].winner == 2)
    rec = s.to_record()
    rec["rules"] = {"game_length": 1}
    rec = {k: rec[k] for k in ("format", "game", "preset", "rules", "players", "hands")}
    write("s5", "S5: a tie on points goes to the tied player who won a trick most recently", rec)


def exchange_cases() -> None:
    # Hand 1 (sergeant-major, dealer 0): Ada (8) takes 10 = +2, Ben (5) 3 = -2, Cem (3) 3 = 0.
    base = Session(PRESETS["sergeant-major"], ["Ada", "Ben", "Cem"])
    search_hand(base, Contract.SPADES, (10, 3, 3), 21, dealer=0)
    hand1 = base.to_record()["hands"][0]
    # E1: Ada hands Ben 3D and 5C; Ben holds KD 7D 2D and only 4C in clubs
    deal = deal_with({0: ["3D", "5C"], 1: ["KD", "7D", "2D", "4C"]}, {1: "DC"}, 7)
    deal_json = {
        "hands": [[str(CARD_OF[x]) for x in h] for h in deal.hands],
        "kitty": [str(CARD_OF[x]) for x in deal.kitty],
    }
    for name, backs, rules in (
        ("e1", ("KD", "5C"), None),
        ("e1-wrong-return", ("7D", "5C"), None),
    ):
        rec = header("sergeant-major", rules)
        rec["hands"] = [
            hand1,
            {
                "dealer": 1,
                "deal": deal_json,
                "exchange": [
                    {"from": 0, "to": 1, "give": "3D", "back": backs[0]},
                    {"from": 0, "to": 1, "give": "5C", "back": backs[1]},
                ],
                "contract": "H",
                "plays": [],
            },
        ]
        write(name, f"E1 ({name}): for 3D Ben must return KD, for 5C the 5C itself", rec)
    # E1b: Ada hands 3D then 9D; Ben holds KD 7D 2D
    deal = deal_with({0: ["3D", "9D"], 1: ["KD", "7D", "2D"]}, {1: "D"}, 8)
    deal_json = {
        "hands": [[str(CARD_OF[x]) for x in h] for h in deal.hands],
        "kitty": [str(CARD_OF[x]) for x in deal.kitty],
    }
    for name, backs, rules in (
        ("e1b-in-give-order", ("KD", "9D"), None),
        ("e1b-highest-first", ("7D", "KD"), {"exchange_resolution": "highest-given-first"}),
        ("e1b-highest-first-wrong", ("KD", "9D"), {"exchange_resolution": "highest-given-first"}),
    ):
        rec = header("sergeant-major", rules)
        rec["hands"] = [
            hand1,
            {
                "dealer": 1,
                "deal": deal_json,
                "exchange": [
                    {"from": 0, "to": 1, "give": "3D", "back": backs[0]},
                    {"from": 0, "to": 1, "give": "9D", "back": backs[1]},
                ],
                "contract": "H",
                "plays": [],
            },
        ]
        write(name, f"E1b ({name}): two diamonds to one player", rec)
    # E2 (ucbessekiz, counterclockwise): hand 1 roles seat 0 = 8, seat 2 = 5, seat 1 = 3 (play order 0, 2, 1);
    # results seat 0 -3 (5 tricks), seat 2 (the 5) +1 (6), seat 1 (the 3) +2 (5). Hand 2: seat 1 is the 8.
    s = Session(PRESETS["ucbessekiz"], ["Ada", "Ben", "Cem"])
    for k in range(200):
        try:
            search_hand(s, Contract.CLUBS, (5, 5, 6), 40 + k, deal=deal_with({0: ["2C"]}, {}, 31 + k))
            break
        except RuntimeError:
            continue
    hand1 = s.to_record()["hands"][0]
    deal = deal_with({0: ["AH", "QH", "4H"], 2: ["2H"], 1: ["3H", "5S"]}, {0: "H"}, 9)
    deal_json = {
        "hands": [[str(CARD_OF[x]) for x in h] for h in deal.hands],
        "kitty": [str(CARD_OF[x]) for x in deal.kitty],
    }
    s0_spades = [CARD_OF[x] for x in deal.hands[0] if x // 13 == 0 and CARD_OF[x].rank > 5]
    back_5s = str(max(s0_spades, key=lambda card: card.rank)) if s0_spades else "5S"
    cem_first = [(2, "2H", "AH"), (1, "3H", "QH"), (1, "5S", back_5s)]
    ben_first = [(1, "3H", "AH"), (1, "5S", back_5s), (2, "2H", "QH")]
    for name, order, rules in (
        ("e2-prev-role", cem_first, None),
        ("e2-most-up", ben_first, {"plus_order": "most-up"}),
        ("e2-current-target", ben_first, {"plus_order": "current-target"}),
        ("e2-wrong-order", ben_first, None),
    ):
        rec = header("ucbessekiz", rules)
        rec["hands"] = [
            hand1,
            {
                "deal": deal_json,
                "exchange": [{"from": g, "to": 0, "give": give, "back": back} for g, give, back in order],
                "contract": "S",
                "plays": [],
            },
        ]
        write(name, f"E2 ({name}): two plus players exchange with the same minus player", rec)


def proof_cases() -> None:
    """The issue's example: Ben discards on hearts at trick 3 and plays 7H at trick 9 (table mode)."""
    rules: Rules = PRESETS["sergeant-major"]
    for seed in range(100000):
        rng = random.Random(seed)
        s = Session(rules, ["Ada", "Ben", "Cem"])
        search_hand(s, Contract.SPADES, None, rng.randrange(1 << 30), dealer=0)
        hand = s.hands[0]
        plays = hand.plays
        t3 = plays[6:9]
        t9 = plays[24:27]
        ben3 = next(((i, cd) for i, (st, cd) in enumerate(t3) if st == 1), None)
        ben9 = next(((i, cd) for i, (st, cd) in enumerate(t9) if st == 1), None)
        if ben3 is None or ben9 is None:
            continue
        trick3, trick9 = hand.tricks[2], hand.tricks[8]
        if (
            trick3.led_suit is None
            or trick3.led_suit.value != "H"
            or ben3[1] != c("7H")
            or trick3.winner == 1
            or trick9.led_suit is None
            or trick9.led_suit.value in "HS"
            or ben9[1].suit.value in "HS"
            or trick9.winner == 1
            or trick3.leader == 1
            or trick9.leader == 1
            or ben9[1].suit == trick9.led_suit
            or any(cd.suit.value == "H" for st, cd in plays[9:24] if st == 1)
        ):
            continue
        rec = s.to_record()
        h = rec["hands"][0]
        del h["deal"], h["discards"]
        h["plays"][6 + ben3[0]]["card"], h["plays"][24 + ben9[0]]["card"] = str(ben9[1]), "7H"
        write("revoke-proof", "issue 2's example: Ben discards on hearts at trick 3, plays 7H at trick 9", rec)
        return
    raise RuntimeError("no game found")


def misc_cases() -> None:
    rec = header("sergeant-major")
    rec["hands"] = [table_hand([(0, "KH"), (2, "7H"), (1, "AH"), (2, "2C")], "S", dealer=0)]
    write("out-of-turn", "Cem plays before Ben (out of turn), and again before Ben, who won the trick, leads", rec)
    rec = header("sergeant-major")
    rec["hands"] = [table_hand([(0, "KH"), (1, "7H"), (2, "AH"), (2, "KH"), (0, "2H"), (1, "3H")], "S", dealer=0)]
    write("duplicate-card", "KH is seen twice in one hand", rec)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    tricks_cases()
    legality_cases()
    scoring_cases()
    exchange_cases()
    proof_cases()
    misc_cases()
