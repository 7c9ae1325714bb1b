"""The firmware loop, driven frame by frame with a fake clock: what it applies, acks and shows."""

from __future__ import annotations

from firmware import framing
from firmware import ring as leds
from firmware.app import (
    FIRMWARE_VERSION,
    PROTOCOL_VERSION,
    R_BAD_ARG,
    R_BAD_FRAME,
    R_GAP,
    R_NO_SESSION,
    R_VERSION,
    T_ACK,
    T_HELLO,
    T_HELLO_OK,
    T_NACK,
    T_PING,
    T_PONG,
    App,
)
from firmware.sim import FakeStrip


class MemPort:
    def __init__(self) -> None:
        self.inbox = bytearray()
        self.sent: list[tuple[int, int, bytes]] = []

    def read(self, timeout_ms: int) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def write(self, data: bytes) -> None:
        for raw in framing.Splitter().feed(data):
            self.sent.append(framing.decode(raw))


class Clock:
    def __init__(self) -> None:
        self.ms = 1000

    def __call__(self) -> int:
        return self.ms


class Dog:
    def __init__(self) -> None:
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


def make_app(**kwargs: object) -> tuple[App, MemPort, Clock, FakeStrip, list[tuple[int, int, int]]]:
    port, clock, strip = MemPort(), Clock(), FakeStrip(24)
    applied: list[tuple[int, int, int]] = []
    app = App(port, leds.Ring(strip, 24), clock=clock, on_apply=lambda *a: applied.append(a), **kwargs)  # type: ignore[arg-type]
    return app, port, clock, strip, applied


def hello(session: int = 7, next_seq: int = 1, version: int = PROTOCOL_VERSION) -> bytes:
    return framing.encode(T_HELLO, 0, bytes([version]) + session.to_bytes(4, "big") + next_seq.to_bytes(2, "big"))


def cmd(op: int, seq: int, arg: int) -> bytes:
    return framing.encode(op, seq, bytes([arg]))


def feed(app: App, port: MemPort, *frames: bytes) -> list[tuple[int, int, bytes]]:
    port.sent.clear()
    port.inbox += b"".join(frames)
    app.poll()
    return list(port.sent)


def test_handshake_reports_version_and_starts_numbering_where_the_host_says() -> None:
    app, port, *_ = make_app()
    [(kind, last, info)] = feed(app, port, hello(next_seq=500))
    assert kind == T_HELLO_OK and last == 499
    assert info[0] == PROTOCOL_VERSION and info[1] == 1  # fresh session
    assert info[4:].decode() == FIRMWARE_VERSION


def test_commands_before_the_handshake_are_refused_not_applied() -> None:
    app, port, _, _, applied = make_app()
    assert feed(app, port, cmd(leds.OP_TURN, 1, 2)) == [(T_NACK, 0, bytes([R_NO_SESSION]))]
    assert applied == []


def test_version_mismatch_is_nacked_with_our_version_and_no_session_starts() -> None:
    app, port, _, _, applied = make_app()
    assert feed(app, port, hello(version=9)) == [(T_NACK, 0, bytes([R_VERSION, PROTOCOL_VERSION]))]
    feed(app, port, cmd(leds.OP_TURN, 1, 2))
    assert applied == []


def test_in_order_commands_apply_once_and_resends_are_acked_without_applying() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello())
    replies = feed(app, port, cmd(leds.OP_TURN, 1, 2), cmd(leds.OP_TRICK, 2, 1), cmd(leds.OP_TURN, 1, 2))
    assert replies == [(T_ACK, 1, b""), (T_ACK, 2, b""), (T_ACK, 2, b"")]
    assert applied == [(1, leds.OP_TURN, 2), (2, leds.OP_TRICK, 1)]
    assert app.duplicates == 1


def test_a_gap_is_nacked_once_and_filled_by_the_resend() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello())
    replies = feed(app, port, cmd(leds.OP_TURN, 2, 0), cmd(leds.OP_TURN, 3, 1))
    assert replies == [(T_NACK, 0, bytes([R_GAP]))]  # the second gap frame is not nacked again
    feed(app, port, cmd(leds.OP_TURN, 1, 3), cmd(leds.OP_TURN, 2, 0), cmd(leds.OP_TURN, 3, 1))
    assert [seq for seq, _, _ in applied] == [1, 2, 3]


