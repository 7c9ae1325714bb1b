"""The e-ink scoreboard: a view value, a Pillow renderer, panel backends and a refresh policy.

The controller builds a ``ScoreboardView`` and calls ``Scoreboard.show(view)``; pick the panel with
``scoreboard_from_config("inky" | "waveshare:<model>" | "png:<dir>" | "terminal")``.
"""

from hardware.display.board import Scoreboard, scoreboard_from_config
from hardware.display.panels import Panel, PanelError, panel_from_config
from hardware.display.refresh import PanelTiming, Refresh, RefreshPolicy
from hardware.display.render import render
from hardware.display.view import MakaoLine, ScoreboardView, SeatLine

__all__ = [
    "MakaoLine",
    "Panel",
    "PanelError",
    "PanelTiming",
    "Refresh",
    "RefreshPolicy",
    "Scoreboard",
    "ScoreboardView",
    "SeatLine",
    "panel_from_config",
    "render",
    "scoreboard_from_config",
]
