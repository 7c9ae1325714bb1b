"""What the buttons tell the controller: typed presses.

``seat`` is the seat index of the button, or ``None`` for the operator button. A short press means
confirm or next; a long press means undo or menu (the controller decides by context).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Press(enum.Enum):
    SHORT = "short"
    LONG = "long"


@dataclass(frozen=True, slots=True)
class SeatButton:
    seat: int | None
    press: Press
    t: float = 0.0
