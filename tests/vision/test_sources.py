"""Frame sources yield typed frames and survive camera dropouts without a traceback."""

import logging
from collections.abc import Iterable

import cv2
import numpy as np
import pytest

from vision.sources import FolderSource, Frame, OpenCVSource, SourceError, open_source


class FakeCapture:
    """A camera that fails the reads listed in ``fail`` (by read number) and can refuse to reopen."""

    opened = 0

    def __init__(self, fail: Iterable[int] = (), frames: int = 6, reopen_ok: bool = True) -> None:
        self.fail = set(fail)
        self.frames = frames
        self.reads = 0
        self.reopen_ok = reopen_ok
        FakeCapture.opened += 1

    def isOpened(self):
        return FakeCapture.opened == 1 or self.reopen_ok

    def read(self):
        self.reads += 1
        if self.reads in self.fail or self.reads > self.frames:
            return False, None
        return True, np.full((4, 6, 3), self.reads, np.uint8)

    def get(self, prop):
        return 0.0

    def set(self, prop, value):
        return False  # a backend without the property

    def release(self):
        pass


def test_usb_dropout_is_logged_and_reconnected(caplog):
    FakeCapture.opened = 0
    caps = [FakeCapture(fail={3}, frames=10), FakeCapture(frames=2)]
    source = OpenCVSource(0, capture_factory=lambda target: caps.pop(0), sleep=lambda s: None, max_reconnects=2)
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert all(isinstance(f, Frame) and f.size == (6, 4) for f in frames)
    assert source.dropouts == 2
    assert source.status == "lost"
    assert "camera read failed" in caplog.text
    assert "camera lost after 2 reconnect attempts" in caplog.text


def test_a_listener_hears_the_dropout_while_the_camera_reconnects_not_after() -> None:
    """The table is blocked in the source while it reconnects (no frame for up to half a minute): it must hear of the
    dropout as it starts, to tell the players; a listener that fails does not stop the frames."""
    FakeCapture.opened = 0
    caps = [FakeCapture(fail={3}, frames=10), FakeCapture(frames=2)]
    heard: list[tuple[str, int]] = []
    source = OpenCVSource(0, capture_factory=lambda target: caps.pop(0), sleep=lambda s: None, max_reconnects=2)
    source.on_status = lambda status: heard.append((status, source.dropouts))
    frames = list(source)
    assert heard == [("reconnecting", 1), ("ok", 1), ("reconnecting", 2), ("lost", 2)]
    assert len(frames) == 4

    def broken(status: str) -> None:
        raise RuntimeError("a broken board")

    FakeCapture.opened = 0
    caps = [FakeCapture(fail={3}, frames=5), FakeCapture(frames=2)]
    source = OpenCVSource(0, capture_factory=lambda target: caps.pop(0), sleep=lambda s: None, max_reconnects=1)
    source.on_status = broken
    assert len(list(source)) == 4


def test_camera_that_never_opens_is_a_clear_error():
    class Closed(FakeCapture):
        def isOpened(self):
            return False

    with pytest.raises(SourceError, match="usb:4"):
        OpenCVSource(4, capture_factory=lambda target: Closed())


def test_folder_source_skips_unreadable_files(tmp_path, caplog):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), i * 50, np.uint8))
    (tmp_path / "f1b.jpg").write_bytes(b"not an image")
    with caplog.at_level(logging.WARNING, logger="vision.sources"), open_source(f"folder:{tmp_path}", fps=5) as src:
        frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[2].t == pytest.approx(0.4)
    assert "cannot read f1b.jpg" in caplog.text
    assert src.closed


def test_video_file_source_reads_and_ends(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    with open_source(f"file:{path}") as src:
        frames = list(src)
    assert len(frames) == 5 and src.status == "ended"
    assert frames[1].t == pytest.approx(0.1)


@pytest.mark.parametrize("spec", ["usb:x", "file:/nonexistent.mp4", "folder:/nonexistent", "webcam"])
def test_bad_specs_are_named(spec):
    with pytest.raises(SourceError, match=r"bad source|not a folder"):
        open_source(spec)


def test_picamera_is_a_clear_error_where_not_installed():
    with pytest.raises(SourceError, match="picamera2"):
        open_source("picamera2")


def test_folder_must_hold_images(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path)


class SettableCapture(FakeCapture):
    """A camera that records what it was asked to set."""

    def __init__(self) -> None:
        super().__init__(frames=2)
        self.asked: dict[int, float] = {}

    def set(self, prop, value):
        self.asked[prop] = value
        return True


def test_a_live_camera_is_asked_for_the_configured_size_and_rate_and_its_freshest_frame():
    FakeCapture.opened = 0
    cap = SettableCapture()
    OpenCVSource(0, width=1280, height=720, fps=10, capture_factory=lambda target: cap)
    assert cap.asked[cv2.CAP_PROP_FRAME_WIDTH] == 1280 and cap.asked[cv2.CAP_PROP_FRAME_HEIGHT] == 720
    assert cap.asked[cv2.CAP_PROP_FPS] == 10
    assert cap.asked[cv2.CAP_PROP_BUFFERSIZE] == 1  # no frames queued while one is read: no lag


def test_a_video_file_is_played_as_it_was_recorded():
    FakeCapture.opened = 0
    cap = SettableCapture()
    OpenCVSource("game.mp4", is_file=True, fps=10, capture_factory=lambda target: cap)
    assert cap.asked == {}
