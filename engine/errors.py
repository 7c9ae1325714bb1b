"""Errors shared by the engines, in python-chess's split between malformed and illegal.

- :class:`RecordError`: a record (JSON game file) that is malformed: wrong shape, bad card text,
  unknown preset, impossible seat. It names the field path and the value. ``cardtable check`` exits 2.
- :class:`IllegalActionError`: a well-formed action that the rules forbid, raised on the checked path
  (full mode, bots). Table mode does not raise for proven violations: it records them.
"""

from __future__ import annotations


class RecordError(ValueError):
    """A malformed record. ``path`` is the JSON path of the bad field, such as ``hands[0].plays[3].card``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class IllegalActionError(ValueError):
    """An action the rules forbid; the message is a reason a person can read."""

    def __init__(self, reason: str, rule: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
