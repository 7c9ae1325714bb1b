"""The two training stages share the cores: the one left training takes every core once the other
ends, so its time cap holds more epochs on a slow host (needs the train extra)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vision.training.classifier import train_classifier  # noqa: E402
from vision.training.cores import ThreadsWhenAlone  # noqa: E402
from vision.training.dataset import NOT_INDEX  # noqa: E402


@pytest.fixture
def one_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_a_stage_takes_every_core_only_once_the_other_is_done(
    tmp_path: Path, one_thread: None, capsys: pytest.CaptureFixture[str]
) -> None:
    done = tmp_path / "detector-done"
    widen = ThreadsWhenAlone(done.exists, "classifier", cores=2)
    widen()
    assert torch.get_num_threads() == 1  # the detector still trains on the other core
    done.touch()
    widen(object())  # (ultralytics passes its trainer)
    assert torch.get_num_threads() == 2
    assert "classifier: training alone now, on 2 threads" in capsys.readouterr().out
    torch.set_num_threads(1)
    widen()  # once is enough: it does not fight a later choice
    assert torch.get_num_threads() == 1


def test_the_classifier_trains_on_with_the_freed_core_from_its_next_epoch(tmp_path: Path, one_thread: None) -> None:
    """Each epoch's entry in metrics.json says how many threads it ended on."""
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (32, 48, 48, 3), dtype=np.uint8)
    labels = np.array([0] * 16 + [NOT_INDEX] * 16, np.int64)
    done = tmp_path / "detector-done"
    widen = ThreadsWhenAlone(done.exists, "classifier", cores=2)

    def detector_ends_after_the_first_epoch() -> None:
        done.touch()
        widen()

    log: list[dict[str, float]] = []
    train_classifier(
        crops, labels, (crops, labels), 3, 0, tmp_path, 600.0, log, between_epochs=detector_ends_after_the_first_epoch
    )
    assert [entry["threads"] for entry in log] == [1, 2, 2]
