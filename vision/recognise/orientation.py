"""Which way up each corner index stands, from the classifier's own crops.

The classifier reads an index at any angle and says nothing of its orientation. A card prints its
two indices half a turn apart, and the photo's card vote (:class:`vision.recognise.cards.CardVote`)
uses that to tell one card's two indices from two cards of the same reading: the webcam's fanned row
of clubs read as spades above the row of spades. Trained by :mod:`vision.training.orientation`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.recognise.classifier import softmax
from vision.recognise.manifest import ModelError, OrientationSpec
from vision.recognise.session import open_session, static_dim


class IndexOrientation:
    """The orientation session: the classifier's crop batch in, each crop's quarter turns to upright out."""

    def __init__(
        self, path: Path, spec: OrientationSpec, crop_shape: tuple[int, int, int], *, threads: int = 1
    ) -> None:
        self.session = open_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = [static_dim(d) for d in model_input.shape]
        if len(shape) != 4 or any(d not in (None, want) for d, want in zip(shape[1:], crop_shape, strict=True)):
            raise ModelError(
                f"{path}: the orientation network reads the classifier's crops, {crop_shape}, not {model_input.shape}"
            )
        self.spec = spec
        self.path = path

    def turns(self, batch: np.ndarray) -> list[int | None]:
        """For each crop of ``batch`` (the classifier's input, ``(n, C, H, W)``), the quarter turns
        (``np.rot90``, counter-clockwise) that would stand its index upright, or None where no turn
        holds ``sure`` of the probability."""
        if not len(batch):
            return []
        output = np.asarray(self.session.run(None, {self.input_name: np.ascontiguousarray(batch)})[0])
        if output.ndim != 2 or output.shape[1] != 4:
            raise ModelError(f"{self.path}: the orientation network gives {output.shape}, not (n, 4)")
        probs = softmax(output.astype(np.float32))
        best = probs.argmax(axis=1)
        sure = probs[np.arange(len(best)), best] >= self.spec.sure
        return [int(b) if ok else None for b, ok in zip(best, sure, strict=True)]
