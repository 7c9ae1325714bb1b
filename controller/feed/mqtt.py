"""The MQTT feed: retained status and state, numbered QoS 1 events, operator control.

Topics (docs/mqtt-topics.md): ``<prefix>/<table>/status`` (retained ``online``/``stopped``, last will
``offline``), ``.../state`` (retained public snapshot with the ``seq`` of the last event it includes),
``.../events`` (QoS 1, ``seq`` +1 per event) and ``.../control`` (operator commands in).

Unlike Frigate's client, which drops what it cannot send while disconnected, this feed loses nothing:
each event is committed to the :class:`~controller.feed.outbox.Outbox` (fsync) before paho sees it.
Within one process paho itself keeps QoS 1 messages across a broker outage and resends them in order
after reconnecting; across a restart the new process resends every event the broker never
acknowledged (PUBACK, tracked with ``on_publish``), oldest first, before any new one. Subscribers drop
duplicates by ``seq``.

Order: paho writes a PUBLISH as soon as it has a socket, even before the broker's CONNACK, while the
messages it holds from before an outage are only resent after the CONNACK; handing it a new event at
the wrong moment lets that event overtake older ones (seen in the crash test: 42 delivered before 41).
So one sender thread hands messages to paho, in order, and only once the connection is fully up: after
the CONNACK *and* after paho's own resend, which is known to be over when the PUBACK of the ``online``
status published in ``on_connect`` comes back.

Threads: paho's network thread runs ``on_command``; the controller should hand the command to its own
loop (a queue) rather than act on it there.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from controller.feed.config import FeedConfig
from controller.feed.control import Command, CommandError, command_id_of, parse_command
from controller.feed.guard import HiddenCards, check_payload
from controller.feed.outbox import Outbox
from controller.feed.topics import STATUS_OFFLINE, STATUS_ONLINE, STATUS_STOPPED, Topics

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

    from controller.feed.broker import EmbeddedBroker
    from engine.cards import Card

log = logging.getLogger("cardtable.feed")

_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_ENVELOPE = ("seq", "type", "ts", "table")

CommandCallback = Callable[[Command], None]


def now_ms() -> int:
    """Wall-clock milliseconds since the epoch: the ``ts`` of events and snapshots."""
    return int(time.time() * 1000)


class Feed:
    """Publishes one table's public game to an MQTT broker. Use :meth:`open`; close with :meth:`close`.

    ``hidden_cards``: a callable returning the cards hidden right now; every payload is checked against
    it (:mod:`controller.feed.guard`) and one naming a hidden card raises ``LeakError`` unpublished.
    """

    def __init__(self, config: FeedConfig, *, hidden_cards: HiddenCards | None = None) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.config = config
        self.topics = Topics(config.topic_prefix, config.table_id)
        self.hidden_cards = hidden_cards
        self.on_command: CommandCallback | None = None
        self.broker: EmbeddedBroker | None = None
        self._outbox = Outbox(config.outbox)
        self._lock = threading.Lock()
        self._delivered = threading.Condition(self._lock)
        # mid -> what its acknowledgement settles: an event's seq (> 0), a queued state snapshot's
        # ticket (< 0), or None (status, and the state put back after a reconnect).
        self._inflight: dict[int, int | None] = {}
        self._early_acks: set[int] = set()
        self._unacked: set[int] = set()
        self._unacked_states: set[int] = set()
        self._state_tickets = 0
        self._connected = threading.Event()
        self._ready = False  # connected and paho's own resend done: the sender may publish
        self._online_mid: int | None = None
        self._outgoing: deque[tuple[str, str, bool, int | None]] = deque()
        self._wake = threading.Condition(self._lock)
        self._closed = False
        self._last_state: str | None = self._outbox.saved_state()
        self.connect_error: str | None = None
        self._unreachable_told = False  # the broker could not be reached, and the log has said so once

        host, port = config.host, config.port
        if host is None:
            from controller.feed.broker import EmbeddedBroker

            self.broker = EmbeddedBroker(
                bind=config.embedded_bind, tcp_port=config.embedded_tcp_port, ws_port=config.embedded_ws_port
            )
            self.broker.start()
            host, port = self.broker.bind, self.broker.tcp_port
        self._address = f"{host}:{port}"

        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=config.resolved_client_id,
            transport="websockets" if config.transport == "websockets" else "tcp",
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        client.will_set(self.topics.status, STATUS_OFFLINE, qos=1, retain=True)
        if config.username is not None:
            client.username_pw_set(config.username, config.resolved_password())
        client.reconnect_delay_set(min_delay=1, max_delay=8)
        client.max_inflight_messages_set(100)
        client.max_queued_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self._client = client

        # Events a previous process stored but the broker never acknowledged go first, in order.
        for entry in self._outbox.pending():
            self._send(self.topics.events, entry.payload, retain=False, seq=entry.seq)
        self._sender = threading.Thread(target=self._send_loop, name="feed-sender", daemon=True)
        self._sender.start()
        client.connect_async(host, port, keepalive=config.keepalive)
        client.loop_start()

    @classmethod
    def open(cls, config: FeedConfig, *, hidden_cards: HiddenCards | None = None) -> Feed | NullFeed:
        """The feed the config asks for: a :class:`NullFeed` when ``enabled`` is false."""
        if not config.enabled:
            return NullFeed(config)
        return cls(config, hidden_cards=hidden_cards)

    # ------------------------------------------------------------------ publishing

    @property
    def last_seq(self) -> int:
        """``seq`` of the newest event (0 before the first)."""
        return self._outbox.last_seq()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self._connected.wait(timeout)

    def publish_event(self, type: str, data: dict[str, Any] | None = None) -> int:
        """Store and publish one event; returns its ``seq``. Raises ``LeakError`` or ``ValueError``."""
        if self._closed:
            raise RuntimeError("the feed is closed")
        if not isinstance(type, str) or not _EVENT_TYPE.match(type):
            raise ValueError(f"event type must be lower_snake_case text, not {type!r}")
        body = dict(data or {})
        self._guard(body, f"{self.topics.events} ({type})")
        _check_json(body, f"event {type!r}")
        table = self.config.table_id
        entry = self._outbox.append(
            lambda seq: {"seq": seq, "type": type, "ts": now_ms(), "table": table, "data": body}
        )
        self._send(self.topics.events, entry.payload, retain=False, seq=entry.seq)
        return entry.seq

    def publish_state(self, snapshot: dict[str, Any]) -> None:
        """Publish the retained public snapshot. ``seq`` defaults to the last event's, ``ts`` to now."""
        if self._closed:
            raise RuntimeError("the feed is closed")
        body = dict(snapshot)
        body.setdefault("seq", self.last_seq)
        body.setdefault("table", self.config.table_id)
        body.setdefault("ts", now_ms())
        self._guard(body, self.topics.state)
        _check_json(body, "state snapshot")
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        self._outbox.save_state(payload)
        self._last_state = payload
        with self._lock:
            self._state_tickets += 1
            ticket = -self._state_tickets
        self._send(self.topics.state, payload, retain=True, seq=ticket)

    def wait_delivered(self, timeout: float = 10.0) -> bool:
        """Block until the broker has acknowledged every event and state snapshot published so far.

        True when it has; False at the timeout. The state counts too, so that a spectator who joins
        after this returns is sure to be handed the latest snapshot as the retained one.
        """
        deadline = time.monotonic() + timeout
        with self._delivered:
            while self._unacked or self._unacked_states:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._delivered.wait(left)
        return True

    @property
    def pending_count(self) -> int:
        """Events not yet acknowledged by the broker."""
        with self._lock:
            return len(self._unacked)

    def close(self, timeout: float = 3.0) -> None:
        """Publish ``stopped``, give queued events up to ``timeout`` to go out, disconnect. Idempotent."""
        if self._closed:
            return
        try:
            if self._connected.is_set():
                self.wait_delivered(timeout)
        finally:
            with self._lock:
                self._closed = True
                self._wake.notify_all()
        self._sender.join(timeout)
        try:
            if self._connected.is_set():
                info = self._client.publish(self.topics.status, STATUS_STOPPED, qos=1, retain=True)
                try:
                    info.wait_for_publish(timeout)
                except (RuntimeError, ValueError):
                    log.warning("could not publish 'stopped' before closing")
            self._client.disconnect()
        finally:
            self._client.loop_stop()
            self._outbox.close()
            if self.broker is not None:
                self.broker.stop()

    def __enter__(self) -> Feed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _guard(self, body: dict[str, Any], where: str) -> None:
        if self.hidden_cards is not None:
            hidden: Collection[Card] = self.hidden_cards()
            check_payload(body, hidden, where)

    def _send(self, topic: str, payload: str, *, retain: bool, seq: int | None) -> None:
        """Queue a message for the sender thread (which keeps the order).

        ``seq``: an event's number (> 0), a state snapshot's ticket (< 0), or None (not waited on).
        """
        with self._lock:
            if seq is not None and seq > 0:
                self._unacked.add(seq)
            elif seq is not None:
                self._unacked_states.add(seq)
            self._outgoing.append((topic, payload, retain, seq))
            self._wake.notify_all()

    def _send_loop(self) -> None:
        """The one thread that hands queued messages to paho, in order, while the connection is ready."""
        while True:
            with self._lock:
                while not self._closed and not (self._ready and self._outgoing):
                    self._wake.wait()
                if self._closed:
                    return
                topic, payload, retain, seq = self._outgoing.popleft()
            self._publish_now(topic, payload, retain, seq)

    def _publish_now(self, topic: str, payload: str, retain: bool, seq: int | None) -> int:
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        with self._lock:
            if info.mid in self._early_acks:
                self._early_acks.discard(info.mid)
                self._acked(seq)
            else:
                self._inflight[info.mid] = seq
        return info.mid

    def _acked(self, seq: int | None) -> None:
        """Record an acknowledgement; the caller holds ``self._lock``."""
        if seq is None:
            return
        if seq > 0:
            self._outbox.ack(seq)
            self._unacked.discard(seq)
        else:
            self._unacked_states.discard(seq)
        if not self._unacked and not self._unacked_states:
            self._delivered.notify_all()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any, properties: Any) -> None:
        with self._lock:
            if mid == self._online_mid and self._connected.is_set():
                # Packets are handled in order: paho's resend after CONNACK is over. Let the sender go.
                self._ready = True
                self._wake.notify_all()
            if mid in self._inflight:
                self._acked(self._inflight.pop(mid))
            else:
                self._early_acks.add(mid)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            self.connect_error = str(reason_code)
            log.error("broker refused the connection: %s", reason_code)
            return
        self.connect_error = None
        self._unreachable_told = False
        log.info("connected to the broker at %s", self._address)
        client.subscribe(self.topics.control, qos=1)
        # After a broker restart without persistence the retained topics are gone: put them back.
        # These two go out at once (other topics; their order against events does not matter).
        if self._last_state is not None:
            self._publish_now(self.topics.state, self._last_state, True, None)
        self._connected.set()
        self._online_mid = self._publish_now(self.topics.status, STATUS_ONLINE, True, None)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        """paho tried to open the connection and could not (no such host, refused, unreachable) and will
        try again. Said once per outage, since a wrong ``--broker`` or ``[feed] host`` otherwise fails in
        silence while the table referees on; the events wait in the outbox and go once it is reachable."""
        self.connect_error = f"cannot reach the broker at {self._address}"
        if not self._unreachable_told and not self._closed:
            self._unreachable_told = True
            log.warning("%s; retrying, and events are kept until it answers", self.connect_error)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self._connected.clear()
        with self._lock:
            self._ready = False
            self._online_mid = None
        if not self._closed:
            log.warning("lost the broker (%s); events are kept and resent", reason_code)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic != self.topics.control:
            return
        try:
            command = parse_command(message.payload, token=self.config.control_token)
        except CommandError as exc:
            self._error_event(str(exc), command_id_of(message.payload))
            return
        callback = self.on_command
        if callback is None:
            self._error_event(f"command {command.NAME!r} ignored: nothing handles commands", command.id)
            return
        try:
            callback(command)
        except Exception as exc:  # the referee refused it; the table goes on
            log.warning("command %s failed: %s", command.NAME, exc)
            self._error_event(f"command {command.NAME!r} failed: {exc}", command.id)

    def _error_event(self, message: str, command_id: str | None) -> None:
        data: dict[str, Any] = {"error": message}
        if command_id is not None:
            data["id"] = command_id
        try:
            self.publish_event("error", data)
        except Exception:  # the error text itself leaked or the feed closed: log only
            log.exception("could not publish an error event")


class NullFeed:
    """The feed when MQTT is disabled: same API, publishes nothing, still numbers events."""

    def __init__(self, config: FeedConfig | None = None) -> None:
        self.config = config
        self.on_command: CommandCallback | None = None
        self.hidden_cards: HiddenCards | None = None
        self.broker: EmbeddedBroker | None = None
        self._seq = 0

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def connected(self) -> bool:
        return False

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return False

    def publish_event(self, type: str, data: dict[str, Any] | None = None) -> int:
        self._seq += 1
        return self._seq

    def publish_state(self, snapshot: dict[str, Any]) -> None:
        return None

    def wait_delivered(self, timeout: float = 10.0) -> bool:
        return True

    @property
    def pending_count(self) -> int:
        return 0

    def close(self, timeout: float = 3.0) -> None:
        return None

    def __enter__(self) -> NullFeed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_json(body: dict[str, Any], what: str) -> None:
    try:
        json.dumps(body)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON-serialisable: {exc}") from None