def test_sequence_numbers_wrap_around() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello(next_seq=0xFFFF))
    feed(app, port, cmd(leds.OP_TURN, 0xFFFF, 0), cmd(leds.OP_TURN, 0, 1), cmd(leds.OP_TURN, 1, 2))
    assert [seq for seq, _, _ in applied] == [0xFFFF, 0, 1]


def test_damaged_frames_are_counted_nacked_and_the_loop_goes_on() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello())
    good = cmd(leds.OP_TURN, 1, 2)
    bad = bytearray(good)
    bad[2] ^= 0x40
    replies = feed(app, port, bytes(bad), b"\x03\x03\x03\x00", b"\xff" * 300 + b"\x00", good)
    assert app.bad_frames == 2 and app.splitter.overruns == 1
    assert replies[0] == (T_NACK, 0, bytes([R_BAD_FRAME]))
    assert replies[-1] == (T_ACK, 1, b"")
    assert applied == [(1, leds.OP_TURN, 2)]


def test_a_seat_outside_the_ring_is_refused_and_skipped() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello())
    replies = feed(app, port, cmd(leds.OP_SEATS, 1, 3), cmd(leds.OP_TURN, 2, 5), cmd(leds.OP_TURN, 3, 1))
    assert replies == [(T_ACK, 1, b""), (T_NACK, 2, bytes([R_BAD_ARG])), (T_ACK, 3, b"")]
    assert [a for _, _, a in applied] == [3, 1]


def test_same_session_keeps_its_count_new_session_restarts_it() -> None:
    app, port, _, _, applied = make_app()
    feed(app, port, hello(session=7), cmd(leds.OP_TURN, 1, 0), cmd(leds.OP_TURN, 2, 1))
    [(kind, last, info)] = feed(app, port, hello(session=7, next_seq=1))  # reconnect: host lost the acks
    assert (kind, last, info[1]) == (T_HELLO_OK, 2, 0)
    feed(app, port, cmd(leds.OP_TURN, 1, 0), cmd(leds.OP_TURN, 2, 1))
    assert len(applied) == 2
    [(kind, last, info)] = feed(app, port, hello(session=8, next_seq=40))
    assert (last, info[1]) == (39, 1)


def test_ping_gets_a_pong_with_counters() -> None:
    app, port, *_ = make_app()
    feed(app, port, hello(), cmd(leds.OP_TURN, 1, 0))
    [(kind, last, stats)] = feed(app, port, framing.encode(T_PING, 0))
    assert kind == T_PONG and last == 1
    assert int.from_bytes(stats[0:4], "big") == 1  # applied


def test_host_lost_after_silence_then_recovery_when_it_talks_again() -> None:
    app, port, clock, strip, _ = make_app(host_lost_ms=3000)
    feed(app, port, hello(), cmd(leds.OP_TURN, 1, 0))
    turn_frame = list(strip.shown)
    clock.ms += 2900
    app.poll()
    assert not app.ring.host_lost
    clock.ms += 200
    app.poll()
    assert app.ring.host_lost
    assert strip.shown != turn_frame
    assert {colour for colour in strip.shown} <= {(0, 0, 0), leds._scale(leds.AMBER, app.ring.brightness)}
    clock.ms += 40
    feed(app, port, framing.encode(T_PING, 0))
    assert not app.ring.host_lost
    assert strip.shown == turn_frame


def test_the_loop_feeds_the_watchdog_every_turn_even_when_things_go_wrong() -> None:
    dog = Dog()
    app, *_ = make_app(wdt=dog)

    class Broken:
        def read(self, timeout_ms: int) -> bytes:
            raise OSError("usb gone")

        def write(self, data: bytes) -> None:
            raise OSError("usb gone")

    for _ in range(5):
        app.poll()
    app.port = Broken()
    for _ in range(5):
        app.poll()
    assert dog.feeds == 10
    assert app.errors == 5
