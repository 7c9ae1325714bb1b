"""Pico entry point: wire the ring firmware to the real USB serial port, LED strip and watchdog.

``make firmware`` copies this file to the Pico's root as ``main.py`` (MicroPython runs it at boot)
and the other modules to ``/firmware/``. Edit the constants below for your build (docs/hardware.md).

Maintenance: a MAINT frame from the host (``python -m hardware.link --maintenance``, which
``make firmware`` sends first) leaves a ``maint`` marker and resets; at the next boot this file sees
the marker, removes it and returns to the REPL without starting the watchdog or disabling Ctrl-C,
so ``mpremote`` can copy new files.
"""

import os
import sys

import machine
import micropython
import neopixel

from firmware.app import App
from firmware.ring import Ring

PIXELS = 24  # LEDs on the ring or strip
DATA_PIN = 0  # GP0 -> 330 ohm -> DIN of the first LED
SEATS = 4  # until the host sends a SEATS command
OFFSET = 0  # LED index where seat 0's segment starts
BRIGHTNESS = 64  # 0-255 at boot; the host can change it
WDT_MS = 5000  # the RP2040 watchdog allows up to about 8.3 s
MAINT_FILE = "maint"


class UsbPort:
    """The USB CDC serial port as the app wants it: ``read(timeout_ms)`` returns what has arrived."""

    def __init__(self, stdin: object = None, stdout: object = None) -> None:
        import select

        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(stdin or sys.stdin, select.POLLIN)

    def read(self, timeout_ms: int) -> bytes:
        out = b""
        if self.poller.poll(timeout_ms):
            while len(out) < 64 and self.poller.poll(0):
                out += self.stdin.read(1)  # type: ignore[attr-defined]
        return out

    def write(self, data: bytes) -> None:
        self.stdout.write(data)  # type: ignore[attr-defined]


def enter_maintenance() -> None:
    with open(MAINT_FILE, "w") as marker:
        marker.write("1")
    machine.reset()


def main(port: object = None, forever: bool = True) -> "App | None":
    """Start the firmware; returns the app instead of looping when ``forever`` is false (tests)."""
    if MAINT_FILE in os.listdir():
        os.remove(MAINT_FILE)
        print("cardtable ring: maintenance mode, REPL left open")
        return None
    micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not raise KeyboardInterrupt
    strip = neopixel.NeoPixel(machine.Pin(DATA_PIN), PIXELS)
    ring = Ring(strip, PIXELS, SEATS, OFFSET, BRIGHTNESS)
    wdt = machine.WDT(timeout=WDT_MS)
    app = App(port or UsbPort(), ring, wdt=wdt, on_maint=enter_maintenance)
    if not forever:
        return app
    app.run()
    return None


if __name__ == "__main__":
    main()
