"""When to refresh an e-ink panel, and how: the part of the scoreboard that protects the glass.

E-ink keeps an image without power but each refresh takes time (a full Waveshare 2.13" refresh
about 2 s, partial 0.3 s; an Inky pHAT about 15 s) and the panel makers ask for limits: a minimum
interval between refreshes, and a full (flashing) refresh after a few partial ones to clear the
ghosting partials leave behind. ``RefreshPolicy`` turns that into decisions:

- nothing changed on the image: no refresh at all;
- the hand ended (the view asks for it), the panel has no partial mode, or ``full_every`` partials
  have been made since the last full one: a full refresh;
- anything else: a partial refresh;
- never sooner than the panel's minimum interval after the previous refresh: the decision says
  when, and the caller waits (newer images replace older ones while it waits).

Pure logic with an injectable clock, so the tests run it on fake time.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass


class Refresh(enum.Enum):
    PARTIAL = "partial"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class PanelTiming:
    """What a panel can take. Intervals are seconds from the start of one refresh to the next."""

    partial: bool = True
    min_partial_interval_s: float = 1.0
    min_full_interval_s: float = 5.0
    full_every: int = 5  # partial refreshes allowed between two full ones

    def __post_init__(self) -> None:
        if self.min_partial_interval_s < 0 or self.min_full_interval_s < 0 or self.full_every < 1:
            raise ValueError(f"bad panel timing {self!r}")


# Figures from the makers' pages, with margin (docs/hardware.md has the sources).
WAVESHARE_PARTIAL = PanelTiming(partial=True, min_partial_interval_s=1.0, min_full_interval_s=5.0, full_every=5)
WAVESHARE_FULL_ONLY = PanelTiming(partial=False, min_partial_interval_s=15.0, min_full_interval_s=15.0)
INKY = PanelTiming(partial=False, min_partial_interval_s=20.0, min_full_interval_s=20.0)
INSTANT = PanelTiming(partial=True, min_partial_interval_s=0.0, min_full_interval_s=0.0, full_every=1_000_000)


@dataclass(frozen=True, slots=True)
class Decision:
    """Refresh ``kind`` at time ``at`` (which may be now)."""

    kind: Refresh
    at: float


def fingerprint(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class RefreshPolicy:
    """Decides refreshes for one panel; ``plan`` asks, ``done`` records what was actually shown."""

    def __init__(self, timing: PanelTiming) -> None:
        self.timing = timing
        self._shown: bytes | None = None
        self._last_at: float | None = None
        self._last_kind: Refresh | None = None
        self._partials = 0
        self._full_owed = False

    def plan(self, image: bytes, full: bool, now: float) -> Decision | None:
        """What to do with ``image`` (the panel's bytes) at ``now``; None if it is already on the panel.

        ``full`` asks for a full refresh (hand end). A full refresh asked for but not yet made is
        remembered, so a hand-end frame replaced by a newer one while waiting still gets its flash.
        """
        if full:
            self._full_owed = True
        if self._shown is not None and fingerprint(image) == self._shown:
            return None
        t = self.timing
        kind = Refresh.PARTIAL
        if self._shown is None or self._full_owed or not t.partial or self._partials >= t.full_every:
            kind = Refresh.FULL
        if self._last_at is None:
            return Decision(kind, now)
        gap = t.min_full_interval_s if kind is Refresh.FULL else t.min_partial_interval_s
        return Decision(kind, max(now, self._last_at + gap))

    def done(self, image: bytes, kind: Refresh, now: float) -> None:
        """Record that ``image`` went to the panel with ``kind`` at ``now``."""
        self._shown = fingerprint(image)
        self._last_at = now
        self._last_kind = kind
        if kind is Refresh.FULL:
            self._partials = 0
            self._full_owed = False
        else:
            self._partials += 1
