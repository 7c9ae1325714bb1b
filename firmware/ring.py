"""What the LEDs show: seat segments on a WS2812 ring, animated from the last commands.

Pure logic over a ``neopixel.NeoPixel``-like object (``np[i] = (r, g, b)``, ``np.write()``), so the
same code runs on the Pico and, with a fake strip, in the CPython tests. ``render(now_ms)`` draws one
frame from the state; it writes the strip only when a pixel changed, which keeps the loop cheap.

Patterns (docs/firmware-protocol.md has the table):
- turn: the player's segment white, the others a dim seat colour;
- trick: light sweeps from the far side of the ring toward the winner, then the winner glows gold;
- violation: the seat's segment flashes red three times;
- hand end: the seat colours rotate round the ring for a few seconds, then hold;
- idle: a slow dim breathing;
- camera fault (the camera cannot see the mat: nothing laid is read): the whole ring pulses violet, once a
  second, over whatever it showed, until the camera sees the mat again; tricks and violations still flash over it;
- host lost: amber blink on every segment boundary until the host talks again.
"""

OP_SEATS = 0x10
OP_TURN = 0x11
OP_TRICK = 0x12
OP_VIOLATION = 0x13
OP_HAND_END = 0x14
OP_IDLE = 0x15
OP_BRIGHTNESS = 0x16
OP_CAMERA = 0x17
OPS = (OP_SEATS, OP_TURN, OP_TRICK, OP_VIOLATION, OP_HAND_END, OP_IDLE, OP_BRIGHTNESS, OP_CAMERA)
SEATED = (OP_TURN, OP_TRICK, OP_VIOLATION)
MAX_SEATS = 8

SEAT_COLOURS = (
    (0, 90, 255),
    (255, 110, 0),
    (60, 255, 40),
    (255, 40, 160),
    (150, 80, 255),
    (255, 230, 60),
    (0, 255, 200),
    (255, 255, 255),
)
WHITE = (255, 255, 255)
GOLD = (255, 170, 0)
RED = (255, 0, 0)
AMBER = (255, 90, 0)
VIOLET = (140, 0, 255)
OFF = (0, 0, 0)

SWEEP_MS = 600
GLOW_MS = 900
FLASH_MS = 150
FLASHES = 3
HAND_END_MS = 3000
CAMERA_PULSE_MS = 1000


try:  # MicroPython: wrap-around-safe millisecond arithmetic
    from time import ticks_diff as _ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython (tests): plain milliseconds

    def _ticks_diff(a: int, b: int) -> int:
        return a - b


