"""The classifier's learning rate anneals by the end of its epochs or of its time cap, whichever
comes first (needs the train extra)."""

from itertools import pairwise

import pytest

pytest.importorskip("torch")

from vision.training.classifier import _learning_rate

PEAK = 5e-3


def test_warms_up_then_peaks():
    assert _learning_rate(PEAK, 0.0, 0.0) < 0.1 * PEAK
    assert _learning_rate(PEAK, 0.03, 0.0) == pytest.approx(PEAK)


def test_a_time_capped_run_still_ends_on_a_low_rate():
    # only a fifth of the planned epochs done, but the time is up: the rate is at its floor
    assert _learning_rate(PEAK, 0.2, 1.0) == pytest.approx(0.02 * PEAK)
    assert _learning_rate(PEAK, 0.2, 0.5) == _learning_rate(PEAK, 0.5, 0.1)


def test_never_rises_after_the_warmup():
    rates = [_learning_rate(PEAK, i / 100, 0.0) for i in range(3, 101)]
    assert all(a >= b for a, b in pairwise(rates))
