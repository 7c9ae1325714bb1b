"""Faces carried to a GPU machine come back pixel for pixel, colour under transparent pixels too."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.training import carry


def _faces(root: Path) -> np.ndarray:
    rng = np.random.default_rng(0)
    face = rng.integers(0, 256, size=(60, 40, 4), dtype=np.uint8)
    face[:5, :, 3] = 0  # transparent corners whose colour a warp blends into the card's edge
    (root / "deck").mkdir(parents=True)
    cv2.imwrite(str(root / "deck" / "QS.png"), face)
    (root / "deck" / "index_boxes.json").write_text('{"QS": [1, 2, 3, 4]}')
    return face


def test_packed_faces_unpack_to_the_same_pixels_and_files(tmp_path: Path) -> None:
    face = _faces(tmp_path / "cache")
    webp, kept = carry.pack_faces(tmp_path / "packed", ["deck"], src=tmp_path / "cache", workers=1)
    assert (webp, kept) == (1, 1) and (tmp_path / "packed" / "deck" / "QS.webp").is_file()
    assert carry.unpack_faces(tmp_path / "packed", tmp_path / "back", workers=1) == 2
    back = cv2.imread(str(tmp_path / "back" / "deck" / "QS.png"), cv2.IMREAD_UNCHANGED)
    assert back is not None and np.array_equal(back, face)
    assert (tmp_path / "back" / "deck" / "index_boxes.json").read_text() == '{"QS": [1, 2, 3, 4]}'


def test_a_design_without_cached_faces_is_named(tmp_path: Path) -> None:
    _faces(tmp_path / "cache")
    with pytest.raises(FileNotFoundError, match="no cached faces for orell"):
        carry.pack_faces(tmp_path / "packed", ["deck", "orell"], src=tmp_path / "cache", workers=1)


def test_a_damaged_packed_face_is_named_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "packed" / "deck").mkdir(parents=True)
    (tmp_path / "packed" / "deck" / "QS.webp").write_bytes(b"not an image")
    with pytest.raises(ValueError, match=r"QS\.webp: not a readable WebP image"):
        carry.unpack_faces(tmp_path / "packed", tmp_path / "back", workers=1)
    assert carry.main(["unpack", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "no packed faces in" in err and "Traceback" not in err
