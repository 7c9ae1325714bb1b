"""Makao throughput: bot games on one core, for ``cardtable bench engine`` (a command, never a test).

A "turn" is one applied action (play, draw, pass or accept) chosen from the legal actions and applied
through the trusted path with undo snapshots, which is what a simulation or a search pays per move.
"""

from __future__ import annotations

import time
from typing import Any

from engine.makao.bots import SimpleBot, play_out
from engine.makao.game import MakaoGame
from engine.makao.rules import PRESETS

__all__ = ["measure"]


def measure(seconds: float = 2.0, seed: int = 0) -> dict[str, Any]:
    """Play bot games for about *seconds* of CPU time; returns turns, seconds, turns_per_second and games.

    Seconds are this process's CPU time (``time.process_time``), so a busy machine does not halve the
    figure; ``wall_seconds`` is the elapsed time. Games cycle through 2 to 6 players and both presets,
    so the figure covers one- and two-deck tables; the bots are :class:`SimpleBot` (the uniform
    random bot makes unusually long games). The bots' own choosing is about half of the time.
    """
    presets = list(PRESETS.values())
    turns = games = 0
    start, wall_start = time.process_time(), time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds or games == 0:
        n = 2 + games % 5
        rules = presets[(games // 5) % len(presets)]
        game = MakaoGame.deal(rules, [f"P{i}" for i in range(n)], seed=seed + games)
        turns += play_out(game, SimpleBot(seed + games))
        games += 1
        elapsed = time.process_time() - start
    return {
        "turns": turns,
        "seconds": round(elapsed, 3),
        "turns_per_second": round(turns / elapsed, 1) if elapsed > 0 else 0.0,
        "games": games,
        "wall_seconds": round(time.perf_counter() - wall_start, 3),
    }
