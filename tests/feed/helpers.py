"""Shared by the feed, spectator and systemd tests: a real subscriber and a broker fixture factory."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.feed.mosquitto import Mosquitto, mosquitto_binary

needs_mosquitto = pytest.mark.skipif(
    mosquitto_binary() is None, reason="mosquitto is not installed (apt-get install mosquitto; make system-deps)"
)


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)


class Subscriber:
    """A paho client that records every message; ``wait_for`` blocks on a condition, not a sleep."""

    def __init__(
        self,
        port: int,
        topics: list[str],
        *,
        client_id: str = "",
        clean: bool = True,
        username: str | None = None,
        password: str | None = None,
        transport: str = "tcp",
    ) -> None:
        self.messages: list[Received] = []
        self._cond = threading.Condition()
        self.connect_codes: list[str] = []
        self.granted: list[int] = []
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean,
            protocol=mqtt.MQTTv311,
            transport="websockets" if transport == "websockets" else "tcp",
        )
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(1, 2)
        self._topics = topics

        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
            with self._cond:
                self.connect_codes.append(str(rc))
                self._cond.notify_all()
            if not rc.is_failure:
                for topic in self._topics:
                    client.subscribe(topic, qos=1)

        def on_subscribe(client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
            with self._cond:
                self.granted.extend(int(c.value) for c in codes)
                self._cond.notify_all()

        def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
            with self._cond:
                self.messages.append(Received(msg.topic, bytes(msg.payload), bool(msg.retain)))
                self._cond.notify_all()

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect_async("127.0.0.1", port, keepalive=10)
        self.client.loop_start()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; got {self.messages[-5:]}")
                self._cond.wait(left)

    def wait_subscribed(self, timeout: float = 10.0) -> None:
        self.wait_for(lambda: len(self.granted) >= len(self._topics), timeout, "SUBACK")

    def on(self, topic: str) -> list[Received]:
        with self._cond:
            return [m for m in self.messages if m.topic == topic]

    def events(self, topic: str) -> list[dict[str, Any]]:
        return [m.json() for m in self.on(topic)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def dedupe_by_seq(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a spectator does: keep an event only if its seq is newer than the last kept one."""
    out: list[dict[str, Any]] = []
    last = 0
    for event in events:
        if event["seq"] > last:
            out.append(event)
            last = event["seq"]
    return out


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    if mosquitto_binary() is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto; make system-deps)")
    broker = Mosquitto.plain(tmp_path / "broker")
    broker.start()
    yield broker
    broker.stop()
