"""A desktop stand-in for MicroPython's ``neopixel`` module."""

from firmware.sim import FakeStrip


class NeoPixel(FakeStrip):
    last: "NeoPixel | None" = None

    def __init__(self, pin: object, n: int, bpp: int = 3, timing: int = 1) -> None:
        super().__init__(n)
        self.pin = pin
        NeoPixel.last = self
