"""A stand-in controller for the crash tests: publishes numbered events until the outbox holds ``total``.

Run as ``python -m tests.feed.publisher PORT OUTBOX TOTAL RATE``. Killed with SIGKILL and started again
with the same outbox, it resends what the broker never acknowledged and carries on numbering.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from controller.feed import Feed, FeedConfig


def main(argv: list[str]) -> int:
    port, outbox, total, rate = int(argv[0]), Path(argv[1]), int(argv[2]), float(argv[3])
    feed = Feed(FeedConfig(host="127.0.0.1", port=port, table_id="crash", outbox=outbox))
    while feed.last_seq < total:
        n = feed.last_seq + 1
        feed.publish_event("card_played", {"n": n})
        feed.publish_state({"n": n})
        time.sleep(1 / rate)  # pacing, like cards arriving at a table
    ok = feed.wait_delivered(60)
    feed.close()
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
