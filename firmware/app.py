"""The firmware's main loop: frames in, ring commands applied once and in order, acks out.

``App.poll()`` is one turn of the loop: read what the port has, act on every complete frame, check
the host's silence, draw the ring, feed the watchdog. Nothing in a frame can raise out of it: a
damaged frame is counted and dropped (and nacked so the host resends at once), an unknown or
out-of-range command is nacked, and any other surprise is counted in ``errors`` and the loop goes on.

Exactly once, in order: the host numbers every command; the app applies a command only when its
number is the one after the last applied. A resend of something already applied is acked again
but not applied; a gap (a lost frame) is nacked with the last applied number so the host goes
back and resends from there. The numbering belongs to a host *session*: the HELLO handshake
carries the host's session id and its next number; a known session keeps the app's count (the
port was only closed and reopened), a new one starts the count where the host says.

The port is any object with ``read(timeout_ms) -> bytes`` and ``write(data)``; the clock returns
milliseconds. See docs/firmware-protocol.md for the messages.
"""

from firmware import framing
from firmware import ring as leds

PROTOCOL_VERSION = 2
FIRMWARE_VERSION = "cardtable-ring 1.1"

# host -> ring
T_HELLO = 0x01
T_PING = 0x02
T_MAINT = 0x03
# ring -> host
T_ACK = 0x80
T_HELLO_OK = 0x81
T_PONG = 0x82
T_MAINT_OK = 0x83
T_NACK = 0x8F

# nack reasons (first payload byte)
R_BAD_FRAME = 1
R_GAP = 2
R_VERSION = 3
R_NO_SESSION = 4
R_UNKNOWN = 5
R_BAD_ARG = 6

HOST_LOST_MS = 3000
FRAME_MS = 20


try:
    from time import ticks_ms as _ticks_ms  # type: ignore[attr-defined]
except ImportError:
    import time as _time

    def _ticks_ms() -> int:
        return int(_time.monotonic() * 1000)


try:  # MicroPython: wrap-around-safe millisecond arithmetic
    from time import ticks_diff as _ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython (tests): plain milliseconds

    def _ticks_diff(a: int, b: int) -> int:
        return a - b


