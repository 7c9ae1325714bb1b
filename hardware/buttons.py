"""Seat and operator buttons (and optional seat LEDs) on the Pi's GPIO, through gpiozero.

Each seat has one push button and the operator has one more. A press shorter than ``long_press_s``
is ``Press.SHORT`` (confirm, next), one held that long is ``Press.LONG`` (undo, menu); the controller
decides what they mean. Contact bounce is removed where gpiozero removes it, in the pin driver
(``Button(bounce_time=...)``, lgpio's debounce on a Pi), and the long-press timer is gpiozero's own
hold machinery (``hold_time`` / ``when_held``): this module only turns those events into typed
``SeatButton`` values. The pin backend is gpiozero's: ``GPIOZERO_PIN_FACTORY=mock`` (or
``Device.pin_factory = MockFactory()``) runs everything without a Pi.

Wiring (docs/hardware.md): each button between its GPIO and ground; the internal pull-up is used.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from hardware.events import Press, SeatButton
from hardware.ring import Ring, RingCommand, RingOp

if TYPE_CHECKING:
    from gpiozero import LED, PWMLED, Button

log = logging.getLogger(__name__)

PressHandler = Callable[[SeatButton], None]

DEFAULT_LONG_PRESS_S = 0.8
DEFAULT_BOUNCE_S = 0.02


class SeatButtons:
    """One gpiozero ``Button`` per seat plus an optional operator button, reporting typed presses.

    ``on_press`` is called from gpiozero's event threads with a ``SeatButton``: ``seat`` is the index
    into ``seat_pins`` or ``None`` for the operator. Exceptions raised by ``on_press`` are logged and
    swallowed so that one bad handler cannot kill the button thread. Use as a context manager or
    call ``close()`` (idempotent).
    """

    def __init__(
        self,
        seat_pins: Sequence[int],
        operator_pin: int | None,
        on_press: PressHandler,
        long_press_s: float = DEFAULT_LONG_PRESS_S,
        bounce_s: float | None = DEFAULT_BOUNCE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpiozero import Button

        pins = [*seat_pins, *([] if operator_pin is None else [operator_pin])]
        if len(set(pins)) != len(pins):
            raise ValueError(f"button pins must be distinct, got seats={list(seat_pins)} operator={operator_pin}")
        if long_press_s <= 0:
            raise ValueError(f"long_press_s must be positive, got {long_press_s!r}")
        self._on_press = on_press
        self._clock = clock
        self._lock = threading.Lock()
        self._held: dict[int | None, bool] = {}
        self._buttons: list[Button] = []
        self._closed = False
        seats: list[int | None] = [*range(len(seat_pins)), *([] if operator_pin is None else [None])]
        try:
            for seat, pin in zip(seats, pins, strict=True):
                button = Button(pin, pull_up=True, bounce_time=bounce_s, hold_time=long_press_s)
                button.when_pressed = self._handler(self._pressed, seat)
                button.when_held = self._handler(self._long, seat)
                button.when_released = self._handler(self._released, seat)
                self._buttons.append(button)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _handler(method: Callable[[int | None], None], seat: int | None) -> Callable[[], None]:
        return lambda: method(seat)

    def _pressed(self, seat: int | None) -> None:
        with self._lock:
            self._held[seat] = False

    def _long(self, seat: int | None) -> None:
        with self._lock:
            self._held[seat] = True
        self._emit(SeatButton(seat, Press.LONG, self._clock()))

    def _released(self, seat: int | None) -> None:
        with self._lock:
            was_long = self._held.pop(seat, None)
        if was_long is False:  # None: a release with no press seen (e.g. at start-up)
            self._emit(SeatButton(seat, Press.SHORT, self._clock()))

    def _emit(self, event: SeatButton) -> None:
        if self._closed:
            return
        try:
            self._on_press(event)
        except Exception:
            log.exception("button handler failed on %s", event)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the pins. Idempotent."""
        self._closed = True
        buttons, self._buttons = self._buttons, []
        for button in buttons:
            button.close()

    def __enter__(self) -> SeatButtons:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class SimulatedButtons:
    """Buttons without GPIO: the demo's keyboard, a console, or a test calls ``press``.

    ``press(seat)`` and ``hold(seat)`` deliver the same ``SeatButton`` values the real buttons do,
    synchronously, so a test can assert on the controller right after. ``parse_key`` maps console
    input: a digit is a short press of that seat, an upper-case ``L`` before it a long press
    (``"L2"``), ``"o"``/``"O"`` the operator's short/long press.
    """

    def __init__(self, on_press: PressHandler, seats: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._on_press = on_press
        self.seats = seats
        self._clock = clock
        self._closed = False
        self.history: list[SeatButton] = []

    def _check(self, seat: int | None) -> None:
        if self._closed:
            raise RuntimeError("SimulatedButtons is closed")
        if seat is not None and not 0 <= seat < self.seats:
            raise ValueError(f"no button for seat {seat!r} (seats 0..{self.seats - 1}, None = operator)")

    def press(self, seat: int | None) -> SeatButton:
        """A short press of ``seat``'s button (``None``: the operator's)."""
        return self._deliver(seat, Press.SHORT)

    def hold(self, seat: int | None) -> SeatButton:
        """A long press of ``seat``'s button (``None``: the operator's)."""
        return self._deliver(seat, Press.LONG)

    def _deliver(self, seat: int | None, press: Press) -> SeatButton:
        self._check(seat)
        event = SeatButton(seat, press, self._clock())
        self.history.append(event)
        self._on_press(event)
        return event

    def feed_key(self, text: str) -> SeatButton:
        """Press the button that console text names; raises ``ValueError`` naming unknown text."""
        seat, press = parse_key(text, self.seats)
        return self._deliver(seat, press)

    def close(self) -> None:
        """Idempotent."""
        self._closed = True

    def __enter__(self) -> SimulatedButtons:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def parse_key(text: str, seats: int) -> tuple[int | None, Press]:
    """``"2"`` → (2, SHORT), ``"L2"`` → (2, LONG), ``"o"`` → (None, SHORT), ``"O"`` → (None, LONG)."""
    key = text.strip()
    if key == "o":
        return None, Press.SHORT
    if key == "O":
        return None, Press.LONG
    long_press = key[:1] == "L"
    digits = key[1:] if long_press else key
    if digits.isdigit() and int(digits) < seats:
        return int(digits), Press.LONG if long_press else Press.SHORT
    raise ValueError(f"button key {text!r}: expected a seat 0..{seats - 1}, 'L<seat>' for a long press, or o/O")


class SeatLeds(Ring):
    """One LED per seat on GPIO, as a small ``Ring``: the turn lit steady, winners and violations blink, and every
    LED blinks slowly while the camera cannot see the mat.

    ``pwm=True`` uses ``PWMLED`` so brightness and the idle "breathing" work; plain ``LED`` otherwise
    (brightness then only switches between off and on). gpiozero's background blink threads do the
    timing, so every method returns at once.
    """

    def __init__(self, pins: Sequence[int], pwm: bool = False) -> None:
        from gpiozero import LED, PWMLED

        if not pins:
            raise ValueError("SeatLeds needs at least one pin")
        self._pwm = pwm
        self._leds: list[LED | PWMLED] = []
        self._level = 1.0
        self._turn: int | None = None
        self._camera_fault = False
        try:
            for pin in pins:
                self._leds.append(PWMLED(pin) if pwm else LED(pin))
        except BaseException:
            self.close()
            raise

    @property
    def leds(self) -> tuple[LED | PWMLED, ...]:
        return tuple(self._leds)

    def _on(self, led: LED | PWMLED) -> None:
        if self._pwm:
            led.value = self._level
        elif self._level > 0:
            led.on()
        else:
            led.off()

    def _blink(self, led: LED | PWMLED, on_s: float, off_s: float, n: int | None) -> None:
        led.blink(on_time=on_s, off_time=off_s, n=n, background=True)

    def send(self, command: RingCommand) -> None:
        if not self._leds:
            return
        op, arg = command.op, command.arg
        if op in (RingOp.TURN, RingOp.TRICK, RingOp.VIOLATION) and arg >= len(self._leds):
            log.warning("seat LEDs: no LED for seat %d (have %d)", arg, len(self._leds))
            return
        if op is RingOp.BRIGHTNESS:
            self._level = arg / 255
            if self._turn is not None and not self._camera_fault:
                self._on(self._leds[self._turn])
            return
        if op is RingOp.SEATS:
            return
        if op is RingOp.CAMERA:  # every seat's LED blinks slowly while the camera cannot see the mat
            self._camera_fault = bool(arg)
            for led in self._leds:
                led.off()
            if self._camera_fault:
                for led in self._leds:
                    self._blink(led, 0.2, 0.8, None)
            elif self._turn is not None:
                self._on(self._leds[self._turn])
            return
        if self._camera_fault:  # the slow blink stays; whose turn it is shows once the camera sees the mat again
            if op is not RingOp.VIOLATION:
                self._turn = arg if op is RingOp.TURN else None
            return
        for led in self._leds:
            led.off()
        if op is RingOp.TURN:
            self._turn = arg
            self._on(self._leds[arg])
        elif op is RingOp.TRICK:
            self._turn = None
            self._blink(self._leds[arg], 0.25, 0.25, 3)
        elif op is RingOp.VIOLATION:
            self._blink(self._leds[arg], 0.1, 0.1, 6)
        elif op is RingOp.HAND_END:
            self._turn = None
            for led in self._leds:
                self._blink(led, 0.5, 0.5, 2)
        elif op is RingOp.IDLE:
            self._turn = None
            if self._pwm:
                for led in self._leds:
                    led.pulse(fade_in_time=1.5, fade_out_time=1.5, background=True)

    def close(self) -> None:
        leds, self._leds = self._leds, []
        for led in leds:
            led.close()
