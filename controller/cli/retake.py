"""The ``--retake``, ``--nudge``, ``--shadows`` and ``--rest`` options of ``cardtable demo`` and ``cardtable bench
tracker``: players who pick a card up again and lay it again, square it up where it lies, lean over the table under
its lamp, or rest a hand on the mat, which the table must not take for a card played."""

from __future__ import annotations

import argparse

from vision.argtypes import in_range
from vision.render.script import LEAN_FRAMES, LEAN_SHARE, REST_DRIFT_MM, REST_FRAMES

__all__ = ["add_nudge_argument", "add_rest_argument", "add_retake_argument", "add_shadows_argument"]


def add_retake_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--retake SHARE`` (default 0): that share of ``cards`` is picked up and laid again by its player."""
    _add_share(
        parser,
        "--retake",
        f"this share of {cards} is picked up again and laid again by its player (to straighten it, or nearer "
        "the pile), which the table must not take for a card played; default 0",
    )


def add_nudge_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--nudge SHARE`` (default 0): that share of ``cards`` is pushed straight where it lies."""
    _add_share(
        parser,
        "--nudge",
        f"this share of {cards} is pushed 2-8 mm and turned up to 6 degrees where it lies by a hand that comes "
        "and goes (a player squaring up the pile or the trick): nothing was played, so anything the table says of "
        "it is false; default 0",
    )


def add_shadows_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--shadows DEPTH`` (default 0): a lamp over the table, hands and leaning players' shadows that deep."""
    parser.add_argument(
        "--shadows",
        type=in_range(float, 0.0, 0.9, "a share of the light in 0..0.9"),
        default=0.0,
        metavar="DEPTH",
        help=f"a lamp over the table: each hand throws a soft shadow taking DEPTH of the light beside it, and after"
        f" one in {round(1 / LEAN_SHARE)} of {cards} a player leans over the table for {LEAN_FRAMES} frames, their"
        " head and shoulders' shadow as deep reaching 0.4-0.8 of the way in from their edge: nothing was played, so"
        " anything the table says then is false (default 0: no shadows)",
    )


def add_rest_argument(parser: argparse.ArgumentParser, cards: str) -> None:
    """Add ``--rest SHARE`` (default 0): after that share of ``cards`` a player rests a hand on the mat."""
    _add_share(
        parser,
        "--rest",
        f"after this share of {cards} a player rests a hand on the mat for {REST_FRAMES} frames (wandering up to"
        f" {REST_DRIFT_MM:g} mm each way, as a real hand does), 0.2-0.6 of"
        " the way into their own zone (on their card, if it lies there) or onto the pile, waiting for their turn:"
        " nothing was played, so anything the table says then is false; default 0",
    )


def _add_share(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    parser.add_argument(
        flag, type=in_range(float, 0.0, 1.0, "a share in 0..1"), default=0.0, metavar="SHARE", help=help
    )
