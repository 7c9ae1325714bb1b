"""Replay a game record and report tricks, scores and every rule violation as one JSON object.

Exit status: 0 no violations, 1 violations found, 2 the record is malformed (the message on stderr
names the field and the value).
"""

from __future__ import annotations

import argparse
import json
import sys

NAME = "check"
HELP = "replay a game record (3-5-8 or Makao) and report scores and violations"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="the record file (JSON), or - for stdin")
    parser.add_argument("--indent", type=int, default=None, help="pretty-print the report with this indent")


def run(args: argparse.Namespace) -> int:
    from engine.check import check_record, has_violations
    from engine.errors import RecordError
    from engine.records import load_json

    source = "stdin" if args.record == "-" else args.record
    try:
        if args.record == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                raw = f.read()
    except OSError as exc:
        print(f"cardtable check: cannot read {source}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        report = check_record(load_json(raw, source))
    except RecordError as exc:
        where = "" if exc.path == "" and source in exc.message else f"{source}: "
        print(f"cardtable check: {where}{exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback for a user's file, but say it is our fault
        print(
            f"cardtable check: {source}: internal error while checking ({type(exc).__name__}: {exc}); "
            "please report it with the record",
            file=sys.stderr,
        )
        return 2
    print(json.dumps(report, indent=args.indent, ensure_ascii=False))
    return 1 if has_violations(report) else 0
