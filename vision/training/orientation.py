"""Which way up a corner index stands: a second small network beside the card classifier.

The classifier reads an index at any angle and keeps no orientation, but the photo's card vote needs
it (:class:`vision.recognise.cards.CardVote`): a card prints its two indices turned half a turn from
each other (a four-index deck also prints two alike side by side, across the index's own axis), so
two places that name the same card, stand the same way up and lie one above the other along their
own up axis are two cards, however far apart. The webcam's fanned rows of clubs over spades are
exactly that: every club read as the spade of its rank, the real spade a row below, both printed
upside down.

Four classes, the quarter turns (``np.rot90``, counter-clockwise) that stand the index upright, as
:func:`vision.synth.scenes._upright_turns` labels the synthetic scenes. Each training crop is shown
at a random quarter turn with its label turned alike, so the classes stay balanced whatever the
scenes held. The network is a fifth of the classifier's cost (about 4 M multiply-adds a crop) and
reads the classifier's own 48-px crops, so the runtime cuts nothing twice.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .classifier import _augment, _conv, _learning_rate, _to_tensor

__all__ = ["OrientationNet", "accuracy", "export_onnx", "train_orientation"]


class OrientationNet(nn.Module):
    """Input N x 3 x 48 x 48 RGB in 0..1; output N x 4 logits, the quarter turns to upright."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _conv(3, w, 2),
            _conv(w, 2 * w, 2),
            _conv(2 * w, 2 * w),
            _conv(2 * w, 4 * w, 2),
            _conv(4 * w, 4 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(4 * w, 4),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(x)
        return out


def _turned(x: torch.Tensor, turns: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Each crop turned by a random quarter turn ``k`` and its label moved alike: a crop that needed
    ``t`` turns to stand upright needs ``t - k`` once turned ``k``."""
    k = torch.randint(0, 4, (len(x),), generator=gen)
    out = x.clone()
    for j in (1, 2, 3):
        chosen = k == j
        if chosen.any():
            out[chosen] = torch.rot90(x[chosen], j, dims=(2, 3))
    return out, (turns - k) % 4


def predict(model: nn.Module, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    """Probabilities ``(n, 4)`` of each BGR uint8 crop's quarter turns to upright."""
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            out.append(torch.softmax(model(_to_tensor(crops[i : i + batch])), dim=1).numpy())
    return np.concatenate(out) if out else np.zeros((0, 4), np.float32)


def accuracy(model: nn.Module, crops: np.ndarray, turns: np.ndarray) -> float:
    """Share of index crops whose turns to upright are named right, each read as cut (not turned)."""
    return _scores(model, crops, turns)[0]


def _scores(model: nn.Module, crops: np.ndarray, turns: np.ndarray) -> tuple[float, float]:
    """Accuracy and the mean probability given to the right turns: the second tells two epochs of the
    same accuracy apart by how sure they are, which the runtime's ``sure`` threshold depends on."""
    if not len(crops):
        return 0.0, 0.0
    probs = predict(model, crops)
    right = probs[np.arange(len(turns)), turns]
    return float((probs.argmax(axis=1) == turns).mean()), float(right.mean())


def train_orientation(
    crops: np.ndarray,
    turns: np.ndarray,
    val: tuple[np.ndarray, np.ndarray],
    epochs: int,
    seed: int,
    out: Path,
    time_limit_s: float,
    log: list[dict[str, float]],
    max_lr: float = 5e-3,
    soften: float = 0.3,
    ink_spread: float = 0.3,
) -> OrientationNet:
    """Train on the index crops of ``crops`` (``turns`` >= 0; the classifier's cached crops, whose
    blanks have no upright) with AdamW and the classifier's warmup-cosine pace and photometric jitter,
    keeping the best model on ``val`` (crops, turns): the most accurate, the surer of two alike."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    keep = turns >= 0
    x_all = _to_tensor(crops[keep])
    t_all = torch.from_numpy(turns[keep].astype(np.int64))
    model = OrientationNet()
    batch = 128
    steps = max(1, epochs * math.ceil(len(x_all) / batch))
    opt = torch.optim.AdamW(model.parameters(), lr=_learning_rate(max_lr, 0.0, 0.0), weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    best, done, start = (-1.0, -1.0), 0, time.monotonic()
    path = out / "orientation-best.pt"
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x_all), generator=gen)
        t0, total = time.monotonic(), 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            xb = _augment(x_all[idx].clone(), gen, turn=False, ink_spread=ink_spread, soften=soften)
            xb, target = _turned(xb, t_all[idx], gen)
            loss = loss_fn(model(xb), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            done += 1
            for group in opt.param_groups:
                group["lr"] = _learning_rate(max_lr, done / steps, (time.monotonic() - start) / time_limit_s)
            total += float(loss.detach()) * len(idx)
        score = _scores(model, *val)
        entry = {
            "epoch": epoch + 1,
            "loss": total / len(x_all),
            "val_acc": score[0],
            "val_right_p": score[1],
            "seconds": time.monotonic() - t0,
        }
        log.append(entry)
        print(f"orientation epoch {epoch + 1}/{epochs}: {entry}", flush=True)
        if score > best:
            best = score
            torch.save(model.state_dict(), path)
        if time.monotonic() - start + 0.5 * entry["seconds"] > time_limit_s:
            print("orientation: time limit reached, stopping", flush=True)
            break
    model.load_state_dict(torch.load(path, weights_only=True))
    model.eval()
    return model


def export_onnx(model: nn.Module, path: Path, size: int) -> None:
    """Export with a dynamic batch axis: the runtime reads all of a frame's crops at once."""
    model.eval()
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, size, size),),
        str(path),
        input_names=["images"],
        output_names=["logits"],
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
