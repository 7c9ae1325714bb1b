"""The pip network's training crops: a pip cut short by the edge of a card on top is "not a pip", a whole
one keeps its suit, and lone pips of random shape come in all four suits (needs the train extra)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")

from engine.cards import Suit
from vision.synth.drawn import draw_suit
from vision.training.pips import NOT_A_PIP, PIP_SIZE, Pip, _cover, drawn_pips, pip_dataset

CLUB = list(Suit).index(Suit.CLUBS)


def _club() -> Pip:
    """A 40 px club on a white face, its box the pip's own."""
    mask = draw_suit(Suit.CLUBS, 40, (0.26, 0.1, 0.3, 0.25))
    h, w = mask.shape
    face = np.full((h + 40, w + 40, 3), 250, np.uint8)
    face[20 : 20 + h, 20 : 20 + w][mask > 127] = (20, 20, 20)
    return Pip(face, (20.0, 20.0, 20.0 + w, 20.0 + h), CLUB)


class _Fixed:
    """Stands in for the generator in :func:`_cover`: the card's edge at a given angle and place, the rest
    of the draws (paper and shadow) at their middle."""

    def __init__(self, angle: float, cut: float) -> None:
        self.draws = [angle / (2 * math.pi), (cut + 0.3) / 0.8]

    def uniform(self, low: float = 0.0, high: float = 1.0, size: int | None = None) -> object:
        share = self.draws.pop(0) if self.draws else 0.5
        value = low + share * (high - low)
        return value if size is None else np.full(size, value)


def _crop(pip: Pip, k: int = PIP_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """The pip cut square as :func:`~vision.training.pips.render` cuts it, upright, no damage."""
    x1, y1, x2, y2 = pip.box
    side = max(x2 - x1, y2 - y1) * 1.35
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    matrix = np.array([[k / side, 0, k / 2 - cx * k / side], [0, k / side, k / 2 - cy * k / side]])
    return cv2.warpAffine(pip.face, matrix, (k, k), flags=cv2.INTER_AREA, borderValue=(250, 250, 250)), matrix


def test_a_pip_half_covered_by_a_card_on_top_is_not_a_pip() -> None:
    pip = _club()
    patch, matrix = _crop(pip)
    covered, label = _cover(_Fixed(0.0, 0.0), patch, pip, matrix, PIP_SIZE)  # type: ignore[arg-type]
    assert label == NOT_A_PIP
    right = covered[:, PIP_SIZE // 2 + 2 :]
    assert right.min() > 150, "the card on top hides the pip's right half"
    assert covered[:, : PIP_SIZE // 2 - 2].min() < 80, "the left half of the pip is still in view"


def test_a_card_edge_beside_a_whole_pip_leaves_its_suit() -> None:
    pip = _club()
    patch, matrix = _crop(pip)
    _, label = _cover(_Fixed(0.0, 0.49), patch, pip, matrix, PIP_SIZE)  # type: ignore[arg-type]
    assert label == CLUB


def test_without_covering_the_crops_are_those_drawn_before() -> None:
    items = [_club()]
    plain = pip_dataset(items, 12, seed=4)
    same = pip_dataset(items, 12, seed=4, occlude=0.0)
    assert np.array_equal(plain[0], same[0]) and np.array_equal(plain[1], same[1])
    covered = pip_dataset(items, 200, seed=4, occlude=1.0)
    labels = set(covered[1].tolist())
    assert labels == {CLUB, NOT_A_PIP}, "every crop is crossed: some keep the club, some lose it"


def test_lone_pips_of_random_shape_come_in_every_suit_and_sit_in_their_boxes() -> None:
    items = drawn_pips(np.random.default_rng(1), 40)
    assert np.bincount([p.label for p in items], minlength=4).tolist() == [10, 10, 10, 10]
    for item in items:
        x1, y1, x2, y2 = (int(v) for v in item.box)
        face = item.face.astype(int)
        inside = face[y1:y2, x1:x2].sum(axis=2).min()
        outside = np.concatenate([face[:y1].reshape(-1, 3), face[y2:].reshape(-1, 3)]).sum(axis=1).min()
        assert inside < outside, "the ink is in the pip's box, paper around it"
    again = drawn_pips(np.random.default_rng(1), 40)
    assert all(np.array_equal(a.face, b.face) for a, b in zip(items, again, strict=True))
