# Runs under the MicroPython unix port (tests/firmware/test_micropython.py): the firmware's modules
# must import and behave the same there as under CPython. Plain asserts, no pytest, no typing module
# (annotations are fine: MicroPython ignores them).
from firmware import app as fw
from firmware import framing
from firmware import ring as leds

assert framing.crc32(b"123456789") == 0xCBF43926
assert framing._crc32_py(b"123456789") == 0xCBF43926
assert framing.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
assert framing.cobs_decode(b"\x03\x11\x22\x02\x33") == b"\x11\x22\x00\x33"
assert framing.decode(framing.encode(0x11, 0xABCD, b"\x02")[:-1]) == (0x11, 0xABCD, b"\x02")


class Strip:
    def __init__(self, n: int) -> None:
        self.px = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, i: int, c: "tuple[int, int, int]") -> None:
        self.px[i] = c

    def write(self) -> None:
        self.writes += 1


class Port:
    def __init__(self) -> None:
        self.inbox = b""
        self.out = b""

    def read(self, timeout_ms: int) -> bytes:
        data = self.inbox
        self.inbox = b""
        return data

    def write(self, data: bytes) -> None:
        self.out += data


applied = []
port = Port()
strip = Strip(24)
app = fw.App(port, leds.Ring(strip, 24), on_apply=lambda s, o, a: applied.append((s, o, a)))
hello = bytes([fw.PROTOCOL_VERSION, 0, 0, 0, 7, 0, 1])
bad = bytearray(framing.encode(leds.OP_TURN, 2, b"\x01"))
bad[2] ^= 0x10
port.inbox = (
    framing.encode(fw.T_HELLO, 0, hello)
    + framing.encode(leds.OP_SEATS, 1, b"\x04")
    + bytes(bad)
    + framing.encode(leds.OP_TURN, 2, b"\x03")  # 0x03: Ctrl-C inside a frame is data
    + framing.encode(leds.OP_TURN, 2, b"\x03")  # a resend: acked, not applied again
    + framing.encode(leds.OP_TRICK, 3, b"\x01")
)
app.poll()
assert applied == [(1, leds.OP_SEATS, 4), (2, leds.OP_TURN, 3), (3, leds.OP_TRICK, 1)], applied
assert app.bad_frames == 1 and app.duplicates == 1
replies = [framing.decode(f) for f in framing.Splitter().feed(port.out)]
assert replies[0][0] == fw.T_HELLO_OK and replies[-1] == (fw.T_ACK, 3, b""), replies
for t in range(0, 2000, 20):
    app.ring.render(t)
assert strip.writes > 0
print("micropython firmware smoke: OK", len(applied), "applied,", strip.writes, "strip writes")
