"""The suit of a lone pip: a third small network, for the suits a corner index leaves in doubt.

Two failures of the index classifier share one cause, a suit sign too small or absent in the index:
the real webcam's small clubs run their lobes into one blob and are read as spades, and a deck like
the held-out tango_nuevo prints a bare rank in its corner with the suit pip in the other top corner
(the classifier then guesses the suit: 0.42-0.50 right on its labelled indices). The pips elsewhere
on the card are larger and say the suit plainly. This network names the suit of one such pip, or says
it is no pip (court art, a letter, the table), from a small square crop around an ink blob; the
runtime (:mod:`vision.recognise.pips`) finds the blobs of the index's colour near each index whose
suit is in doubt and lets them re-weigh the two suits of that colour.

Trained from nothing on the training designs' own pips (vector and drawn decks; the held-out designs
are only measured): every connected blob of ink on a number card that is not inside a corner index
box, filled like a pip rather than an outline, of a size near the card's typical pip. Each is shown at
any angle and size down to a few pixels, off-centre by a detector-like margin, with the photometric
damage of the scenes (light, white balance, blur, noise, JPEG). Negatives are windows of the same
designs' faces away from every pip (court art, blank paper, the index glyphs' surroundings) and
patches of procedural table.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from engine.cards import Card, Rank, Suit
from vision.synth.drawn import draw_suit
from vision.synth.faces import corner_boxes, load_face

__all__ = ["PIP_SIZE", "Pip", "PipNet", "drawn_pips", "pip_dataset", "pips_of", "train_pips"]

PIP_SIZE = 32
"""The network's input side: a pip of 6-20 pixels in a camera frame is shown at this size."""
NOT_A_PIP = 4
"""The fifth class, after the suits in :class:`~engine.cards.Suit` order."""
_NUMBER_RANKS = (Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT,
                 Rank.NINE, Rank.TEN)  # fmt: skip
_COURT_RANKS = (Rank.JACK, Rank.QUEEN, Rank.KING)


@dataclass(frozen=True, slots=True)
class Pip:
    """One training item: a face (BGR on white), a box on it, its class (suit index or :data:`NOT_A_PIP`),
    and whether it is a pip printed in a top corner beside a bare-rank index."""

    face: np.ndarray
    box: tuple[float, float, float, float]
    label: int
    corner: bool = False


def _on_white(face: np.ndarray) -> np.ndarray:
    alpha = face[..., 3:4].astype(np.float32) / 255.0
    return np.asarray(face[..., :3] * alpha + 255.0 * (1.0 - alpha), np.uint8)


def _ink(face: np.ndarray) -> np.ndarray:
    """Where a face (BGRA) is inked: dark, or strongly coloured, and on the card."""
    return _dark(face[..., :3]) & (face[..., 3] > 128).astype(np.uint8)


def pips_of(design: str) -> list[Pip]:
    """The pips of ``design``'s number cards: filled ink blobs outside its corner-index boxes, near the
    card's typical pip size, each with its card's suit."""
    out: list[Pip] = []
    suits = list(Suit)
    for suit in suits:
        for rank in _NUMBER_RANKS:
            card = Card(rank, suit)
            face = load_face(design, card)
            bgr = _on_white(face)
            ink = _ink(face)
            try:
                indices = corner_boxes(design, card)
            except (OSError, KeyError, ValueError):
                indices = []
            for x1, y1, x2, y2 in indices:  # an index's glyphs are not pips
                ink[max(0, y1 - 3) : y2 + 3, max(0, x1 - 3) : x2 + 3] = 0
            h, w = ink.shape
            count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
            blobs = []
            for i in range(1, count):
                x, y, bw, bh, area = (int(v) for v in stats[i])
                if x <= 2 or y <= 2 or x + bw >= w - 2 or y + bh >= h - 2:
                    continue  # the card's border
                if bw < 8 or bh < 8 or bw > 0.8 * w or not 0.5 <= bw / bh <= 2.0 or area < 0.3 * bw * bh:
                    continue  # a frame, an outline or a stroke, not a filled pip
                blobs.append((x, y, x + bw, y + bh, area))
            if not blobs:
                continue
            typical = float(np.median([b[4] for b in blobs]))
            for x1, y1, x2, y2, area in blobs:
                if area < 0.25 * typical and len(blobs) > 2:
                    continue  # specks
                corner = y2 < 0.3 * h and x1 > 0.55 * w
                out.append(Pip(bgr, (x1, y1, x2, y2), suits.index(suit), corner))
    return out


