"""Measuring the printed corner index on a face: the box the detector learns and the classifier's crop.

A box that leaves out the suit pip under the rank teaches the classifier to guess the suit from a
piece of a pip; one that takes in a pip of the card's centre teaches the detector to box pips.
Faces here are drawn in the test (shapes at known places), plus the committed demo deck.
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


def test_a_large_index_keeps_its_wide_suit_pip_under_the_rank():
    """nicu-white, ornamental and tango print a suit pip a fifth of the card wide under the rank, down
    to 0.44 of the card's height; the box used to stop at the rank."""
    face = _face()
    rank, pip = (20, 20, 56, 80), (12, 92, 64, 158)  # the pip 52 px = 0.206 of the width
    _ink(face, rank)
    _ink(face, pip)
    box, _ = find_index(face, 0)
    assert box is not None
    assert box[0] <= 13 and box[1] <= 21 and box[2] >= 63 and box[3] >= 157


def test_a_small_suit_pip_joins_its_rank():
    face = _face()
    _ink(face, (12, 12, 28, 44))  # rank, 32 px tall
    _ink(face, (13, 50, 26, 61))  # a pip 11 px tall, 0.03 of the card: under the glyph size, still the suit
    box, _ = find_index(face, 0)
    assert box is not None and box[3] >= 60


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


def test_the_bottom_corner_index_is_measured_the_same_way_turned():
    face = _face()
    _ink(face, (20, 20, 56, 80))
    _ink(face, (12, 92, 64, 158))
    turned = np.ascontiguousarray(face[::-1, ::-1])
    box, _ = find_index(turned, 2)
    assert box is not None
    assert box[0] <= W - 63 and box[1] <= H - 157 and box[2] >= W - 13 and box[3] >= H - 21


def test_the_committed_demo_deck_boxes_are_what_the_measurement_gives(tmp_path):
    """The committed demo deck was measured by this code (its boxes within a pixel of rounding)."""
    (tmp_path / "orell").mkdir()
    measured = measure_design("orell", cache_dir=tmp_path)
    committed = json.loads((ASSET_DIR / "orell" / "index_boxes.json").read_text())
    assert set(measured) == set(committed) - {"corners"}
    for code, boxes in measured.items():
        assert np.abs(np.array(boxes) - np.array(committed[code])).max() <= 1, code
