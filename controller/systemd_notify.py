"""sd_notify(3) in a few lines of stdlib: readiness, watchdog heartbeats and status for systemd.

``cardtable.service`` is ``Type=notify`` with ``WatchdogSec=``: systemd waits for ``READY=1`` before it
counts the service as started, and kills and restarts it when the ``WATCHDOG=1`` pings stop (a hung
camera read, a deadlock). The controller's main loop calls :meth:`Notifier.ping` once per iteration;
the notifier sends at most one ping per half watchdog interval. Outside systemd (no
``$NOTIFY_SOCKET``) every call is a cheap no-op, so the same code runs in the demo and tests.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable


class Notifier:
    """Talks to systemd's notification socket, if there is one."""

    def __init__(self, environ: dict[str, str] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET") or None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        enabled = usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid()))
        #: The watchdog timeout in seconds, or None when systemd set none.
        self.watchdog_s: float | None = int(usec) / 1e6 if enabled else None
        self._clock = clock
        self._last_ping = float("-inf")

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, message: str) -> bool:
        """Send one notification (e.g. ``"READY=1"``); False when there is no socket or it failed."""
        if self.address is None:
            return False
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(address)
                sock.sendall(message.encode("utf-8"))
        except OSError:
            return False
        return True

    def ready(self, status: str = "running") -> bool:
        """Startup is done (camera, serial and broker set up): systemd may start dependants."""
        return self.send(f"READY=1\nSTATUS={status}")

    def status(self, text: str) -> bool:
        """A one-line status that ``systemctl status cardtable`` shows."""
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def ping(self) -> bool:
        """Watchdog heartbeat, rate-limited to one per half interval. True when one was sent."""
        if self.watchdog_s is None:
            return False
        now = self._clock()
        if now - self._last_ping < self.watchdog_s / 2:
            return False
        self._last_ping = now
        return self.send("WATCHDOG=1")
