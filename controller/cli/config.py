"""Check a table's config file: ``cardtable config validate FILE``.

Prints ``OK`` (and a one-line summary) when the file is usable, otherwise every error with the key
path it concerns; exits 2 on errors so that an installer or a systemd ``ExecStartPre`` can stop early.
"""

from __future__ import annotations

import argparse
import sys

NAME = "config"
HELP = "validate a table config file (TOML)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="config_command", metavar="ACTION")
    validate = sub.add_parser("validate", help="check FILE and print OK or the errors with their key paths")
    validate.add_argument("file", help="the TOML config file")


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, load_config

    if getattr(args, "config_command", None) != "validate":
        args._parser.print_help()
        return 2
    try:
        cfg = load_config(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(
        f"OK: {args.file}: table {cfg.table.id!r}, {cfg.game.name} ({cfg.game.preset_name}), "
        f"players {', '.join(cfg.table.players)}"
    )
    return 0