def drawn_pips(rng: np.random.Generator, count: int) -> list[Pip]:
    """``count`` lone pips, each of its own shape (:func:`~vision.synth.drawn.draw_suit` with parameters drawn
    for it alone, over wider ranges than the drawn decks use), a quarter of each suit, in a dark or red
    ink on off-white paper.

    Why: the decks teach a suit by a few dozen pip shapes, and a network can then tell a club from a spade
    by its stem; the real webcam's clubs stand on the wide flared stem of the training decks' spades, with
    fat lobes run together, and were read as spades at 0.9 and more. With each pip's lobes, point, stem
    and flare drawn independently of its suit, only the lobes against the point say which it is."""
    out: list[Pip] = []
    suits = list(Suit)
    for n in range(count):
        suit = suits[n % 4]
        if suit in (Suit.SPADES, Suit.CLUBS):
            r = rng.uniform(0.18, 0.36) if suit is Suit.CLUBS else rng.uniform(0.2, 0.34)
            params: tuple[float, ...] = (r, rng.uniform(0.03, 0.22), rng.uniform(0.1, 0.55), rng.uniform(0.15, 0.4))
            ink = rng.uniform(0, 70, 3)
        elif suit is Suit.HEARTS:
            params = (rng.uniform(0.22, 0.34), rng.uniform(0.15, 0.55))
            ink = np.array([rng.uniform(0, 80), rng.uniform(0, 60), rng.uniform(150, 240)])
        else:
            params = (rng.uniform(0.5, 0.85), rng.uniform(-0.15, 0.15))
            ink = np.array([rng.uniform(0, 80), rng.uniform(0, 60), rng.uniform(150, 240)])
        mask = draw_suit(suit, int(rng.integers(48, 121)), params)
        h, w = mask.shape
        margin = max(h, w)
        face = np.empty((h + 2 * margin, w + 2 * margin, 3), np.float32)
        face[:] = rng.uniform(215, 255) + rng.uniform(-10, 10, 3)
        alpha = mask.astype(np.float32)[..., None] / 255.0
        window = face[margin : margin + h, margin : margin + w]
        face[margin : margin + h, margin : margin + w] = window * (1 - alpha) + ink * alpha
        box = (float(margin), float(margin), float(margin + w), float(margin + h))
        out.append(Pip(np.clip(face, 0, 255).astype(np.uint8), box, suits.index(suit)))
    return out


def negatives_of(design: str, pips: Sequence[Pip], rng: np.random.Generator, count: int = 400) -> list[Pip]:
    """Windows of ``design``'s faces the size of its pips, centred away from every pip: court art, paper,
    the surroundings of the indices."""
    if not pips:
        return []
    side = float(np.median([max(p.box[2] - p.box[0], p.box[3] - p.box[1]) for p in pips]))
    by_face: dict[int, tuple[np.ndarray, list[tuple[float, float, float, float]]]] = {}
    for p in pips:
        by_face.setdefault(id(p.face), (p.face, []))[1].append(p.box)
    courts = [_on_white(load_face(design, Card(r, s))) for s in Suit for r in _COURT_RANKS]
    pool: list[tuple[np.ndarray, list[tuple[float, float, float, float]]]] = [(f, []) for f in courts]
    pool += list(by_face.values())
    out: list[Pip] = []
    for _ in range(count):
        face, boxes = pool[int(rng.integers(len(pool)))]
        h, w = face.shape[:2]
        s = side * rng.uniform(0.6, 1.4)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if any(abs(cx - (b[0] + b[2]) / 2) < 0.7 * s and abs(cy - (b[1] + b[3]) / 2) < 0.7 * s for b in boxes):
            continue
        out.append(Pip(face, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), NOT_A_PIP))
    return out


def _table(rng: np.random.Generator) -> np.ndarray:
    """A patch of table: blurred coloured noise, sometimes with a straight edge (a card's, a shadow's)."""
    k = int(rng.integers(12, PIP_SIZE + 1))
    img = rng.integers(0, 256, 3).astype(np.float32) + cv2.GaussianBlur(
        rng.normal(0, rng.uniform(5, 60), (k, k, 3)).astype(np.float32), (0, 0), rng.uniform(0.5, 3)
    )
    if rng.random() < 0.5:
        a = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:k, 0:k]
        img[(np.cos(a) * (xx - k / 2) + np.sin(a) * (yy - k / 2)) > rng.uniform(-k / 3, k / 3)] = rng.integers(
            0, 256, 3
        )
    out: np.ndarray = cv2.resize(
        np.clip(img, 0, 255).astype(np.uint8), (PIP_SIZE, PIP_SIZE), interpolation=cv2.INTER_LINEAR
    )
    return out


