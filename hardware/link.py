"""The host end of the USB serial link to the ring firmware on the Pico (pyserial).

``LinkRing`` is a ``Ring`` whose commands travel as numbered, CRC-checked COBS frames to
firmware/app.py (docs/firmware-protocol.md). It is built so that the controller never waits on it
and never sees it fail:

- ``send`` only appends to a queue and wakes the link thread; it cannot raise for I/O.
- The link thread finds the Pico (``/dev/cardtable-ring`` from the udev rule, else the first port
  with USB vendor id 0x2E8A), opens it, shakes hands (protocol version, host session, next number),
  keeps up to ``window`` commands in flight and resends from the oldest unacknowledged one on a
  nack or after ``ack_timeout_s``. The firmware applies each number once, in order.
- Any error (unplugged cable, a Pico rebooting, garbage on the line) is logged once, the port is
  closed and reopened with back-off, and the unacknowledged commands are sent again. After a
  firmware restart the last brightness, seat count and turn are replayed first so the ring shows
  the right thing again.

This module may not import the firmware package (tests/test_import_graph.py): it speaks the same
format with the PyPI ``cobs`` package and ``binascii.crc32``, and the tests run both ends against
each other.
"""

from __future__ import annotations

import binascii
import collections
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cobs import cobs

from hardware.ring import Ring, RingCommand, RingOp

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 2
UDEV_NAME = "/dev/cardtable-ring"
PICO_VID = 0x2E8A
BAUDRATE = 115200  # ignored by USB CDC, kept for real UARTs

T_HELLO, T_PING, T_MAINT = 0x01, 0x02, 0x03
T_ACK, T_HELLO_OK, T_PONG, T_MAINT_OK, T_NACK = 0x80, 0x81, 0x82, 0x83, 0x8F
R_BAD_FRAME, R_GAP, R_VERSION, R_NO_SESSION, R_UNKNOWN, R_BAD_ARG = 1, 2, 3, 4, 5, 6
NACK_REASONS = {1: "bad frame", 2: "gap", 3: "version", 4: "no session", 5: "unknown type", 6: "bad argument"}
MAX_BODY = 64
MIN_BODY = 7  # type, seq, crc32


