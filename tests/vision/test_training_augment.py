"""The classifier's batch jitter: spread ink makes a pip's dark ink bolder and never lighter, as a
soft webcam does, and only on the share of crops asked for (needs the train extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from engine.cards import Suit
from vision.synth.drawn import draw_suit
from vision.training.classifier import _augment, _spread_ink


def _club_crops(n: int) -> torch.Tensor:
    """``n`` identical 48 px crops of a dark club pip on light paper, 0..1 RGB."""
    pip = draw_suit(Suit.CLUBS, 16, (0.25, 0.1, 0.3, 0.25)).astype(np.float32) / 255
    img = np.full((48, 48), 0.9, np.float32)
    h, w = pip.shape
    img[16 : 16 + h, 24 - w // 2 : 24 - w // 2 + w] -= 0.75 * pip
    return torch.from_numpy(img)[None, None].repeat(n, 3, 1, 1)


def _ink(x: torch.Tensor) -> torch.Tensor:
    return (x.mean(dim=1) < 0.5).flatten(1).sum(dim=1)


def test_spread_ink_makes_the_pip_bolder_and_nothing_lighter() -> None:
    crops = _club_crops(4)
    for seed in range(6):  # both neighbourhood sizes are drawn over these seeds
        spread = _spread_ink(crops.clone(), torch.Generator().manual_seed(seed))
        assert spread.shape == crops.shape
        assert bool((spread <= crops + 1e-6).all())
        assert bool((_ink(spread) > _ink(crops)).all())


def test_only_the_share_asked_for_is_spread() -> None:
    crops = _club_crops(400)

    def bolder(x: torch.Tensor) -> float:  # share of crops with clearly more ink than the original
        return float((_ink(x) > _ink(crops) + 10).float().mean())

    plain = _augment(crops.clone(), torch.Generator().manual_seed(1), turn=False)
    spread = _augment(crops.clone(), torch.Generator().manual_seed(1), turn=False, ink_spread=0.3)
    assert bolder(plain) == 0.0
    assert 0.15 < bolder(spread) < 0.45
    # without spread ink the jitter draws the same numbers as before the option existed
    assert torch.equal(_augment(crops.clone(), torch.Generator().manual_seed(1), turn=False, ink_spread=0.0), plain)
