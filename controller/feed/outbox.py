"""The durable outbox: every event is on disk before it is handed to the MQTT client.

paho keeps unacknowledged QoS 1 messages in memory only (its README's "known limitations"), so a
controller that is killed during a broker outage would lose the events it had not yet delivered. The
outbox closes that gap: :meth:`Outbox.append` commits the event with ``synchronous=FULL`` (an fsync)
and gives it the next ``seq``; the feed marks it acknowledged when the broker's PUBACK arrives; a new
process resends everything not acknowledged, in ``seq`` order. Losing an ack (a crash between PUBACK
and the update) only causes a duplicate, which subscribers drop by ``seq``.

The outbox also keeps the last public state snapshot so a restarted feed can re-publish it at once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    payload TEXT NOT NULL,
    acked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    payload TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """One stored event: its ``seq`` and the exact JSON text that is published."""

    seq: int
    payload: str


class Outbox:
    """An SQLite-backed queue of events awaiting the broker's acknowledgement.

    ``path=None`` keeps it in memory (tests, demos that need no durability). Thread-safe: the feed
    appends from the controller's thread and acknowledges from paho's network thread.
    """

    #: Acknowledged events kept for inspection before they are pruned.
    KEEP_ACKED = 1000

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:" if path is None else str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._db.commit()
        self._closed = False

    def next_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0] or 0) + 1

    def last_seq(self) -> int:
        """The ``seq`` of the newest event stored (0 when there is none)."""
        return self.next_seq() - 1

    def append(self, build: Any) -> OutboxEntry:
        """Store the event that ``build(seq)`` returns (a JSON-able dict) under the next ``seq``.

        Taking a builder lets the ``seq`` inside the payload and the row's key be assigned in one
        transaction, so two threads can never publish the same number.
        """
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events").fetchone()
            seq = int(row[0] or 0) + 1
            payload = json.dumps(build(seq), separators=(",", ":"), ensure_ascii=False)
            with self._db:
                self._db.execute("INSERT INTO events (seq, payload) VALUES (?, ?)", (seq, payload))
        return OutboxEntry(seq, payload)

    def ack(self, seq: int) -> None:
        """The broker has the event: it need not be resent."""
        with self._lock:
            if self._closed:
                return
            with self._db:
                self._db.execute("UPDATE events SET acked = 1 WHERE seq = ?", (seq,))
                if seq % 100 == 0:
                    self._db.execute("DELETE FROM events WHERE acked = 1 AND seq < ?", (seq - self.KEEP_ACKED,))

    def pending(self) -> list[OutboxEntry]:
        """Events not yet acknowledged, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT seq, payload FROM events WHERE acked = 0 ORDER BY seq").fetchall()
        return [OutboxEntry(int(s), str(p)) for s, p in rows]

    def save_state(self, payload: str) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO state (id, payload) VALUES (0, ?)", (payload,))

    def saved_state(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT payload FROM state WHERE id = 0").fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()
