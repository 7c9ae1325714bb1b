"""What every frame source yields, and how sources fail.

A source is an iterator of :class:`Frame` objects with an idempotent ``close()`` (and a context
manager), so the pipeline, ``cardtable replay`` and the tests read a USB camera, a video file, a
folder of photos, a Pi camera or the synthetic renderer through the same few lines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType

import numpy as np

log = logging.getLogger("vision.sources")


class SourceError(RuntimeError):
    """A source that cannot be opened or read; the message names the source and what to check."""


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One image from a source: its index in the stream, its capture time in seconds, the BGR pixels."""

    index: int
    t: float
    image: np.ndarray

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return (int(self.image.shape[1]), int(self.image.shape[0]))


class FrameSource:
    """Base of the sources: iterate for frames; ``close()`` may be called any number of times.

    ``status`` is ``"ok"``, ``"reconnecting"``, ``"ended"`` or ``"lost"`` (gave up after dropouts);
    ``dropouts`` counts failed reads, so the controller can show a camera problem instead of silence.
    ``on_status``, when set, is called with each new status as it changes: from inside the iteration, so a table
    blocked while a camera reconnects (up to half a minute with no frame) can tell its players at once.
    """

    name: str = "source"

    def __init__(self) -> None:
        self._status = "ok"
        self.on_status: Callable[[str], None] | None = None
        self.dropouts = 0
        self.closed = False

    @property
    def status(self) -> str:
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        changed, self._status = value != self._status, value
        if changed and self.on_status is not None:
            try:
                self.on_status(value)
            except Exception:  # a listener's fault must not stop the frames
                log.exception("%s: the status listener failed on %r", self.name, value)

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} status={self.status}>"
