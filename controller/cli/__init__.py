"""The ``cardtable`` command.

Each subcommand lives in its own module in this package (and ``bench`` subcommands in
``controller.cli.bench``) so that the parts of the project can grow their commands without editing
one shared file. A command module defines::

    NAME = "check"                 # the word after `cardtable`
    HELP = "one line for --help"
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...   # the exit status

Modules import their heavy dependencies (onnxruntime, cv2, paho) inside ``run`` so that
``cardtable --help`` and quick commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType


def discover(package: str) -> list[ModuleType]:
    """The command modules of ``package``, sorted by their ``NAME``."""
    pkg = importlib.import_module(package)
    modules = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            modules.append(module)
    return sorted(modules, key=lambda m: str(m.NAME))


def add_commands(subparsers: argparse._SubParsersAction, package: str) -> None:  # type: ignore[type-arg]
    for module in discover(package):
        parser = subparsers.add_parser(module.NAME, help=module.HELP, description=module.__doc__)
        module.add_arguments(parser)
        parser.set_defaults(_run=module.run, _parser=parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="A refereed card table: camera-read cards, rules, scores and a live feed.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(sub, "controller.cli")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help()
        return 2
    try:
        return int(run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
