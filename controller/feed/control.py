"""Operator commands that arrive on ``cardtable/<table>/control``, parsed into typed values.

The broker's ACL decides who may publish there (the ``operator`` account); the feed parses what comes
in into one of the frozen dataclasses below and hands it to the controller's callback. Malformed
input raises :class:`CommandError` with a message naming what was wrong, which the feed turns into an
``error`` event: a bad command never reaches the referee and never crashes it.

Wire format (JSON object)::

    {"command": "undo"}
    {"command": "correct_card", "seat": 2, "card": "10H"}          # optional "trick": 4
    {"command": "next_hand"}
    {"command": "pause"} / {"command": "resume"}
    {"command": "end_game"}
    {"command": "new_game"}                                          # once the game is over
    {"command": "resync"}                                            # re-publish the state snapshot

Every command may carry ``"id"`` (echoed in the resulting error event so an operator tool can match
them) and ``"token"`` (checked when the feed is configured with ``control_token``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import Card, CardError


class CommandError(ValueError):
    """A control message that is not a valid command; the message says why."""


@dataclass(frozen=True, slots=True)
class Command:
    """Base of all operator commands. ``id`` is the operator's own correlation id, if any."""

    NAME: ClassVar[str] = ""
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Undo(Command):
    """Take back the last accepted input (a card, a contract, a button press)."""

    NAME: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class CorrectCard(Command):
    """The card accepted for ``seat`` (in trick ``trick``, default the current one) was really ``card``."""

    NAME: ClassVar[str] = "correct_card"
    seat: int = 0
    card: Card | None = None
    trick: int | None = None


@dataclass(frozen=True, slots=True)
class NextHand(Command):
    """Go on to the next hand (after the score was shown, or to abandon a misdealt hand)."""

    NAME: ClassVar[str] = "next_hand"


@dataclass(frozen=True, slots=True)
class Pause(Command):
    NAME: ClassVar[str] = "pause"


@dataclass(frozen=True, slots=True)
class Resume(Command):
    NAME: ClassVar[str] = "resume"


@dataclass(frozen=True, slots=True)
class EndGame(Command):
    """Stop the game now and publish the final score."""

    NAME: ClassVar[str] = "end_game"


@dataclass(frozen=True, slots=True)
class NewGame(Command):
    """Start the next game at this table once the current one is over (the table keeps the final
    score on show until then). Sent during a game it is refused: ``end_game`` ends one first."""

    NAME: ClassVar[str] = "new_game"


@dataclass(frozen=True, slots=True)
class Resync(Command):
    """Ask the controller to publish a fresh state snapshot (harmless; spectators cannot send it)."""

    NAME: ClassVar[str] = "resync"


COMMANDS: dict[str, type[Command]] = {
    cls.NAME: cls for cls in (Undo, CorrectCard, NextHand, Pause, Resume, EndGame, NewGame, Resync)
}

#: Longest control payload accepted, so a flood of junk cannot cost memory or time.
MAX_PAYLOAD = 4096


def _seat(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 16:
        raise CommandError(f"'seat' must be a seat number 0..15, not {value!r}")
    return value


def _card(value: Any) -> Card:
    try:
        return Card.from_text(value)
    except CardError as exc:
        raise CommandError(f"'card': {exc}") from None


def _trick(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CommandError(f"'trick' must be a trick number from 1, not {value!r}")
    return value


_FIELDS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "correct_card": {"seat": _seat, "card": _card, "trick": _trick},
}
_REQUIRED: dict[str, set[str]] = {"correct_card": {"seat", "card"}}


def parse_command(payload: bytes | bytearray | str, token: str | None = None) -> Command:
    """Parse one control message. Raises :class:`CommandError` naming the problem.

    ``token``: when not None, the message must carry ``"token": token``.
    """
    if len(payload) > MAX_PAYLOAD:
        raise CommandError(f"control message is {len(payload)} bytes; the limit is {MAX_PAYLOAD}")
    try:
        text = payload if isinstance(payload, str) else bytes(payload).decode("utf-8")
        obj = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CommandError(f"control message is not JSON: {exc}") from None
    if not isinstance(obj, Mapping):
        raise CommandError(f"control message must be a JSON object, not {type(obj).__name__}")
    name = obj.get("command")
    if not isinstance(name, str) or name not in COMMANDS:
        known = ", ".join(sorted(COMMANDS))
        raise CommandError(f"unknown command {name!r} (known: {known})")
    if token is not None and obj.get("token") != token:
        raise CommandError(f"command {name!r} refused: missing or wrong token")
    cid = obj.get("id")
    if cid is not None and not isinstance(cid, str | int):
        raise CommandError(f"'id' must be text or a number, not {cid!r}")
    fields = _FIELDS.get(name, {})
    unknown = set(obj) - {"command", "id", "token"} - set(fields)
    if unknown:
        raise CommandError(f"command {name!r} has unknown field(s): {', '.join(sorted(unknown))}")
    missing = _REQUIRED.get(name, set()) - set(obj)
    if missing:
        raise CommandError(f"command {name!r} needs field(s): {', '.join(sorted(missing))}")
    values = {key: conv(obj[key]) for key, conv in fields.items() if key in obj}
    return COMMANDS[name](id=None if cid is None else str(cid), **values)


def command_id_of(payload: bytes | bytearray | str) -> str | None:
    """The ``id`` of a control message, if it has a readable one (for error events)."""
    try:
        obj = json.loads(payload)
    except (ValueError, TypeError):
        return None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return str(cid) if isinstance(cid, str | int) and not isinstance(cid, bool) else None
