"""Makao (seed 004): rule switches and presets, the game in FULL and TABLE mode, bots and records.

The public names are re-exported here; see :mod:`engine.makao.game` for the two knowledge modes and
the controller's entry point :meth:`MakaoGame.observe`.
"""

from engine.makao.actions import Accept, Action, Demand, Draw, Pass, Play, Rule, Violation
from engine.makao.game import Knowledge, MakaoGame, Outcome, Phase
from engine.makao.rules import PRESETS, DemandDuration, MakaoRules, StarterRule, preset

__all__ = [
    "PRESETS",
    "Accept",
    "Action",
    "Demand",
    "DemandDuration",
    "Draw",
    "Knowledge",
    "MakaoGame",
    "MakaoRules",
    "Outcome",
    "Pass",
    "Phase",
    "Play",
    "Rule",
    "StarterRule",
    "Violation",
    "preset",
]
