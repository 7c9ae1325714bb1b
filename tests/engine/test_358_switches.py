"""One test (or a few) per 3-5-8 rule switch, in full knowledge: the checked path raises, the
replay path records, and the switch's other value behaves the other way."""

import dataclasses

import pytest

from engine.cards import Card
from engine.errors import IllegalActionError
from engine.threefiveeight.hand import ExchangeDue, Hand
from engine.threefiveeight.rules import (
    PRESETS,
    Contract,
    KittyMode,
    PlusOrder,
    Rules,
)
from engine.threefiveeight.session import Session
from tests.engine.helpers_358 import cards, deal_with

C = Card.from_text
SM = PRESETS["sergeant-major"]
UC = PRESETS["ucbessekiz"]
ON = PRESETS["online-18"]
PG = PRESETS["pagat"]


def ready(
    rules: Rules,
    fixed: dict[int, str],
    contract: Contract,
    *,
    eight: int = 0,
    strict: bool = True,
    avoid: dict[int, str] | None = None,
) -> Hand:
    hand = Hand(rules, eight=eight, deal=deal_with(fixed, avoid), strict=strict, players=("Ada", "Ben", "Cem"))
    hand.set_contract(contract)
    keep = set(cards(fixed.get(eight, "")))
    hand.take_kitty([c for c in hand.hand_of(eight) or () if c not in keep][:4])
    return hand


def legal(hand: Hand, seat: int) -> set[str]:
    return {str(c) for c in hand.legal_moves(seat)}


# ---------------------------------------------------------------- following: must_overtake, overtake_if_trumped


def test_l1_overtake_legal_sets() -> None:
    fixed = {0: "10H", 2: "9H JH AH 3C"}
    uc = ready(UC, fixed, Contract.SPADES, avoid={2: "H"})
    uc.play(0, C("10H"))
    assert uc.to_move == 2  # counterclockwise
    assert legal(uc, 2) == {"JH", "AH"}
    sm = ready(SM, {0: "10H", 1: "9H JH AH 3C"}, Contract.SPADES, avoid={1: "H"})
    sm.play(0, C("10H"))
    assert legal(sm, 1) == {"9H", "JH", "AH"}


def test_l2_no_higher_card_means_any_of_the_suit() -> None:
    hand = ready(UC, {0: "10H", 2: "QH", 1: "JH 2H 5C"}, Contract.SPADES, avoid={1: "H"})
    hand.play(0, C("10H"))
    hand.play(2, C("QH"))
    assert legal(hand, 1) == {"JH", "2H"}


@pytest.mark.parametrize(("still", "expected"), [(True, {"JH"}), (False, {"JH", "4H"})])
def test_l3_overtake_when_trumped(still: bool, expected: set[str]) -> None:
    rules = dataclasses.replace(UC, overtake_if_trumped=still)
    hand = ready(rules, {0: "10H", 2: "3S", 1: "JH 4H"}, Contract.SPADES, avoid={1: "H", 2: "H"})
    hand.play(0, C("10H"))
    hand.play(2, C("3S"))
    assert legal(hand, 1) == expected


def test_overtake_violation_raises_on_checked_path_and_is_recorded_on_replay() -> None:
    fixed = {0: "10H", 2: "9H JH"}
    hand = ready(UC, fixed, Contract.SPADES, avoid={2: "H"})
    hand.play(0, C("10H"))
    with pytest.raises(IllegalActionError, match="Cem must play higher than 10H: they hold JH") as info:
        hand.play(2, C("9H"))
    assert info.value.rule == "overtake"
    assert hand.to_move == 2 and len(hand.plays) == 1  # unchanged
    replay = ready(UC, fixed, Contract.SPADES, avoid={2: "H"}, strict=False)
    replay.play(0, C("10H"))
    result = replay.play(2, C("9H"))
    assert [(v.rule, v.trick, v.proven_at, str(v.card)) for v in result.violations] == [("overtake", 1, 1, "9H")]