class App:
    """The ring firmware, minus the hardware: pass a port, a ``firmware.ring.Ring`` and optionally a
    clock, a watchdog (anything with ``feed()``), an ``on_apply(seq, op, arg)`` hook (the tests'
    applied-command log) and an ``on_maint()`` hook (the Pico's switch to the REPL)."""

    def __init__(
        self,
        port: object,
        ring: leds.Ring,
        clock: object = None,
        wdt: object = None,
        on_apply: object = None,
        on_maint: object = None,
        host_lost_ms: int = HOST_LOST_MS,
    ) -> None:
        self.port = port
        self.ring = ring
        self.clock = clock or _ticks_ms
        self.wdt = wdt
        self.on_apply = on_apply
        self.on_maint = on_maint
        self.host_lost_ms = host_lost_ms
        self.splitter = framing.Splitter()
        self.session = -1
        self.last = 0  # seq of the last applied command (valid once a session exists)
        self.nacked_at = -1  # suppress repeated nacks for the same gap until progress is made
        self.applied = 0
        self.duplicates = 0
        self.bad_frames = 0
        self.errors = 0
        self.heard_at = self._now()
        self.drawn_at = self.heard_at - FRAME_MS

    def _now(self) -> int:
        return int(self.clock())  # type: ignore[operator]

    # -- output --------------------------------------------------------------------------------
    def _send(self, msg_type: int, seq: int, payload: bytes = b"") -> None:
        try:
            self.port.write(framing.encode(msg_type, seq, payload))  # type: ignore[attr-defined]
        except Exception:  # a host that went away mid-write: nothing to do but carry on
            self.errors += 1

    def _nack(self, reason: int) -> None:
        if self.nacked_at == self.last:
            return
        self.nacked_at = self.last
        self._send(T_NACK, self.last, bytes([reason]))

    # -- input ---------------------------------------------------------------------------------
    def handle(self, raw: bytes) -> None:
        """Act on one frame (without its delimiter)."""
        try:
            msg_type, seq, payload = framing.decode(raw)
        except ValueError:
            self.bad_frames += 1
            if self.session >= 0:
                self._nack(R_BAD_FRAME)
            return
        self.heard_at = self._now()
        if self.ring.host_lost:
            self.ring.host_lost = False
        if msg_type == T_HELLO:
            self._hello(payload)
        elif msg_type == T_PING:
            self.nacked_at = -1  # a later damaged frame deserves its own nack
            self._send(T_PONG, self.last, self._stats())
        elif msg_type == T_MAINT:
            self._send(T_MAINT_OK, self.last)
            if self.on_maint is not None:
                self.on_maint()  # type: ignore[operator]
        elif self.session < 0:
            self._send(T_NACK, self.last, bytes([R_NO_SESSION]))
        elif msg_type in leds.OPS:
            self._command(msg_type, seq, payload)
        else:
            self._send(T_NACK, self.last, bytes([R_UNKNOWN]))

    def _stats(self) -> bytes:
        out = bytearray()
        for value in (self.applied, self.duplicates, self.bad_frames + self.splitter.overruns, self.errors):
            out.extend(bytes([(value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF]))
        return bytes(out)

    def _hello(self, payload: bytes) -> None:
        if len(payload) < 7 or payload[0] != PROTOCOL_VERSION:
            self._send(T_NACK, self.last, bytes([R_VERSION, PROTOCOL_VERSION]))
            return
        session = (payload[1] << 24) | (payload[2] << 16) | (payload[3] << 8) | payload[4]
        fresh = session != self.session
        if fresh:
            self.session = session
            self.last = (((payload[5] << 8) | payload[6]) - 1) & 0xFFFF
        self.nacked_at = -1
        info = bytes([PROTOCOL_VERSION, 1 if fresh else 0, self.ring.pixels >> 8, self.ring.pixels & 0xFF])
        self._send(T_HELLO_OK, self.last, info + FIRMWARE_VERSION.encode())

    def _command(self, op: int, seq: int, payload: bytes) -> None:
        expected = (self.last + 1) & 0xFFFF
        if seq != expected:
            behind = (self.last - seq) & 0xFFFF
            if behind < 0x8000:  # already applied: a resend whose ack was lost
                self.duplicates += 1
                self._send(T_ACK, self.last)
            else:
                self._nack(R_GAP)
            return
        arg = payload[0] if payload else 0
        if not self.ring.valid(op, arg):
            # refuse it but move on, or the host would resend the bad command for ever
            self.last = expected
            self._send(T_NACK, self.last, bytes([R_BAD_ARG]))
            return
        self.ring.command(op, arg, self._now())
        self.last = expected
        self.nacked_at = -1
        self.applied += 1
        if self.on_apply is not None:
            self.on_apply(seq, op, arg)  # type: ignore[operator]
        self._send(T_ACK, self.last)

    # -- the loop ------------------------------------------------------------------------------
    def poll(self, timeout_ms: int = 5) -> None:
        """One turn of the loop. Never raises."""
        try:
            data = self.port.read(timeout_ms)  # type: ignore[attr-defined]
            if data:
                for raw in self.splitter.feed(data):
                    self.handle(raw)
            now = self._now()
            if not self.ring.host_lost and _ticks_diff(now, self.heard_at) > self.host_lost_ms:
                self.ring.host_lost = True
            if _ticks_diff(now, self.drawn_at) >= FRAME_MS:
                self.drawn_at = now
                self.ring.render(now)
        except Exception:
            self.errors += 1
        if self.wdt is not None:
            self.wdt.feed()  # type: ignore[attr-defined]

    def run(self) -> None:
        """Poll for ever (the Pico's main loop)."""
        while True:
            self.poll()
