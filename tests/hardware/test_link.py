"""The host link (pyserial) against the real firmware code on a pseudo-terminal.

The firmware's applied-command log is the judge: every command the controller sent must appear
there once, in order, whatever the line does (corrupted frames, the cable pulled and replugged).
"""

from __future__ import annotations

import itertools
import logging
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware import app as firmware_app
from firmware.sim import PtyPico
from hardware import link
from hardware.link import LinkRing
from hardware.ring import RingCommand, RingOp, ring_from_config
from tests.hardware.waiting import wait_until


def random_commands(n: int, seed: int) -> list[RingCommand]:
    rng = random.Random(seed)
    ops = [RingOp.TURN, RingOp.TRICK, RingOp.VIOLATION, RingOp.BRIGHTNESS, RingOp.IDLE, RingOp.HAND_END]
    out = []
    for _ in range(n):
        op = rng.choice(ops)
        seated = op in (RingOp.TURN, RingOp.TRICK, RingOp.VIOLATION)
        arg = rng.randrange(256) if op is RingOp.BRIGHTNESS else rng.randrange(4) if seated else 0
        out.append(RingCommand(op, arg))
    return out


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[PtyPico]:
    with PtyPico(tmp_path / "cardtable-ring") as device:
        yield device


def applied_commands(pico: PtyPico) -> list[RingCommand]:
    return [RingCommand(RingOp(op), arg) for _seq, op, arg, _t in pico.applied]


def applied_at_least(pico: PtyPico, n: int) -> Callable[[], bool]:
    return lambda: len(pico.applied) >= n


def reconnected(ring: LinkRing, connects_before: int) -> Callable[[], bool]:
    return lambda: ring.stats().connects > connects_before and ring.stats().connected


