"""The suit a corner index leaves in doubt, read from the card's pips near it.

The index classifier reads the rank far more surely than the suit: a webcam's small club runs its
three lobes into one blob and reads as a spade, and a deck that prints a bare rank in its corner
(the held-out tango_nuevo: the suit pip sits in the other top corner) leaves the suit to a guess. The
card's other pips say the suit plainly, and they are larger. So for each index whose rank and colour
are sure and suit is not (:meth:`~vision.recognise.classifier.CornerClassifier.suit_doubt`), the ink
of that colour near it is split into blobs; those of a pip's size and shape, not inside any index box,
nearest first, are cut out square and read by a small network trained from nothing on the training
designs' pips (:mod:`vision.training.pips`), which may also say "no pip" (court art, a letter, the
table). The pips it names surely re-weigh the colour's two suits; never the colour or the rank, so a
neighbour's pip can at worst swap a club for a spade, which is what the index alone was unsure of.

Plain OpenCV and one onnxruntime session; a frame pays only for its doubtful indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.detections import box_overlaps
from vision.recognise.classifier import CornerClassifier, crop, softmax
from vision.recognise.manifest import ModelError, PipSpec
from vision.recognise.session import open_session, static_dim

_CROP = 1.35
"""A pip's crop: a square this many times the blob's longer side (training cut 1.15-1.6)."""
_NOT_A_PIP = 4


class SuitPips:
    """The pip network and the blob finder that feeds it (see the module docstring)."""

    def __init__(self, path: Path, spec: PipSpec, *, threads: int = 1, photo: bool = False) -> None:
        self.session = open_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = [static_dim(d) for d in model_input.shape]
        if len(shape) != 4 or any(
            d not in (None, want) for d, want in zip(shape[1:], (3, spec.size, spec.size), strict=True)
        ):
            raise ModelError(f"{path}: the pip network reads (N, 3, {spec.size}, {spec.size}), not {model_input.shape}")
        self.spec = spec
        self.path = path
        self.photo = photo
        """A photo of a whole table: each pip is given to the index it lies nearest to (:func:`pip_blobs`)."""
        self.rank = spec.photo_rank if photo and spec.photo_rank is not None else spec.rank
        """How sure of the rank and colour a reading must be for its suit to be read again: the manifest's
        ``photo_rank`` for a photo of a whole table, its ``rank`` at the table."""

    def in_context(
        self,
        classifier: CornerClassifier,
        bgr: np.ndarray,
        boxes: np.ndarray,
        probs: np.ndarray,
        outlines: Sequence[np.ndarray] = (),
    ) -> np.ndarray:
        """``probs`` (the classifier's, for the index crops at ``boxes``) with each doubtful suit
        re-weighed by the pips near its index; unchanged where none was found or none read surely.
        ``outlines`` are cards known to lie in view (image pixels, :func:`pip_blobs`' ``card``): an index
        inside one takes its pips from that card only."""
        if not len(boxes):
            return probs
        doubt = classifier.suit_doubt(probs, self.spec.settled, self.rank)
        if doubt is None:
            return probs
        shares = np.full((len(doubt.rows), 4), np.nan)
        found = [
            pip_blobs(
                bgr,
                boxes[row],
                bool(red),
                boxes,
                self.spec.radius,
                nearest=self.photo,
                card=outline_holding(boxes[row], outlines),
            )[: self.spec.most]
            for row, red in zip(doubt.rows, doubt.red, strict=True)
        ]
        counts = [len(blobs) for blobs in found]
        if not sum(counts):
            return probs
        # every doubtful index's pips in one run of the network: a 3-5-8 frame has several
        patches = np.stack([pip_crop(bgr, blob, self.spec.size) for blobs in found for blob in blobs])
        read = np.split(self.read(patches), np.cumsum(counts)[:-1])
        for i, (probs_i, count) in enumerate(zip(read, counts, strict=True)):
            if count:
                shares[i] = self.suit_of(probs_i, doubt.colour[i])
        return classifier.reweigh_suits(probs, doubt, shares, self.spec.weight)

    def suit_of(self, probs: np.ndarray, colour: np.ndarray) -> np.ndarray:
        """The suit shares ``(4,)`` that pips read as ``probs`` (``(n, 5)``, :meth:`read`) agree on within
        ``colour`` (a boolean per suit): the normalised geometric mean of the readings that say "pip" and
        name a suit of the colour at least ``sure``; NaN where none does."""
        pip = probs[:, _NOT_A_PIP] < 0.5
        within = probs[:, :4] * colour[None, :]
        within /= np.maximum(within.sum(axis=1, keepdims=True), 1e-12)
        sure = pip & (within.max(axis=1) >= self.spec.sure)
        if not sure.any():
            return np.full(4, np.nan)
        log_p = np.log(within[sure] + 1e-6).mean(axis=0)
        shares = np.exp(log_p - log_p[colour].max()) * colour
        return np.asarray(shares / shares.sum(), np.float64)

    def read(self, patches: np.ndarray) -> np.ndarray:
        """``(n, 5)`` probabilities for BGR uint8 patches ``(n, size, size, 3)``."""
        x = np.ascontiguousarray(patches[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
        output = np.asarray(self.session.run(None, {self.input_name: x})[0])
        if output.ndim != 2 or output.shape[1] != 5:
            raise ModelError(f"{self.path}: the pip network gives {output.shape}, not (n, 5)")
        return softmax(output.astype(np.float32))


def pip_crop(bgr: np.ndarray, blob: tuple[float, float, float, float], size: int) -> np.ndarray:
    """The square BGR patch the pip network reads for one blob ``(x1, y1, x2, y2)``: the classifier's own
    cut (:func:`~vision.recognise.classifier.crop`), :data:`_CROP` times the blob's longer side."""
    return crop(bgr, np.asarray(blob, np.float32), (size, size), _CROP, True)


def pip_blobs(
    bgr: np.ndarray,
    box: np.ndarray,
    red: bool,
    indices: np.ndarray,
    radius: float,
    *,
    nearest: bool = False,
    card: np.ndarray | None = None,
) -> list[tuple[float, float, float, float]]:
    """The blobs of ink of one colour within ``radius`` index lengths of ``box``'s centre that could be
    pips, nearest first: filled (a third of their box or more), no longer than 2.2 times their width,
    a fifth to 1.3 times the index's length, and not mostly inside any of ``indices`` (an index's own
    rank and pip); with ``nearest``, also no nearer to another index of ``indices`` than to ``box`` (a
    photo's rule, :func:`_nearest_to`), and with paper round them (:func:`_on_paper`). Red ink is strongly
    saturated red; black ink is darker than the region's Otsu threshold (and than 110) and grey by chroma
    (:data:`BLACK_CHROMA`).

    ``card``, the outline (image pixels, n x 2) of the card the index is known to lie on, keeps only the
    blobs whose centre lies on it. Why: on a Makao pile the cards beneath peek out round the top card,
    their pips a pip's step from its index; the demo deck's KD, its index's suit in doubt, was read KH
    from the QH beneath it (five of the seven pile cards asked about over 48 seeds). The table's tracker
    knows where the card just put down lies (:meth:`vision.tracker.CardTracker.new_card_outlines`)."""
    on_card = None if card is None else np.asarray(card, np.float32).reshape(-1, 1, 2)
    x1, y1, x2, y2 = (float(v) for v in box)
    length = max(x2 - x1, y2 - y1, 1.0)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    h, w = bgr.shape[:2]
    rx1, ry1 = int(max(0, cx - radius * length)), int(max(0, cy - radius * length))
    rx2, ry2 = int(min(w, cx + radius * length)), int(min(h, cy + radius * length))
    region = bgr[ry1:ry2, rx1:rx2]
    if region.shape[0] < 4 or region.shape[1] < 4:
        return []
    hsv = cv2.cvtColor(region, cv2.COLOR_BGR2HSV)
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)
    otsu, _ = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if red:
        hue = hsv[..., 0]
        ink = ((hue < 12) | (hue > 165)) & (hsv[..., 1] > 70) & (hsv[..., 2] > 50)
    else:
        # dark and grey by chroma (max - min channel, which is S * V / 255), not by HSV saturation, which
        # divides by the value and so calls a dark ink tinted by the light or the printer (a navy "black")
        # strongly coloured
        chroma = hsv[..., 1].astype(np.uint16) * hsv[..., 2]
        ink = (gray < min(otsu, 110)) & (chroma < BLACK_CHROMA * 255)
    _, _, stats, centres = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    # size and shape first, on every blob at once: a noisy table can make thousands of specks of ink
    bx, by, bw, bh, area = (stats[1:, k].astype(np.int64) for k in range(5))
    longer = np.maximum(bw, bh)
    shaped = (longer >= 0.2 * length) & (longer <= 1.3 * length) & (bw >= 0.45 * bh) & (bw <= 2.2 * bh)
    found: list[tuple[float, tuple[float, float, float, float]]] = []
    for i in np.flatnonzero(shaped & (area >= 0.3 * bw * bh)).tolist():
        gx1, gy1 = float(bx[i] + rx1), float(by[i] + ry1)
        gx2, gy2 = gx1 + float(bw[i]), gy1 + float(bh[i])
        if on_card is not None and cv2.pointPolygonTest(on_card, ((gx1 + gx2) / 2, (gy1 + gy2) / 2), False) < 0:
            continue  # another card's pip, beside this one
        if not _on_paper(gray, hsv, otsu, (int(bx[i]), int(by[i]), int(bw[i]), int(bh[i]))):
            continue  # ink on the table: a dark felt's weave, a red cloth
        iw = np.minimum(gx2, indices[:, 2]) - np.maximum(gx1, indices[:, 0])
        ih = np.minimum(gy2, indices[:, 3]) - np.maximum(gy1, indices[:, 1])
        if np.any((iw > 0) & (ih > 0) & (iw * ih > 0.3 * float(bw[i] * bh[i]))):
            continue  # an index's own glyphs
        distance = float(np.hypot(centres[i + 1][0] + rx1 - cx, centres[i + 1][1] + ry1 - cy))
        found.append((distance, (gx1, gy1, gx2, gy2)))
    found.sort(key=lambda item: item[0])
    return _nearest_to(box, indices, found) if nearest else [blob for _, blob in found]


BLACK_CHROMA = 60
"""Black ink's largest chroma (max - min of its B, G, R): a dark red keeps 80 or more."""
ON_PAPER = 0.5
"""A pip is printed on the card: at least this share of the ring around its blob (a quarter of the blob's
size wide) must be paper, brighter than the searched region's Otsu threshold and unsaturated."""


def outline_holding(box: np.ndarray, outlines: Sequence[np.ndarray]) -> np.ndarray | None:
    """The first of ``outlines`` (image pixels, n x 2 each) that holds ``box``'s centre, or None."""
    cx, cy = (float(box[0]) + float(box[2])) / 2, (float(box[1]) + float(box[3])) / 2
    for outline in outlines:
        polygon = np.asarray(outline, np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(polygon, (cx, cy), False) >= 0:
            return polygon
    return None


def _on_paper(gray: np.ndarray, hsv: np.ndarray, otsu: float, blob: tuple[int, int, int, int]) -> bool:
    """Whether the ring round ``blob`` (``x, y, w, h`` in the searched region, a quarter of its size wide) is
    mostly paper (:data:`ON_PAPER`): brighter than the region's Otsu threshold and unsaturated.

    Why: on a dark felt the black-ink mask also takes the cloth's weave, shadows and noise, blobs of a pip's
    size all round the card; taken nearest first they crowded the card's own pips out of the ``most`` read
    (tango_nuevo's bare-rank corners on the synthetic held-out scenes). A pip has paper round it; the
    felt's blobs have felt."""
    x, y, w, h = blob
    margin = max(1, round(0.25 * max(w, h)))
    x1, y1 = max(0, x - margin), max(0, y - margin)
    x2, y2 = min(gray.shape[1], x + w + margin), min(gray.shape[0], y + h + margin)
    paper = (gray[y1:y2, x1:x2] > otsu) & (hsv[y1:y2, x1:x2, 1] < 90)
    ring = paper.size - w * h
    return ring > 0 and int(paper.sum()) - int(paper[y - y1 : y - y1 + h, x - x1 : x - x1 + w].sum()) >= ON_PAPER * ring


def _nearest_to(
    box: np.ndarray, indices: np.ndarray, found: list[tuple[float, tuple[float, float, float, float]]]
) -> list[tuple[float, float, float, float]]:
    """The blobs of ``found`` (distance, box; in that order) whose box centre lies no nearer to another
    index's centre than to ``box``'s: a pip belongs to the card whose index it lies nearest to.

    Why: in a photo of a fanned hand or a row of cards the ink beside an index is often the next card's,
    and that card's own index, found too, lies nearer to it (a card's first pips sit about one index
    length from its index; the next card's index a fan's step further). Boxes overlapping ``box`` by half
    the smaller one or more are ``box``'s own index boxed twice, not another card. With it a photo asks
    the pips where the rank is 0.6 sure, not 0.9 (docs/vision.md, "5 December, afternoon"). The table
    does without it: its zone holds the card just played, on top of a pile whose
    lower cards' indices, still in view beside the top card's pips, would take them (tango_nuevo's Makao
    pile, seeds 0-5: 152 of 240 cards right with the rule against 169 without)."""
    if not found or len(indices) < 2:
        return [blob for _, blob in found]
    others = indices[box_overlaps(np.vstack([np.asarray(box, np.float64)[None], indices]))[0, 1:] < 0.5]
    if not len(others):
        return [blob for _, blob in found]
    ox, oy = (others[:, 0] + others[:, 2]) / 2, (others[:, 1] + others[:, 3]) / 2
    mx, my = (float(box[0]) + float(box[2])) / 2, (float(box[1]) + float(box[3])) / 2
    kept = []
    for _, (bx1, by1, bx2, by2) in found:
        cx, cy = (bx1 + bx2) / 2, (by1 + by2) / 2
        if np.hypot(ox - cx, oy - cy).min() >= np.hypot(mx - cx, my - cy):
            kept.append((bx1, by1, bx2, by2))
    return kept
