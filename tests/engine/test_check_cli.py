"""``cardtable check`` through the real command: exit 0/1/2, one JSON object, no traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).parent / "cases" / "358"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "check", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_clean_record_exits_0_with_one_json_object() -> None:
    done = run(str(CASES / "s1.record.json"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hands"][0]["score"] == [2, -1, -1] and done.stderr == b""


def test_violations_exit_1() -> None:
    done = run(str(CASES / "revoke-proof.record.json"))
    assert done.returncode == 1
    assert json.loads(done.stdout)["hands"][0]["violations"][0]["rule"] == "follow-suit"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"format": "cardtable-record/1", "game": "358", "pre', b"not valid JSON"),
        (b"\xff\xfe\x00", b"not UTF-8"),
        (
            b'{"format": "cardtable-record/1", "game": "358", "preset": "pagat", "players": ["a", "b", "c"], '
            b'"hands": [{"dealer": 0, "contract": "S", "plays": [{"seat": 1, "card": "QX"}]}]}',
            b"hands[0].plays[0].card: not a card: 'QX'",
        ),
    ],
    ids=["truncated-json", "not-utf8", "bad-card"],
)
def test_malformed_exits_2_with_the_field_named(tmp_path: Path, content: bytes, fragment: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    done = run(str(path))
    assert done.returncode == 2
    assert fragment in done.stderr and b"Traceback" not in done.stderr and done.stdout == b""


def test_missing_file_exits_2(tmp_path: Path) -> None:
    done = run(str(tmp_path / "nope.json"))
    assert done.returncode == 2 and b"cannot read" in done.stderr and b"Traceback" not in done.stderr


def test_stdin() -> None:
    done = run("-", stdin=(CASES / "t2.record.json").read_bytes())
    assert done.returncode == 0 and json.loads(done.stdout)["hands"][0]["tricks"][0]["winner"] == 1


def test_simulate_prints_tricks_and_writes_a_record_check_accepts(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--seed", "3", "--record", str(record)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"Hand 1:" in done.stdout and b"wins" in done.stdout
    assert run(str(record)).returncode == 0


def test_makao_records_are_dispatched_to_the_makao_engine() -> None:
    from engine.check import check_record, has_violations

    path = Path(__file__).parent / "makao" / "records" / "table-demand-violation.json"
    if not path.exists():
        pytest.skip("the Makao helper's records are not here")
    report = check_record(json.loads(path.read_text(encoding="utf-8")))
    assert report["game"] == "makao" and has_violations(report)


def test_a_proven_revoke_voids_the_hand_only_where_the_rules_say_so(tmp_path: Path) -> None:
    record = json.loads((CASES / "revoke-proof.record.json").read_text())
    plain = json.loads(run(str(CASES / "revoke-proof.record.json")).stdout)["hands"][0]
    assert plain["score"] != [0, 0, 0] and "voided" not in plain

    record["rules"] = {"revoke_voids_hand": True}
    path = tmp_path / "voiding.record.json"
    path.write_text(json.dumps(record))
    done = run(str(path))
    report = json.loads(done.stdout)

    assert done.returncode == 1  # still a violation, now with its consequence
    hand = report["hands"][0]
    assert hand["voided"] is True and hand["score"] == [0, 0, 0]
    assert hand["taken"] == plain["taken"]  # the tricks stand; only the score is void
    assert report["totals"] == [0, 0, 0]
