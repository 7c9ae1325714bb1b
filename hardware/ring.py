"""The LED ring as the controller sees it: a handful of table signals, never an exception.

A ``Ring`` turns the controller's announcements into light: whose turn it is, who won the trick (a
sweep toward the winner), a violation (a red flash on that seat), the end of a hand, idle. Every
method returns at once and never raises for I/O trouble: a ring that is unplugged, rebooting or
missing must not stop a card game. Backends queue, retry and log instead (``LinkRing`` over USB
serial to the Pico firmware, ``SimulatedRing`` for the demo and tests). Arguments that can never be
right (seat -1, brightness 7) are the caller's bug and raise ``ValueError`` at once.

Pick a backend with ``ring_from_config``::

    ring = ring_from_config("serial:auto")     # the Pico, via /dev/cardtable-ring or VID 2e8a
    ring = ring_from_config("serial:/dev/ttyACM0")
    ring = ring_from_config("simulated")       # one text line per change, to the log / a stream
    ring = ring_from_config("png:runs/ring")   # numbered PNG frames of the ring
    ring = ring_from_config("gpio:4,12,16")    # no ring: one PWM LED per seat on the Pi's GPIO
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass
from types import TracebackType
from typing import Self

MAX_SEATS = 8


class RingOp(enum.IntEnum):
    """The ring commands; the values are the protocol's message types (docs/firmware-protocol.md)."""

    SEATS = 0x10
    TURN = 0x11
    TRICK = 0x12
    VIOLATION = 0x13
    HAND_END = 0x14
    IDLE = 0x15
    BRIGHTNESS = 0x16
    CAMERA = 0x17


_SEATED = {RingOp.TURN, RingOp.TRICK, RingOp.VIOLATION}


@dataclass(frozen=True, slots=True)
class RingCommand:
    """One thing for the ring to show. ``arg`` is the seat, the seat count, or brightness 0-255."""

    op: RingOp
    arg: int = 0

    def __post_init__(self) -> None:
        if self.op in _SEATED and not 0 <= self.arg < MAX_SEATS:
            raise ValueError(f"ring {self.op.name.lower()}: seat {self.arg!r} is not in 0..{MAX_SEATS - 1}")
        if self.op is RingOp.SEATS and not 1 <= self.arg <= MAX_SEATS:
            raise ValueError(f"ring seats: count {self.arg!r} is not in 1..{MAX_SEATS}")
        if self.op is RingOp.BRIGHTNESS and not 0 <= self.arg <= 255:
            raise ValueError(f"ring brightness: {self.arg!r} is not in 0..255")
        if self.op is RingOp.CAMERA and self.arg not in (0, 1):
            raise ValueError(f"ring camera: {self.arg!r} is not 0 (sees the mat) or 1 (cannot)")

    def __str__(self) -> str:
        name = self.op.name.lower().replace("_", " ")
        if self.op in (RingOp.HAND_END, RingOp.IDLE):
            return name
        if self.op is RingOp.CAMERA:
            return "camera fault" if self.arg else "camera ok"
        return f"{name} {self.arg}"


class Ring(abc.ABC):
    """The controller's handle on the LED ring.

    Backends *must* override ``send`` (queue one command; never raise for I/O) and *may* override
    ``close`` (release the port or files; idempotent). Everything else is built on ``send``.
    """

    @abc.abstractmethod
    def send(self, command: RingCommand) -> None:
        """Queue ``command``; it reaches the ring in order, once, as soon as the ring can take it."""

    def set_seats(self, count: int) -> None:
        """Divide the ring into ``count`` equal seat segments (seat 0 first, clockwise)."""
        self.send(RingCommand(RingOp.SEATS, count))

    def show_turn(self, seat: int) -> None:
        """Light ``seat``'s segment: it is that player's turn."""
        self.send(RingCommand(RingOp.TURN, seat))

    def trick_won(self, seat: int) -> None:
        """Sweep light toward ``seat``, who took the trick."""
        self.send(RingCommand(RingOp.TRICK, seat))

    def violation(self, seat: int) -> None:
        """Flash ``seat``'s segment red: that player broke a rule."""
        self.send(RingCommand(RingOp.VIOLATION, seat))

    def hand_end(self) -> None:
        """Play the end-of-hand pattern."""
        self.send(RingCommand(RingOp.HAND_END))

    def idle(self) -> None:
        """Slow breathing: no game in progress."""
        self.send(RingCommand(RingOp.IDLE))

    def camera_fault(self, fault: bool) -> None:
        """Pulse the whole ring violet while the camera cannot see the mat (nothing laid is read); stop (``False``)
        when it sees it again.

        Why on the ring: it is where the players look between cards, and an e-ink board may take 20 s to redraw."""
        self.send(RingCommand(RingOp.CAMERA, 1 if fault else 0))

    def brightness(self, level: float) -> None:
        """Set overall brightness, ``0.0`` (off) to ``1.0`` (full)."""
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"ring brightness: {level!r} is not in 0.0..1.0")
        self.send(RingCommand(RingOp.BRIGHTNESS, round(level * 255)))

    def close(self) -> None:  # noqa: B027 - optional hook, empty on purpose
        """Release whatever the backend holds. Idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def ring_from_config(spec: str, leds: int | None = None) -> Ring:
    """The ring backend named by ``spec``: ``serial:auto``, ``serial:<device>``, ``simulated``, ``png:<dir>``,
    ``gpio:<pin>,<pin>,...`` (seat LEDs instead of a ring). ``leds``: how many LEDs the ring has (the serial
    link checks the firmware's count against it; the simulated ring draws that many).

    Raises ``ValueError`` naming the spec when it is not one of those forms.
    """
    kind, _, rest = spec.partition(":")
    if kind == "serial":
        from hardware.link import LinkRing

        ring: Ring = LinkRing(port=rest or "auto", pixels=leds)
        return ring
    if kind == "simulated" and not rest:
        from hardware.simring import SimulatedRing

        return SimulatedRing(pixels=leds or 24)
    if kind == "png" and rest:
        from hardware.simring import SimulatedRing

        return SimulatedRing(png_dir=rest, pixels=leds or 24)
    if kind == "gpio" and rest:
        pins = [p.strip() for p in rest.split(",")]
        if not all(p.isdigit() for p in pins):
            raise ValueError(f"ring backend {spec!r}: expected GPIO numbers, e.g. 'gpio:4,12,16'")
        from hardware.buttons import SeatLeds

        return SeatLeds([int(p) for p in pins], pwm=True)
    raise ValueError(
        f"ring backend {spec!r} is not one of 'serial:auto', 'serial:<device>', 'simulated', 'png:<dir>', "
        "'gpio:<pin>,<pin>,...'"
    )
