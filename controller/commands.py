"""Operator and console commands the referee understands, besides the feed's control commands.

The feed (``controller.feed.control``) parses what arrives on the MQTT control topic into
``Undo``, ``CorrectCard``, ``NextHand``, ``Pause``, ``Resume``, ``EndGame``, ``NewGame`` and ``Resync``. A table also
needs a few inputs that a person gives by hand when the camera or the buttons cannot: name the
contract, enter an unreadable card, move on from a phase the camera cannot see (the exchange, the
kitty). They are frozen values like every input, so the journal stores and replays them.

:func:`parse_console` reads the development console's one-line commands (``u`` undo, ``c 1 10H``
correct, ``e 2 QS`` enter, ``k H`` contract, ``n`` next, ``p 0`` / ``l 0`` short / long press...).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.feed.control import CorrectCard, EndGame, NewGame, NextHand, Pause, Resume, Resync, Undo
from controller.journal import register
from engine.cards import Card, CardError
from hardware.events import Press, SeatButton

__all__ = [
    "Advance",
    "DeclareContract",
    "EnterCard",
    "parse_console",
]


@dataclass(frozen=True, slots=True)
class Advance:
    """Move on from a phase the camera cannot see (the exchange or the kitty is done)."""


@dataclass(frozen=True, slots=True)
class DeclareContract:
    """The declarer's contract, entered by the operator: ``S H D C NT MISERE PASS``."""

    contract: str


@dataclass(frozen=True, slots=True)
class EnterCard:
    """A card the camera could not read, entered by hand for ``seat`` (Makao: for the pile)."""

    seat: int
    card: Card


for _name, _cls in (
    ("advance", Advance),
    ("declare", DeclareContract),
    ("enter_card", EnterCard),
    ("undo", Undo),
    ("correct_card", CorrectCard),
    ("next_hand", NextHand),
    ("pause", Pause),
    ("resume", Resume),
    ("end_game", EndGame),
    ("new_game", NewGame),
    ("resync", Resync),
):
    register(_name, _cls)


CONSOLE_HELP = """\
u                undo the last accepted card        c SEAT CARD   correct SEAT's card in this trick
e SEAT CARD      enter a card the camera cannot read k CONTRACT    declare (S H D C NT MISERE PASS)
n                next (exchange/kitty done)         N             next hand
p SEAT | p op    short press of a seat's button      l SEAT        long press
end              end the game now                    new           start the next game (once this one is over)
?                this help"""


def parse_console(line: str) -> object:
    """One console line as an input value; raises ValueError with a short reason."""
    words = line.split()
    if not words:
        raise ValueError("empty command")
    head, args = words[0], words[1:]
    try:
        if head == "u" and not args:
            return Undo()
        if head == "n" and not args:
            return Advance()
        if head == "N" and not args:
            return NextHand()
        if head == "end" and not args:
            return EndGame()
        if head == "new" and not args:
            return NewGame()
        if head == "k" and len(args) == 1:
            return DeclareContract(args[0].upper())
        if head in ("c", "e") and len(args) == 2:
            seat, card = int(args[0]), Card.from_text(args[1])
            return CorrectCard(seat=seat, card=card) if head == "c" else EnterCard(seat, card)
        if head in ("p", "l") and len(args) == 1:
            who = None if args[0] == "op" else int(args[0])
            return SeatButton(who, Press.SHORT if head == "p" else Press.LONG)
    except CardError as exc:
        raise ValueError(str(exc)) from None
    except ValueError:
        raise ValueError(f"bad arguments in {line!r}") from None
    raise ValueError(f"unknown command {line!r} (? for help)")
