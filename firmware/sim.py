"""The real ring firmware on desktop CPython, behind a pseudo-terminal: a Pico without a Pico.

``PtyPico`` runs ``firmware.app.App`` in a thread on the master end of a pty and publishes the slave
end under a stable path (a symlink, like the udev rule's ``/dev/cardtable-ring``), so the unmodified
host link (hardware/link.py, pyserial) can open it. ``replug()`` swaps in a fresh pty under the same
name, which the host sees as a cable pulled and plugged back in while the Pico kept power.
``corrupt`` damages that fraction of frames in each direction, at byte level, on their way through.

Used by the tests and by ``cardtable bench link``; never copied to the Pico (CPython only).
"""

from __future__ import annotations

import os
import pty
import random
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from firmware.app import App
from firmware.ring import Ring


class FakeStrip:
    """A ``neopixel.NeoPixel`` stand-in: a pixel list and a count of ``write()`` calls."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.shown: list[tuple[int, int, int]] = list(self.pixels)
        self.writes = 0

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, index: int, colour: tuple[int, int, int]) -> None:
        self.pixels[index] = colour

    def __getitem__(self, index: int) -> tuple[int, int, int]:
        return self.pixels[index]

    def fill(self, colour: tuple[int, int, int]) -> None:
        self.pixels = [colour] * self.n

    def write(self) -> None:
        self.shown = list(self.pixels)
        self.writes += 1


class _Corrupter:
    """Damages a fraction of whole frames (split at 0x00) in a byte stream: flip, drop or add a byte."""

    def __init__(self, rate: float, rng: random.Random) -> None:
        self.rate = rate
        self.rng = rng
        self.pending = bytearray()
        self.frames = 0
        self.corrupted = 0

    def __call__(self, data: bytes) -> bytes:
        if self.rate <= 0:
            return data
        out = bytearray()
        for byte in data:
            self.pending.append(byte)
            if byte == 0:
                frame = self.pending
                self.pending = bytearray()
                self.frames += 1
                if self.rng.random() < self.rate and len(frame) > 1:
                    self.corrupted += 1
                    i = self.rng.randrange(len(frame) - 1)
                    how = self.rng.randrange(3)
                    if how == 0:
                        frame[i] ^= 1 << self.rng.randrange(8)
                    elif how == 1:
                        del frame[i]
                    else:
                        frame.insert(i, self.rng.randrange(256))
                out.extend(frame)
        return bytes(out)


class PtyPort:
    """The app's port on a pty master; ``swap`` replaces the pty (a replug). Thread-safe."""

    def __init__(self, link: Path, corrupt: float = 0.0, seed: int = 0) -> None:
        self.link = link
        self._lock = threading.Lock()
        rng = random.Random(seed)
        self.inbound = _Corrupter(corrupt, rng)
        self.outbound = _Corrupter(corrupt, rng)
        self.master = -1
        self.slave = -1
        self.swap()

    def swap(self) -> None:
        master, slave = pty.openpty()
        tty.setraw(slave)  # no echo, no line discipline, before anyone opens it
        os.set_blocking(master, False)
        tmp = self.link.with_name(self.link.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(os.ttyname(slave), tmp)
        with self._lock:
            old = (self.master, self.slave)
            self.master, self.slave = master, slave
            os.replace(tmp, self.link)
            self.inbound.pending.clear()
            self.outbound.pending.clear()
        for fd in old:
            if fd >= 0:
                os.close(fd)

    def read(self, timeout_ms: int) -> bytes:
        with self._lock:
            master = self.master
        try:
            ready, _, _ = select.select([master], [], [], timeout_ms / 1000)
            if not ready:
                return b""
            data = os.read(master, 4096)
        except (OSError, ValueError):  # swapped or closed under us: nothing this turn
            return b""
        with self._lock:
            return self.inbound(data) if master == self.master else b""

    def write(self, data: bytes) -> None:
        with self._lock:
            data = self.outbound(data)
            view = memoryview(data)
            deadline = time.monotonic() + 0.5
            while view and time.monotonic() < deadline:
                try:
                    sent = os.write(self.master, view)
                except BlockingIOError:
                    continue
                view = view[sent:]

    def close(self) -> None:
        with self._lock:
            for fd in (self.master, self.slave):
                if fd >= 0:
                    os.close(fd)
            self.master = self.slave = -1
        if self.link.is_symlink():
            self.link.unlink()


class PtyPico:
    """The firmware app running in a thread over a pty at ``path``. Use as a context manager.

    ``applied`` is the firmware's applied-command log: ``(seq, op, arg, time.monotonic())``.
    ``on_apply`` is called too (from the firmware thread) if given. ``restart()`` replaces the app
    (a firmware reboot: its session and counters are lost, the pty stays).
    """

    def __init__(
        self,
        path: str | Path,
        pixels: int = 24,
        corrupt: float = 0.0,
        seed: int = 0,
        host_lost_ms: int = 3000,
        on_apply: Callable[[int, int, int], None] | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.path = Path(path)
        self.port = PtyPort(self.path, corrupt, seed)
        self.pixels = pixels
        self.host_lost_ms = host_lost_ms
        self.clock = clock
        self.applied: list[tuple[int, int, int, float]] = []
        self._user_on_apply = on_apply
        self.strip = FakeStrip(pixels)
        self.app = self._new_app()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="pty-pico", daemon=True)
        self._thread.start()

    def _new_app(self) -> App:
        self.strip = FakeStrip(self.pixels)
        ring = Ring(self.strip, self.pixels)
        return App(self.port, ring, clock=self.clock, on_apply=self._applied, host_lost_ms=self.host_lost_ms)

    def _applied(self, seq: int, op: int, arg: int) -> None:
        self.applied.append((seq, op, arg, time.monotonic()))
        if self._user_on_apply is not None:
            self._user_on_apply(seq, op, arg)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._lock:  # restart() waits for the poll in progress, so the old app reads no more
                self.app.poll(5)

    def replug(self) -> None:
        """Pull the cable and plug it back: the host sees its port die and a new one at ``path``."""
        self.port.swap()

    def restart(self) -> None:
        """Reboot the firmware: a new app with no session, same pty."""
        with self._lock:
            self.app = self._new_app()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.port.close()

    def __enter__(self) -> PtyPico:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