def _scale(colour: "tuple[int, int, int]", level: int) -> "tuple[int, int, int]":
    return ((colour[0] * level) // 255, (colour[1] * level) // 255, (colour[2] * level) // 255)


class Ring:
    """The LED state machine. ``command`` takes a protocol op; ``render`` draws the frame for a time.

    ``valid(op, arg)`` says whether a command can be applied (the dispatcher nacks it otherwise),
    so that a bad seat number is refused at the door instead of crashing a draw call later.
    """

    def __init__(self, strip: object, pixels: int, seats: int = 4, offset: int = 0, brightness: int = 64) -> None:
        self.strip = strip
        self.pixels = pixels
        self.seats = seats
        self.offset = offset
        self.brightness = brightness
        self.mode = OP_IDLE
        self.turn = -1
        self.effect = 0
        self.effect_seat = -1
        self.effect_at = 0
        self.mode_at = 0
        self.host_lost = False
        self.camera_fault = False
        self.frame = [OFF] * pixels
        self.writes = 0

    def valid(self, op: int, arg: int) -> bool:
        if op not in OPS:
            return False
        if op in SEATED:
            return 0 <= arg < self.seats
        if op == OP_SEATS:
            return 1 <= arg <= MAX_SEATS
        if op == OP_CAMERA:
            return arg in (0, 1)
        return 0 <= arg <= 255

    def command(self, op: int, arg: int, now: int) -> None:
        """Apply one already-validated command at time ``now`` (ms)."""
        if op == OP_SEATS:
            self.seats = arg
            if self.turn >= arg:
                self.turn = -1
        elif op == OP_BRIGHTNESS:
            self.brightness = arg
        elif op == OP_CAMERA:
            self.camera_fault = arg == 1
        elif op == OP_TURN:
            self.mode = OP_TURN
            self.turn = arg
            self.mode_at = now
        elif op in (OP_TRICK, OP_VIOLATION):
            self.effect = op
            self.effect_seat = arg
            self.effect_at = now
        else:  # hand end or idle
            self.mode = op
            self.turn = -1
            self.effect = 0
            self.mode_at = now

    def seat_of(self, pixel: int) -> int:
        """The seat whose segment holds ``pixel`` (segment 0 starts at ``offset``, clockwise)."""
        return ((pixel - self.offset) % self.pixels) * self.seats // self.pixels

    def _segment_centre(self, seat: int) -> float:
        return (self.offset + (seat + 0.5) * self.pixels / self.seats) % self.pixels

    def _base(self, i: int, seat: int, now: int) -> "tuple[int, int, int]":
        if self.camera_fault:  # triangle wave over CAMERA_PULSE_MS, from dim to full
            phase = now % CAMERA_PULSE_MS
            half = CAMERA_PULSE_MS // 2
            return _scale(VIOLET, 40 + (phase if phase < half else CAMERA_PULSE_MS - phase) * 215 // half)
        if self.mode == OP_TURN:
            return WHITE if seat == self.turn else _scale(SEAT_COLOURS[seat % 8], 40)
        if self.mode == OP_HAND_END:
            age = _ticks_diff(now, self.mode_at)
            if age < HAND_END_MS:
                shift = age * self.pixels // 1000
                return SEAT_COLOURS[(((i + shift) % self.pixels) * self.seats // self.pixels) % 8]
            return _scale(SEAT_COLOURS[seat % 8], 120)
        # idle: triangle-wave breathing over 4 s, never fully dark
        phase = _ticks_diff(now, self.mode_at) % 4000
        level = 20 + (phase if phase < 2000 else 4000 - phase) * 60 // 2000
        return (level, level, level)

    def _effect(self, i: int, seat: int, now: int, colour: "tuple[int, int, int]") -> "tuple[int, int, int]":
        age = _ticks_diff(now, self.effect_at)
        if self.effect == OP_VIOLATION:
            if age >= 2 * FLASH_MS * FLASHES:
                self.effect = 0
            elif seat == self.effect_seat:
                return RED if (age // FLASH_MS) % 2 == 0 else OFF
            return colour
        if self.effect == OP_TRICK:
            if age >= SWEEP_MS + GLOW_MS:
                self.effect = 0
                return colour
            centre = self._segment_centre(self.effect_seat)
            # distance round the ring from the winner, 0 .. pixels/2
            dist = abs(i + 0.5 - centre) % self.pixels
            dist = min(dist, self.pixels - dist)
            if age < SWEEP_MS:
                head = (self.pixels / 2) * (1 - age / SWEEP_MS)  # the front closes in on the winner
                return GOLD if abs(dist - head) < 1.5 else _scale(colour, 60)
            return GOLD if seat == self.effect_seat else _scale(colour, 60)
        return colour

    def render(self, now: int) -> bool:
        """Draw the frame for ``now`` (ms); write the strip only if it changed. True if written."""
        frame = []
        boundary = self.pixels // max(1, self.seats)
        for i in range(self.pixels):
            seat = self.seat_of(i)
            if self.host_lost:
                blink = (now // 500) % 2 == 0
                colour = AMBER if blink and (i - self.offset) % boundary == 0 else OFF
            else:
                colour = self._effect(i, seat, now, self._base(i, seat, now))
            frame.append(_scale(colour, self.brightness))
        if frame == self.frame:
            return False
        self.frame = frame
        strip = self.strip
        for i in range(self.pixels):
            strip[i] = frame[i]  # type: ignore[index]
        strip.write()  # type: ignore[attr-defined]
        self.writes += 1
        return True
