"""A ring that exists only on screen or on disk: the demo's and the tests' stand-in for the Pico.

It keeps the same state the firmware keeps (seat count, whose turn, the last effect, brightness),
prints one line per change (to a stream or the log), and with ``png_dir`` writes a numbered PNG of
the ring after every command so a demo run can be watched or turned into a GIF afterwards.
Commands apply synchronously in the caller's thread: the simulated latency is the cost of the call.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hardware.ring import Ring, RingCommand, RingOp

if TYPE_CHECKING:
    from PIL.Image import Image

log = logging.getLogger(__name__)

SEAT_COLOURS = ((0, 200, 255), (255, 160, 0), (120, 255, 80), (255, 80, 200), (160, 120, 255), (255, 255, 120))


@dataclass(frozen=True, slots=True)
class RingState:
    """What the ring shows now. ``mode`` is ``idle``, ``turn`` or ``hand_end``; ``effect`` the last
    one-shot animation (``trick`` or ``violation``) with its seat, cleared by the next base change."""

    seats: int = 4
    mode: str = "idle"
    turn: int | None = None
    effect: str | None = None
    effect_seat: int | None = None
    brightness: int = 255
    camera_fault: bool = False
    """The camera cannot see the mat: the firmware pulses the whole ring violet over the rest."""

    def describe(self) -> str:
        parts = [f"{self.seats} seats", f"brightness {self.brightness * 100 // 255}%"]
        if self.mode == "turn":
            parts.insert(0, f"turn: seat {self.turn}")
        else:
            parts.insert(0, self.mode.replace("_", " "))
        if self.effect:
            parts.insert(1, f"{self.effect} at seat {self.effect_seat}")
        if self.camera_fault:
            parts.insert(0, "camera fault")
        return "ring: " + ", ".join(parts)


def apply(state: RingState, command: RingCommand) -> RingState:
    """The state after ``command`` (pure; the firmware's dispatcher does the same on the Pico)."""
    op, arg = command.op, command.arg
    if op is RingOp.SEATS:
        return replace(state, seats=arg)
    if op is RingOp.BRIGHTNESS:
        return replace(state, brightness=arg)
    if op is RingOp.CAMERA:
        return replace(state, camera_fault=bool(arg))
    if op is RingOp.TURN:
        return replace(state, mode="turn", turn=arg, effect=None, effect_seat=None)
    if op is RingOp.TRICK:
        return replace(state, effect="trick", effect_seat=arg)
    if op is RingOp.VIOLATION:
        return replace(state, effect="violation", effect_seat=arg)
    if op is RingOp.HAND_END:
        return replace(state, mode="hand_end", turn=None, effect=None, effect_seat=None)
    return replace(state, mode="idle", turn=None, effect=None, effect_seat=None)


class SimulatedRing(Ring):
    """A ``Ring`` backend with no hardware. ``applied`` lists ``(monotonic time, command)`` pairs.

    ``on_apply`` (if given) is called after each command with the command and the new state: the
    latency benchmark hooks it. ``stream`` gets one text line per command; without it the lines go
    to the log at INFO.
    """

    def __init__(
        self,
        png_dir: str | Path | None = None,
        stream: TextIO | None = None,
        pixels: int = 24,
        on_apply: Callable[[RingCommand, RingState], None] | None = None,
        keep: int = 10_000,
    ) -> None:
        self.state = RingState()
        self.applied: list[tuple[float, RingCommand]] = []
        self._keep = keep
        self._stream = stream
        self._pixels = pixels
        self._on_apply = on_apply
        self._lock = threading.Lock()
        self._frame = 0
        self._png_dir = Path(png_dir) if png_dir is not None else None
        if self._png_dir is not None:
            self._png_dir.mkdir(parents=True, exist_ok=True)
        self._closed = False

    def send(self, command: RingCommand) -> None:
        with self._lock:
            if self._closed:
                log.warning("simulated ring is closed; dropped %s", command)
                return
            self.state = apply(self.state, command)
            self.applied.append((time.monotonic(), command))
            if len(self.applied) > self._keep:
                del self.applied[: len(self.applied) - self._keep]
            state = self.state
            try:
                line = state.describe()
                if self._stream is not None:
                    self._stream.write(line + "\n")
                    self._stream.flush()
                else:
                    log.info("%s", line)
                if self._png_dir is not None:
                    self._frame += 1
                    render_ring(state, self._pixels).save(self._png_dir / f"ring-{self._frame:05d}.png")
            except Exception:  # a full disk or a closed stream must not stop the game
                log.exception("simulated ring could not show %s", command)
        if self._on_apply is not None:
            try:
                self._on_apply(command, state)
            except Exception:
                log.exception("simulated ring: the on_apply hook failed on %s", command)

    def close(self) -> None:
        with self._lock:
            self._closed = True


def pixel_colours(state: RingState, pixels: int) -> list[tuple[int, int, int]]:
    """One RGB colour per LED for ``state``: the still picture of what the firmware animates."""
    seats = max(1, state.seats)
    scale = state.brightness / 255
    out: list[tuple[int, int, int]] = []
    for i in range(pixels):
        seat = i * seats // pixels
        colour = (10, 10, 10)
        if state.mode == "idle":
            colour = (40, 40, 60)
        elif state.mode == "hand_end":
            colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        elif state.mode == "turn" and seat == state.turn:
            colour = (255, 255, 255)
        if state.camera_fault:
            colour = (140, 0, 255)
        if state.effect_seat == seat and state.effect == "trick":
            colour = (255, 200, 0)
        elif state.effect_seat == seat and state.effect == "violation":
            colour = (255, 0, 0)
        out.append((round(colour[0] * scale), round(colour[1] * scale), round(colour[2] * scale)))
    return out


def render_ring(state: RingState, pixels: int = 24, size: int = 240) -> Image:
    """A PNG-able picture of the ring: dots on a circle, the state written in the middle."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    image = PILImage.new("RGB", (size, size), (0, 0, 0))
    draw = ImageDraw.Draw(image)
    centre, radius, dot = size / 2, size * 0.4, max(3, size // 30)
    for i, colour in enumerate(pixel_colours(state, pixels)):
        angle = 2 * math.pi * i / pixels - math.pi / 2
        x, y = centre + radius * math.cos(angle), centre + radius * math.sin(angle)
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=colour, outline=(60, 60, 60))
    label = state.mode.replace("_", " ") if state.mode != "turn" else f"turn {state.turn}"
    label = "camera fault" if state.camera_fault else label
    draw.text((centre, centre), label, fill=(220, 220, 220), anchor="mm")
    return image
