"""The demo end to end: renderer -> recogniser -> tracker -> referee -> outputs, compared with the truth."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.demo import DemoOptions, run_demo
from vision.recognise import DEFAULT_MODEL_DIR

ROOT = Path(__file__).resolve().parents[2]


def test_one_hand_through_the_pipeline_is_refereed_as_played(tmp_path: Path) -> None:
    """With a reader that cannot misread (the labelled truth stand-in), the camera pipeline, the tracker
    and the referee alone must announce every trick and the score exactly as the bots played them."""
    report = run_demo(
        DemoOptions(hands=1, seed=4, out=tmp_path, recogniser="truth", feed=False, quiet=True, headless=True)
    )
    assert "truth stand-in" in report["recogniser"]
    assert report["cards_played"] == 48 and report["tricks"] == 16
    assert report["tricks_correct"] == 16
    assert report["misreads_uncorrected"] == 0
    assert report["scores"] == report["true_scores"] == report["check_totals"]
    assert report["announce_latency_ms"]["n"] == 48
    assert 0 < report["frames_read"] < report["frames"]  # the still table between plays is not read again
    record = json.loads(Path(report["record"]).read_text())
    check = subprocess.run(
        [sys.executable, "-m", "controller.cli", "check", report["record"]], capture_output=True, text=True, cwd=ROOT
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["totals"] == report["scores"]
    assert len(record["hands"][0]["plays"]) == 48


def test_demo_refuses_bad_options_with_a_message() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "controller.cli", "demo", "--players", "4"], capture_output=True, text=True, cwd=ROOT
    )
    assert res.returncode == 2 and "3 players" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("command", [["demo", "--headless", "--no-feed"], ["bench", "demo", "--hands", "1"]])
def test_an_unknown_card_design_is_named_with_those_there_are(command: list[str], tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "controller.cli", *command, "--design", "nosuch", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "'nosuch' is not available" in res.stderr and "orell" in res.stderr


@pytest.mark.slow
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "corner-detector.onnx").exists(), reason="trained models not present")
def test_default_demo_with_the_trained_models(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "demo",
            "--headless",
            "--quiet",
            "--out",
            str(tmp_path),
            "--report",
            str(report_path),
            "--recogniser",
            "onnx",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    report = json.loads(report_path.read_text())
    assert report["tricks_correct"] == report["tricks"]
    assert report["misreads_uncorrected"] == 0
    assert report["scores"] == report["true_scores"]


def test_a_makao_game_through_the_pipeline(tmp_path: Path) -> None:
    report = run_demo(
        DemoOptions(
            game="makao",
            players=3,
            seed=2,
            out=tmp_path,
            recogniser="truth",
            feed=False,
            quiet=True,
            headless=True,
            display_png=False,
        )
    )
    assert report["misreads_uncorrected"] == 0
    assert report["scores"] == report["true_scores"] and report["check_agrees"]
