"""The shipped mosquitto drop-in (systemd/mosquitto/) run for real: who may read and write what."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.feed import Feed, FeedConfig
from controller.feed.mosquitto import Mosquitto
from tests.feed.helpers import Subscriber, needs_mosquitto
from tests.hardware.waiting import wait_until

pytestmark = [pytest.mark.integration, needs_mosquitto]

USERS = {"cardtable": "ctl-secret", "operator": "op-secret"}


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[Mosquitto]:
    page = tmp_path / "www"
    page.mkdir()
    (page / "index.html").write_text("<title>cardtable</title>", encoding="utf-8")
    broker = Mosquitto.secured(tmp_path / "broker", USERS, http_dir=page)
    broker.start()
    yield broker
    broker.stop()


def _controller_feed(broker: Mosquitto, tmp_path: Path) -> Feed:
    feed = Feed(
        FeedConfig(
            host="127.0.0.1",
            port=broker.tcp_port,
            table_id="t1",
            username="cardtable",
            password=USERS["cardtable"],
            outbox=tmp_path / "o.sqlite",
        )
    )
    assert feed.wait_connected(10), feed.connect_error
    return feed


def test_spectators_read_public_topics_but_cannot_publish_or_read_control(secured: Mosquitto, tmp_path: Path) -> None:
    feed = _controller_feed(secured, tmp_path)
    commands: list[object] = []
    feed.on_command = commands.append
    phone = Subscriber(secured.ws_port, ["cardtable/#"], transport="websockets")
    phone.wait_subscribed()
    # The phone tries to forge state, an event and a command: the broker drops all three.
    for topic in ("cardtable/t1/state", "cardtable/t1/events", "cardtable/t1/control"):
        phone.client.publish(topic, '{"command": "undo", "seq": 99}', qos=1).wait_for_publish(5)
    feed.publish_event("card_played", {"seat": 0, "card": "QS"})
    feed.publish_state({"game": "358"})
    operator = Subscriber(secured.tcp_port, [], username="operator", password=USERS["operator"])
    operator.wait_for(lambda: bool(operator.connect_codes), what="operator connect")
    operator.client.publish("cardtable/t1/control", '{"command": "next_hand", "id": "op"}', qos=1)

    phone.wait_for(lambda: any(m.topic.endswith("/state") for m in phone.messages), what="state")
    assert feed.wait_delivered(10)
    # The operator's command arrived (the controller heard it); the phone never saw control traffic.
    from controller.feed import NextHand

    watcher = Subscriber(secured.tcp_port, ["cardtable/t1/control"], username="cardtable", password="ctl-secret")
    watcher.wait_subscribed()
    operator.client.publish("cardtable/t1/control", '{"command": "pause"}', qos=1)
    watcher.wait_for(lambda: bool(watcher.messages), what="the controller account reads control")
    phone.wait_for(lambda: any(m.topic.endswith("/events") for m in phone.messages), what="event")
    # the operator's command travels on its own connection: wait for it rather than assume it is in
    wait_until(lambda: NextHand(id="op") in commands, what="the operator's next_hand at the controller")
    assert all(not m.topic.endswith("/control") for m in phone.messages)
    states = [m.json() for m in phone.messages if m.topic.endswith("/state")]
    assert all(s.get("seq") != 99 for s in states)
    events = [m.json() for m in phone.messages if m.topic.endswith("/events")]
    assert [e["seq"] for e in events] == [1]
    for client in (phone, operator, watcher):
        client.close()
    feed.close()


def test_anonymous_and_wrong_password_are_refused_on_the_controller_port(secured: Mosquitto) -> None:
    anonymous = Subscriber(secured.tcp_port, [])
    wrong = Subscriber(secured.tcp_port, [], username="cardtable", password="guess")
    for client in (anonymous, wrong):
        client.wait_for(lambda c=client: bool(c.connect_codes), what="CONNACK")  # type: ignore[misc]
        assert client.connect_codes[0] == "Not authorized"
        client.close()


def test_operator_cannot_publish_state(secured: Mosquitto, tmp_path: Path) -> None:
    feed = _controller_feed(secured, tmp_path)
    feed.publish_state({"game": "makao"})
    first = Subscriber(secured.ws_port, ["cardtable/t1/state"], transport="websockets")
    first.wait_for(lambda: bool(first.messages), what="the controller's state")
    first.close()
    operator = Subscriber(secured.tcp_port, [], username="operator", password=USERS["operator"])
    operator.wait_for(lambda: bool(operator.connect_codes), what="operator connect")
    # PUBACK comes after the broker has handled (and here dropped) the forged retained state.
    operator.client.publish("cardtable/t1/state", '{"game": "forged"}', qos=1, retain=True).wait_for_publish(5)
    phone = Subscriber(secured.ws_port, ["cardtable/t1/state"], transport="websockets")
    phone.wait_for(lambda: bool(phone.messages), what="retained state")
    assert phone.messages[0].json()["game"] == "makao"
    for client in (phone, operator):
        client.close()
    feed.close()


def test_the_websockets_port_serves_the_page(secured: Mosquitto) -> None:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{secured.ws_port}/index.html", timeout=5) as resp:
        assert b"cardtable" in resp.read()


def test_a_killed_controller_shows_offline_through_its_last_will(secured: Mosquitto) -> None:
    """Bookworm's mosquitto 2.0.11 predates the 2.0.13 fix for wills with per_listener_settings: check it."""
    import signal
    import subprocess
    import sys

    code = (
        "import sys, time\n"
        "from controller.feed import Feed, FeedConfig\n"
        f"f = Feed(FeedConfig(host='127.0.0.1', port={secured.tcp_port}, table_id='t1', keepalive=2,"
        f" username='cardtable', password='{USERS['cardtable']}'))\n"
        "assert f.wait_connected(10)\nprint('up', flush=True)\ntime.sleep(60)\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=root, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"up\n"
        phone = Subscriber(secured.ws_port, ["cardtable/t1/status"], transport="websockets")
        phone.wait_for(lambda: bool(phone.messages) and phone.messages[-1].payload == b"online", what="online")
        proc.send_signal(signal.SIGKILL)
        phone.wait_for(lambda: phone.messages[-1].payload == b"offline", timeout=15, what="the last will")
        phone.close()
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
