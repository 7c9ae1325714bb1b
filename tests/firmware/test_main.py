"""firmware/main.py, the Pico entry point, on desktop CPython with fake machine/neopixel/micropython."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from firmware import _fakes, framing
from firmware.app import PROTOCOL_VERSION


class MemPort:
    def __init__(self) -> None:
        self.inbox = bytearray()
        self.out = bytearray()

    def read(self, timeout_ms: int) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.out += data


@pytest.fixture
def pico(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    saved = _fakes.install()
    monkeypatch.chdir(tmp_path)  # the Pico's flash root, for the maintenance marker
    sys.modules.pop("firmware.main", None)
    try:
        yield importlib.import_module("firmware.main")
    finally:
        sys.modules.pop("firmware.main", None)
        _fakes.uninstall(saved)


def test_boot_disables_ctrl_c_starts_the_watchdog_and_the_loop_feeds_it(pico: Any) -> None:
    machine: Any
    micropython: Any
    machine, micropython = sys.modules["machine"], sys.modules["micropython"]
    micropython.kbd_intr_calls.clear()
    app = pico.main(port=MemPort(), forever=False)
    assert micropython.kbd_intr_calls == [-1]
    dog = machine.WDT.last
    assert dog is not None and dog.timeout <= 8000  # the RP2040 limit is about 8.3 s
    for _ in range(3):
        app.poll()
    assert dog.feeds == 3


def test_a_ctrl_c_byte_inside_a_frame_is_just_data(pico: Any) -> None:
    port = MemPort()
    app = pico.main(port=port, forever=False)
    session = bytes([PROTOCOL_VERSION]) + (3).to_bytes(4, "big") + (3).to_bytes(2, "big")  # next seq 3: 0x03 bytes
    port.inbox += framing.encode(0x01, 3, session) + framing.encode(0x11, 3, b"\x03")
    app.poll()
    assert app.applied == 1 and app.ring.turn == 3


def test_maintenance_frame_marks_the_flash_and_resets_then_boot_leaves_the_repl(pico: Any, tmp_path: Path) -> None:
    machine: Any = sys.modules["machine"]
    resets = machine.resets
    port = MemPort()
    app = pico.main(port=port, forever=False)
    port.inbox += framing.encode(0x03, 0)
    app.poll()
    assert (tmp_path / pico.MAINT_FILE).exists() and machine.resets == resets + 1
    assert pico.main(port=MemPort(), forever=False) is None  # maintenance boot: no app, no watchdog
    assert not (tmp_path / pico.MAINT_FILE).exists()
    assert pico.main(port=MemPort(), forever=False) is not None  # the boot after that runs again
