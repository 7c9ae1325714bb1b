"""OpenCV capture: a USB (UVC) camera by index, a video file, or a stream URL.

Cameras drop out (a loose USB cable, a brown-out, an ``rpicam-vid`` stream restarting). A failed read
is logged, counted and followed by reconnect attempts with a growing pause; only after
``max_reconnects`` failures in a row does the source give up, with ``status = "lost"`` and a logged
error, never a traceback into the game loop. A video file simply ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from vision.sources.base import Frame, FrameSource, SourceError, log

CaptureFactory = Callable[[int | str], Any]
"""Opens a capture object with ``isOpened()``, ``read() -> (ok, image)``, ``get(prop)``, ``release()``."""


def _default_capture(target: int | str) -> Any:
    import cv2

    return cv2.VideoCapture(target)


class OpenCVSource(FrameSource):
    def __init__(
        self,
        target: int | str,
        *,
        is_file: bool = False,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        max_reconnects: int = 10,
        reconnect_delay: float = 0.5,
        capture_factory: CaptureFactory = _default_capture,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.target = target
        self.is_file = is_file
        self.name = f"file:{target}" if is_file else (f"usb:{target}" if isinstance(target, int) else str(target))
        self.width = width
        self.height = height
        self.fps = fps
        self.max_reconnects = max_reconnects
        self.reconnect_delay = reconnect_delay
        self._factory = capture_factory
        self._sleep = sleep
        self._cap: Any = None
        self._open(first=True)

    def _open(self, first: bool = False) -> bool:
        if self._cap is not None:
            self._cap.release()
        try:
            cap = self._factory(self.target)
        except Exception as exc:  # an odd backend error must not kill the game loop
            log.warning("%s: cannot open: %s", self.name, exc)
            cap = None
        if cap is None or not cap.isOpened():
            if first:
                hint = "check the path" if self.is_file else "check the cable, the index (`ls /dev/video*`) or the URL"
                raise SourceError(f"cannot open camera source {self.name!r}: {hint}")
            return False
        if not self.is_file:
            import cv2

            if self.width and self.height:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            if self.fps:
                cap.set(cv2.CAP_PROP_FPS, self.fps)
            # Keep one frame in the driver's queue, not four: while a frame is being read the camera goes on,
            # and a queued frame would show the table as it was a few frames ago (a card confirmed late).
            # Backends without the property ignore it.
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap = cap
        return True

    def frames(self) -> Iterator[Frame]:
        index = 0
        fps = 0.0
        if self.is_file:
            import cv2

            fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        t0 = time.monotonic()
        while not self.closed:
            ok, image = self._cap.read() if self._cap is not None else (False, None)
            if ok and image is not None:
                self.status = "ok"
                t = index / fps if (self.is_file and fps > 0) else time.monotonic() - t0
                yield Frame(index, t, image)
                index += 1
                continue
            if self.is_file:
                self.status = "ended"
                return
            if not self._reconnect():
                return

    def _reconnect(self) -> bool:
        """After a failed read: log it and try to reopen; False (status "lost") when it gives up."""
        self.dropouts += 1
        self.status = "reconnecting"
        log.warning("%s: camera read failed (dropout %d); reconnecting", self.name, self.dropouts)
        delay = self.reconnect_delay
        for attempt in range(1, self.max_reconnects + 1):
            self._sleep(delay)
            if self._open():
                log.info("%s: reconnected after %d attempt(s)", self.name, attempt)
                self.status = "ok"
                return True
            delay = min(delay * 2, 5.0)
        self.status = "lost"
        log.error("%s: camera lost after %d reconnect attempts; no more frames", self.name, self.max_reconnects)
        return False

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()
