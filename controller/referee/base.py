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

from controller.announcements import Announcement, Announcer, Prompt
from controller.journal import Journal
from controller.state import TableState
from engine.cards import Card
from hardware.events import Press

__all__ = ["MIN_CANDIDATE_CONFIDENCE", "SUIT_PAIR_SHARE", "Referee", "choose_card", "settle_suit_doubt"]

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


#: An unreadable card's guesses settle its suit from the cards played only when the two suits in doubt
#: hold at least this much of the reading between them: then its rank and colour are read. Chosen on
#: synthetic games of the held-out tango_nuevo deck: below it the rank itself was sometimes misread (a 10
#: read as a 7), at or above it never (docs/controller.md, "4 December").
SUIT_PAIR_SHARE = 0.7


def settle_suit_doubt(
    guesses: Sequence[tuple[Card, float]],
    possible: Callable[[Card], bool],
    clean: Callable[[Card], bool] | None = None,
) -> Card | None:
    """The card an unreadable reading must be, when the cards already played decide it; else None (ask).

    The tracker leaves a card unread when it is sure of the rank and the colour but not of which of the
    colour's two suits it is (a deck that prints no pip in its corner, a webcam's blurred clubs):
    ``guesses`` then start with those two, 7H and 7D. When one of them cannot be there (``possible``
    False: it was played already), the other is the card, as a person at the table would conclude. Only
    when the two lead the guesses, hold :data:`SUIT_PAIR_SHARE` between them, exactly one is possible
    and that one is ``clean`` (breaks no rule the engine can prove): a guess that would make a revoke is
    not taken for one without the player's word.
    """
    ranked = sorted(guesses, key=lambda guess: -guess[1])
    if len(ranked) < 2:
        return None
    (first, p_first), (second, p_second) = ranked[:2]
    twins = first.rank == second.rank and first.suit != second.suit and first.suit.is_red == second.suit.is_red
    if not twins or p_first + p_second < SUIT_PAIR_SHARE:
        return None
    left = [card for card in (first, second) if possible(card)]
    if len(left) != 1 or (clean is not None and not clean(left[0])):
        return None
    return left[0]


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
        self.unreadable: dict[str, tuple[Card, ...]] = {}
        """Per zone, the guesses for a card there the table could not read, while its player picks it with
        his button (:meth:`_pick_guess`)."""
        self.guess: dict[str, int] = {}
        """Per zone, which of those guesses the player's short presses have reached (-1: none yet)."""

    def _ask_guesses(self, zone: str, guesses: Sequence[Card]) -> None:
        """Keep ``guesses`` for the unreadable card in ``zone``; the caller announces ``AskReplace``."""
        self.unreadable[zone] = tuple(guesses)
        self.guess[zone] = -1

    def _pick_guess(self, zone: str, seat: int, press: Press) -> Card | None:
        """A press by the player whose card in ``zone`` the table could not read: a short press names the
        next guess ("is it 9C? long press to accept"), a long press returns the one named (no longer
        asked about), for the game to lay it. None while nothing is chosen. A long press before any guess
        is named says that no card was laid there (:meth:`_withdraw_ask`)."""
        guesses = self.unreadable[zone]
        if press is Press.LONG and self.guess.get(zone, -1) < 0:
            self._withdraw_ask(zone, seat)
            return None
        if not guesses:
            why = "no guess for this card: place it again, long press if you laid none, or the operator enters it"
            self.say(Prompt(seat, why))
            return None
        if press is Press.SHORT:
            self.guess[zone] = (self.guess.get(zone, -1) + 1) % len(guesses)
            self.say(Prompt(seat, f"is it {guesses[self.guess[zone]]}? long press to accept"))
            return None
        del self.unreadable[zone]
        return guesses[self.guess[zone]]

    def _withdraw_ask(self, zone: str, seat: int) -> None:
        """The asked player's long press before any guess is named: no card was laid in ``zone``, and the table
        asks no more. Why: what the camera asked about may be no new card at all (the player's own card only
        straightened, a card face down, something set down on the felt), and while the ask was open every press
        of the player to move went to the guesses: he could not draw, and with no guesses nothing but the
        operator moved the game on. The game says what such a card is (:meth:`_no_card_laid`)."""
        del self.unreadable[zone]
        self.guess.pop(zone, None)
        self.say(Prompt(seat, "no card laid: the table asks no more"))
        self._no_card_laid(zone)

    def _no_card_laid(self, zone: str) -> None:
        """Hook: the player said no card was laid in ``zone`` where the table asked (:meth:`_withdraw_ask`)."""

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

    def lying(self) -> dict[str, tuple[Card, ...]]:
        """The cards this referee knows lie face up in each zone now, bottom first: what a camera that starts
        mid-game (after a restart) must not report as played again (:meth:`vision.tracker.CardTracker.expect`)."""
        return {}

    def record(self) -> dict[str, Any]:
        """The game record so far (docs/record-format.md)."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError
