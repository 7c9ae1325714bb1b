"""Broker restarts and a controller SIGKILL in the middle of a game: every event arrives, in order,
exactly once after de-duplication by seq (issue 6's durability requirement)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.feed.mosquitto import Mosquitto
from tests.feed.helpers import Subscriber, dedupe_by_seq, needs_mosquitto

pytestmark = [pytest.mark.integration, needs_mosquitto]

ROOT = Path(__file__).resolve().parents[2]
TOTAL = 150


def _publisher(broker: Mosquitto, outbox: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.feed.publisher", str(broker.tcp_port), str(outbox), str(TOTAL), "100"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
    )


def test_sigkill_and_broker_restarts_lose_nothing_and_keep_order(mosquitto: Mosquitto, tmp_path: Path) -> None:
    outbox = tmp_path / "outbox.sqlite"
    # A phone with a durable session: the broker queues events for it while it (or the broker) is away.
    phone = Subscriber(mosquitto.tcp_port, ["cardtable/crash/events"], client_id="phone-crash", clean=False)
    phone.wait_subscribed()

    def seen() -> int:
        return len(phone.on("cardtable/crash/events"))

    first = _publisher(mosquitto, outbox)
    phone.wait_for(lambda: seen() >= 40, timeout=30, what="40 events before the kill")
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    assert first.stderr is not None
    first.stderr.close()
    mosquitto.restart()  # broker restart while the controller is dead

    second = _publisher(mosquitto, outbox)
    phone.wait_for(lambda: seen() >= 100, timeout=30, what="100 events before the second broker restart")
    mosquitto.restart()  # broker restart while the controller is publishing
    _, err = second.communicate(timeout=90)
    assert second.returncode == 0, err.decode()

    phone.wait_for(
        lambda: any(e["seq"] == TOTAL for e in phone.events("cardtable/crash/events")),
        timeout=30,
        what=f"event {TOTAL}",
    )
    raw = phone.events("cardtable/crash/events")
    kept = dedupe_by_seq(raw)
    assert [e["seq"] for e in kept] == list(range(1, TOTAL + 1))
    assert [e["data"]["n"] for e in kept] == list(range(1, TOTAL + 1))
    first_seen: dict[int, int] = {}
    for i, event in enumerate(raw):
        first_seen.setdefault(event["seq"], i)
    assert sorted(first_seen, key=first_seen.__getitem__) == list(range(1, TOTAL + 1))  # never out of order
    phone.close()
