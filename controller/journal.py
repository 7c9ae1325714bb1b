"""The crash-safe journal: every accepted input, on disk, before it takes effect.

The referee is a deterministic function of its inputs (vision events, button presses, operator
commands), so the journal stores *inputs*, not state: one JSON object per line, written, flushed and
``fsync``-ed before the referee acts on it. After a crash or a power cut the controller reads the
journal back and feeds the same inputs to a fresh referee (announcements muted), which lands in the
same hand, trick and scores; then the live inputs continue.

A power cut can tear the last line (the write was not finished). That line was never acted on, so it
is dropped with a clear log line and the file is truncated to the last whole line. A bad line anywhere
else means the file was damaged by something other than a crash: that is an error, not a guess.

Inputs are encoded by their dataclass fields (cards as text, enums by value) under a ``type`` name
from :data:`CODECS`; :func:`register` adds more input types (operator commands).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import os
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from engine.cards import Card
from hardware.events import SeatButton
from vision.events import CardMoved, CardPlaced, CardRemoved, UnreadableCard, ZoneCleared

__all__ = ["CODECS", "Journal", "JournalError", "decode", "encode", "read_journal", "register"]

log = logging.getLogger(__name__)

CODECS: dict[str, type[Any]] = {}


class JournalError(ValueError):
    """A journal that cannot be replayed (damaged in the middle, unknown input type)."""


def register(name: str, cls: type[Any]) -> None:
    """Make dataclass ``cls`` journalable under ``name``."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    CODECS[name] = cls


for _name, _cls in (
    ("card_placed", CardPlaced),
    ("card_removed", CardRemoved),
    ("card_moved", CardMoved),
    ("zone_cleared", ZoneCleared),
    ("unreadable", UnreadableCard),
    ("button", SeatButton),
):
    register(_name, _cls)


def _to_json(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if hint is Card:
        return Card.from_text(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if origin in (types.UnionType, typing.Union):
        if value is None:
            return None
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(options) == 1:
            return _from_json(value, options[0])
        return value
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(v, args[0]) for v in value)
        return tuple(_from_json(v, a) for v, a in zip(value, args, strict=True))
    if hint is float and isinstance(value, int):
        return float(value)
    return value


def encode(item: Any) -> dict[str, Any]:
    """An input as a JSON-ready dict with its ``type``."""
    for name, cls in CODECS.items():
        if type(item) is cls:
            out: dict[str, Any] = {"type": name}
            for f in dataclasses.fields(item):
                out[f.name] = _to_json(getattr(item, f.name))
            return out
    raise JournalError(f"cannot journal {type(item).__name__}: not a registered input type")


def decode(data: dict[str, Any]) -> Any:
    """The input an :func:`encode` dict stands for."""
    name = data.get("type")
    cls = CODECS.get(str(name))
    if cls is None:
        raise JournalError(f"unknown input type {name!r}")
    hints = typing.get_type_hints(cls)
    kwargs = {k: _from_json(v, hints[k]) for k, v in data.items() if k != "type" and k in hints}
    return cls(**kwargs)


def read_journal(path: Path, *, repair: bool = True) -> list[Any]:
    """The inputs in a journal file, in order; a torn last line is dropped (and cut off when ``repair``)."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    items: list[Any] = []
    good_bytes = 0
    for number, line in enumerate(complete, start=1):
        try:
            items.append(decode(json.loads(line)))
        except (ValueError, TypeError, KeyError) as exc:
            if number == len(complete) and not tail:
                # The last line is complete but garbled: a crash mid-write on some filesystems.
                log.warning("journal %s: dropping damaged last line %d (%s)", path, number, exc)
                tail = line
                break
            raise JournalError(f"{path}: line {number} is damaged: {exc}") from None
        good_bytes += len(line) + 1
    if tail:
        log.warning(
            "journal %s: dropping a torn last line (%d bytes, written when the power went or the process died)",
            path,
            len(tail),
        )
        if repair:
            with path.open("r+b") as fh:
                fh.truncate(good_bytes)
                fh.flush()
                os.fsync(fh.fileno())
    return items


class Journal:
    """An append-only journal file. :meth:`append` returns only once the line is on disk."""

    def __init__(self, path: str | Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._fh: IO[bytes] | None = None
        self.count = 0

    def replay(self) -> list[Any]:
        """Read (and repair) what is already there; call before the first :meth:`append`."""
        items = read_journal(self.path)
        self.count = len(items)
        return items

    def _open(self) -> IO[bytes]:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("ab")
        return self._fh

    def append(self, item: Any) -> None:
        line = json.dumps(encode(item), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        fh = self._open()
        fh.write(line)
        fh.flush()
        if self.fsync:
            os.fsync(fh.fileno())
        self.count += 1

    def __iter__(self) -> Iterator[Any]:
        return iter(read_journal(self.path, repair=False))

    def reset(self) -> None:
        """Start a new game: move the old journal aside (kept as ``.done``) and begin empty."""
        self.close()
        if self.path.exists():
            self.path.replace(self.path.with_suffix(self.path.suffix + ".done"))
        self.count = 0

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
