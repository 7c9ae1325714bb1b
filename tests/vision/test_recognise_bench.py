"""`cardtable bench vision` runs end to end and reports what the docs quote (figures are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from tests.vision.recognise_models import write_models


def test_bench_vision_reports_latency_per_image_and_the_runtimes_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = write_models(tmp_path, imgsz=64, boxes=[(32, 32, 8, 8, 0.9)])

    status = main(["bench", "vision", "--models", str(models), "--repeat", "2", "--warmup", "0", "--no-ultralytics"])

    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(report["recogniser"]) == {"640x640", "1280x720"}
    for figures in report["recogniser"].values():
        assert figures["p95"] >= figures["p50"] > 0
    assert report["peak_rss_mb"] > 0 and report["threads"] == 1
    assert report["runtime_heavy_imports"] == []


def test_bench_vision_without_models_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "vision", "--models", str(tmp_path), "--repeat", "1", "--no-ultralytics"])
    assert status == 2
    assert "no model manifest" in capsys.readouterr().err
