"""Fake ``machine``/``neopixel``/``micropython`` modules so firmware/main.py runs on desktop CPython.

``install()`` puts them in ``sys.modules`` (tests do it in a fixture and undo it afterwards).
"""

import importlib
import sys
from types import ModuleType

NAMES = ("machine", "neopixel", "micropython")


def install() -> "dict[str, ModuleType | None]":
    """Install the fakes; returns what they replaced (pass it to ``uninstall``)."""
    saved = {name: sys.modules.get(name) for name in NAMES}
    for name in NAMES:
        sys.modules[name] = importlib.import_module(f"firmware._fakes.{name}")
    return saved


def uninstall(saved: "dict[str, ModuleType | None]") -> None:
    for name, module in saved.items():
        if module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = module
