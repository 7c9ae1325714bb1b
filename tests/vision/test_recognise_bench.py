"""`cardtable bench vision` runs end to end and reports what the docs quote (figures are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from tests.vision.recognise_models import write_models
from vision.recognise.benchmark import main as worker


def test_bench_vision_reports_latency_per_image_and_the_runtimes_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = write_models(tmp_path, imgsz=64, boxes=[(32, 32, 8, 8, 0.9)])

    status = main(["bench", "vision", "--models", str(models), "--repeat", "2", "--warmup", "0", "--no-ultralytics"])

    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(report["recogniser"]) == {
        "640x640",
        "1280x720",
        "1280x720 table, 3-5-8 trick",
        "1280x720 table, Makao pile of 20",
    }
    for figures in report["recogniser"].values():
        assert figures["p95"] >= figures["p50"] > 0
    assert report["peak_rss_mb"] > 0 and report["threads"] == 1
    assert report["runtime_heavy_imports"] == []


def test_bench_vision_without_models_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "vision", "--models", str(tmp_path), "--repeat", "1", "--no-ultralytics"])
    assert status == 2
    assert "no model manifest" in capsys.readouterr().err


def test_the_benchmark_worker_names_a_bad_regions_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = write_models(tmp_path, imgsz=64, boxes=[(32, 32, 8, 8, 0.9)])
    image, regions = tmp_path / "table.png", tmp_path / "regions.json"
    cv2.imwrite(str(image), np.full((72, 128, 3), 90, np.uint8))
    regions.write_text('[[0, 0, 64], "x"]')

    status = worker(["--models", str(models), "--table", "table", str(image), str(regions), "--repeat", "1"])

    assert status == 2
    assert f"{regions}: not a list of regions (x1, y1, x2, y2)" in capsys.readouterr().err


def test_bench_vision_names_the_cpu_generation_and_its_8_bit_dot_product() -> None:
    """The same VM type has come as CPUs on which the 8-bit classifier costs 0.25 or 1.7 ms a crop:
    the report names what decides it."""
    from controller.cli.bench.vision import machine

    zen1 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 1\nmodel name\t: AMD EPYC\n"
    zen1 += "flags\t\t: fpu sse4_2 avx avx2 fma\n\nprocessor\t: 1\nmodel name\t: ignored\n"
    assert machine(zen1).startswith("AMD EPYC (family 23 model 1), 8-bit dot product: none, ")
    xeon = "model name\t: Intel Xeon\ncpu family\t: 6\nmodel\t\t: 143\nflags\t\t: avx2 avx512f avx512_vnni\n"
    assert "8-bit dot product: avx512_vnni" in machine(xeon)
    pi5 = "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd asimddp\nCPU part\t: 0xd0b\n"
    assert "8-bit dot product: asimddp" in machine(pi5)
    unknown = machine("")  # no cpuinfo (not Linux): no claim about the instructions
    assert "CPU(s)" in unknown and "dot product" not in unknown
