"""A Raspberry Pi CSI camera through Picamera2 (libcamera), imported only when asked for.

CSI modules on the libcamera stack cannot be read with ``cv2.VideoCapture`` (opencv #22820, closed
wontfix). Picamera2 comes with Raspberry Pi OS (``python3-picamera2``) and cannot be pip-installed
into a plain venv, so the venv must be made with ``--system-site-packages``. Its ``"RGB888"`` format
is B, G, R in memory, which is what OpenCV expects (picamera2 #191).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from vision.sources.base import Frame, FrameSource, SourceError, log


class PiCameraSource(FrameSource):
    def __init__(
        self,
        width: int = 1280,
        height: int = 720,
        camera_num: int = 0,
        max_failures: int = 10,
        fps: float | None = None,
    ) -> None:
        super().__init__()
        self.name = f"picamera2:{camera_num}"
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise SourceError(
                "picamera2 is not importable: on Raspberry Pi OS install python3-picamera2 and create the venv "
                "with --system-site-packages (or use a USB camera: --source usb:0)"
            ) from None
        try:
            self._cam: Any = Picamera2(camera_num)
            controls = {"FrameRate": float(fps)} if fps else {}
            config = self._cam.create_preview_configuration(
                main={"size": (width, height), "format": "RGB888"}, controls=controls
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # libcamera reports missing cameras in many ways
            raise SourceError(f"cannot start the Pi camera {camera_num}: {exc}") from None
        self.max_failures = max_failures

    def frames(self) -> Iterator[Frame]:
        index = 0
        failures = 0
        t0 = time.monotonic()
        while not self.closed:
            try:
                image = self._cam.capture_array("main")
            except Exception as exc:
                self.dropouts += 1
                failures += 1
                self.status = "reconnecting"
                log.warning("%s: capture failed (%s), dropout %d", self.name, exc, self.dropouts)
                if failures >= self.max_failures:
                    self.status = "lost"
                    log.error("%s: camera lost after %d failed captures", self.name, failures)
                    return
                time.sleep(0.2)
                continue
            failures = 0
            self.status = "ok"
            yield Frame(index, time.monotonic() - t0, image[:, :, :3])
            index += 1

    def close(self) -> None:
        if not self.closed:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception as exc:
                log.debug("%s: close: %s", self.name, exc)
        super().close()
