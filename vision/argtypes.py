"""Argument types shared by the vision commands (evaluation, tuning, training)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

__all__ = ["in_range", "probability"]

T = TypeVar("T", int, float)


def in_range(convert: Callable[[str], T], low: T, high: T, what: str) -> Callable[[str], T]:
    """An argparse type for a number ``convert`` reads from the text and that lies in ``low..high``; a bad
    value is refused by argparse with a message that says what was expected and what was given, never
    a traceback."""

    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what}, not {value:g}")
        return value

    parse.__name__ = what  # argparse names the type by it in its own messages
    return parse


probability = in_range(float, 0.0, 1.0, "a probability in 0..1")
"""A value in 0..1: a chance, a score or an evidence threshold."""