def test_follow_suit_violation_names_a_card_held() -> None:
    hand = ready(SM, {0: "KH", 1: "7H 2C"}, Contract.SPADES, avoid={1: "H"})
    hand.play(0, C("KH"))
    with pytest.raises(IllegalActionError, match="Ben must follow hearts: they hold 7H but played 2C"):
        hand.play(1, C("2C"))


# ---------------------------------------------------------------- must_trump_when_void, must_overtrump


def test_l4_must_overtrump() -> None:
    rules = dataclasses.replace(PG, must_trump_when_void=True, must_overtrump=True)
    hand = ready(rules, {1: "AD", 2: "9S", 0: "5S KS 7C"}, Contract.SPADES, avoid={0: "DS", 2: "D"})
    hand.play(1, C("AD"))  # pagat: the 5 (dealer's next) leads
    hand.play(2, C("9S"))
    assert legal(hand, 0) == {"KS"}
    weak = ready(rules, {1: "AD", 2: "9S", 0: "5S 7C"}, Contract.SPADES, avoid={0: "DS", 2: "D"})
    weak.play(1, C("AD"))
    weak.play(2, C("9S"))
    assert {"5S", "7C"} <= legal(weak, 0)  # no stronger trump: need not trump


def test_must_trump_off_by_default() -> None:
    hand = ready(PG, {1: "AD", 2: "9S", 0: "5S KS 7C"}, Contract.SPADES, avoid={0: "D", 2: "D"})
    hand.play(1, C("AD"))
    hand.play(2, C("9S"))
    assert "7C" in legal(hand, 0)


# ---------------------------------------------------------------- direction, first_lead, targets_layout, rotation


def test_direction_and_first_lead() -> None:
    sm = Hand(SM, eight=0)
    assert (sm.five, sm.three, sm.to_move) == (1, 2, 0)
    uc = Hand(UC, eight=0)
    assert (uc.five, uc.three, uc.to_move) == (2, 1, 0)
    pg = Hand(PG, eight=0)
    assert pg.to_move == 1  # the 5 leads in pagat


@pytest.mark.parametrize(
    ("preset", "dealer", "eight"),
    [("sergeant-major", 2, 2), ("pagat", 1, 1), ("online-18", 0, 1), ("online-18", 2, 0)],
)
def test_targets_layout_by_dealer(preset: str, dealer: int, eight: int) -> None:
    hand = Session(PRESETS[preset]).new_hand(dealer=dealer)
    assert hand.eight == eight and hand.targets[eight] == 8


def test_ucbessekiz_first_eight_holds_two_of_clubs() -> None:
    session = Session(UC)
    hand = session.new_hand(deal=deal_with({2: "2C"}))
    assert hand.eight == 2
    with pytest.raises(ValueError, match="holder of 2♣"):
        Session(UC).new_hand()
    with pytest.raises(ValueError, match="declarer is seat 2"):
        Session(UC).new_hand(deal=deal_with({2: "2C"}), declarer=1)


def _finish(hand: Hand) -> None:
    import random

    hand.take_kitty((hand.hand_of(hand.eight) or [])[:4])
    hand.random_playout(random.Random(1).random)


def test_rotation_next_and_previous() -> None:
    for rules, expected in ((SM, [0, 1, 2, 0]), (UC, [0, 1, 2, 0])):
        session = Session(rules)
        eights = []
        for _ in range(4):
            hand = session.new_hand(deal=deal_with({0: "2C"}) if not session.hands else deal_with({}))
            eights.append(hand.eight)
            hand.set_contract(Contract.SPADES)
            _finish(hand)
        if rules is UC:
            # counterclockwise play order 0 -> 2 -> 1; the 3 (seat 1) becomes the 8
            assert eights == [0, 1, 2, 0]
        else:
            assert eights == expected


# ---------------------------------------------------------------- contracts, misère, quota, pass


