"""What every game's referee shares: journaling, replay, muting, input dispatch, card choice.

A referee is a deterministic state machine over typed inputs. :meth:`Referee.submit` writes the input
to the journal (fsync) *before* acting on it, so after a crash :meth:`Referee.resume` feeds the same
inputs to a fresh referee with the announcements muted and lands in the same state. Inputs are
dispatched through a handler table keyed by the input's type (Frigate's dispatcher), not an if-chain.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from controller.announcements import Announcement, Announcer
from controller.journal import Journal
from controller.state import TableState
from engine.cards import Card

__all__ = ["MIN_CANDIDATE_CONFIDENCE", "Referee", "choose_card"]

log = logging.getLogger(__name__)

#: A recogniser alternative below this confidence is never accepted in place of the first reading.
MIN_CANDIDATE_CONFIDENCE = 0.05


def choose_card(
    first: Card,
    candidates: Sequence[tuple[Card, float]],
    possible: Callable[[Card], bool],
    clean: Callable[[Card], bool] | None = None,
) -> tuple[Card | None, Card | None]:
    """Pick the card to accept from a reading and its alternatives.

    ``possible(card)`` is False for a card that cannot be there (already played, known elsewhere);
    ``clean(card)`` is False for one that would prove a rule broken. The first reading wins when it is
    possible and clean. Otherwise the best alternative that is both, then the first reading if it is
    merely unclean (a real revoke must still be flagged, not explained away by a weak alternative), then
    the best possible alternative. Returns ``(card, corrected_from)``; ``card`` is None when no
    reading is possible (ask the player).
    """
    ordered: list[Card] = [first]
    for card, conf in candidates:
        if card not in ordered and conf >= MIN_CANDIDATE_CONFIDENCE:
            ordered.append(card)
    ok = [c for c in ordered if possible(c)]
    if not ok:
        return None, None
    if clean is not None:
        if ok[0] == first and clean(first):
            return first, None
        # Only an alternative that is clean may replace a first reading that is possible but unclean.
        if first in ok:
            for card in ok[1:]:
                if clean(card):
                    return card, first
            return first, None
    best = ok[0]
    return best, (first if best != first else None)


class Referee:
    """Base class: subclasses register handlers in ``self.handlers`` and implement :meth:`state`."""

    game = ""

    def __init__(
        self, players: Sequence[str], announcer: Announcer | None = None, journal: Journal | None = None
    ) -> None:
        self.players = tuple(players)
        self.announcer = announcer if announcer is not None else Announcer(names=self.players)
        self.journal = journal
        self.handlers: dict[type[Any], Callable[[Any], None]] = {}
        self.muted = False
        self.inputs = 0
        self.paused = False

    # -- input ------------------------------------------------------------------------------------

    def submit(self, item: Any) -> None:
        """Journal ``item`` (on disk before anything else), act on it, then show the new state."""
        if self.journal is not None:
            self.journal.append(item)
        self._dispatch(item)
        if not self.muted:
            self.announcer.show(self.state())

    def resume(self) -> int:
        """Replay the journal silently (after a crash); returns how many inputs were replayed.

        With inputs to replay the game is started silently first (it was announced before the crash);
        with none, nothing happens and the caller's :meth:`start` announces the first hand.
        """
        if self.journal is None:
            return 0
        items = self.journal.replay()
        if not items:
            return 0
        self.muted = True
        try:
            self.start()
            for item in items:
                self._dispatch(item)
        finally:
            self.muted = False
        if items:
            log.info("resumed from the journal: %d inputs replayed", len(items))
            self.announcer.show(self.state())
        return len(items)

    def _dispatch(self, item: Any) -> None:
        self.inputs += 1
        handler = self.handlers.get(type(item))
        if handler is None:
            log.warning("%s referee ignores %s", self.game, type(item).__name__)
            return
        handler(item)

    def say(self, announcement: Announcement) -> None:
        if not self.muted:
            self.announcer.announce(announcement)

    def close(self) -> None:
        """Close the journal and the outputs (idempotent)."""
        if self.journal is not None:
            self.journal.close()
        self.announcer.close()

    # -- to override ------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin the game (announce the first hand); does nothing once begun."""
        raise NotImplementedError

    def state(self) -> TableState:
        raise NotImplementedError

    def record(self) -> dict[str, Any]:
        """The game record so far (docs/record-format.md)."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError
