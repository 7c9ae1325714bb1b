"""The corner-index crop classifier: a small CNN in plain torch, 52 classes in ``Card.index`` order.

Plain torch rather than ultralytics' classify task because the crop is tiny (48 px), the network is
tiny, and we want the exact preprocessing (RGB, 0..1, no mean/std) written down in models.json and
reproduced by the runtime with numpy alone.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

__all__ = ["CropNet", "evaluate", "export_onnx", "train_classifier"]


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CropNet(nn.Module):
    """Input N x 3 x 48 x 48 RGB in 0..1; output N x 52 log-probabilities in ``Card.index`` order.

    Two heads, rank (13) and suit (4), share the features: each rank is then learnt from all four
    suits' crops and each suit from thirteen ranks', which needs far fewer examples than 52
    independent classes. The 52 outputs are ``log p(rank) + log p(suit)``, so the runtime still reads
    one softmax over 52 cards. Strided convolutions keep it cheap (about 27 M multiply-adds a crop).
    """

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _conv(3, 24),
            _conv(24, w, 2),
            _conv(w, w),
            _conv(w, 2 * w, 2),
            _conv(2 * w, 2 * w),
            _conv(2 * w, 4 * w, 2),
            _conv(4 * w, 4 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.2),
        )
        self.rank = nn.Linear(4 * w, 13)
        self.suit = nn.Linear(4 * w, 4)

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x)
        return self.rank(f), self.suit(f)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rank, suit = self.heads(x)
        rank_lp = torch.log_softmax(rank, dim=1)  # N x 13, ranks 2..A
        suit_lp = torch.log_softmax(suit, dim=1)  # N x 4, suits S H D C
        out: torch.Tensor = (suit_lp[:, :, None] + rank_lp[:, None, :]).reshape(-1, 52)  # index = suit * 13 + rank
        return out


def _to_tensor(bgr: np.ndarray) -> torch.Tensor:
    rgb = bgr[..., ::-1].copy()
    return torch.from_numpy(rgb).permute(0, 3, 1, 2).float().div_(255.0)


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Cheap batch photometric jitter on top of the scene's own (grayscale, gain, contrast, 90° turns)."""
    n = x.shape[0]
    gray = torch.rand(n, generator=gen) < 0.15
    if gray.any():
        g = x[gray].mean(dim=1, keepdim=True)
        x[gray] = g.expand(-1, 3, -1, -1)
    gain = 0.75 + 0.5 * torch.rand(n, 3, 1, 1, generator=gen)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.6 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    x = ((x - mean) * contrast + mean) * gain
    k = int(torch.randint(0, 4, (1,), generator=gen))
    if k:
        x = torch.rot90(x, k, dims=(2, 3))
    return x.clamp_(0, 1)


def evaluate(model: nn.Module, crops: np.ndarray, labels: np.ndarray, batch: int = 512) -> float:
    """Top-1 accuracy of ``model`` on BGR uint8 crops."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            logits = model(_to_tensor(crops[i : i + batch]))
            correct += int((logits.argmax(1).numpy() == labels[i : i + batch]).sum())
    return correct / max(1, len(crops))


def train_classifier(
    crops: np.ndarray,
    labels: np.ndarray,
    val: tuple[np.ndarray, np.ndarray],
    epochs: int,
    seed: int,
    out: Path,
    time_limit_s: float,
    log: list[dict[str, float]],
    init: Path | None = None,
    max_lr: float = 5e-3,
) -> CropNet:
    """Train with AdamW + one-cycle LR + label smoothing; keeps the best model on ``val``."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = CropNet()
    if init is not None:  # continue from our own earlier checkpoint
        model.load_state_dict(torch.load(init, weights_only=True))
    batch = 96
    steps = epochs * math.ceil(len(crops) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=5e-4)
    # a short warmup: a time-capped run may only see a few epochs
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.05)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    x_all = _to_tensor(crops)
    y_all = torch.from_numpy(labels)
    best = -1.0
    start = time.monotonic()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(crops), generator=gen)
        t0 = time.monotonic()
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            xb = _augment(x_all[idx].clone(), gen)
            rank, suit = model.heads(xb)
            yb = y_all[idx]
            loss = loss_fn(rank, yb % 13) + loss_fn(suit, yb // 13)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        acc = evaluate(model, *val)
        entry = {"epoch": epoch + 1, "loss": total / len(crops), "val_acc": acc, "seconds": time.monotonic() - t0}
        log.append(entry)
        print(f"classifier epoch {epoch + 1}/{epochs}: {entry}", flush=True)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), out / "classifier-best.pt")
        if time.monotonic() - start + entry["seconds"] > time_limit_s:
            print("classifier: time limit reached, stopping", flush=True)
            break
    model.load_state_dict(torch.load(out / "classifier-best.pt", weights_only=True))
    model.eval()
    return model


def export_onnx(model: nn.Module, path: Path, size: int) -> None:
    """Export with a dynamic batch axis (the runtime classifies all crops of a frame at once)."""
    model.eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["images"],
        output_names=["logits"],
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