def render(rng: np.random.Generator, item: Pip, damage: bool = True, occlude: float = 0.0) -> tuple[np.ndarray, int]:
    """``item``'s box as the runtime cuts it (a square about 1.35 x its longer side, here 1.15-1.6 and off
    centre by up to 12 %), at any angle, seen at 7 to :data:`PIP_SIZE` pixels and scaled up, with the
    scenes' photometric damage; and its label. In an ``occlude`` share of the crops the edge of a card
    lying on top crosses it (:func:`_cover`): a pip left with less than :data:`WHOLE` of its ink is
    relabelled "not a pip"."""
    x1, y1, x2, y2 = item.box
    side = max(x2 - x1, y2 - y1) * rng.uniform(1.15, 1.6)
    cx = (x1 + x2) / 2 + rng.uniform(-0.12, 0.12) * side
    cy = (y1 + y2) / 2 + rng.uniform(-0.12, 0.12) * side
    k = int(rng.integers(7, PIP_SIZE + 1)) if damage else PIP_SIZE
    matrix = cv2.getRotationMatrix2D((cx, cy), rng.uniform(0, 360), k / side)
    matrix[:, 2] += np.array([k / 2 - cx, k / 2 - cy])
    if damage and rng.random() < 0.5:  # a photo saved stretched, or a tilted camera: up to 1.3 along one axis
        stretch = math.exp(rng.uniform(-math.log(1.3), math.log(1.3)))
        matrix = np.diag([stretch, 1.0]) @ matrix
        matrix[0, 2] += (1 - stretch) * k / 2
    border = tuple(int(v) for v in rng.integers(0, 256, 3))
    patch = cv2.warpAffine(item.face, matrix, (k, k), flags=cv2.INTER_AREA, borderValue=border)
    label = item.label
    if occlude and rng.random() < occlude:
        patch, label = _cover(rng, patch, item, matrix, k)
    if damage:
        f: np.ndarray = patch.astype(np.float32) * rng.uniform(0.55, 1.15, 3) + rng.uniform(-30, 30)
        if rng.random() < 0.7:
            f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.3))
        f += rng.normal(0, rng.uniform(0, 8), f.shape)
        patch = np.clip(f, 0, 255).astype(np.uint8)
        if rng.random() < 0.5:
            _, enc = cv2.imencode(".jpg", patch, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
            decoded = cv2.imdecode(enc, cv2.IMREAD_COLOR)
            patch = patch if decoded is None else decoded
        if rng.random() < 0.12:
            patch = cv2.cvtColor(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    out: np.ndarray = cv2.resize(patch, (PIP_SIZE, PIP_SIZE), interpolation=cv2.INTER_LINEAR)
    return out, label


WHOLE = 0.8
"""A pip keeps its suit while this share of its ink shows; less, and it is "not a pip". A fanned hand or a
pile covers part of a card, and the half pip left by the card on top (a crescent, a lobe and a stem) reads
as no suit surely: the real webcam's fanned clubs, cut by the next card's edge, were read as spades."""


def _cover(
    rng: np.random.Generator, patch: np.ndarray, item: Pip, matrix: np.ndarray, k: int
) -> tuple[np.ndarray, int]:
    """``patch`` with a card lying on top: everything on one side of a straight edge through the crop is
    that card's paper (off-white, a faint shadow along its edge), and the label the ink left in view
    earns. The edge passes anywhere from the pip's middle to the crop's rim, so that some crops keep
    their whole pip beside a card's edge (still a pip) and some keep a sliver of it."""
    x1, y1, x2, y2 = (round(v) for v in item.box)
    ink = np.zeros(item.face.shape[:2], np.uint8)
    ink[max(0, y1) : y2, max(0, x1) : x2] = _dark(item.face[max(0, y1) : y2, max(0, x1) : x2])
    pip = cv2.warpAffine(ink * 255, matrix, (k, k), flags=cv2.INTER_AREA) > 96
    angle = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:k, 0:k].astype(np.float32)
    along = (xx - k / 2) * math.cos(angle) + (yy - k / 2) * math.sin(angle)
    cut = rng.uniform(-0.3, 0.5) * k
    covered = along > cut
    out = patch.astype(np.float32)
    out[covered] = rng.uniform(200, 255) + rng.uniform(-12, 12, 3)
    shadow = (np.abs(along - cut) < rng.uniform(0.6, 1.6)) & ~covered
    out[shadow] *= rng.uniform(0.55, 0.9)
    shown = float(pip[~covered].sum()) / max(float(pip.sum()), 1.0)
    label = item.label if item.label == NOT_A_PIP or shown >= WHOLE else NOT_A_PIP
    return np.clip(out, 0, 255).astype(np.uint8), label


def _dark(bgr: np.ndarray) -> np.ndarray:
    """Where BGR is inked (uint8 0/1): dark, or strongly coloured."""
    hsv = cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2HSV)
    return ((hsv[..., 2] < 140) | ((hsv[..., 1] > 90) & (hsv[..., 2] > 60))).astype(np.uint8)


