"""The e-ink scoreboard: a view value, a Pillow renderer, panel backends and a refresh policy."""

from hardware.display.view import MakaoLine, ScoreboardView, SeatLine

__all__ = ["MakaoLine", "ScoreboardView", "SeatLine"]
