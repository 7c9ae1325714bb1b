"""Make torchvision importable with the CPU-only torch wheel used here.

The only torchvision wheel on this machine's package index is a CUDA build; its compiled ops cannot
load beside CPU torch, and importing torchvision then fails registering ``torchvision::nms``.
Ultralytics needs only NMS from it, so when the compiled ops are missing this defines the
``torchvision::nms`` and ``qnms`` operators in Python (OpenCV's NMS does the work) before torchvision
is imported. With a working torchvision it does nothing.
"""

from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import torch

_LIB: torch.library.Library | None = None


def _nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    if dets.numel() == 0:
        return torch.zeros(0, dtype=torch.int64)
    b = dets.detach().float().cpu().numpy()
    xywh = np.stack([b[:, 0], b[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], axis=1)
    s = scores.detach().float().cpu().numpy()
    s = s - min(0.0, float(s.min()))  # NMSBoxes wants scores >= 0; order is what matters
    found = cv2.dnn.NMSBoxes(xywh.tolist(), s.tolist(), 0.0, float(iou_threshold))
    keep = np.asarray(found, dtype=np.int64).reshape(-1)
    order = np.argsort(-s[keep], kind="stable")
    return torch.from_numpy(keep[order]).to(dets.device)


def install() -> None:
    """Define the operators torchvision's Python side needs when its compiled ops are unusable."""
    global _LIB
    if _LIB is not None or importlib.util.find_spec("torchvision") is None:
        return
    if hasattr(torch.ops, "torchvision") and hasattr(torch.ops.torchvision, "nms"):
        return
    try:
        import torchvision.extension as ext

        if ext._has_ops():
            return
    except Exception:
        pass
    _LIB = torch.library.Library("torchvision", "DEF")  # type: ignore[no-untyped-call]
    _LIB.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")  # type: ignore[no-untyped-call]
    _LIB.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")  # type: ignore[no-untyped-call]
    _LIB.impl("nms", _nms, "CPU")  # type: ignore[no-untyped-call]
    _LIB.impl("qnms", _nms, "CPU")  # type: ignore[no-untyped-call]
    import torchvision.extension

    torchvision.extension._has_ops = lambda: True  # ops.nms checks this before calling the operator
