"""A folder of still images, read in name order: replaying photos of a real table, or test fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from vision.sources.base import Frame, FrameSource, SourceError, log

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class FolderSource(FrameSource):
    """Images in ``folder`` sorted by name; frame times are ``index / fps``. Unreadable files are logged and skipped."""

    def __init__(self, folder: Path, fps: float = 10.0) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.name = f"folder:{folder}"
        if not self.folder.is_dir():
            raise SourceError(f"not a folder of images: {folder}")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
        self.fps = fps

    def frames(self) -> Iterator[Frame]:
        import cv2

        index = 0
        for path in self.paths:
            if self.closed:
                return
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.dropouts += 1
                log.warning("%s: cannot read %s; skipped", self.name, path.name)
                continue
            yield Frame(index, index / self.fps, image)
            index += 1
        self.status = "ended"
