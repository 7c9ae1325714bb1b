"""Spoken announcements: espeak-ng, in words a listener can follow, never holding up the referee.

The printed sentences name cards by their record codes ("QS", "10H") and suits by their signs, which
read well and which espeak-ng cannot say: it reads "AS" as the word "as", "KS" as "kay ess" and "10H"
as "ten aitch", so a player who hears "Trick 3 to Ada (Ben QS, Ada AS)" cannot follow the trick.
:func:`spoken` rewrites an announcement's sentence for the voice ("Ben queen of spades, Ada ace of
spades"), leaving the players' own names alone (a player called "JC" stays JC).

Speaking takes seconds and the referee must not wait on it: :class:`SpeechOutput` queues sentences for
one worker thread that runs espeak-ng one at a time. A newer turn, question, penalty or demand
replaces one of its kind still waiting in the queue (a stale "Ben to play" is wrong by the time it
would be said), and a queue that still grows drops its oldest sentences rather than falling minutes
behind the table.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Sequence

from controller.announcements import Announcement, Prompt
from engine.cards import Rank, Suit

__all__ = ["SPOKEN", "SpeechOutput", "spoken"]

log = logging.getLogger(__name__)

SPOKEN = frozenset(
    {
        "hand_started",
        "contract",
        "turn",
        "trick_won",
        "violation",
        "hand_scored",
        "game_over",
        "unreadable",
        "card_rejected",
        "correction",
        "penalty",
        "demand",
        "skip",
        "player_out",
        "prompt",
        "camera",
    }
)
"""The kinds said aloud (a card accepted is not: the player just laid it; a prompt marked a
``reminder`` is not either, see :class:`~controller.announcements.Prompt`)."""

STANDING = frozenset({"turn", "prompt", "penalty", "demand"})
"""Kinds of which only the newest is worth saying: a newer one replaces one still waiting."""

_CARD = re.compile(r"(?<![\w])(10|[2-9JQKA])([SHDC♠♥♦♣])(?![\w])")
_SIGN = re.compile(r"[♠♥♦♣]")
_OF_TARGET = re.compile(r"(?<![\w/])(\d+)/(\d+)(?![\w/])")
_NAME_MARK = "\ue000{}\ue001"  # private-use characters: never word characters, never in a sentence


def _card_words(match: re.Match[str]) -> str:
    return f"{Rank.from_text(match.group(1)).noun} of {Suit.from_text(match.group(2)).noun}"


def spoken(announcement: Announcement, names: Sequence[str]) -> str:
    """``announcement``'s sentence as espeak-ng should say it: cards and suit signs in words, a
    score's "9/8" (tricks over target) as "9 of 8"; the players' names exactly as given."""
    marks = [_NAME_MARK.format(i) for i in range(len(names))]
    text = announcement.text(marks)
    text = _CARD.sub(_card_words, text)
    text = _SIGN.sub(lambda m: Suit.from_text(m.group(0)).noun, text)
    text = _OF_TARGET.sub(r"\1 of \2", text)
    for mark, name in zip(marks, names, strict=True):
        text = text.replace(mark, name)
    return text


def speaks(announcement: Announcement) -> bool:
    """Whether :class:`SpeechOutput` says ``announcement`` aloud."""
    if isinstance(announcement, Prompt):
        return not announcement.reminder
    return announcement.kind in SPOKEN


class SpeechOutput:
    """Speaks announcements with ``espeak-ng``, one sentence at a time, on its own thread.

    When espeak-ng is not installed it logs that once and stays silent. ``backlog`` is how many
    sentences may wait; beyond it the oldest waiting one is dropped (``dropped`` counts them).
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        voice: str = "en",
        speed: int = 170,
        program: str = "espeak-ng",
        backlog: int = 4,
    ) -> None:
        self.names = list(names)
        self.voice = voice
        self.speed = speed
        self.backlog = backlog
        self.program = shutil.which(program)
        self.dropped = 0
        self._waiting: deque[tuple[str, str]] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None
        if self.program is None:
            log.warning("speech is enabled but %s is not installed; staying silent", program)

    def announce(self, announcement: Announcement) -> None:
        if self.program is None or not speaks(announcement):
            return
        text = spoken(announcement, self.names)
        with self._cond:
            if self._closing:
                return
            if announcement.kind in STANDING:
                stale = [item for item in self._waiting if item[0] == announcement.kind]
                for item in stale:
                    self._waiting.remove(item)
                self.dropped += len(stale)
            self._waiting.append((announcement.kind, text))
            while len(self._waiting) > self.backlog:
                self._waiting.popleft()
                self.dropped += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._speak_queued, name="speech", daemon=True)
                self._thread.start()
            self._cond.notify()

    def _speak_queued(self) -> None:
        assert self.program is not None
        while True:
            with self._cond:
                while not self._waiting and not self._closing:
                    self._cond.wait()
                if not self._waiting:
                    return
                _kind, text = self._waiting.popleft()
                try:
                    self._proc = subprocess.Popen(
                        [self.program, "-v", self.voice, "-s", str(self.speed), text],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                except OSError as exc:
                    log.warning("speech: %s could not be started: %s", self.program, exc)
                    continue
                proc = self._proc
            proc.wait()

    def close(self, timeout: float = 5.0) -> None:
        """Say what is still waiting for up to ``timeout`` seconds, then stop (the sentence being said
        is cut off, the rest dropped). Later calls do nothing."""
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify()
            thread = self._thread
        if thread is None:
            return
        thread.join(timeout)
        if thread.is_alive():
            with self._cond:
                self.dropped += len(self._waiting)
                self._waiting.clear()
                proc = self._proc
            if proc is not None and proc.poll() is None:
                proc.terminate()
            thread.join(5.0)
