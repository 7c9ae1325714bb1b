"""Argument types shared by the vision commands (evaluation, tuning, training)."""

from __future__ import annotations

import argparse

__all__ = ["probability"]


def probability(text: str) -> float:
    """An argparse type for a value in 0..1 (a chance, a score or an evidence threshold): a bad value
    is refused by argparse with a message that names it, never a traceback."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability in 0..1, not {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability in 0..1, not {value:g}")
    return value
