"""A broker that cannot be reached is said so, by address, and the table's events wait for it."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from controller.feed import Feed, FeedConfig
from controller.feed.outbox import Outbox
from tests.hardware.waiting import wait_until


def test_a_broker_nobody_answers_at_is_named_in_a_warning_and_events_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a port held bound but not listening: a connection to it is refused, and no other process can take it
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        caplog.set_level(logging.WARNING, logger="cardtable.feed")
        feed = Feed.open(FeedConfig(host="127.0.0.1", port=port, table_id="t1", outbox=tmp_path / "outbox.sqlite"))
        assert isinstance(feed, Feed)
        try:
            address = f"cannot reach the broker at 127.0.0.1:{port}"
            wait_until(lambda: any(address in r.getMessage() for r in caplog.records), what="the warning")
            assert feed.connect_error == address
            assert feed.publish_event("hand_started", {"hand": 1, "dealer": 0}) == 1
            assert feed.pending_count == 1
        finally:
            feed.close(timeout=0.5)
    assert [entry.seq for entry in Outbox(tmp_path / "outbox.sqlite").pending()] == [1]
    assert sum(address in r.getMessage() for r in caplog.records) == 1
