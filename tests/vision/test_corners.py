"""Measuring the printed corner index on a face: the box the detector learns and the classifier's crop.

A box that takes in a pip of the card's centre teaches the detector to box pips and the classifier to
read a big pip as an index. Faces here are drawn in the test (shapes at known places), plus the
committed demo deck.
"""

import json

import cv2
import numpy as np

from vision.synth.corners import find_index, measure_design
from vision.synth.faces import ASSET_DIR

W, H = 252, 360


def _face() -> np.ndarray:
    face = np.zeros((H, W, 4), np.uint8)
    face[..., :3] = 245
    face[..., 3] = 255
    return face


def _ink(face: np.ndarray, box: tuple[int, int, int, int]) -> None:
    x1, y1, x2, y2 = box
    cv2.ellipse(face, (((x1 + x2) / 2, (y1 + y2) / 2), (x2 - x1, y2 - y1), 0), (20, 20, 20, 255), -1)


def test_a_centre_pip_touching_the_index_is_not_part_of_it():
    """paris' 4C: the index's small club touches the big club of the centre beside it."""
    face = _face()
    _ink(face, (11, 11, 38, 52))  # rank
    _ink(face, (11, 56, 38, 84))  # the index's pip
    _ink(face, (36, 40, 110, 110))  # a centre pip, touching it and running out of the corner region
    box, _ = find_index(face, 0)
    assert box is not None and box[2] <= 40


def test_a_pip_beside_a_small_index_is_not_part_of_it():
    face = _face()
    _ink(face, (11, 11, 38, 52))
    _ink(face, (11, 56, 38, 84))
    _ink(face, (46, 30, 68, 60))  # beside the index, not under it: the union would be 0.23 of the width
    box, _ = find_index(face, 0)
    assert box is not None and box[2] <= 40


def test_the_committed_demo_deck_boxes_are_what_the_measurement_gives(tmp_path):
    """The committed demo deck was measured by this code (its boxes within a pixel of rounding)."""
    (tmp_path / "orell").mkdir()
    measured = measure_design("orell", cache_dir=tmp_path)
    committed = json.loads((ASSET_DIR / "orell" / "index_boxes.json").read_text())
    assert set(measured) == set(committed) - {"corners"}
    for code, boxes in measured.items():
        assert np.abs(np.array(boxes) - np.array(committed[code])).max() <= 1, code


def test_a_measurement_of_another_version_is_measured_again(tmp_path):
    """The faces cache outlives code changes: boxes measured by other code are not trusted."""
    from vision.synth import corners

    (tmp_path / "orell").mkdir()
    assert not corners.is_measured("orell", tmp_path)
    corners.measure_design("orell", cache_dir=tmp_path)
    assert corners.is_measured("orell", tmp_path)
    (tmp_path / "orell" / "index_boxes.version").write_text(f"{corners.MEASURING_VERSION - 1}\n")
    assert not corners.is_measured("orell", tmp_path)
