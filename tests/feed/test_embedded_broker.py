"""The demo's embedded broker (amqtt in a thread): the feed starts it, phones reach it over websockets."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.feed import Feed, FeedConfig
from tests.feed.helpers import Subscriber

pytestmark = pytest.mark.integration


def test_feed_without_a_broker_starts_one_and_phones_get_state_and_events(tmp_path: Path) -> None:
    feed = Feed(FeedConfig(host=None, table_id="demo", outbox=tmp_path / "o.sqlite"))
    try:
        assert feed.broker is not None and feed.wait_connected(10)
        feed.publish_state({"game": "358"})
        phone = Subscriber(
            feed.broker.ws_port, ["cardtable/demo/state", "cardtable/demo/events"], transport="websockets"
        )
        phone.wait_subscribed()
        phone.wait_for(lambda: bool(phone.on("cardtable/demo/state")), what="retained state over websockets")
        seq = feed.publish_event("card_played", {"seat": 0, "card": "KD"})
        phone.wait_for(lambda: bool(phone.on("cardtable/demo/events")), what="the event")
        assert phone.events("cardtable/demo/events")[0]["seq"] == seq == 1
        assert phone.on("cardtable/demo/state")[0].json()["game"] == "358"
        phone.close()
    finally:
        feed.close()
    assert feed.broker.ws_url.startswith("ws://127.0.0.1:")
