"""The systemd unit passes `systemd-analyze verify`; install.sh stages a fake root twice identically."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from controller.systemd_notify import Notifier

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "cardtable.service"


def _unit_values(key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith(key + "=")]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_verifies_clean(tmp_path: Path) -> None:
    # verify checks that ExecStart exists; the venv is not installed here, so point it at /bin/true.
    text = UNIT.read_text().replace("/opt/cardtable/venv/bin/cardtable", "/bin/true")
    copy = tmp_path / "cardtable.service"
    copy.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "warning"},
    )
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "cardtable.service" in line]
    assert result.returncode == 0 and complaints == [], result.stdout + result.stderr


def test_unit_is_a_watched_notify_service_that_still_reaches_the_hardware() -> None:
    assert _unit_values("Type") == ["notify"]
    assert int(_unit_values("WatchdogSec")[0]) > 0
    assert _unit_values("Restart") == ["on-failure"]
    assert "mosquitto.service" in _unit_values("After")[0] and _unit_values("Wants") == ["mosquitto.service"]
    assert _unit_values("SupplementaryGroups") == ["video gpio dialout spi i2c audio"]
    allowed = {value.split()[0] for value in _unit_values("DeviceAllow")}
    assert {"char-video4linux", "char-gpiochip", "char-ttyACM", "char-spi", "char-i2c"} <= allowed
    assert "char-alsa" in allowed  # a table with speech on plays through ALSA
    assert _unit_values("ProtectSystem") == ["strict"] and _unit_values("ReadWritePaths") == ["/var/lib/cardtable"]
    assert _unit_values("PrivateDevices") == []  # it would hide the camera and GPIO nodes


def _tree(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.skipif(shutil.which("mosquitto_passwd") is None, reason="mosquitto_passwd is not installed (mosquitto)")
def test_install_into_a_fake_root_is_idempotent(tmp_path: Path) -> None:
    root = tmp_path / "root"
    env = {**os.environ, "DESTDIR": str(root)}
    cmd = ["bash", str(ROOT / "systemd" / "install.sh"), "--no-venv"]
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    after_first = _tree(root)
    second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert _tree(root) == after_first
    assert "installed" not in second.stdout and "generated" not in second.stdout
    for path in (
        "etc/systemd/system/cardtable.service",
        "etc/mosquitto/conf.d/cardtable.conf",
        "etc/mosquitto/cardtable.passwd",
        "usr/share/cardtable/spectator/index.html",
        "usr/share/cardtable/spectator/vendor/mqtt.min.js",
        "etc/cardtable/table.toml.example",
    ):
        assert path in after_first
    # the service reads the config it is started with, a TOML file as the example is
    assert "run --config /etc/cardtable/table.toml\n" in (root / "etc/systemd/system/cardtable.service").read_text()
    from controller.config import load_config

    load_config(root / "etc/cardtable/table.toml.example")
    assert oct(after_first["etc/cardtable/mqtt-password"][1] & 0o777) == "0o600"
    # The generated controller password is the one mosquitto checks.
    passwd = (root / "etc/mosquitto/cardtable.passwd").read_text()
    assert passwd.startswith("cardtable:") and "\noperator:" in passwd


def test_install_refuses_unknown_options(tmp_path: Path) -> None:
    env = {**os.environ, "DESTDIR": str(tmp_path)}
    result = subprocess.run(
        ["bash", str(ROOT / "systemd" / "install.sh"), "--frobnicate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2 and "unknown option '--frobnicate'" in result.stderr


def test_notifier_sends_ready_and_rate_limited_watchdog_pings(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        server.settimeout(5)
        now = [100.0]
        notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "2000000"}, clock=lambda: now[0])
        assert notifier.watchdog_s == 2.0
        assert notifier.ready("camera ok")
        assert server.recv(256) == b"READY=1\nSTATUS=camera ok"
        assert notifier.ping() and server.recv(64) == b"WATCHDOG=1"
        now[0] += 0.5
        assert not notifier.ping()  # less than half the interval since the last one
        now[0] += 0.6
        assert notifier.ping() and server.recv(64) == b"WATCHDOG=1"


def test_notifier_is_silent_outside_systemd() -> None:
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready() and not notifier.ping()
