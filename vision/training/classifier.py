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


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class CropNet(nn.Module):
    """Input N x 3 x 48 x 48 RGB in 0..1; output N x 52 logits."""

    def __init__(self, classes: int = 52, width: int = 24) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _block(3, width),
            nn.MaxPool2d(2),
            _block(width, 2 * width),
            nn.MaxPool2d(2),
            _block(2 * width, 4 * width),
            nn.MaxPool2d(2),
            _block(4 * width, 8 * width),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * width, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.features(x))
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
) -> CropNet:
    """Train with AdamW + one-cycle LR + label smoothing; keeps the best model on ``val``."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = CropNet()
    batch = 128
    steps = epochs * math.ceil(len(crops) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
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
            loss = loss_fn(model(xb), y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
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