def pip_dataset(
    items: Sequence[Pip], count: int, seed: int, *, damage: bool = True, tables: float = 0.0, occlude: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` rendered crops (BGR uint8, ``PIP_SIZE`` square) drawn from ``items`` and their labels; a
    ``tables`` share of them are patches of bare table, labelled "not a pip", and an ``occlude`` share of
    the rest are crossed by the edge of a card on top (:func:`render`)."""
    rng = np.random.default_rng(seed)
    xs = np.empty((count, PIP_SIZE, PIP_SIZE, 3), np.uint8)
    ys = np.empty(count, np.int64)
    for i in range(count):
        if rng.random() < tables:
            xs[i], ys[i] = _table(rng), NOT_A_PIP
            continue
        item = items[int(rng.integers(len(items)))]
        xs[i], ys[i] = render(rng, item, damage, occlude)
    return xs, ys


def _conv(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class PipNet(nn.Module):
    """Input N x 3 x 32 x 32 RGB in 0..1; output N x 5 logits (spades, hearts, diamonds, clubs, no pip).
    About 11 M multiply-adds a crop."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            *_conv(3, 16), *_conv(16, 16), nn.MaxPool2d(2),
            *_conv(16, 32), *_conv(32, 32), nn.MaxPool2d(2),
            *_conv(32, 64), *_conv(64, 64), nn.MaxPool2d(2),
            *_conv(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 5),
        )  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(x)
        return out


def _tensor(bgr: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(bgr[..., ::-1].copy()).permute(0, 3, 1, 2).float().div_(255.0)


def accuracy(model: nn.Module, xs: np.ndarray, ys: np.ndarray) -> float:
    """Share of crops whose class (suit or "no pip") is named right."""
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(_tensor(xs[i : i + 512])).argmax(1) for i in range(0, len(xs), 512)])
    return float((pred.numpy() == ys).mean()) if len(ys) else 0.0


def onnx_pip_accuracy(path: Path, xs: np.ndarray, ys: np.ndarray) -> float:
    """Share of crops (BGR uint8, as :func:`pip_dataset` cuts them) whose class (suit or "no pip") the ONNX
    graph at ``path`` names right, fed as the runtime feeds it: how the 8-bit graph is checked against the
    float model's :func:`accuracy`."""
    from .quantize import onnx_predictions

    return float((onnx_predictions(path, xs) == ys).mean()) if len(ys) else 0.0


def train_pips(
    train: tuple[np.ndarray, np.ndarray],
    val: dict[str, tuple[np.ndarray, np.ndarray]],
    epochs: int,
    seed: int,
    time_limit_s: float,
    log: list[dict[str, float]],
    max_lr: float = 3e-3,
) -> PipNet:
    """AdamW with a one-cycle pace, batch 128, light label smoothing; the model of the last epoch (the
    schedule ends on a low rate), each epoch's accuracy on ``val`` logged. Stops early at the time cap."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x_all, y_all = _tensor(train[0]), torch.from_numpy(train[1])
    model = PipNet()
    batch = 128
    steps = max(1, epochs * (len(x_all) // batch))
    opt = torch.optim.AdamW(model.parameters(), max_lr, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    start = time.monotonic()
    for epoch in range(epochs):
        model.train()
        t0, total = time.monotonic(), 0.0
        order = torch.randperm(len(x_all), generator=gen)
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i : i + batch]
            loss = loss_fn(model(x_all[idx]), y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            total += float(loss.detach()) * batch
        entry: dict[str, float] = {"epoch": epoch + 1, "loss": total / len(x_all), "seconds": time.monotonic() - t0}
        entry.update({f"acc_{name}": accuracy(model, *xy) for name, xy in val.items()})
        log.append(entry)
        print(f"pips epoch {epoch + 1}/{epochs}: {entry}", flush=True)
        if time.monotonic() - start + entry["seconds"] > time_limit_s:
            print("pips: time limit reached, stopping", flush=True)
            break
    model.eval()
    return model
