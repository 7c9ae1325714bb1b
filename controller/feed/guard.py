"""The payload guard: nothing the feed publishes may name a card that is hidden at that moment.

The engine computes the public view, and the controller builds payloads from it; the guard is the
independent second check at the last point before the network. It finds every card named in a
payload (JSON string values, whole or as tokens inside text such as ``"Ada plays 10H"``) and refuses
the payload when one of them is in the set of cards currently hidden (in a hand, the kitty, the
discards or an exchange), which the controller supplies through a callback.

Only canonical card spellings are recognised inside text (``10H``, ``QS``, ``10♥``, ``QS#1``):
upper-case rank and suit letters, so ordinary words ("As", "ah") are not mistaken for cards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator
from typing import Any

from engine.cards import Card, CardError

_TOKEN = re.compile(r"(?<![A-Za-z0-9#])(?:10|[2-9TJQKA])[SHDC♠♥♦♣](?:#\d)?(?![A-Za-z0-9])")


class LeakError(RuntimeError):
    """A payload names a hidden card. A bug upstream: the payload is not published."""


def cards_named(payload: Any) -> Iterator[Card]:
    """Every card named anywhere in a JSON-able value (keys and string values)."""
    if isinstance(payload, str):
        for match in _TOKEN.finditer(payload):
            try:
                yield Card.from_text(match.group(0))
            except CardError:  # pragma: no cover - the pattern only matches cards
                continue
    elif isinstance(payload, dict):
        for key, value in payload.items():
            yield from cards_named(key)
            yield from cards_named(value)
    elif isinstance(payload, list | tuple):
        for item in payload:
            yield from cards_named(item)


def check_payload(payload: Any, hidden: Collection[Card], where: str) -> None:
    """Raise :class:`LeakError` if ``payload`` (a JSON-able value or JSON text) names a hidden card."""
    if not hidden:
        return
    value = json.loads(payload) if isinstance(payload, str | bytes) else payload
    leaked = sorted({str(c) for c in cards_named(value) if c in hidden})
    if leaked:
        raise LeakError(f"refusing to publish on {where}: it names hidden card(s) {', '.join(leaked)}")


HiddenCards = Callable[[], Collection[Card]]