class SerialLike(Protocol):
    """What the link needs of a port: pyserial's ``Serial`` has all of it."""

    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def close(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """``type | seq16 | payload | crc32``, COBS-encoded and 0x00-terminated."""
    body = bytes([msg_type, (seq >> 8) & 0xFF, seq & 0xFF]) + payload
    return bytes(cobs.encode(body + binascii.crc32(body).to_bytes(4, "big"))) + b"\x00"


def decode_frame(raw: bytes) -> tuple[int, int, bytes]:
    """``(type, seq, payload)`` of one frame without its delimiter; ``ValueError`` if damaged."""
    try:
        body = cobs.decode(raw)
    except cobs.DecodeError as exc:
        raise ValueError(f"bad COBS: {exc}") from None
    if not MIN_BODY <= len(body) <= MAX_BODY:
        raise ValueError(f"bad frame length {len(body)}")
    if binascii.crc32(body[:-4]) != int.from_bytes(body[-4:], "big"):
        raise ValueError("bad CRC")
    return body[0], (body[1] << 8) | body[2], bytes(body[3:-4])


def find_port() -> str | None:
    """The Pico's serial device: the udev symlink if present, else the first port with VID 0x2E8A."""
    if os.path.exists(UDEV_NAME):
        return UDEV_NAME
    try:
        from serial.tools import list_ports

        for info in sorted(list_ports.comports(), key=lambda p: p.device):
            if info.vid == PICO_VID:
                return str(info.device)
    except Exception:  # listing ports can fail on odd systems; "not found" is the honest answer
        log.debug("listing serial ports failed", exc_info=True)
    return None


def open_serial(path: str) -> SerialLike:
    """pyserial, raw, short read timeout so the reader notices a close quickly; exclusive on POSIX."""
    import serial

    port: SerialLike = serial.Serial(path, BAUDRATE, timeout=0.05, write_timeout=1.0, exclusive=True)
    return port


def _behind_or_equal(seq: int, last: int) -> bool:
    """True if ``seq`` is ``last`` or before it, in 16-bit wrap-around order."""
    return (last - seq) & 0xFFFF < 0x8000


@dataclass(frozen=True, slots=True)
class LinkStats:
    """Counters for the log, the status page and the benchmark."""

    connected: bool
    port: str | None
    firmware: str
    queued: int
    in_flight: int
    sent: int
    resent: int
    acked: int
    nacks: int
    timeouts: int
    connects: int
    bad_frames: int
    dropped: int
    incompatible: bool
    pixels: int = 0
    """LEDs the firmware drives (from its HELLO_OK; 0 before the first)."""


class LinkRing(Ring):
    """A ``Ring`` on the Pico firmware over USB serial. Start-up never blocks; see the module doc.

    ``port`` is ``"auto"`` or a device path. ``opener`` opens a path (pyserial by default; tests may
    wrap it). ``queue_limit`` bounds what piles up while the Pico is away: the oldest unsent
    commands are dropped (and counted) beyond it, since a ring replaying an hour of stale turns
    helps nobody.
    """

    def __init__(
        self,
        port: str = "auto",
        *,
        opener: Callable[[str], SerialLike] = open_serial,
        window: int = 16,
        ack_timeout_s: float = 0.1,
        heartbeat_s: float = 1.0,
        silence_s: float = 5.0,
        backoff_s: tuple[float, float] = (0.05, 2.0),
        queue_limit: int = 256,
        session: int | None = None,
        start: bool = True,
        pixels: int | None = None,
    ) -> None:
        """``pixels``: the LEDs the config says the ring has (``hardware.ring.leds``); the firmware's own count
        (a build constant, ``PIXELS`` in firmware/main.py) is checked against it on each connect, and a
        difference logged: the seat segments would be drawn for another ring."""
        if window < 1 or window > 1024:
            raise ValueError(f"window must be in 1..1024, got {window!r}")
        self._port_spec = port
        self._opener = opener
        self._window = window
        self._ack_timeout_s = ack_timeout_s
        self._heartbeat_s = heartbeat_s
        self._silence_s = silence_s
        self._backoff = backoff_s
        self._queue_limit = queue_limit
        self._session = session if session is not None else random.getrandbits(32)
        self._expected_pixels = pixels
        self._pixels = 0
        self._cond = threading.Condition()
        self._unsent: collections.deque[RingCommand] = collections.deque()
        self._inflight: collections.deque[tuple[int, RingCommand]] = collections.deque()
        self._resend_at = 0  # index into _inflight of the next frame to (re)send
        self._next_seq = 1
        self._progress_at = 0.0
        self._restore: dict[str, RingCommand] = {}
        self._had_session = False
        # connection state (guarded by _cond)
        self._serial: SerialLike | None = None
        self._path: str | None = None
        self._generation = 0
        self._broken = False
        self._hello: tuple[int, bool] | None = None  # (last applied, fresh) from HELLO_OK
        self._need_hello = False
        self._incompatible = False
        self._last_rx = 0.0
        self._last_tx = 0.0
        self._firmware = ""
        self._closed = False
        self._outbox: list[bytes] = []
        self._write_lock = threading.Lock()
        self._counts = collections.Counter[str]()
        self._thread = threading.Thread(target=self._run, name="ring-link", daemon=True)
        if start:
            self._thread.start()

    # -- the controller's side ---------------------------------------------------------------
    def send(self, command: RingCommand) -> None:
        with self._cond:
            if self._closed:
                log.warning("ring link is closed; dropped %s", command)
                return
            self._unsent.append(command)
            if len(self._unsent) > self._queue_limit:
                dropped = self._unsent.popleft()
                self._counts["dropped"] += 1
                if self._counts["dropped"] == 1 or self._counts["dropped"] % 100 == 0:
                    log.warning("ring link: queue full (%d), dropped %s", self._queue_limit, dropped)
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every queued command is acknowledged; False on timeout. For tests and the bench."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._unsent and not self._inflight, timeout)

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Wait until the handshake with the firmware succeeded; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._hello is not None and self._serial is not None, timeout)

    def stats(self) -> LinkStats:
        with self._cond:
            c = self._counts
            return LinkStats(
                connected=self._serial is not None and self._hello is not None,
                port=self._path,
                firmware=self._firmware,
                queued=len(self._unsent),
                in_flight=len(self._inflight),
                sent=c["sent"],
                resent=c["resent"],
                acked=c["acked"],
                nacks=c["nacks"],
                timeouts=c["timeouts"],
                connects=c["connects"],
                bad_frames=c["bad_frames"],
                dropped=c["dropped"],
                incompatible=self._incompatible,
                pixels=self._pixels,
            )

    def maintenance(self, timeout: float = 3.0) -> bool:
        """Ask the firmware to reboot into its REPL (for ``mpremote``); True once it acknowledged."""
        if not self.wait_connected(timeout):
            return False
        with self._cond:
            self._write(encode_frame(T_MAINT, 0))
        self._flush()
        with self._cond:
            return self._cond.wait_for(lambda: self._counts["maint_ack"] > 0, timeout)

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._disconnect(None)

    # -- the link thread -----------------------------------------------------------------------
    def _run(self) -> None:
        delay = self._backoff[0]
        quiet = False  # log a failing port once, not on every retry
        while True:
            with self._cond:
                if self._closed:
                    return
            try:
                path = self._port_spec if self._port_spec != "auto" else find_port()
                if path is None:
                    raise OSError("no Pico found (no /dev/cardtable-ring, no USB device with VID 2e8a)")
                self._connect(path)
                if not self._handshake():
                    raise OSError(f"no handshake from the firmware on {path}")
                log.info("ring link: connected to %s (%s)", path, self._firmware)
                delay, quiet = self._backoff[0], False
                self._serve()
            except Exception as exc:
                if not quiet:
                    log.warning("ring link: %s; retrying", exc)
                    quiet = True
            self._disconnect(None)
            with self._cond:
                if self._closed:
                    return
                pause = 30.0 if self._incompatible else delay
                self._cond.wait_for(lambda: self._closed, pause)
            delay = min(delay * 2, self._backoff[1])

    def _connect(self, path: str) -> None:
        serial_port = self._opener(path)
        with self._cond:
            self._generation += 1
            self._serial = serial_port
            self._path = path
            self._broken = False
            self._hello = None
            self._need_hello = False
            self._last_rx = self._last_tx = time.monotonic()
            self._counts["connects"] += 1
            generation = self._generation
        threading.Thread(
            target=self._read_loop, args=(serial_port, generation), name="ring-link-reader", daemon=True
        ).start()

    def _disconnect(self, reason: str | None) -> None:
        with self._cond:
            serial_port, self._serial = self._serial, None
            self._outbox.clear()
            self._hello = None
            self._generation += 1
            self._resend_at = 0
            self._cond.notify_all()
        if serial_port is not None:
            try:
                serial_port.close()
            except Exception:
                log.debug("closing the ring port failed", exc_info=True)
            if reason:
                log.warning("ring link: %s", reason)

    def _write(self, frame: bytes) -> None:
        """Queue one frame for ``_flush``; called with ``_cond`` held."""
        self._outbox.append(frame)

    def _flush(self) -> None:
        """Write the queued frames, in order; called WITHOUT ``_cond`` held.

        A USB write can block (up to the 1 s write timeout) when the Pico stops reading; doing it
        outside the lock keeps ``send`` instant for the controller meanwhile. A failure marks the
        connection broken.
        """
        with self._write_lock:
            with self._cond:
                frames, self._outbox = self._outbox, []
                port = None if self._broken else self._serial
            if not frames or port is None:
                return
            try:
                port.write(b"".join(frames))
            except Exception as exc:
                with self._cond:
                    self._broken = True
                    self._cond.notify_all()
                log.warning("ring link: write failed: %s", exc)
                return
            with self._cond:
                self._last_tx = time.monotonic()

    def _handshake(self) -> bool:
        for _attempt in range(3):
            with self._cond:
                first = self._inflight[0][0] if self._inflight else self._next_seq
                payload = bytes([PROTOCOL_VERSION]) + self._session.to_bytes(4, "big") + first.to_bytes(2, "big")
                self._write(encode_frame(T_HELLO, 0, payload))
            self._flush()
            with self._cond:
                done = self._cond.wait_for(
                    lambda: self._hello is not None or self._broken or self._closed or self._incompatible, 1.0
                )
                if self._closed or self._broken or self._incompatible:
                    return False
                if done and self._hello is not None:
                    self._after_hello(*self._hello)
                    return True
        return False

    def _after_hello(self, last: int, fresh: bool) -> None:
        """Called with ``_cond`` held once the firmware answered HELLO."""
        while self._inflight and _behind_or_equal(self._inflight[0][0], last):
            self._ack_one()
        self._resend_at = 0
        if fresh and self._had_session and self._restore:
            # A restarted firmware shows nothing: replay the last known look before the rest.
            pending = [cmd for _, cmd in self._inflight]
            self._next_seq = (last + 1) & 0xFFFF
            self._inflight.clear()
            restore = [self._restore[k] for k in ("seats", "brightness", "base", "camera") if k in self._restore]
            self._unsent.extendleft(reversed(restore + pending))
            log.info("ring link: firmware restarted; restoring %s", ", ".join(map(str, restore)))
        elif fresh:
            self._next_seq = (last + 1 + len(self._inflight)) & 0xFFFF
        self._had_session = True
        self._progress_at = time.monotonic()
        self._cond.notify_all()

    def _ack_one(self) -> None:
        _seq, command = self._inflight.popleft()
        self._resend_at = max(0, self._resend_at - 1)
        self._counts["acked"] += 1
        if command.op is RingOp.SEATS:
            self._restore["seats"] = command
        elif command.op is RingOp.BRIGHTNESS:
            self._restore["brightness"] = command
        elif command.op in (RingOp.TURN, RingOp.IDLE, RingOp.HAND_END):
            self._restore["base"] = command
        elif command.op is RingOp.CAMERA:  # a restarted firmware shows no fault: only a fault needs replaying
            if command.arg:
                self._restore["camera"] = command
            else:
                self._restore.pop("camera", None)

    def _serve(self) -> None:
        """Send, resend and ping until the connection breaks or the ring is closed."""
        with self._cond:
            while not self._closed:
                if self._broken:
                    raise OSError(f"lost {self._path}")
                now = time.monotonic()
                if self._need_hello:
                    self._need_hello = False
                    self._hello = None
                    self._cond.release()
                    try:
                        ok = self._handshake()
                    finally:
                        self._cond.acquire()
                    if not ok:
                        raise OSError("firmware did not answer a new handshake")
                    continue
                if now - self._last_rx > self._silence_s:
                    raise OSError(f"no word from the firmware for {self._silence_s:.0f} s")
                if self._inflight and now - self._progress_at > self._ack_timeout_s:
                    self._counts["timeouts"] += 1
                    self._resend_at = 0
                    self._progress_at = now
                while self._resend_at < len(self._inflight):
                    seq, command = self._inflight[self._resend_at]
                    self._write(encode_frame(command.op, seq, bytes([command.arg])))
                    self._resend_at += 1
                    self._counts["resent"] += 1
                while self._unsent and len(self._inflight) < self._window:
                    command = self._unsent.popleft()
                    seq = self._next_seq
                    self._next_seq = (seq + 1) & 0xFFFF
                    if not self._inflight:
                        self._progress_at = now
                    self._inflight.append((seq, command))
                    self._resend_at = len(self._inflight)
                    self._write(encode_frame(command.op, seq, bytes([command.arg])))
                    self._counts["sent"] += 1
                if now - self._last_tx >= self._heartbeat_s:
                    self._write(encode_frame(T_PING, 0))
                    self._last_tx = now
                if self._outbox:
                    self._cond.release()
                    try:
                        self._flush()
                    finally:
                        self._cond.acquire()
                    continue
                wake = min(self._heartbeat_s, self._ack_timeout_s if self._inflight else self._heartbeat_s)
                self._cond.wait(wake)

    def _read_loop(self, serial_port: SerialLike, generation: int) -> None:
        buffer = bytearray()
        while True:
            with self._cond:
                if self._closed or generation != self._generation:
                    return
            try:
                data = serial_port.read(max(1, serial_port.in_waiting))
            except Exception as exc:
                with self._cond:
                    if generation == self._generation and not self._closed:
                        self._broken = True
                        log.warning("ring link: read failed: %s", exc)
                        self._cond.notify_all()
                return
            if not data:
                continue
            frames = []
            for byte in data:
                if byte == 0:
                    if buffer:
                        frames.append(bytes(buffer))
                    buffer.clear()
                elif len(buffer) < 4 * MAX_BODY:
                    buffer.append(byte)
            if frames:
                with self._cond:
                    if generation != self._generation:
                        return
                    for raw in frames:
                        self._on_frame(raw)
                    self._cond.notify_all()

    def _on_frame(self, raw: bytes) -> None:
        """Handle one frame from the firmware; called with ``_cond`` held."""
        try:
            msg_type, seq, payload = decode_frame(raw)
        except ValueError:
            self._counts["bad_frames"] += 1
            return
        self._last_rx = time.monotonic()
        if msg_type in (T_ACK, T_NACK, T_PONG):
            advanced = False
            while self._inflight and _behind_or_equal(self._inflight[0][0], seq) and self._hello is not None:
                self._ack_one()
                advanced = True
            if advanced:
                self._progress_at = self._last_rx
        if msg_type == T_MAINT_OK:
            self._counts["maint_ack"] += 1
        elif msg_type == T_HELLO_OK and len(payload) >= 4:
            self._firmware = payload[4:].decode("ascii", "replace")
            self._hello = (seq, bool(payload[1]))
            pixels = int.from_bytes(payload[2:4], "big")
            if self._expected_pixels and pixels != self._expected_pixels and pixels != self._pixels:
                log.warning(
                    "ring link: the firmware drives %d LEDs but hardware.ring.leds says %d: set PIXELS in "
                    "firmware/main.py and reflash (make firmware), or correct the config",
                    pixels,
                    self._expected_pixels,
                )
            self._pixels = pixels
        elif msg_type == T_NACK:
            self._counts["nacks"] += 1
            reason = payload[0] if payload else 0
            if reason == R_VERSION:
                theirs = payload[1] if len(payload) > 1 else "?"
                if not self._incompatible:
                    log.error(
                        "ring link: the firmware speaks protocol v%s, this host v%d; reflash it with `make firmware`",
                        theirs,
                        PROTOCOL_VERSION,
                    )
                self._incompatible = True
            elif reason == R_NO_SESSION:
                self._need_hello = True
            elif reason in (R_BAD_FRAME, R_GAP):
                self._resend_at = 0
                self._progress_at = self._last_rx
            else:
                log.warning("ring link: firmware refused a command (%s)", NACK_REASONS.get(reason, reason))


def main(argv: list[str] | None = None) -> int:
    """``python -m hardware.link --maintenance [PORT]``: reboot the firmware into its REPL for mpremote."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m hardware.link", description=main.__doc__)
    parser.add_argument("--maintenance", action="store_true", help="reboot the Pico firmware into the REPL")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the firmware to answer")
    parser.add_argument("--wait", type=float, default=8.0, help="seconds to wait for the Pico to come back")
    parser.add_argument("port", nargs="?", default="auto")
    args = parser.parse_args(argv)
    if not args.maintenance:
        parser.print_help()
        return 2
    ring = LinkRing(args.port, backoff_s=(0.1, 0.5))
    try:
        ok = ring.maintenance(args.timeout)
        path = ring.stats().port
    finally:
        ring.close()
    if not ok:
        print("no ring firmware answered (not plugged in, or already in the REPL)")
        return 0
    print("ring firmware is rebooting into the REPL")
    if path and args.wait > 0:
        # the Pico drops off USB and comes back; mpremote needs it back
        deadline = time.monotonic() + args.wait
        while os.path.exists(path) and time.monotonic() < min(deadline, time.monotonic() + 2):
            time.sleep(0.1)
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
