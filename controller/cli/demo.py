"""Watch a whole refereed game on this machine: ``cardtable demo``.

Bots play; a synthetic overhead camera films the felt; the frames go through the real recogniser,
tracker, referee and rules engine; the table's announcements appear here as they happen, the e-ink
scoreboard as PNG frames in the output folder, the LED ring as a log, and the MQTT feed on an embedded
broker (or ``--broker``), with the spectator page served locally. A summary follows at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.cli.addresses import host_port
from controller.cli.retake import (
    add_nudge_argument,
    add_rest_argument,
    add_retake_argument,
    add_shadows_argument,
)

NAME = "demo"
HELP = "bots play a refereed game through the real camera pipeline (simulated table)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=["358", "makao"], default="358")
    parser.add_argument("--preset", default="", help="rules preset (default: sergeant-major)")
    parser.add_argument("--players", type=int, default=3, help="players (Makao; 3-5-8 is always 3)")
    parser.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--headless", action="store_true", help="no spectator server, no waiting")
    parser.add_argument("--report", type=Path, help="write the JSON report here too")
    parser.add_argument(
        "--broker", type=host_port, metavar="HOST:PORT", help="an MQTT broker to publish to (default: an embedded one)"
    )
    parser.add_argument("--no-feed", action="store_true", help="no MQTT feed at all")
    parser.add_argument("--table", default="demo", help="table id (MQTT topic level)")
    parser.add_argument("--out", type=Path, default=Path("runs/demo"), help="output folder (default runs/demo)")
    parser.add_argument(
        "--recogniser",
        choices=["auto", "onnx", "truth"],
        default="auto",
        help="onnx: the trained models; truth: a labelled stand-in that reads the renderer's truth",
    )
    parser.add_argument("--models", type=Path, help="folder of the ONNX models (default: vision/models)")
    parser.add_argument(
        "--design", help="card design the synthetic camera sees (default: the committed demo deck, orell)"
    )
    add_retake_argument(parser, "the cards the table accepted")
    add_nudge_argument(parser, "the cards the table accepted")
    add_shadows_argument(parser, "the cards the table accepted")
    add_rest_argument(parser, "the cards the table accepted")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def run(args: argparse.Namespace) -> int:
    from controller.demo import DemoOptions, run_demo

    if args.game == "358" and args.players != 3:
        print("cardtable demo: 3-5-8 is for 3 players", file=sys.stderr)
        return 2
    if args.hands < 1:
        print("cardtable demo: --hands must be at least 1", file=sys.stderr)
        return 2
    opts = DemoOptions(
        game=args.game,
        preset=args.preset,
        players=args.players,
        hands=args.hands,
        seed=args.seed,
        out=args.out,
        headless=args.headless,
        broker=args.broker,
        table=args.table,
        feed=not args.no_feed,
        quiet=args.quiet,
        recogniser=args.recogniser,
        model_dir=args.models,
        design=args.design,
        retake=args.retake,
        nudge=args.nudge,
        shadows=args.shadows,
        rest=args.rest,
    )
    try:
        report = run_demo(opts)
    except ValueError as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=2))
    print(summary(report))
    return 0


def summary(report: dict) -> str:  # type: ignore[type-arg]
    lat = report["announce_latency_ms"]
    again = (
        (
            [
                f"laid again by their players {report['laid_again']}, "
                f"of them announced, asked or rejected {report['laid_again_announced']}"
            ]
            if report.get("laid_again")
            else []
        )
        + (
            [
                f"squared up by their players {report['nudged']}, "
                f"of them announced, asked or rejected {report['nudged_announced']}"
            ]
            if report.get("nudged")
            else []
        )
        + (
            [
                f"players leaning over the table under the lamp {report['leaned']}, "
                f"of them announced, asked or rejected {report['leaned_announced']}"
            ]
            if report.get("leaned")
            else []
        )
        + (
            [
                f"players resting a hand on the mat {report['rested']}, "
                f"of them announced, asked or rejected {report['rested_announced']}"
            ]
            if report.get("rested")
            else []
        )
    )
    if report["game"] == "makao":
        return "\n".join(
            [
                "",
                f"== demo summary: Makao {report['preset']}, {report['players']} players, "
                f"recogniser: {report['recogniser']}",
                f"cards played {report['cards_played']}, read right first time {report['cards_recognised']}, "
                f"misreads {report['misreads']} (left uncorrected {report['misreads_uncorrected']}), "
                f"unreadable {report['unreadable']}",
                f"announced: first out {report['scores']['out']}, lost {report['scores']['losers']}; "
                f"true: {report['true_scores']['out']}, {report['true_scores']['losers']}; "
                f"violations {len(report['violations'])}",
                *again,
                f"announce latency p50 {lat['p50']} ms, p95 {lat['p95']} ms (pipeline time); "
                f"{report['frames']} frames in {report['wall_s']} s ({report['frames_read']} read, the others at rest)",
                f"record: {report['record']}  output folder: {report['out']}",
            ]
        )
    lines = [
        "",
        f"== demo summary: 3-5-8 {report['preset']}, {report['hands']} hand(s), recogniser: {report['recogniser']}",
        f"cards played {report['cards_played']}, read right first time {report['cards_recognised']}, "
        f"misreads {report['misreads']} (left uncorrected {report['misreads_uncorrected']}), "
        f"candidate fallbacks {report['candidate_fallbacks']}, unreadable {report['unreadable']}",
        f"tricks {report['tricks']}, winner announced correctly {report['tricks_correct']}",
        f"scores announced {report['scores']}, true {report['true_scores']}; violations {len(report['violations'])}",
        *again,
        f"announce latency p50 {lat['p50']} ms, p95 {lat['p95']} ms (pipeline time); "
        f"{report['frames']} frames in {report['wall_s']} s ({report['frames_read']} read, the others at rest)",
        f"record: {report['record']}  output folder: {report['out']}",
    ]
    return "\n".join(lines)
