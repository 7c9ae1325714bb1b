"""Stage two: name the card from a crop around each detected corner index.

The crop is taken upright from the image, whatever the card's rotation: the classifier was trained
on indices at every angle, so no rectification is needed (and none could be done reliably from a
corner box alone). Crops are batched into one run when the export allows a dynamic batch, and one
at a time when it was exported with a fixed batch of 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card, Suit
from vision.recognise.manifest import ClassifierSpec, ModelError
from vision.recognise.session import open_session, static_dim

_TURNS = {1: (), 2: (2,), 4: (1, 2, 3)}
"""The quarter turns a crop is read at besides upright, by the manifest's ``rotations``."""
_TWIN = {Suit.SPADES: Suit.CLUBS, Suit.CLUBS: Suit.SPADES, Suit.HEARTS: Suit.DIAMONDS, Suit.DIAMONDS: Suit.HEARTS}
"""The other suit of each suit's colour."""


def crop(bgr: np.ndarray, box: np.ndarray, size: tuple[int, int], scale: float, square: bool) -> np.ndarray:
    """The ``size`` (h, w) BGR crop the classifier reads for one corner box ``(x1, y1, x2, y2)``.

    The same cut as training's (``vision.training.dataset.crop_label``): one affine warp from a
    region centred on the box (a square ``scale`` times the box's longer side, or the box itself
    scaled) straight to the input size, sub-pixel exact, replicating the image's border where the
    region reaches past it.

    Bilinear at every scale. OpenCV's warps have no area average (they take ``INTER_AREA`` as
    bilinear), so a large index shrunk to the input is point-sampled, and every classifier so far
    was trained on crops cut this way. A true area average where the crop shrinks (a warp at whole
    multiples of the input, then ``cv2.resize`` with ``INTER_AREA``) read the real phone photos'
    precision down from 0.963 to 0.942 with the shipped models (docs/vision.md, 4 December morning).
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    w, h = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    if square:
        w = h = max(w, h)
    w, h = w * scale, h * scale
    out_h, out_w = size
    src = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2]], np.float32)
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h]], np.float32)
    matrix = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(bgr, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return np.asarray(exp / exp.sum(axis=1, keepdims=True), dtype=np.float32)


def as_probabilities(output: np.ndarray) -> np.ndarray:
    """Class probabilities from the export's output, which may already end in a softmax.

    Ultralytics classification exports include the softmax; plain exports give logits. Rows that
    are already non-negative and sum to one are kept as they are.
    """
    output = output.astype(np.float32, copy=False)
    if output.size and output.min() >= 0 and np.allclose(output.sum(axis=1), 1.0, atol=1e-3):
        return output
    return softmax(output)


def combine_upright_turns(reads: list[np.ndarray]) -> np.ndarray:
    """One reading ``(n, cards + "not an index")`` from an upright-only classifier's readings of the
    same crops at one or more quarter turns (each ``(n, cards + "turned" + "not an index")``).

    Such a classifier names a card only when the index stands upright in front of it and calls the
    other turns "turned", so at most one turn (two for an index lying near 45 degrees) carries the
    card: the card columns are added up over the turns, "not an index" is their mean, and a row is
    scaled down only where the sum would pass one. What no turn claims is left as doubt.
    """
    cards = np.sum([r[:, :-2] for r in reads], axis=0)
    none = np.mean([r[:, -1] for r in reads], axis=0)
    out = np.concatenate([cards, none[:, None]], axis=1).astype(np.float32)
    total = out.sum(axis=1, keepdims=True)
    return np.asarray(out / np.maximum(total, 1.0), np.float32)


def thin_ink(batch: np.ndarray, size: int) -> np.ndarray:
    """The crops ``(n, C, H, W)`` with their dark ink thinned: a grey dilation, each pixel the lightest
    of its ``size`` x ``size`` neighbourhood, so the paper reaches a pixel further into every stroke.

    Why: a soft webcam runs the three lobes of a small club into one blob, which the classifier then
    calls a spade; opening the gaps between the lobes again lets it see the club (on the real webcam
    corners 0.844 named right thinned against 0.776 as seen; synthetic designs 0.753 against 0.767,
    so it is a second reading beside the first, not instead of it: docs/vision.md).
    """
    if not len(batch):
        return batch
    kernel = np.ones((size, size), np.uint8)
    out = np.empty_like(batch)
    for i, crop in enumerate(batch):  # channel by channel: cv2 takes H x W planes
        for c, plane in enumerate(crop):
            out[i, c] = cv2.dilate(plane, kernel)
    return out


@dataclass(frozen=True, slots=True)
class SuitDoubt:
    """The index readings sure of rank and colour but not of the suit (:meth:`CornerClassifier.suit_doubt`)."""

    rows: np.ndarray
    """Their rows in the probabilities."""
    red: np.ndarray
    """Whether each reads red (hearts, diamonds) rather than black."""
    colour: np.ndarray
    """``(rows, 4)``: the suits of that colour, in ``Suit`` order."""
    within: np.ndarray
    """``(rows, 4)``: each suit's share of the card probability, zero outside the colour."""
    total: np.ndarray
    """The colour's share of the card probability."""


