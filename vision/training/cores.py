"""Two training stages share the machine's cores; the one that finishes first hands its core on.

`cardtable vision train` trains the detector and the classifier at once, one thread each on the 2-core
machine, each capped by wall time. On a slow host neither finishes early, but one always finishes
first: on 4 December the detector's cap ended 16 minutes before the classifier's area-faced pass, and
that core sat idle while the classifier trained on one thread (docs/vision.md). A classifier step
takes about half the time on two threads here (410 against 214 ms for a batch of 96), so the stage
left running takes every core as soon as it is alone, and its time cap holds more epochs.

The change of thread count changes only the order of sums inside a convolution: the same network
and data. Time-capped runs already depend on the host's speed (``metrics.json`` records the epochs).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

__all__ = ["ThreadsWhenAlone"]


class ThreadsWhenAlone:
    """Called between epochs (it accepts and ignores ultralytics' trainer): once ``alone()`` says the
    other stage has finished, torch trains on every core from then on, and the change is logged."""

    def __init__(self, alone: Callable[[], bool], stage: str, cores: int | None = None) -> None:
        self.alone = alone
        self.stage = stage
        self.cores = max(1, cores or os.cpu_count() or 1)
        self.widened = False

    def __call__(self, *_trainer: Any) -> None:
        if self.widened or not self.alone():
            return
        import torch

        self.widened = True
        if torch.get_num_threads() >= self.cores:
            return
        torch.set_num_threads(self.cores)
        stamp = datetime.now(UTC).strftime("%H:%M:%S")
        print(f"[{stamp}] {self.stage}: training alone now, on {self.cores} threads", flush=True)
