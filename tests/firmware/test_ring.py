"""What the LEDs show for each command, frame by frame (a 24-LED ring, 4 seats of 6 LEDs)."""

from firmware import ring as leds
from firmware.sim import FakeStrip

FULL = 255


def make(seats: int = 4, offset: int = 0) -> tuple[leds.Ring, FakeStrip]:
    strip = FakeStrip(24)
    ring = leds.Ring(strip, 24, seats=seats, offset=offset, brightness=FULL)
    return ring, strip


def lit(strip: FakeStrip, colour: tuple[int, int, int]) -> set[int]:
    return {i for i, c in enumerate(strip.shown) if c == colour}


def test_turn_lights_exactly_that_seats_segment_white() -> None:
    ring, strip = make()
    ring.command(leds.OP_TURN, 2, 0)
    ring.render(0)
    assert lit(strip, leds.WHITE) == set(range(12, 18))


def test_segments_follow_the_seat_count_and_offset() -> None:
    ring, strip = make(seats=3, offset=5)
    ring.command(leds.OP_TURN, 0, 0)
    ring.render(0)
    assert lit(strip, leds.WHITE) == set(range(5, 13))


def test_trick_sweep_closes_in_on_the_winner_then_the_winner_glows() -> None:
    ring, strip = make()
    ring.command(leds.OP_TURN, 0, 0)
    ring.command(leds.OP_TRICK, 1, 1000)
    centre = 9  # seat 1 is LEDs 6-11

    def gold_distance(now: int) -> float:
        ring.render(now)
        gold = lit(strip, leds.GOLD)
        assert gold, f"no gold LED at {now} ms"
        return min(min(abs(i - centre), 24 - abs(i - centre)) for i in gold)

    distances = [gold_distance(1000 + t) for t in (0, 200, 400, 580)]
    assert distances == sorted(distances, reverse=True) and distances[0] > distances[-1]
    ring.render(1000 + leds.SWEEP_MS + 100)
    assert lit(strip, leds.GOLD) == set(range(6, 12))
    ring.render(1000 + leds.SWEEP_MS + leds.GLOW_MS + 10)
    assert lit(strip, leds.GOLD) == set()
    assert lit(strip, leds.WHITE) == set(range(0, 6))  # back to seat 0's turn


def test_violation_flashes_red_on_that_seat_only_then_stops() -> None:
    ring, strip = make()
    ring.command(leds.OP_TURN, 0, 0)
    ring.command(leds.OP_VIOLATION, 3, 0)
    seen = []
    for t in range(0, 2 * leds.FLASH_MS * leds.FLASHES, 50):
        ring.render(t)
        seen.append(lit(strip, leds.RED))
    assert set(range(18, 24)) in seen and set() in seen
    assert all(red in (set(), set(range(18, 24))) for red in seen)
    ring.render(2 * leds.FLASH_MS * leds.FLASHES + 1)
    assert lit(strip, leds.RED) == set()


def test_hand_end_rotates_then_holds_and_idle_breathes() -> None:
    ring, strip = make()
    ring.command(leds.OP_HAND_END, 0, 0)
    ring.render(0)
    first = list(strip.shown)
    ring.render(500)
    assert strip.shown != first
    ring.render(leds.HAND_END_MS + 10)
    held = list(strip.shown)
    ring.render(leds.HAND_END_MS + 500)
    assert strip.shown == held
    ring.command(leds.OP_IDLE, 0, 10_000)
    ring.render(10_000)
    dim = strip.shown[0]
    ring.render(12_000)
    assert strip.shown[0] != dim and max(strip.shown[0]) < 100


def test_brightness_scales_every_led_and_nothing_is_rewritten_when_nothing_changed() -> None:
    ring, strip = make()
    ring.command(leds.OP_TURN, 1, 0)
    assert ring.render(0)
    assert not ring.render(5)
    writes = strip.writes
    ring.command(leds.OP_BRIGHTNESS, 51, 6)
    assert ring.render(6)
    assert strip.writes == writes + 1
    assert lit(strip, (51, 51, 51)) == set(range(6, 12))


def test_bad_arguments_are_rejected_by_valid() -> None:
    ring, _ = make(seats=3)
    assert ring.valid(leds.OP_TURN, 2) and not ring.valid(leds.OP_TURN, 3)
    assert not ring.valid(leds.OP_SEATS, 0) and not ring.valid(leds.OP_SEATS, 9)
    assert not ring.valid(0x42, 0)


def test_a_camera_fault_pulses_the_whole_ring_violet_over_the_turn_until_the_camera_sees_the_mat() -> None:
    """Nothing laid is read while the camera cannot see the mat: the whole ring says so, a trick's sweep still shows
    over it, and whose turn it was comes back when the fault is cleared."""
    ring, strip = make()
    ring.command(leds.OP_TURN, 1, 0)
    ring.command(leds.OP_CAMERA, 1, 0)
    levels = set()
    for t in range(0, leds.CAMERA_PULSE_MS, 50):
        ring.render(t)
        assert len(set(strip.shown)) == 1, f"the whole ring alike at {t} ms"
        colour = strip.shown[0]
        assert colour[1] == 0 and colour[2] > colour[0] > 0, f"violet at {t} ms, not {colour}"
        levels.add(colour[2])
    assert max(levels) - min(levels) > 150, "it pulses"
    ring.command(leds.OP_TRICK, 2, 2000)
    ring.render(2000 + leds.SWEEP_MS + 100)
    assert lit(strip, leds.GOLD) == set(range(12, 18)), "the trick's winner still shows"
    ring.command(leds.OP_CAMERA, 0, 4000)
    ring.render(4000)
    assert lit(strip, leds.WHITE) == set(range(6, 12)), "seat 1's turn again"
    assert ring.valid(leds.OP_CAMERA, 1) and not ring.valid(leds.OP_CAMERA, 2)
