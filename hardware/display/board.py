"""The scoreboard the controller talks to: ``show(view)`` returns at once, a thread does the rest.

A refresh can block for seconds (an Inky busy-waits up to 30 s), so the controller only hands over
the newest ``ScoreboardView``. The board's thread renders it, asks the ``RefreshPolicy`` whether
and how to refresh, waits out the panel's minimum interval (a newer view arriving meanwhile simply
replaces the waiting one), and drives the panel. Errors from the panel are logged, never raised.

Build one from config with ``scoreboard_from_config("png:runs/board")`` (``inky``,
``waveshare:epd2in13_V4``, ``png:<dir>``, ``terminal``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from hardware.display.panels import Panel, panel_from_config
from hardware.display.refresh import Refresh, RefreshPolicy
from hardware.display.render import render
from hardware.display.view import ScoreboardView

log = logging.getLogger(__name__)


class Scoreboard:
    """Shows ``ScoreboardView`` values on ``panel``, politely. Context manager; ``close`` is idempotent."""

    def __init__(self, panel: Panel, clock: Callable[[], float] = time.monotonic) -> None:
        self.panel = panel
        self.policy = RefreshPolicy(panel.timing)
        self._clock = clock
        self._cond = threading.Condition()
        self._latest: ScoreboardView | None = None
        self._version = 0  # bumps on every show()
        self._settled = 0  # the version that is on the panel (or needed no refresh)
        self._full_wanted = False
        self._closed = False
        self.refreshes: list[Refresh] = []
        self._thread = threading.Thread(target=self._run, name="scoreboard", daemon=True)
        self._thread.start()

    def show(self, view: ScoreboardView) -> None:
        """Make ``view`` the board's next picture. Never blocks on the panel, never raises for it."""
        with self._cond:
            self._latest = view
            self._version += 1
            self._full_wanted = self._full_wanted or view.hand_over
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the latest view is on the panel; False on timeout. For tests and shutdown."""
        with self._cond:
            return self._cond.wait_for(lambda: self._settled == self._version or self._closed, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._settled != self._version)
                if self._closed:
                    return
                view, version, full = self._latest, self._version, self._full_wanted
            assert view is not None
            try:
                image = render(view, self.panel.size)
            except Exception:
                log.exception("scoreboard: cannot render %r", view)
                self._settle(version)
                continue
            data = image.tobytes()
            decision = self.policy.plan(data, full, self._clock())
            if decision is None:
                self._settle(version, clear_full=full)
                continue
            with self._cond:
                # wait out the panel's interval unless a newer view (or close) comes first
                delay = decision.at - self._clock()
                if delay > 0 and self._cond.wait_for(self._superseded(version), delay):
                    continue
            try:
                self.panel.show(image, view, decision.kind)
                self.policy.done(data, decision.kind, self._clock())
                self.refreshes.append(decision.kind)
            except Exception:
                log.exception("scoreboard: the panel failed to show a frame")
            self._settle(version, clear_full=decision.kind is Refresh.FULL)

    def _superseded(self, version: int) -> Callable[[], bool]:
        return lambda: self._closed or self._version != version

    def _settle(self, version: int, clear_full: bool = False) -> None:
        with self._cond:
            self._settled = version
            if clear_full and self._version == version:
                self._full_wanted = False
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        self.panel.close()

    def __enter__(self) -> Scoreboard:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def scoreboard_from_config(spec: str, size: tuple[int, int] | None = None, stream: TextIO | None = None) -> Scoreboard:
    """A running ``Scoreboard`` on the panel named by ``spec`` (see ``panel_from_config``)."""
    return Scoreboard(panel_from_config(spec, size, stream))