def soak(tmp_path: Path, commands: int, replugs: int, corrupt: float) -> dict[str, int]:
    sent = random_commands(commands, seed=commands)
    with (
        PtyPico(tmp_path / "ring", corrupt=corrupt, seed=1) as pico,
        LinkRing(str(pico.path), queue_limit=commands) as ring,
    ):
        assert ring.wait_connected(10)
        chunk = commands // (replugs + 1)
        for k in range(replugs + 1):
            part = sent[k * chunk : (k + 1) * chunk if k < replugs else commands]
            for command in part:
                ring.send(command)
            if k < replugs:
                # pull the cable while this chunk is still streaming, then wait for the reconnect
                wait_until(applied_at_least(pico, k * chunk + chunk // 2), what="half the chunk applied")
                connects = ring.stats().connects
                pico.replug()
                wait_until(reconnected(ring, connects), what="reconnect")
        assert ring.wait_idle(60), ring.stats()
        stats = ring.stats()
        assert applied_commands(pico) == sent
        seqs = [seq for seq, *_ in pico.applied]
        assert all((b - a) & 0xFFFF == 1 for a, b in itertools.pairwise(seqs))
        return {
            "connects": stats.connects,
            "corrupted_in": pico.port.inbound.corrupted,
            "corrupted_out": pico.port.outbound.corrupted,
            "frames_in": pico.port.inbound.frames,
            "resent": stats.resent,
        }


def test_10000_commands_1pct_corrupt_20_replugs_all_applied_once_in_order(tmp_path: Path) -> None:
    figures = soak(tmp_path, 10_000, 20, 0.01)
    assert figures["connects"] == 21
    assert figures["corrupted_in"] >= 50 and figures["corrupted_out"] >= 50


@pytest.mark.parametrize("fault", [False, True])
def test_firmware_restart_gets_the_last_look_replayed_then_the_rest(pico: PtyPico, fault: bool) -> None:
    """``fault``: the Pico restarts (a brown-out) while the camera cannot see the mat; the replay shows the fault
    again, where the turn alone would look as if all were well. A fault already cleared is not replayed."""
    look = [RingCommand(RingOp.SEATS, 3), RingCommand(RingOp.BRIGHTNESS, 128), RingCommand(RingOp.TURN, 1)]
    look += [RingCommand(RingOp.CAMERA, 1)] if fault else []
    with LinkRing(str(pico.path)) as ring:
        for command in look:
            ring.send(command)
        assert ring.wait_idle(10)
        pico.restart()
        ring.trick_won(2)
        assert ring.wait_idle(10)
        wait_until(lambda: len(pico.applied) >= 2 * len(look) + 1, what="the replay and the new command")
        assert applied_commands(pico)[len(look) :] == [*look, RingCommand(RingOp.TRICK, 2)]
        assert pico.app.ring.seats == 3 and pico.app.ring.turn == 1 and pico.app.ring.camera_fault is fault
        ring.camera_fault(False)
        assert ring.wait_idle(10)
        pico.restart()
        ring.show_turn(2)
        assert ring.wait_idle(10)
        wait_until(lambda: pico.app.ring.turn == 2, what="the turn after a second restart")
    assert not pico.app.ring.camera_fault
    assert RingCommand(RingOp.CAMERA, 1) not in applied_commands(pico)[2 * len(look) + 2 :]


def test_host_lost_pattern_after_silence_and_recovery_when_the_host_returns(tmp_path: Path) -> None:
    with PtyPico(tmp_path / "ring", host_lost_ms=300) as pico:
        ring = LinkRing(str(pico.path))
        ring.show_turn(2)
        assert ring.wait_idle(10)
        ring.close()  # the controller died: no more heartbeats
        wait_until(lambda: pico.app.ring.host_lost, what="host-lost pattern")
        with LinkRing(str(pico.path)) as again:
            assert again.wait_connected(10)
            wait_until(lambda: not pico.app.ring.host_lost, what="recovery")
            assert pico.app.ring.turn == 2  # the last look comes back with the host


def test_heartbeats_keep_a_quiet_table_from_looking_host_lost(tmp_path: Path) -> None:
    with PtyPico(tmp_path / "ring", host_lost_ms=400) as pico, LinkRing(str(pico.path), heartbeat_s=0.1) as ring:
        assert ring.wait_connected(10)
        start = pico.app.heard_at
        wait_until(lambda: pico.app.heard_at - start > 800, what="a second of heartbeats")
        assert not pico.app.ring.host_lost


def test_protocol_version_mismatch_is_logged_and_never_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(firmware_app, "PROTOCOL_VERSION", 3)
    with PtyPico(tmp_path / "ring") as pico, LinkRing(str(pico.path)) as ring:
        ring.show_turn(1)
        wait_until(lambda: ring.stats().incompatible, what="the version nack")
        assert not ring.wait_connected(0.2)
        assert pico.applied == []
    assert any("protocol v3" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)


def test_no_pico_at_all_queues_bounded_and_never_raises() -> None:
    with LinkRing("/dev/does-not-exist-cardtable", queue_limit=5) as ring:
        for seat in range(20):
            ring.show_turn(seat % 4)
        ring.hand_end()
        stats = ring.stats()
        assert not stats.connected and stats.queued == 5 and stats.dropped == 16
    started = time.monotonic()
    ring.close()  # idempotent, and quick
    assert time.monotonic() - started < 0.5


def test_find_port_prefers_the_udev_name_then_the_pico_vendor_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from serial.tools import list_ports

    class Info:
        def __init__(self, device: str, vid: int | None) -> None:
            self.device, self.vid = device, vid

    monkeypatch.setattr(list_ports, "comports", lambda: [Info("/dev/ttyUSB0", 0x0403), Info("/dev/ttyACM1", 0x2E8A)])
    udev = tmp_path / "cardtable-ring"
    monkeypatch.setattr(link, "UDEV_NAME", str(udev))
    assert link.find_port() == "/dev/ttyACM1"
    udev.touch()
    assert link.find_port() == str(udev)
    udev.unlink()
    monkeypatch.setattr(list_ports, "comports", lambda: [])
    assert link.find_port() is None


def test_ring_from_config_names_the_bad_spec() -> None:
    with pytest.raises(ValueError, match="'blink:3'"):
        ring_from_config("blink:3")


def test_maintenance_command_asks_the_firmware_for_its_repl(pico: PtyPico, capsys: pytest.CaptureFixture[str]) -> None:
    assert link.main(["--maintenance", "--wait", "0", str(pico.path)]) == 0
    assert "rebooting into the REPL" in capsys.readouterr().out
    assert link.main(["--maintenance", "--timeout", "0.3", "/dev/does-not-exist-cardtable"]) == 0
    assert "no ring firmware answered" in capsys.readouterr().out


def test_send_returns_at_once_while_the_usb_write_is_stuck(pico: PtyPico) -> None:
    import threading

    stuck = threading.Event()
    released = threading.Event()

    class StallingPort:
        def __init__(self, path: str) -> None:
            self.inner = link.open_serial(path)

        def read(self, size: int = 1) -> bytes:
            return self.inner.read(size)

        @property
        def in_waiting(self) -> int:
            return self.inner.in_waiting

        def write(self, data: bytes) -> int | None:
            if stuck.is_set():
                released.wait(10)  # a Pico that stopped reading: the write blocks
            return self.inner.write(data)

        def close(self) -> None:
            self.inner.close()

    with LinkRing(str(pico.path), opener=StallingPort) as ring:
        assert ring.wait_connected(10)
        stuck.set()
        started = time.monotonic()
        for i in range(50):
            ring.show_turn(i % 4)
        assert time.monotonic() - started < 1.0  # the controller was never held up by the write
        released.set()
        assert ring.wait_idle(10)
    assert len(pico.applied) == 50


def test_a_ring_of_another_size_than_the_config_says_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with PtyPico(tmp_path / "ring", pixels=24) as pico, LinkRing(str(pico.path), pixels=30) as ring:
        assert ring.wait_connected(10)
        assert ring.stats().pixels == 24
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("drives 24 LEDs but hardware.ring.leds says 30" in m for m in warnings)
    caplog.clear()
    with PtyPico(tmp_path / "ring2", pixels=30) as pico, LinkRing(str(pico.path), pixels=30) as ring:
        assert ring.wait_connected(10)
    assert not any("LEDs" in r.getMessage() for r in caplog.records)