class CornerClassifier:
    """The classifier session: crops in, class probabilities out (in the manifest's class order)."""

    def __init__(
        self,
        path: Path,
        spec: ClassifierSpec,
        *,
        threads: int = 1,
        max_batch: int = 32,
        settled: float = 0.9,
        rejected: float | None = None,
    ) -> None:
        self.session = open_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = model_input.shape
        channels = 1 if spec.channels == "GRAY" else 3
        if len(shape) != 4 or static_dim(shape[1]) not in (None, channels):
            raise ModelError(f"{path}: classifier input should be (N, {channels}, H, W), not {shape}")
        graph_h, graph_w = static_dim(shape[2]), static_dim(shape[3])
        self.height = graph_h if graph_h is not None else spec.input_size[0]
        self.width = graph_w if graph_w is not None else spec.input_size[1]
        fixed_batch = static_dim(shape[0])
        self.batch = fixed_batch if fixed_batch is not None else max_batch
        self.fixed_batch = fixed_batch is not None
        self.spec = spec
        self.path = path
        self.settled = settled
        """A crop read upright with at least this probability (a card, or "not an index") is settled and
        not read again turned; 1.0 turns every crop. At 0.9 the held-out designs read exactly as with
        every crop turned, about a quarter faster (docs/vision.md)."""
        self.rejected = rejected if spec.reject_class is not None else None
        """A crop whose reading gives "not an index" at least this probability is settled as well: it is
        dropped as no index (the recogniser's ``reject``), and reading it again turned or thinned would
        only pay to drop it. ``None`` reads such crops again like any other doubtful one. Why: a table's
        frame holds plain corners and court art the detector boxes; on the 3-5-8 trick frame 3 of 12 crops,
        each read eight times for nothing. With it the real photos read photo by photo as before and the
        synthetic tuning set found one card more (docs/vision.md, "5 December, evening")."""
        context = spec.suit_context
        grow = context.scale / spec.crop_scale if context is not None else 1.0
        self.wide_size = (round(self.height * grow), round(self.width * grow))
        """The size of :meth:`in_context`'s wide crops: the index keeps the pixel size it has in the
        ordinary crops, so the crop grows with ``suit_context.scale``."""
        if context is not None and (graph_h is not None or graph_w is not None):
            raise ModelError(
                f"{path}: suit_context reads {self.wide_size[0]}x{self.wide_size[1]} crops, but the graph's"
                f" input is fixed at {graph_h}x{graph_w}; export it with a free height and width"
            )
        if context is not None and spec.turned_class is not None:
            raise ModelError(f"{path}: suit_context needs a classifier that reads every turn, not an upright-only one")
        suits, cards = list(Suit), spec.cards()
        self._suits = np.eye(len(suits))[[suits.index(card.suit) for card in cards]]
        """``(cards, 4)``: which suit's share each card column counts towards (for :meth:`in_context`)."""
        self._red = np.array([suit.is_red for suit in suits])
        column = {card: i for i, card in enumerate(cards)}
        twins = [column.get(Card(card.rank, _TWIN[card.suit]), -1) for card in cards]
        self._twin = np.array(twins, np.intp)
        """Each card column's twin: the same rank in the other suit of its colour (-1: not a class)."""

    def crops(self, bgr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The network input ``(n, C, H, W)`` float32 for each box ``(x1, y1, x2, y2)`` of ``bgr``."""
        size = (self.height, self.width)
        square = self.spec.crop_shape == "square"
        return self._as_input([crop(bgr, box, size, self.spec.crop_scale, square) for box in boxes], size)

    def _as_input(self, patches: list[np.ndarray], size: tuple[int, int]) -> np.ndarray:
        """BGR patches of ``size`` as the network's input: channel order, layout and scale of the manifest."""
        channels = 1 if self.spec.channels == "GRAY" else 3
        out = np.empty((len(patches), channels, *size), dtype=np.float32)
        for i, patch in enumerate(patches):
            if self.spec.channels == "RGB":
                out[i] = cv2.cvtColor(patch, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)
            elif self.spec.channels == "BGR":
                out[i] = patch.transpose(2, 0, 1)
            else:
                out[i, 0] = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
        if self.spec.scale == "0..1 float":
            out *= 1.0 / 255.0
        return out

    def suit_doubt(self, probs: np.ndarray, settled: float, rank: float | None = None) -> SuitDoubt | None:
        """Which rows of ``probs`` are sure of one rank and colour but not of the suit: one rank of one
        colour holds at least ``rank`` (by default ``settled``) of the card probability and that colour's
        better suit less than ``settled`` of the colour. A joker's lettering or a pip, read weakly as some
        card, is not in doubt of its suit only: it is not read again. None when no row is."""
        cards = len(self._twin)
        card_probs = probs[:, :cards].astype(np.float64)
        pairs = card_probs + np.where(self._twin >= 0, card_probs[:, np.maximum(self._twin, 0)], 0.0)
        shares = card_probs @ self._suits
        red = shares[:, self._red].sum(axis=1) > shares[:, ~self._red].sum(axis=1)
        colour = np.where(red[:, None], self._red[None, :], ~self._red[None, :])
        within = np.where(colour, shares, 0.0)
        total = within.sum(axis=1)
        sure_card = pairs.max(axis=1) >= (settled if rank is None else rank)
        rows = np.flatnonzero(sure_card & (within.max(axis=1) < settled * total))
        if not len(rows):
            return None
        return SuitDoubt(rows, red[rows], colour[rows], within[rows], total[rows])

    def reweigh_suits(self, probs: np.ndarray, doubt: SuitDoubt, shares: np.ndarray, weight: float) -> np.ndarray:
        """``probs`` with the two suits of each doubtful row's colour re-weighed by ``shares`` (``(rows,
        4)``, a suit reading from elsewhere; a row of NaN: nothing read, left as it was), log-linearly by
        ``weight``. Each suit's cards are scaled alike, so the ranks, the colour's share and "not an
        index" keep the index reading's probabilities."""
        cards = len(self._twin)
        read = ~np.isnan(shares).any(axis=1)
        if not read.any():
            return probs
        rows, colour, mine, total = doubt.rows[read], doubt.colour[read], doubt.within[read], doubt.total[read]
        weighed = np.where(colour, mine * (shares[read] + 1e-9) ** weight, 0.0)
        weighed *= (total / np.maximum(weighed.sum(axis=1), 1e-30))[:, None]
        factor = np.where(mine > 0, weighed / np.maximum(mine, 1e-30), 1.0)
        out = probs.copy()
        out[rows, :cards] = (probs[rows, :cards].astype(np.float64) * (factor @ self._suits.T)).astype(np.float32)
        return out

    def in_context(self, bgr: np.ndarray, boxes: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """``probs`` (from :meth:`probabilities` of the crops at ``boxes``) with the suit of each crop
        whose index reading is sure of rank and colour but not of the suit (:meth:`suit_doubt`) read
        again from a wider crop (manifest ``suit_context``; unchanged without one).

        The wide crop shows the index at the size the network knows and the card's big pips around
        it. Its suit shares re-weigh the two suits of the colour (:meth:`reweigh_suits`).
        """
        context = self.spec.suit_context
        cards = len(self._twin)
        if context is None or not len(boxes):
            return probs
        doubt = self.suit_doubt(probs, context.settled)
        if doubt is None:
            return probs
        size, square = self.wide_size, self.spec.crop_shape == "square"
        wide = self._as_input([crop(bgr, box, size, context.scale, square) for box in boxes[doubt.rows]], size)
        turns = (0, *_TURNS[self.spec.rotations])
        stacked = np.concatenate([np.rot90(wide, k, axes=(2, 3)) for k in turns])
        reads = self._read(np.ascontiguousarray(stacked)).reshape(len(turns), len(doubt.rows), -1)
        wide_shares = softmax(np.log(reads[:, :, :cards] + 1e-9).mean(axis=0)).astype(np.float64) @ self._suits
        return self.reweigh_suits(probs, doubt, wide_shares, context.weight)

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        """``(n, classes)`` probabilities for a batch of crops from :meth:`crops` (an upright-only
        model's "turned" class left out: see :meth:`_upright_turns`).

        With ``rotations`` > 1 in the manifest each crop that the upright reading does not settle
        (see ``settled``) is also read turned by quarter turns and the readings are combined by
        their geometric mean (renormalised): a reading must hold at every turn to stay confident,
        which cut wrong confident reads on the held-out designs. With ``thin_ink`` each crop still
        not settled is read once more with its ink thinned (:func:`thin_ink`), combined the same way.
        A crop already ``rejected`` as "not an index" counts as settled.
        """
        out = self._turned(batch)
        if not self.spec.thin_ink or not len(batch):
            return out
        doubtful = np.flatnonzero(self._unsettled(out))
        if len(doubtful):
            thinned = self._turned(thin_ink(batch[doubtful], self.spec.thin_ink))
            out = out.copy()
            out[doubtful] = softmax((np.log(out[doubtful] + 1e-9) + np.log(thinned + 1e-9)) / 2)
        return out

    def _turned(self, batch: np.ndarray) -> np.ndarray:
        """The reading of :meth:`probabilities` before ``thin_ink``: upright, then the quarter turns."""
        if self.spec.turned_class is not None:
            return self._upright_turns(batch)
        turns = _TURNS[self.spec.rotations]
        first = self._read(batch)
        if not turns or not len(batch) or self.height != self.width:
            return first
        # Crops read with near certainty upright are settled; only the others are read again turned.
        doubtful = np.flatnonzero(self._unsettled(first))
        if not len(doubtful):
            return first
        subset = batch[doubtful]
        stacked = np.concatenate([np.rot90(subset, k, axes=(2, 3)) for k in turns])
        probs = self._read(np.ascontiguousarray(stacked)).reshape(len(turns), len(subset), -1)
        log_p = (np.log(probs + 1e-9).sum(axis=0) + np.log(first[doubtful] + 1e-9)) / (len(turns) + 1)
        out = first.copy()
        out[doubtful] = softmax(log_p)
        return out

    def _unsettled(self, probs: np.ndarray) -> np.ndarray:
        """Which rows of ``probs`` are worth reading again: not ``settled`` on one class, and not already
        ``rejected`` as "not an index"."""
        unsure: np.ndarray = probs.max(axis=1) < self.settled
        if self.rejected is not None:
            unsure &= probs[:, -1] < self.rejected
        return unsure

    def _upright_turns(self, batch: np.ndarray) -> np.ndarray:
        """An upright-only model (manifest ``turned_class``): each crop the first reading does not
        settle is read at all four quarter turns and the turns combined by
        :func:`combine_upright_turns`."""
        first = self._read(batch)
        out = combine_upright_turns([first])
        if not len(batch) or self.height != self.width:
            return out
        doubtful = np.flatnonzero(first[:, :-2].max(axis=1) < self.settled)
        if len(doubtful):
            subset = batch[doubtful]
            stacked = np.concatenate([np.rot90(subset, k, axes=(2, 3)) for k in (1, 2, 3)])
            turned = self._read(np.ascontiguousarray(stacked)).reshape(3, len(subset), -1)
            out[doubtful] = combine_upright_turns([first[doubtful], *turned])
        return out

    def _read(self, batch: np.ndarray) -> np.ndarray:
        classes = len(self.spec.classes)
        if not len(batch):
            return np.zeros((0, classes), np.float32)
        results = []
        for start in range(0, len(batch), self.batch):
            chunk = batch[start : start + self.batch]
            count = len(chunk)
            if self.fixed_batch and count < self.batch:
                pad = np.zeros((self.batch - count, *chunk.shape[1:]), np.float32)
                chunk = np.concatenate([chunk, pad])
            output = np.asarray(self.session.run(None, {self.input_name: chunk})[0])
            output = output.reshape(output.shape[0], -1)
            if output.shape[1] != classes:
                raise ModelError(f"{self.path}: classifier gives {output.shape[1]} scores, manifest lists {classes}")
            results.append(as_probabilities(output[:count]))
        return np.concatenate(results)
