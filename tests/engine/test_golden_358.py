"""Data-driven golden cases: each tests/engine/cases/358/NAME.record.json is replayed and its report
must contain what NAME.expect.json says (written by hand from rules-research.md section 3)."""

import json
from pathlib import Path
from typing import Any

import pytest

from engine.check import check_record, has_violations

CASES = Path(__file__).parent / "cases" / "358"
NAMES = sorted(p.name[: -len(".record.json")] for p in CASES.glob("*.record.json"))


def contains(actual: Any, expected: Any, path: str = "report") -> None:
    """``expected`` is a sub-structure of ``actual``: dict keys are a subset, lists match item by item."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} missing from {sorted(actual)}"
            contains(actual[key], value, f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            contains(a, e, f"{path}[{i}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def test_there_are_golden_cases_for_every_worked_example() -> None:
    for prefix in ("t1", "t5", "t8", "l1", "l2", "l3", "l4", "s1", "s3", "s4", "s5", "e1", "e1b", "e2"):
        assert any(n == prefix or n.startswith(prefix + "-") for n in NAMES), prefix


@pytest.mark.parametrize("name", NAMES)
def test_golden_case(name: str) -> None:
    record = json.loads((CASES / f"{name}.record.json").read_text(encoding="utf-8"))
    expect = json.loads((CASES / f"{name}.expect.json").read_text(encoding="utf-8"))
    report = check_record(record)
    contains(report, expect["report"])
    assert (1 if has_violations(report) else 0) == expect["exit"]
