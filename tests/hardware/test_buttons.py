"""Seat buttons driven like a person would press them, through gpiozero's mock pins.

gpiozero's ``MockPin`` does not implement ``bounce`` (its ``_set_bounce`` says "Need to implement
this"), so ``DebouncingMockPin`` below does what lgpio's debounce does on a real Pi: a level change
is reported only after the pin has held it for the bounce time. The code under test only passes
``bounce_time`` to gpiozero, as it does on the Pi.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from hardware.buttons import SeatButtons, SeatLeds, SimulatedButtons, parse_key
from hardware.events import Press, SeatButton
from hardware.ring import RingCommand, RingOp, ring_from_config
from tests.hardware.waiting import wait_until

SEAT_PINS = (5, 6, 13, 19)
OPERATOR_PIN = 26


class DebouncingMockPin(MockPin):  # type: ignore[misc]
    """A mock pin whose edges are reported after ``bounce`` seconds of a steady level, like lgpio."""

    def __init__(self, factory: MockFactory, info: object) -> None:
        super().__init__(factory, info)
        self._timer: threading.Timer | None = None
        self._raw = self._state

    def _settle(self, level: bool) -> None:
        if level:
            super().drive_high()
        else:
            super().drive_low()

    def _drive(self, level: bool) -> None:
        self._raw = level
        if self._timer is not None:
            self._timer.cancel()
        if not self.bounce:
            self._settle(level)
            return
        self._timer = threading.Timer(self.bounce, self._settle, args=(level,))
        self._timer.daemon = True
        self._timer.start()

    def drive_high(self) -> None:
        self._drive(True)

    def drive_low(self) -> None:
        self._drive(False)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        super().close()


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=DebouncingMockPin)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def pwm_factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


class Presses:
    def __init__(self) -> None:
        self.events: queue.Queue[SeatButton] = queue.Queue()

    def __call__(self, event: SeatButton) -> None:
        self.events.put(event)

    def next(self, timeout: float = 3.0) -> SeatButton:
        return self.events.get(timeout=timeout)

    def none_within(self, seconds: float) -> bool:
        try:
            extra = self.events.get(timeout=seconds)
        except queue.Empty:
            return True
        raise AssertionError(f"unexpected extra press {extra}")


def test_a_short_press_of_a_seat_button_is_one_short_event(factory: MockFactory) -> None:
    presses = Presses()
    with SeatButtons(SEAT_PINS, OPERATOR_PIN, presses, long_press_s=0.5, bounce_s=None):
        pin = factory.pin(SEAT_PINS[2])
        assert pin.pull == "up"  # wired to ground, pressed = low
        pin.drive_low()
        pin.drive_high()
        event = presses.next()
        assert (event.seat, event.press) == (2, Press.SHORT)
        assert presses.none_within(0.05)


def test_contact_chatter_on_press_and_release_is_still_one_press(factory: MockFactory) -> None:
    presses = Presses()
    with SeatButtons(SEAT_PINS, OPERATOR_PIN, presses, long_press_s=0.5, bounce_s=0.03):
        pin = factory.pin(SEAT_PINS[0])
        for _ in range(5):  # a cheap switch rattling as it closes...
            pin.drive_low()
            pin.drive_high()
        pin.drive_low()
        wait_until(lambda: not pin.state, what="the pin to settle low")
        for _ in range(4):  # ...and as it opens
            pin.drive_high()
            pin.drive_low()
        pin.drive_high()
        event = presses.next()
        assert (event.seat, event.press) == (0, Press.SHORT)
        assert presses.none_within(0.15)


def test_holding_a_button_gives_one_long_press_and_no_short_on_release(factory: MockFactory) -> None:
    presses = Presses()
    with SeatButtons(SEAT_PINS, OPERATOR_PIN, presses, long_press_s=0.2, bounce_s=None):
        pin = factory.pin(SEAT_PINS[3])
        pin.drive_low()
        event = presses.next()
        assert (event.seat, event.press) == (3, Press.LONG)
        pin.drive_high()
        assert presses.none_within(0.1)


def test_the_operator_button_reports_seat_none(factory: MockFactory) -> None:
    presses = Presses()
    with SeatButtons(SEAT_PINS, OPERATOR_PIN, presses, long_press_s=0.2, bounce_s=None):
        pin = factory.pin(OPERATOR_PIN)
        pin.drive_low()
        pin.drive_high()
        short = presses.next()
        assert (short.seat, short.press) == (None, Press.SHORT)
        pin.drive_low()
        long_press = presses.next()
        assert (long_press.seat, long_press.press) == (None, Press.LONG)
        assert long_press.t > short.t
        pin.drive_high()


def test_two_players_pressing_at_once_both_count(factory: MockFactory) -> None:
    presses = Presses()
    with SeatButtons(SEAT_PINS, None, presses, long_press_s=0.5, bounce_s=None):
        a, b = factory.pin(SEAT_PINS[0]), factory.pin(SEAT_PINS[1])
        a.drive_low()
        b.drive_low()
        b.drive_high()
        a.drive_high()
        got = {(e.seat, e.press) for e in (presses.next(), presses.next())}
        assert got == {(0, Press.SHORT), (1, Press.SHORT)}


def test_a_failing_handler_is_logged_and_the_buttons_keep_working(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    presses = Presses()
    calls = 0

    def flaky(event: SeatButton) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("controller bug")
        presses(event)

    with SeatButtons(SEAT_PINS, None, flaky, bounce_s=None):
        pin = factory.pin(SEAT_PINS[1])
        for _ in range(2):
            pin.drive_low()
            pin.drive_high()
        assert presses.next().seat == 1
    assert "controller bug" in caplog.text


def test_close_is_idempotent_and_frees_the_pins(factory: MockFactory) -> None:
    buttons = SeatButtons(SEAT_PINS, OPERATOR_PIN, Presses())
    buttons.close()
    buttons.close()
    assert buttons.closed
    with SeatButtons(SEAT_PINS, OPERATOR_PIN, Presses()):  # the same pins can be claimed again
        pass


def test_bad_configuration_is_refused_with_the_pins_named(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="distinct"):
        SeatButtons([5, 6, 5], None, Presses())
    with pytest.raises(ValueError, match="long_press_s"):
        SeatButtons([5], None, Presses(), long_press_s=0)


def test_simulated_buttons_deliver_the_same_events() -> None:
    presses = Presses()
    with SimulatedButtons(presses, seats=3) as buttons:
        buttons.press(1)
        buttons.hold(None)
        buttons.feed_key("L2")
        got = [(e.seat, e.press) for e in (presses.next(), presses.next(), presses.next())]
        assert got == [(1, Press.SHORT), (None, Press.LONG), (2, Press.LONG)]
        with pytest.raises(ValueError, match="seat 3"):
            buttons.press(3)
    with pytest.raises(ValueError, match="'x'"):
        parse_key("x", 3)


def test_seat_leds_show_the_turn_and_blink_the_winner(pwm_factory: MockFactory) -> None:
    with SeatLeds([17, 27, 22], pwm=True) as leds:
        pins = [pwm_factory.pin(p) for p in (17, 27, 22)]
        leds.brightness(0.5)
        leds.show_turn(1)
        assert [p.state for p in pins] == [0, pytest.approx(0.5, abs=0.01), 0]
        leds.trick_won(2)
        wait_until(lambda: any(s.state == 1 for s in pins[2].states), what="the winner's LED to blink")
        assert pins[1].state == 0
        leds.send(RingCommand(RingOp.TURN, 5))  # no LED for seat 5: logged, not raised


def test_seat_leds_all_blink_while_the_camera_cannot_see_the_mat_then_show_the_turn(pwm_factory: MockFactory) -> None:
    with SeatLeds([17, 27, 22], pwm=True) as leds:
        pins = [pwm_factory.pin(p) for p in (17, 27, 22)]
        leds.show_turn(1)
        leds.camera_fault(True)
        for pin in pins:
            pin.clear_states()
        wait_until(lambda: all(any(s.state > 0 for s in p.states) for p in pins), what="every seat's LED to blink")
        wait_until(lambda: all(any(s.state == 0 for s in p.states) for p in pins), what="... and go dark between")
        leds.show_turn(2)  # the next turn while the camera cannot see: the blink stays
        leds.camera_fault(False)
        wait_until(lambda: [p.state for p in pins] == [0, 0, 1], what="seat 2's turn once the camera sees the mat")


def test_seat_leds_are_a_ring_backend_by_config(pwm_factory: MockFactory) -> None:
    with ring_from_config("gpio:4, 12,16") as leds:
        leds.show_turn(2)
        assert pwm_factory.pin(16).state == 1 and pwm_factory.pin(4).state == 0
    with pytest.raises(ValueError, match="'gpio:4,x'"):
        ring_from_config("gpio:4,x")
