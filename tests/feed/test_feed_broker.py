"""The feed against a real mosquitto, seen by a real subscriber."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.feed import Command, CorrectCard, Feed, FeedConfig, LeakError, NullFeed, Undo
from controller.feed.mosquitto import Mosquitto
from engine.cards import Card
from tests.feed.helpers import Subscriber, dedupe_by_seq, needs_mosquitto

pytestmark = [pytest.mark.integration, needs_mosquitto]


def _config(broker: Mosquitto, tmp_path: Path) -> FeedConfig:
    return FeedConfig(host="127.0.0.1", port=broker.tcp_port, table_id="t1", outbox=tmp_path / "outbox.sqlite")


def test_late_joiner_gets_status_and_state_then_numbered_events(mosquitto: Mosquitto, tmp_path: Path) -> None:
    feed = Feed.open(_config(mosquitto, tmp_path))
    assert isinstance(feed, Feed)
    assert feed.wait_connected(10)
    assert feed.publish_event("hand_started", {"hand": 1, "dealer": 0}) == 1
    feed.publish_state({"game": "358", "hand": {"number": 1}})
    assert feed.wait_delivered(10)

    late = Subscriber(mosquitto.tcp_port, ["cardtable/t1/#"])
    late.wait_for(lambda: bool(late.on("cardtable/t1/state") and late.on("cardtable/t1/status")), what="retained")
    state = late.on("cardtable/t1/state")[0]
    assert state.retain and state.json()["seq"] == 1 and state.json()["game"] == "358"
    assert late.on("cardtable/t1/status")[0].payload == b"online"
    assert late.on("cardtable/t1/events") == []  # events are not retained

    feed.publish_event("card_played", {"seat": 1, "card": "QS"})
    late.wait_for(lambda: len(late.on("cardtable/t1/events")) == 1, what="the card event")
    event = late.events("cardtable/t1/events")[0]
    assert event["seq"] == 2 and event["type"] == "card_played" and event["data"] == {"seat": 1, "card": "QS"}
    assert event["table"] == "t1" and isinstance(event["ts"], int)

    feed.close()
    feed.close()  # idempotent
    late.wait_for(lambda: late.on("cardtable/t1/status")[-1].payload == b"stopped", what="'stopped'")
    late.close()


def test_control_commands_reach_the_callback_and_bad_ones_become_error_events(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    feed = Feed(_config(mosquitto, tmp_path))
    got: list[Command] = []

    def handle(command: Command) -> None:
        if isinstance(command, Undo):
            raise ValueError("nothing to undo")
        got.append(command)

    feed.on_command = handle
    assert feed.wait_connected(10)
    watcher = Subscriber(mosquitto.tcp_port, ["cardtable/t1/events"])
    watcher.wait_subscribed()
    operator = Subscriber(mosquitto.tcp_port, [])
    operator.wait_for(lambda: bool(operator.connect_codes), what="operator connected")
    for text in (
        '{"command": "correct_card", "seat": 3, "card": "9D", "id": "c1"}',
        "garbage",
        '{"command": "undo", "id": "u1"}',
    ):
        operator.client.publish("cardtable/t1/control", text, qos=1)
    watcher.wait_for(lambda: len(watcher.on("cardtable/t1/events")) == 2, what="two error events")
    errors = watcher.events("cardtable/t1/events")
    assert [e["type"] for e in errors] == ["error", "error"]
    assert "not JSON" in errors[0]["data"]["error"]
    assert errors[1]["data"] == {"error": "command 'undo' failed: nothing to undo", "id": "u1"}
    assert got == [CorrectCard(id="c1", seat=3, card=Card.from_text("9D"))]
    operator.close()
    watcher.close()
    feed.close()


def test_a_payload_naming_a_hidden_card_is_refused_unpublished(mosquitto: Mosquitto, tmp_path: Path) -> None:
    hidden = {Card.from_text("AH")}
    feed = Feed(_config(mosquitto, tmp_path), hidden_cards=lambda: hidden)
    with pytest.raises(LeakError, match="AH"):
        feed.publish_event("card_played", {"seat": 0, "card": "AH"})
    with pytest.raises(LeakError, match="AH"):
        feed.publish_state({"hands": [["AH", "2C"]]})
    assert feed.last_seq == 0
    hidden.clear()
    assert feed.publish_event("card_played", {"seat": 0, "card": "AH"}) == 1
    feed.close()


def test_events_published_during_a_broker_outage_arrive_in_order(mosquitto: Mosquitto, tmp_path: Path) -> None:
    feed = Feed(_config(mosquitto, tmp_path))
    assert feed.wait_connected(10)
    # A durable subscriber (fixed id, clean_session false) gets what was queued for it while away.
    sub = Subscriber(mosquitto.tcp_port, ["cardtable/t1/events"], client_id="phone-1", clean=False)
    sub.wait_subscribed()
    for i in range(5):
        feed.publish_event("card_played", {"i": i})
    assert feed.wait_delivered(10)
    mosquitto.stop()
    for i in range(5, 10):
        feed.publish_event("card_played", {"i": i})
    assert feed.pending_count == 5
    mosquitto.start()
    assert feed.wait_delivered(20)
    sub.wait_for(lambda: any(m.json()["seq"] == 10 for m in sub.on("cardtable/t1/events")), what="event 10")
    assert [e["seq"] for e in dedupe_by_seq(sub.events("cardtable/t1/events"))] == list(range(1, 11))
    sub.close()
    feed.close()


def test_a_state_snapshot_counts_as_undelivered_until_the_broker_takes_it(mosquitto: Mosquitto, tmp_path: Path) -> None:
    feed = Feed(_config(mosquitto, tmp_path))
    assert feed.wait_connected(10)
    mosquitto.stop()
    feed.publish_state({"game": "358", "hand": {"number": 2}})
    assert not feed.wait_delivered(0.5)  # no events queued, but the snapshot has not reached a broker
    mosquitto.start()
    assert feed.wait_delivered(20)
    late = Subscriber(mosquitto.tcp_port, ["cardtable/t1/state"])
    late.wait_for(lambda: bool(late.on("cardtable/t1/state")), what="the retained state")
    state = late.on("cardtable/t1/state")[0]
    assert state.retain and state.json()["hand"] == {"number": 2}
    late.close()
    feed.close()


def test_disabled_feed_is_a_null_feed() -> None:
    feed = Feed.open(FeedConfig(enabled=False))
    assert isinstance(feed, NullFeed)
    assert feed.publish_event("hand_started", {}) == 1
    feed.publish_state({})
    feed.close()


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="table_id 'a/b'"):
        FeedConfig(table_id="a/b")
    with pytest.raises(ValueError, match="needs a username"):
        FeedConfig(password="x")
    with pytest.raises(ValueError, match=r"hots\n  Extra inputs"):
        FeedConfig.model_validate({"hots": "x"})


def test_state_payload_is_compact_json(mosquitto: Mosquitto, tmp_path: Path) -> None:
    feed = Feed(_config(mosquitto, tmp_path))
    feed.publish_state({"players": [{"name": "Zoë"}]})
    feed.close()
    from controller.feed.outbox import Outbox

    box = Outbox(tmp_path / "outbox.sqlite")
    saved = box.saved_state()
    box.close()
    assert saved is not None and json.loads(saved)["players"][0]["name"] == "Zoë"
