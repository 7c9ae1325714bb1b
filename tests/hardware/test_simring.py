"""The simulated ring: the demo's stand-in keeps the firmware's state and shows it as text or PNG."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from hardware.ring import RingCommand, RingOp, ring_from_config
from hardware.simring import SimulatedRing, pixel_colours


def test_each_command_prints_one_line_describing_the_ring() -> None:
    out = io.StringIO()
    with SimulatedRing(stream=out) as ring:
        ring.set_seats(3)
        ring.show_turn(2)
        ring.trick_won(0)
        ring.brightness(0.5)
        ring.hand_end()
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    assert lines[1].startswith("ring: turn: seat 2")
    assert "trick at seat 0" in lines[2]
    assert "brightness 50%" in lines[3]
    assert lines[4].startswith("ring: hand end")


def test_png_backend_writes_a_numbered_frame_per_command_showing_the_turn(tmp_path: Path) -> None:
    ring = ring_from_config(f"png:{tmp_path}")
    ring.set_seats(4)
    ring.show_turn(1)
    ring.violation(3)
    frames = sorted(tmp_path.glob("ring-*.png"))
    assert [f.name for f in frames] == ["ring-00001.png", "ring-00002.png", "ring-00003.png"]
    with Image.open(frames[1]) as image:
        assert image.size == (240, 240)
        assert (255, 255, 255) in {c for _, c in image.getcolors(1 << 16) or []}  # the lit turn segment


def test_pixel_colours_light_the_turn_and_the_violation() -> None:
    ring = SimulatedRing(stream=io.StringIO())
    ring.set_seats(4)
    ring.show_turn(1)
    ring.violation(3)
    colours = pixel_colours(ring.state, 24)
    assert colours[6:12] == [(255, 255, 255)] * 6
    assert colours[18:24] == [(255, 0, 0)] * 6


def test_applied_log_and_hook_see_every_command_in_order() -> None:
    seen: list[RingCommand] = []
    ring = SimulatedRing(stream=io.StringIO(), on_apply=lambda command, state: seen.append(command))
    ring.show_turn(0)
    ring.idle()
    assert [c for _, c in ring.applied] == seen == [RingCommand(RingOp.TURN, 0), RingCommand(RingOp.IDLE)]


def test_a_broken_output_never_reaches_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    out = io.StringIO()
    ring = SimulatedRing(stream=out)
    out.close()
    ring.show_turn(1)  # logged, not raised
    assert ring.state.turn == 1
    assert "could not show" in caplog.text
    ring.close()
    ring.close()
    ring.idle()  # closed: dropped with a warning
    assert ring.state.mode == "turn"


def test_caller_bugs_are_value_errors_naming_the_value() -> None:
    ring = SimulatedRing(stream=io.StringIO())
    with pytest.raises(ValueError, match="seat 9"):
        ring.show_turn(9)
    with pytest.raises(ValueError, match=r"1\.5"):
        ring.brightness(1.5)
    with pytest.raises(ValueError, match="count 0"):
        ring.set_seats(0)


def test_a_camera_fault_shows_on_every_led_and_in_the_line() -> None:
    stream = io.StringIO()
    ring = SimulatedRing(stream=stream)
    ring.set_seats(4)
    ring.show_turn(1)
    ring.camera_fault(True)
    assert set(pixel_colours(ring.state, 24)) == {(140, 0, 255)}
    assert stream.getvalue().splitlines()[-1].startswith("ring: camera fault, turn: seat 1")
    ring.camera_fault(False)
    assert pixel_colours(ring.state, 24)[6:12] == [(255, 255, 255)] * 6
    with pytest.raises(ValueError, match="ring camera: 2"):
        RingCommand(RingOp.CAMERA, 2)
