"""The ``--nudge`` option of ``cardtable demo`` and ``cardtable bench tracker``: players who square up a card
where it lies (the pile's top card, their trick card), which the table must not take for a card played."""

from __future__ import annotations

import argparse

from vision.argtypes import in_range

__all__ = ["add_nudge_argument"]


def add_nudge_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--nudge SHARE`` (default 0): that share of ``cards`` is pushed straight where it lies."""
    parser.add_argument(
        "--nudge",
        type=in_range(float, 0.0, 1.0, "a share in 0..1"),
        default=0.0,
        metavar="SHARE",
        help=f"this share of {cards} is pushed 2-8 mm and turned up to 6 degrees where it lies by a hand that "
        "comes and goes (a player squaring up the pile or the trick): nothing was played, so anything the table "
        "says of it is false; default 0",
    )
