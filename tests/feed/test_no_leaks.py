"""Nothing hidden leaks: whole bot games (engine FULL mode) published through a real broker, and every
payload a real subscriber captured checked against the cards the engine says were hidden then."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.feed import Feed, FeedConfig, LeakError
from controller.feed.guard import cards_named
from controller.feed.mosquitto import Mosquitto
from engine.cards import Card
from tests.feed.game_to_feed import GAMES
from tests.feed.helpers import Subscriber, needs_mosquitto

pytestmark = [pytest.mark.integration, needs_mosquitto]

# A whole game is published here in a fraction of a second (2,514 messages for 3-5-8 seed 3), far faster
# than any table plays. With the shipped queue of 1,000 per subscriber, mosquitto drops what a slow
# subscriber has not yet taken ("Outgoing messages are being dropped" in its log) and the check would
# miss payloads. The broker here holds the whole game, so every payload published is checked.
WHOLE_GAME_QUEUE = 100_000


@pytest.fixture
def roomy_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    broker = Mosquitto.plain(tmp_path / "broker", max_queued=WHOLE_GAME_QUEUE)
    broker.start()
    yield broker
    broker.stop()


@pytest.mark.parametrize(("game", "seed"), [("358", 3), ("makao", 5)])
def test_no_published_payload_names_a_card_hidden_at_that_moment(roomy_broker: Mosquitto, game: str, seed: int) -> None:
    hidden_now: frozenset[Card] = frozenset()
    hidden_at: dict[int, frozenset[Card]] = {}
    feed = Feed(
        FeedConfig(host="127.0.0.1", port=roomy_broker.tcp_port, table_id=f"leak{game}"),
        hidden_cards=lambda: hidden_now,
    )
    assert feed.wait_connected(10)
    spy = Subscriber(roomy_broker.tcp_port, [f"cardtable/leak{game}/#"])
    spy.wait_subscribed()

    steps = 0
    for step in GAMES[game](seed):
        hidden_now = step.hidden
        seq = feed.publish_event(step.type, step.data)
        feed.publish_state(step.state)
        hidden_at[seq] = step.hidden
        steps += 1
    assert feed.wait_delivered(60)
    events_topic, state_topic = f"cardtable/leak{game}/events", f"cardtable/leak{game}/state"
    spy.wait_for(
        lambda: len(spy.on(events_topic)) == steps and len(spy.on(state_topic)) >= steps,
        timeout=60,
        what="every event and snapshot",
    )

    named: set[Card] = set()
    checked = 0
    for message in spy.on(events_topic) + spy.on(state_topic):
        payload = message.json()
        cards = set(cards_named(payload))
        leaked = cards & hidden_at[payload["seq"]]
        assert not leaked, f"{message.topic} seq {payload['seq']} names hidden {sorted(map(str, leaked))}"
        named |= cards
        checked += 1
    assert checked >= 2 * steps
    assert len(named) >= 40  # the games really showed cards: the check had something to look at

    # And the guard itself stops a controller bug before it reaches the wire.
    hidden_now = next(iter(hidden_at.values()))
    some_hidden = str(next(iter(hidden_now)))
    with pytest.raises(LeakError, match=some_hidden):
        feed.publish_state({"hands": [[some_hidden]]})
    assert "dropped" not in roomy_broker.log_path.read_text(encoding="utf-8")
    spy.close()
    feed.close()
