"""``cardtable bench WHAT``: the benchmarks whose figures go in the README and the model card.

Each module here is one benchmark (``engine``, ``feed``, ``link``, ``vision``, ``demo``...), with the
same ``NAME``/``HELP``/``add_arguments``/``run`` shape as the top-level commands.
"""

from __future__ import annotations

import argparse

NAME = "bench"
HELP = "measure speed, latency and load (figures for the README)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from controller.cli import add_commands

    sub = parser.add_subparsers(dest="bench", metavar="WHAT")
    add_commands(sub, "controller.cli.bench")


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    parser.print_help()
    return 2
