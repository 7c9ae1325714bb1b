"""Rules-engine speed on one core: complete random 3-5-8 hands per second (full knowledge, bots,
whole games so the exchange and session bookkeeping count too), and Makao turns per second.

The figures go in the README; the issue's aim is at least 5,000 3-5-8 hands a second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

NAME = "engine"
HELP = "3-5-8 hands/s and Makao turns/s on one core"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    parser.add_argument("--preset", action="append", help="3-5-8 preset(s) to measure (default: all four)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")


def measure_358(preset: str, seconds: float, *, simple: bool = False) -> dict[str, float]:
    """Play whole bot games for ``seconds``; count complete hands (passes left out).

    The games run in batches of about 0.1 s: ``hands_per_s`` is the overall rate in CPU time, and
    ``best_batch_hands_per_s`` the fastest batch by the wall clock, which is the figure to compare on a
    machine that other jobs share (like timeit's best of N).
    """
    from engine.threefiveeight.bots import SimpleBot, simulate
    from engine.threefiveeight.rules import PRESETS

    rules = PRESETS[preset]
    hands = 0
    games = 0
    best = 0.0
    start_cpu = time.process_time()
    start_wall = time.perf_counter()
    while time.process_time() - start_cpu < seconds:
        batch_start = time.perf_counter()
        batch_hands = 0
        while time.perf_counter() - batch_start < 0.1:
            bots = [SimpleBot(games * 3 + i) for i in range(3)] if simple else None
            session = simulate(rules, games, bots=bots, max_hands=30)
            batch_hands += len(session.scored_hands)
            games += 1
        best = max(best, batch_hands / (time.perf_counter() - batch_start))
        hands += batch_hands
    cpu = time.process_time() - start_cpu
    wall = time.perf_counter() - start_wall
    return {
        "hands": hands,
        "games": games,
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "hands_per_s": round(hands / cpu, 1),
        "best_batch_hands_per_s": round(best, 1),
    }


def run(args: argparse.Namespace) -> int:
    from engine.threefiveeight.rules import PRESETS

    presets = args.preset or list(PRESETS)
    for p in presets:
        if p not in PRESETS:
            print(f"cardtable bench engine: unknown preset {p!r} (one of {', '.join(PRESETS)})", file=sys.stderr)
            return 2
    result: dict[str, object] = {"358_random": {}, "358_simple": {}}
    for p in presets:
        r = measure_358(p, args.seconds)
        result["358_random"][p] = r  # type: ignore[index]
        if not args.json:
            print(
                f"3-5-8 {p:15s} random bots: {r['hands_per_s']:9.1f} hands/s CPU time, best batch "
                f"{r['best_batch_hands_per_s']:9.1f} hands/s  ({r['hands']} hands, {r['cpu_s']} s CPU, "
                f"{r['wall_s']} s wall)",
                flush=True,
            )
    s = measure_358(presets[0], args.seconds, simple=True)
    result["358_simple"][presets[0]] = s  # type: ignore[index]
    if not args.json:
        print(
            f"3-5-8 {presets[0]:15s} simple bots: {s['hands_per_s']:9.1f} hands/s CPU time, best batch "
            f"{s['best_batch_hands_per_s']:9.1f} hands/s",
            flush=True,
        )
    import importlib

    try:
        makao_bench: object = importlib.import_module("engine.makao.bench")
    except ImportError:
        makao_bench = None
    measure = getattr(makao_bench, "measure", None)
    if measure is not None:
        m = measure(args.seconds)
        result["makao"] = m
        if not args.json:
            print(f"Makao: {json.dumps(m)}")
    else:
        result["makao"] = None
        if not args.json:
            print("Makao: engine.makao.bench not available yet")
    if args.json:
        print(json.dumps(result))
    return 0