def test_contracts_allowed_per_preset() -> None:
    with pytest.raises(IllegalActionError, match="NT is not a contract in sergeant-major"):
        Hand(SM, eight=0).set_contract(Contract.NO_TRUMP)
    Hand(UC, eight=0).set_contract(Contract.NO_TRUMP)
    with pytest.raises(IllegalActionError, match="no pass"):
        Hand(SM, eight=0).set_contract(Contract.PASS)


def test_misere_targets_are_maxima() -> None:
    hand = Session(ON).new_hand(dealer=0)
    hand.set_contract(Contract.MISERE)
    assert hand.targets == (8, 3, 5)  # dealer 8, declarer (seat 1) 3, third 5
    assert hand.trump is None


def test_contract_quota() -> None:
    session = Session(ON, strict=False)
    for _ in range(3):
        hand = session.new_hand(deal=deal_with({}))
        hand.set_contract(Contract.HEARTS)
        _finish(hand)
    hand = session.new_hand(deal=deal_with({}))  # seat 1 declares again (rotation every 3)
    assert Contract.HEARTS not in (hand.contracts_left or ())
    strict = Hand(ON, eight=hand.eight, contracts_left=hand.contracts_left)
    with pytest.raises(IllegalActionError, match="already declared hearts"):
        strict.set_contract(Contract.HEARTS)
    assert [v.rule for v in hand.set_contract(Contract.HEARTS)] == ["contract-quota"]


def test_pass_keeps_roles_and_does_not_count() -> None:
    session = Session(UC)
    first = session.new_hand(deal=deal_with({1: "2C"}))
    first.set_contract(Contract.PASS)
    assert first.is_complete and first.score() is None
    again = session.new_hand(deal=deal_with({}))
    assert again.eight == 1 and again.number == 1 and session.scored_hands == []


# ---------------------------------------------------------------- kitty


def test_kitty_blind_swap_and_pickup() -> None:
    deal = deal_with({})
    kitty = deal.kitty_cards
    blind = Hand(SM, eight=0, deal=deal)
    blind.set_contract(Contract.SPADES)
    own = blind.hand_of(0)
    assert own is not None
    with pytest.raises(IllegalActionError, match="cannot discard"):
        blind.take_kitty(kitty)  # blind: the discards come from his own 16
    blind.take_kitty(own[:4])
    assert set(blind.hand_of(0) or ()) == (set(own) - set(own[:4])) | set(kitty)
    pickup = Hand(dataclasses.replace(SM, kitty_mode=KittyMode.PICKUP_THEN_DISCARD), eight=0, deal=deal)
    pickup.set_contract(Contract.SPADES)
    pickup.take_kitty(kitty)  # pick up first: he may lay the kitty cards straight back
    assert set(pickup.hand_of(0) or ()) == set(own)


def test_unseen_discards_make_the_declarer_unknown() -> None:
    hand = Hand(SM, eight=0, deal=deal_with({}))
    hand.set_contract(Contract.SPADES)
    hand.take_kitty(None)
    assert not hand.is_known(0) and hand.is_known(1)


# ---------------------------------------------------------------- exchange


def _after(preset: Rules, taken: tuple[int, int, int], **first: int) -> Session:
    """A session whose first hand ended with ``taken`` tricks (forced by a rigged deal and playout)."""
    import random

    session = Session(preset, ("Ada", "Ben", "Cem"))
    for seed in range(20000):
        hand = session.new_hand(deal=deal_with({0: "2C"}), **first)
        hand.set_contract(Contract.CLUBS)
        hand.take_kitty((hand.hand_of(hand.eight) or [])[:4])
        hand.random_playout(random.Random(seed).random)
        if hand.taken == taken:
            return session
        session.hands.pop()
    raise AssertionError("no such hand")


