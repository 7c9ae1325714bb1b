"""Property tests over random FULL-mode games driven by the bots.

Default suite: a few dozen games (fast). ``-m slow`` runs hundreds more per property.
"""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import deck
from engine.makao import Accept, Action, Draw, MakaoGame, Pass, Play, preset
from engine.makao.bots import Bot, RandomBot, SimpleBot
from engine.makao.records import check_record, record_of

from .support import NAMES

MAX_TURNS = 20_000

games = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(2, 6),
    st.sampled_from(["makao", "makao-polish"]),
    st.sampled_from(["random", "simple", "mixed"]),
)


def bots_for(kind: str, n: int, seed: int) -> list[Bot]:
    if kind == "random":
        return [RandomBot(seed + i) for i in range(n)]
    if kind == "simple":
        return [SimpleBot(seed + i) for i in range(n)]
    return [RandomBot(seed + i) if i % 2 else SimpleBot(seed + i) for i in range(n)]


def run(params: tuple[int, int, str, str]) -> tuple[MakaoGame, list[tuple[int, Action]]]:
    """Play one game on the checked path, asserting conservation and legality at every step."""
    seed, n, rules, kind = params
    g = MakaoGame.deal(preset(rules), NAMES[:n], seed=seed)
    bots = bots_for(kind, n, seed)
    full = Counter(deck(g.decks))
    total = sum(full.values())
    turns: list[tuple[int, Action]] = []
    while not g.is_over:
        assert len(turns) < MAX_TURNS, "the game did not end"
        seat = g.to_move
        assert seat is not None
        actions = list(g.legal_actions())
        assert actions, "a running game always offers an action"
        assert all(g.is_legal(a) for a in actions[:20])
        action = bots[seat].choose(g)
        g.play(action)  # raises IllegalActionError if a bot chose an illegal action
        turns.append((seat, action))
        assert sum(g.cards_left) + len(g.pile) + g.stock_size == total
        assert g.penalty == 0 or g.skip == 0
    assert Counter(g.cards_in_play()) == full
    return g, turns


def check_end(g: MakaoGame) -> None:
    outcome = g.outcome()
    assert outcome is not None
    if g.n >= 5:
        assert len(outcome.out) == 3 and len(outcome.losers) == g.n - 3
    else:
        assert len(outcome.out) == g.n - 1 and len(outcome.losers) == 1
    assert set(outcome.out).isdisjoint(outcome.losers)
    assert all(g.cards_left[s] == 0 for s in outcome.out)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_games_conserve_cards_stay_legal_and_end(params: tuple[int, int, str, str]) -> None:
    g, _turns = run(params)
    check_end(g)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_a_legal_game_replays_clean_in_full_and_in_table_mode(params: tuple[int, int, str, str]) -> None:
    g, turns = run(params)
    full = check_record(record_of(g, turns))
    table = check_record(record_of(g, turns, with_deal=False))
    for report in (full, table):
        assert report["violations"] == []
        assert report["finished"] is True
        assert report["out"] == list(g.out_order)
        assert report["cards_left"] == list(g.cards_left)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(1, 60))
def test_undo_returns_to_the_start(seed: int, n: int, steps: int) -> None:
    g = MakaoGame.deal(preset("makao"), NAMES[:n], seed=seed)
    start = (g.public_view(), [g.hand(s) for s in range(n)])
    bot = RandomBot(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.push(bot.choose(g))
    while g.peek() is not None:
        g.pop()
    assert (g.public_view(), [g.hand(s) for s in range(n)]) == start


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.data())
def test_an_injected_illegal_play_is_found_by_the_table_audit(seed: int, n: int, data: st.DataObject) -> None:
    """Replace one play by a card that matches nothing: table mode flags exactly that turn."""
    g, turns = run((seed, n, "makao", "simple"))
    replay = MakaoGame.deal(preset("makao"), NAMES[:n], seed=seed)
    candidates = []
    for index, (_seat, action) in enumerate(turns):
        if isinstance(action, Play) and not replay.penalty and not replay.skip and replay.demand is None:
            top = replay.top
            if not (replay.rules.queen_wild and top.rank.name == "QUEEN"):
                candidates.append((index, top))
        replay.push(action)
    if not candidates:
        return
    index, top = data.draw(st.sampled_from(candidates))
    seat, action = turns[index]
    assert isinstance(action, Play)
    wrong = next(c for c in deck() if c.rank != top.rank and c.suit != top.suit)
    bad = [*turns[:index], (seat, Play((wrong,)))]
    report = check_record(record_of(g, bad, with_deal=False))
    found = [(v["turn"], v["rule"]) for v in report["violations"]]
    assert found in ([(index + 1, "no-match")], [(index + 1, "duplicate-card")])


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_many_random_games(params: tuple[int, int, str, str]) -> None:
    g, turns = run(params)
    check_end(g)
    assert check_record(record_of(g, turns, with_deal=False))["violations"] == []


def test_bots_only_offer_play_draw_pass_or_accept() -> None:
    g = MakaoGame.deal(preset("makao-polish"), NAMES[:3], seed=9)
    for _ in range(50):
        if g.is_over:
            break
        action = SimpleBot(1).choose(g)
        assert isinstance(action, Play | Draw | Pass | Accept)
        g.play(action)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.sampled_from(["makao", "makao-polish"]))
def test_the_fast_legality_test_agrees_with_the_explained_one(seed: int, n: int, rules: str) -> None:
    g = MakaoGame.deal(preset(rules), NAMES[:n], seed=seed)
    bot = RandomBot(seed)
    faces = deck()
    for _ in range(300):
        if g.is_over:
            break
        seat = g.to_move
        assert seat is not None
        for card in faces:
            assert g._can_start(card) == (g._why_not_first(seat, card) is None), (card, g.public_view())
        g.push(bot.choose(g))
