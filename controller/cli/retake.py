"""The ``--retake`` option of ``cardtable demo`` and ``cardtable bench tracker``: players who pick a card up
again and lay it again, which the table must not take for a card played."""

from __future__ import annotations

import argparse

from vision.argtypes import in_range

__all__ = ["add_retake_argument"]


def add_retake_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--retake SHARE`` (default 0): that share of ``cards`` is picked up and laid again by its player."""
    parser.add_argument(
        "--retake",
        type=in_range(float, 0.0, 1.0, "a share in 0..1"),
        default=0.0,
        metavar="SHARE",
        help=f"this share of {cards} is picked up again and laid again by its player (to straighten it, or nearer "
        "the pile), which the table must not take for a card played; default 0",
    )
