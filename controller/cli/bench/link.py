"""``cardtable bench link``: how long an LED command takes from the controller's call to the ring.

Two rings are timed, one command at a time (the way announcements come):

- ``simulated``: ``SimulatedRing`` (what the demo uses); the command applies inside the call.
- ``pty``: the real firmware code (firmware/app.py on CPython) behind a pseudo-terminal, reached
  through the real host link (hardware/link.py, pyserial, COBS, CRC, acks). Timed from
  ``ring.trick_won(seat)`` to the firmware's apply hook, in the same process and clock.

Prints JSON with p50/p95/max in milliseconds against the 50 ms target. ``--corrupt 0.01`` damages
1% of frames each way, so the figures include resends.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

NAME = "link"
HELP = "LED command latency: controller call -> ring applied (simulated ring and firmware on a pty)"
TARGET_MS = 50.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--commands", type=int, default=500, help="commands per ring (default 500)")
    parser.add_argument("--corrupt", type=float, default=0.0, help="fraction of frames damaged each way on the pty")
    parser.add_argument("--gap-ms", type=float, default=2.0, help="pause between commands (default 2 ms)")
    parser.add_argument("--ring", choices=("simulated", "pty", "both"), default="both")


def _summary(samples_ms: list[float]) -> dict[str, float | int]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(ordered[-1], 3),
    }


def _bench_simulated(n: int, gap_s: float) -> list[float]:
    from hardware.simring import SimulatedRing

    applied_at: list[float] = []
    ring = SimulatedRing(stream=io.StringIO(), on_apply=lambda command, state: applied_at.append(time.perf_counter()))
    ring.set_seats(4)
    samples = []
    for i in range(n):
        start = time.perf_counter()
        ring.trick_won(i % 4)
        samples.append((applied_at[-1] - start) * 1000)
        time.sleep(gap_s)
    return samples


def _bench_pty(n: int, gap_s: float, corrupt: float) -> tuple[list[float], dict[str, int]]:
    from firmware.sim import PtyPico
    from hardware.link import LinkRing

    applied = threading.Event()
    applied_at: list[float] = []

    def on_apply(seq: int, op: int, arg: int) -> None:
        applied_at.append(time.perf_counter())
        applied.set()

    samples = []
    with (
        tempfile.TemporaryDirectory() as folder,
        PtyPico(Path(folder) / "ring", corrupt=corrupt, seed=7, on_apply=on_apply) as pico,
        LinkRing(str(Path(folder) / "ring")) as ring,
    ):
        if not ring.wait_connected(10):
            raise RuntimeError("the firmware on the pty did not answer the handshake")
        for i in range(n):
            applied.clear()
            start = time.perf_counter()
            ring.trick_won(i % 4)
            if not applied.wait(10):
                raise RuntimeError(f"command {i} was not applied within 10 s")
            samples.append((applied_at[-1] - start) * 1000)
            time.sleep(gap_s)
        stats = ring.stats()
        extra = {
            "resent": stats.resent,
            "timeouts": stats.timeouts,
            "corrupted_to_ring": pico.port.inbound.corrupted,
            "corrupted_to_host": pico.port.outbound.corrupted,
        }
    return samples, extra


def run(args: argparse.Namespace) -> int:
    if args.commands < 1:
        print("--commands must be at least 1", file=sys.stderr)
        return 2
    gap = args.gap_ms / 1000
    result: dict[str, object] = {"target_ms": TARGET_MS, "commands": args.commands}
    worst = 0.0
    if args.ring in ("simulated", "both"):
        summary = _summary(_bench_simulated(args.commands, gap))
        result["simulated"] = summary
        worst = max(worst, float(summary["p95_ms"]))
    if args.ring in ("pty", "both"):
        samples, extra = _bench_pty(args.commands, gap, args.corrupt)
        result["firmware_on_pty"] = {**_summary(samples), "corrupt": args.corrupt, **extra}
        worst = max(worst, float(_summary(samples)["p95_ms"]))
    result["p95_within_target"] = worst <= TARGET_MS
    print(json.dumps(result, indent=2))
    return 0
