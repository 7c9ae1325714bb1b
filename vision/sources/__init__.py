"""Frame sources chosen by a config string: ``usb:0``, ``file:PATH``, ``folder:PATH``, ``picamera2``,
``synthetic``, or a stream URL (``rtsp://``, ``http://``, ``tcp://``)."""

from __future__ import annotations

from pathlib import Path

from vision.sources.base import Frame, FrameSource, SourceError
from vision.sources.folder import FolderSource
from vision.sources.opencv import OpenCVSource

__all__ = ["FolderSource", "Frame", "FrameSource", "OpenCVSource", "SourceError", "open_source"]

SOURCE_FORMS = "usb:N, file:PATH, folder:PATH, picamera2[:N], synthetic[:GAME], or a stream URL"


def open_source(spec: str, *, width: int = 1280, height: int = 720, fps: float = 10.0, seed: int = 0) -> FrameSource:
    """Open the source named by ``spec``; a malformed spec raises :class:`SourceError` naming it."""
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "usb":
        if not arg.isdigit():
            raise SourceError(f"bad source {spec!r}: usb needs a camera index, e.g. usb:0")
        return OpenCVSource(int(arg), width=width, height=height, fps=fps)
    if kind == "file":
        if not Path(arg).is_file():
            raise SourceError(f"bad source {spec!r}: no such video file {arg!r}")
        return OpenCVSource(arg, is_file=True)
    if kind == "folder":
        return FolderSource(Path(arg), fps=fps)
    if kind in ("picamera2", "picamera", "csi"):
        from vision.sources.picamera import PiCameraSource

        return PiCameraSource(width, height, int(arg) if arg.isdigit() else 0, fps=fps)
    if kind == "synthetic":
        from vision.sources.synthetic import SyntheticSource

        return SyntheticSource.demo(game=arg or "358", seed=seed)
    if kind in ("rtsp", "rtmp", "http", "https", "tcp", "udp"):
        return OpenCVSource(spec.strip(), fps=fps)
    raise SourceError(f"bad source {spec!r}: expected {SOURCE_FORMS}")
