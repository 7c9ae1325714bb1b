"""Box overlap, the measure by which the tracker tells one printed index boxed twice from two indices."""

from __future__ import annotations

import numpy as np

from vision.detections import box_overlap, box_overlaps


def test_overlap_is_the_share_of_the_smaller_box_the_other_covers() -> None:
    tight, loose, beside = (10, 10, 20, 30), (8, 8, 24, 34), (30, 10, 40, 30)
    assert box_overlap(tight, loose) == 1.0  # one index, a tight and a loose box
    assert box_overlap(tight, beside) == 0.0  # two indices side by side
    assert box_overlap(tight, (15, 10, 25, 30)) == 0.5


def test_every_pair_at_once_agrees_with_one_pair_at_a_time() -> None:
    rng = np.random.default_rng(3)
    corners = rng.uniform(0, 100, (12, 2))
    boxes = np.hstack([corners, corners + rng.uniform(0, 30, (12, 2))])
    boxes[5] = (40, 40, 40, 60)  # no area: a box that lies on a line
    matrix = box_overlaps(boxes)
    expected = [[box_overlap(tuple(a), tuple(b)) for b in boxes] for a in boxes]
    np.testing.assert_allclose(matrix, expected)
