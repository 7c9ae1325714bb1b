"""``cardtable check``'s engine side: replay a record, produce the report (docs/record-format.md).

:func:`check_record` takes the parsed JSON of any record and returns the report dict; the game
(``"358"`` or ``"makao"``) picks the engine. Malformed records raise
:class:`~engine.errors.RecordError`; :func:`has_violations` decides the exit status 0 or 1.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.errors import RecordError
from engine.records import header, replay_358
from engine.threefiveeight.hand import Hand
from engine.threefiveeight.session import Session

__all__ = ["check_record", "has_violations", "report_358"]


def check_record(data: Any) -> dict[str, Any]:
    """The report for a record (already parsed from JSON). Raises RecordError when malformed."""
    _top, game = header(data)
    if game == "makao":
        try:
            module = importlib.import_module("engine.makao.records")
        except ImportError:
            raise RecordError("game", "Makao records cannot be checked yet: engine.makao.records is missing") from None
        checker = getattr(module, "check_record", None)
        if checker is None:
            raise RecordError("game", "Makao records cannot be checked yet: engine.makao.records has no check_record")
        report: dict[str, Any] = checker(data)
        return report
    return report_358(replay_358(data))


def report_358(session: Session) -> dict[str, Any]:
    """The report of a replayed 3-5-8 game: per hand and the game's totals, winner and ending."""
    outcome = session.outcome()
    return {
        "hands": [_hand_report(h) for h in session.hands],
        "totals": list(session.totals),
        "winner": outcome.winner,
        "ended_by": outcome.ended_by,
    }


def _hand_report(hand: Hand) -> dict[str, Any]:
    tricks = [t.to_json() for t in hand.tricks]
    current = hand.current_trick
    if current.cards and not hand.is_complete:
        tricks.append(current.to_json())  # the trick in progress, winner null
    score = hand.score()
    return {
        "declarer": hand.eight,
        "targets": list(hand.targets),
        "contract": None if hand.contract is None else hand.contract.value,
        "tricks": tricks,
        "taken": list(hand.taken),
        "score": None if score is None else list(score),
        "violations": [v.to_json() for v in sorted(hand.violations, key=lambda v: (v.trick, v.proven_at))],
    } | ({"voided": True} if hand.voided else {})


def has_violations(report: Any) -> bool:
    """True when any ``violations`` list anywhere in the report is non-empty (works for Makao too)."""
    if isinstance(report, dict):
        for key, value in report.items():
            if key == "violations" and isinstance(value, list) and value:
                return True
            if has_violations(value):
                return True
    elif isinstance(report, list):
        return any(has_violations(v) for v in report)
    return False