def test_e2_plus_order_values() -> None:
    # ucbessekiz roles seat 0 = 8, seat 2 = 5, seat 1 = 3; results -3, +2 (seat 1), +1 (seat 2)
    for order, first_giver in ((PlusOrder.PREV_ROLE, 2), (PlusOrder.MOST_UP, 1), (PlusOrder.CURRENT_TARGET, 1)):
        session = _after(dataclasses.replace(UC, plus_order=order), (5, 5, 6))
        due = session.new_hand(deal=deal_with({})).exchange_due
        assert due[0].giver == first_giver
        assert {(d.giver, d.receiver, d.count) for d in due} == {(2, 0, 1), (1, 0, 2)}


def test_e3c_one_plus_two_minus() -> None:
    session = _after(SM, (11, 4, 1), dealer=0)  # +3, -1, -2
    due = session.new_hand(deal=deal_with({})).exchange_due
    assert {(d.giver, d.receiver, d.count) for d in due} == {(0, 1, 1), (0, 2, 2)}


def test_e3a_trump_not_givable_and_e3b_no_exchange_in_nt() -> None:
    session = _after(ON, (9, 4, 3), dealer=2)  # online-18, dealer 2: seat 0 is the 8 (+1), seat 1 5 (-1)
    hand = session.new_hand(deal=deal_with({1: "5S 6S"}))
    assert hand.exchange_due and hand.phase.value == "contract"  # the exchange follows the contract
    giver = hand.exchange_due[0].giver
    receiver = hand.exchange_due[0].receiver
    hand.set_contract(Contract.SPADES)
    spade = next(c for c in hand.hand_of(giver) or () if c.suit.value == "S")
    with pytest.raises(IllegalActionError, match="may not hand over a trump"):
        hand.give(giver, receiver, spade)
    nt = Session(ON)
    nt.hands = session.hands[:1]
    nt_hand = nt.new_hand(deal=deal_with({}))
    nt_hand.set_contract(Contract.NO_TRUMP)
    assert nt_hand.effective_exchange_due == ()


def test_e4a_af_hands_have_no_exchange() -> None:
    session = Session(UC)
    assert [n for n in range(1, 13) if session._is_af(n)] == [5, 9]
    other = Session(dataclasses.replace(UC, af_phase=PRESETS["ucbessekiz"].af_phase.__class__("in-round")))
    assert [n for n in range(1, 13) if other._is_af(n)] == [4, 8, 12]


def test_exchange_cheat_disqualifies_in_ucbessekiz() -> None:
    session = _after(UC, (5, 5, 6))
    hand = session.new_hand(deal=deal_with({0: "AH QH 4H", 2: "2H"}, {0: "H"}))
    session.strict = False
    hand.strict = False
    hand.give(2, 0, C("2H"), C("4H"))  # Ada keeps AH: a wrong return
    hand.close_exchange()  # Ben's two cards never came: also flagged
    assert sorted(v.rule for v in hand.violations) == ["exchange-give", "exchange-return"]
    assert "Ada had to return AH for 2H, not 4H" in [v.reason for v in hand.violations]
    assert session.outcome().disqualified == (0,)


# ---------------------------------------------------------------- game length, twelve tricks, tie-break


def test_game_length_and_twelve_trick_win() -> None:
    from engine.threefiveeight.bots import simulate

    for name in ("sergeant-major", "ucbessekiz", "online-18"):
        session = simulate(PRESETS[name], 3)
        outcome = session.outcome()
        if outcome.ended_by == "complete":
            assert len(session.scored_hands) == PRESETS[name].game_length
        else:
            assert outcome.ended_by == "twelve-tricks" and max(session.scored_hands[-1].taken) >= 12
    pagat = simulate(PG, 3, max_hands=500)
    assert pagat.outcome().ended_by == "twelve-tricks"


def test_e4b_kitty_disclosure() -> None:
    # seat 1 (minus, now the 8) got 6C from seat 0 and returned 9C; the kitty holds JC and 3C
    deal = deal_with({0: "6C", 1: "9C 2D"}, {1: "C"}, kitty="JC 3C 2H 3H")
    for rules, expected in ((UC, {(0, "JC")}), (SM, set())):
        hand = Hand(rules, eight=1, deal=deal, exchange_due=[ExchangeDue(0, 1, 1)], strict=False)
        hand.give(0, 1, C("6C"))
        assert hand.exchange[0].back == C("9C")
        hand.set_contract(Contract.SPADES)
        hand.take_kitty((hand.hand_of(1) or [])[:4])
        assert {(d.to, str(d.card)) for d in hand.disclosures} == expected


