"""Play a whole simulated 3-5-8 game with bots and print every trick and the scores.

No camera and no hardware: the rules engine in full mode with seeded bots, so the same seed prints the
same game. ``--record FILE`` writes the game as a record that ``cardtable check`` replays.
"""

from __future__ import annotations

import argparse
import json
import sys

NAME = "simulate"
HELP = "a simulated 3-5-8 game between bots: tricks and scores (no camera)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="sergeant-major", help="sergeant-major, ucbessekiz, online-18 or pagat")
    parser.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    parser.add_argument("--bots", choices=["random", "simple"], default="simple", help="how the bots play")
    parser.add_argument("--players", nargs=3, default=["Ada", "Ben", "Cem"], metavar="NAME")
    parser.add_argument("--max-hands", type=int, default=60, help="stop after this many hands (pagat may run long)")
    parser.add_argument("--quiet", action="store_true", help="only the scores per hand")
    parser.add_argument("--record", metavar="FILE", help="also write the game record (JSON) to FILE")


def run(args: argparse.Namespace) -> int:
    from engine.threefiveeight.bots import RandomBot, SimpleBot, simulate
    from engine.threefiveeight.rules import PRESETS

    if args.preset not in PRESETS:
        print(f"cardtable simulate: unknown preset {args.preset!r} (one of {', '.join(PRESETS)})", file=sys.stderr)
        return 2
    bot = SimpleBot if args.bots == "simple" else RandomBot
    session = simulate(
        PRESETS[args.preset],
        args.seed,
        bots=[bot(args.seed * 3 + i) for i in range(3)],
        players=args.players,
        max_hands=args.max_hands,
    )
    names = session.players
    width = max(len(n) for n in names)
    print(f"3-5-8, preset {args.preset}, seed {args.seed}: {', '.join(names)}")
    totals = [0, 0, 0]
    for number, hand in enumerate(session.hands, 1):
        contract = hand.contract.value if hand.contract else "-"
        roles = ", ".join(f"{names[s]} {hand.targets[s]}" for s in (hand.eight, hand.five, hand.three))
        print(f"\nHand {number}: {names[hand.eight]} declares {contract} ({roles})")
        for step in hand.exchange:
            print(f"  exchange: {names[step.giver]} hands {step.give} to {names[step.receiver]}, gets {step.back}")
        if contract == "PASS":
            print("  pass: redeal with the same roles")
            continue
        if not args.quiet:
            for trick in hand.tricks:
                shown = "  ".join(
                    f"{names[s]:>{width}} {c.symbol:>3}" for s, c in zip(trick.seats, trick.cards, strict=True)
                )
                winner = names[trick.winner] if trick.winner is not None else "?"
                print(f"  {trick.number:2d}. {shown}   -> {winner}")
        score = hand.score() or (0, 0, 0)
        totals = [t + s for t, s in zip(totals, score, strict=True)]
        print(
            "  taken "
            + ", ".join(f"{names[s]} {hand.taken[s]}" for s in range(3))
            + " | score "
            + ", ".join(f"{names[s]} {score[s]:+d}" for s in range(3))
            + " | totals "
            + ", ".join(f"{names[s]} {totals[s]:+d}" for s in range(3))
        )
    outcome = session.outcome()
    if outcome.winner is not None:
        how = "took twelve tricks" if outcome.ended_by == "twelve-tricks" else "has the most points"
        print(f"\n{names[outcome.winner]} wins ({how}).")
    elif outcome.ended_by:
        print("\nThe game ends in a shared win.")
    else:
        print(f"\nStopped after {len(session.hands)} hands without a winner.")
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(session.to_record(), f, indent=1)
            f.write("\n")
    return 0