def test_table_mode_proves_a_kept_card_as_soon_as_it_is_played() -> None:
    hand = Hand(SM, eight=0, exchange_due=[ExchangeDue(0, 1, 1)], strict=False, players=("Ada", "Ben", "Cem"))
    hand.give(0, 1, C("3D"), C("3D"))  # "no diamond above 3D", says Ben
    hand.set_contract(Contract.HEARTS)
    hand.play(0, C("2D"))
    result = hand.play(1, C("QD"))  # ... which he kept
    assert [(v.rule, v.trick, v.proven_at, str(v.card)) for v in result.violations] == [("exchange-return", 0, 1, "3D")]
    assert "Ben had to return a higher diamond for 3D, not 3D: they played QD at trick 1" in result.violations[0].reason


@pytest.mark.parametrize("preset", list(PRESETS))
def test_trusted_exchange_leaves_what_the_checked_exchange_leaves(preset: str) -> None:
    """Bots hand cards over on ``push_exchange`` (nothing checked); the hands, the returns the rule
    demanded and the step list must be exactly what ``give`` (checked, return worked out) leaves."""
    import random

    from engine.threefiveeight.bots import RandomBot, play_hand, random_deal

    rules = PRESETS[preset]
    rng = random.Random(7)
    compared = 0
    while compared < 25:
        session = Session(rules, first_dealer=0)
        bots = [RandomBot(rng.randrange(1 << 30)) for _ in range(3)]
        for _ in range(6):
            if session.is_over:
                break
            hand = session.new_hand(deal=random_deal(rng))
            if hand.exchange_due:
                twin = Hand(
                    rules,
                    eight=hand.eight,
                    number=hand.number,
                    dealer=hand.dealer,
                    deal=hand.deal,
                    exchange_due=hand.exchange_due,
                    contracts_left=hand.contracts_left,
                    players=hand.players,
                )
                if rules.exchange_timing.value == "after-contract":
                    contract = bots[hand.eight].contract(hand)
                    hand.set_contract(contract)
                    twin.set_contract(contract)
                for due in hand.effective_exchange_due:
                    for g in bots[due.giver].gives(hand, due.giver, due.count):
                        hand.push_exchange(due.giver, due.receiver, g)
                        twin.give_int(due.giver, due.receiver, g)
                assert hand.exchange == twin.exchange
                assert [hand.hand_of(s) for s in range(3)] == [twin.hand_of(s) for s in range(3)]
                hand.close_exchange()
                twin.close_exchange()
                assert hand.violations == twin.violations == []
                compared += 1
                if hand.contract is None:
                    hand.set_contract(bots[hand.eight].contract(hand))
                if hand.contract is not Contract.PASS:
                    hand.take_kitty_ints(bots[hand.eight].discards(hand))
                    hand.random_playout(rng.random)
            else:
                play_hand(hand, bots)


def test_the_standing_follows_corrected_last_tricks() -> None:
    """Camera corrections of the game's last two tricks (undo, then other cards) can change who won
    them and so the game: the cached outcome must follow, not keep the first reading."""
    import random

    from engine.threefiveeight.bots import simulate

    rng = random.Random(3)
    changed = 0
    for seed in range(60):
        session = simulate(PG, seed, max_hands=30)
        last = session.hands[-1]
        first = session.outcome()
        for _ in range(4):
            for _ in range(6):
                last.undo()
            while not last.is_complete:  # (nobody looks at the standing in between)
                last.play(last.to_move, rng.choice(sorted(last.legal_moves(), key=str)))
            assert session.outcome() == session._compute_outcome()
            changed += session.outcome() != first
            first = session.outcome()
    assert changed  # some corrections did change the result
