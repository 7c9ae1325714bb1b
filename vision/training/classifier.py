"""The corner-index crop classifier: a small CNN in plain torch, 52 cards in ``Card.index`` order
and a 53rd class for "no corner index here" (the detector's false finds: pips, court art, table).

Plain torch rather than ultralytics' classify task because the crop is tiny (48 px), the network is
tiny, and we want the exact preprocessing (RGB, 0..1, no mean/std) written down in models.json and
reproduced by the runtime with numpy alone.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from torch import nn

from vision.recognise.classifier import combine_upright_turns

from .dataset import ARCHITECTURES, NOT_INDEX

__all__ = ["CropNet", "evaluate", "export_onnx", "predict", "reject_rates", "train_classifier"]


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class _Residual(nn.Module):
    """Two 3x3 convolutions and a skip connection (a ResNet basic block, channels unchanged)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _conv(channels, channels), nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels)
        )
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.act(x + self.body(x))
        return out


class CropNet(nn.Module):
    """Input N x 3 x 48 x 48 RGB in 0..1; output N x 53 log-probabilities: ``Card.index`` order, then
    "not an index".

    Three heads share the features: index-or-not (2), rank (13) and suit (4). Each rank is then learnt
    from all four suits' crops and each suit from thirteen ranks', which needs far fewer examples than
    52 independent classes. The outputs are ``log p(index) + log p(rank) + log p(suit)`` for the 52
    cards and ``log p(not index)`` last, so the runtime still reads one softmax. Strided convolutions
    keep it cheap (about 27 M multiply-adds a crop).

    ``arch="residual"`` swaps the features for a stride-2 stem and one residual block at each of the
    three scales (24, 12 and 6 px; about 38 M multiply-adds): the 48-px layers of the plain stack are
    what a CPU spends most of its training time on (memory, not arithmetic), so the residual net
    trains a batch a little faster here while being twice as deep where the glyphs are resolved.
    """

    def __init__(self, width: int = 32, upright: bool = False, arch: str = "plain") -> None:
        super().__init__()
        w = width
        self.upright = upright
        """Read indices upright only: the index head is three-way (an upright index, an index turned
        by a quarter turn or more, not an index) and the output gains a "turned" column before "not an
        index" (N x 54). The runtime reads every quarter turn of a crop and adds up the card columns
        (:func:`vision.recognise.classifier.combine_upright_turns`)."""
        if arch not in ARCHITECTURES:
            raise ValueError(f"unknown classifier architecture {arch!r}; choose one of {', '.join(ARCHITECTURES)}")
        self.arch = arch
        if arch == "residual":
            body: list[nn.Module] = [_conv(3, w, 2), _Residual(w)]
            body += [_conv(w, 2 * w, 2), _Residual(2 * w), _conv(2 * w, 4 * w, 2), _Residual(4 * w)]
        else:
            body = [_conv(3, 24), _conv(24, w, 2), _conv(w, w), _conv(w, 2 * w, 2), _conv(2 * w, 2 * w)]
            body += [_conv(2 * w, 4 * w, 2), _conv(4 * w, 4 * w)]
        self.features = nn.Sequential(*body, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2))
        self.rank = nn.Linear(4 * w, 13)
        self.suit = nn.Linear(4 * w, 4)
        self.index = nn.Linear(4 * w, 3 if upright else 2)  # a corner index (upright, turned), not one

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        f = self.features(x)
        return self.rank(f), self.suit(f), self.index(f)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.combine(*self.heads(x))

    @staticmethod
    def combine(rank: torch.Tensor, suit: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        """The heads' logits as the graph's output: 52 card log-probabilities, then "not an index"."""
        rank_lp = torch.log_softmax(rank, dim=1)  # N x 13, ranks 2..A
        suit_lp = torch.log_softmax(suit, dim=1)  # N x 4, suits S H D C
        index_lp = torch.log_softmax(index, dim=1)  # N x 2
        cards = (suit_lp[:, :, None] + rank_lp[:, None, :]).reshape(-1, 52) + index_lp[:, :1]  # suit * 13 + rank
        out: torch.Tensor = torch.cat([cards, index_lp[:, 1:]], dim=1)  # upright: ..., turned, not an index
        return out


def _to_tensor(bgr: np.ndarray) -> torch.Tensor:
    rgb = bgr[..., ::-1].copy()
    return torch.from_numpy(rgb).permute(0, 3, 1, 2).float().div_(255.0)


def _spread_ink(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """The crops' dark ink spread by one or two pixels (a grey erosion: each pixel takes the darkest of
    its 2x2 or 3x3 neighbourhood), as a soft, over-exposed webcam prints it: a club's lobes then run
    into one blob. The shipped classifier read such clubs as spades (vision/models/MODEL_CARD.md)."""
    if torch.rand(1, generator=gen).item() < 0.5:
        padded = nn.functional.pad(x, (0, 1, 0, 1), mode="replicate")
        return -nn.functional.max_pool2d(-padded, 2, stride=1)
    return -nn.functional.max_pool2d(-x, 3, stride=1, padding=1)


def _soften(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """The crops as a soft, low-resolution camera shows a small index: shrunk to 30-60 % of their size
    (along one axis only for a third of calls, as a photo saved square and stretched back has lost
    half its columns), blurred by a pixel, and blown up again. Why: on the real webcam photos clubs read
    as spades where the index pip is a dozen pixels of mush, which the rendered scenes' own blur, drawn
    from high-resolution faces, does not reach."""
    size = x.shape[-1]
    scale = 0.3 + 0.3 * torch.rand(1, generator=gen).item()
    small = max(4, round(size * scale))
    axis = int(torch.randint(0, 3, (1,), generator=gen))  # 0: both axes, 1: columns only, 2: rows only
    shape = (small, small) if axis == 0 else ((size, small) if axis == 1 else (small, size))
    low = nn.functional.interpolate(x, size=shape, mode="area")
    kernel = torch.tensor([0.25, 0.5, 0.25]).view(1, 1, 1, 3).repeat(x.shape[1], 1, 1, 1)
    low = nn.functional.conv2d(nn.functional.pad(low, (1, 1, 0, 0), mode="replicate"), kernel, groups=x.shape[1])
    low = nn.functional.conv2d(
        nn.functional.pad(low, (0, 0, 1, 1), mode="replicate"), kernel.transpose(2, 3), groups=x.shape[1]
    )
    return nn.functional.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)


def _augment(
    x: torch.Tensor, gen: torch.Generator, turn: bool = True, ink_spread: float = 0.0, soften: float = 0.0
) -> torch.Tensor:
    """Cheap batch photometric jitter on top of the scene's own (grayscale, gain, contrast, 90° turns;
    with ``ink_spread`` that share of the crops gets its ink spread, see :func:`_spread_ink`; with
    ``soften`` that share is shown at a low resolution, see :func:`_soften`)."""
    n = x.shape[0]
    if soften > 0:
        soft = torch.rand(n, generator=gen) < soften
        if soft.any():
            x[soft] = _soften(x[soft], gen)
    if ink_spread > 0:
        spread = torch.rand(n, generator=gen) < ink_spread
        if spread.any():
            x[spread] = _spread_ink(x[spread], gen)
    gray = torch.rand(n, generator=gen) < 0.15
    if gray.any():
        g = x[gray].mean(dim=1, keepdim=True)
        x[gray] = g.expand(-1, 3, -1, -1)
    gain = 0.75 + 0.5 * torch.rand(n, 3, 1, 1, generator=gen)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.6 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    x = ((x - mean) * contrast + mean) * gain
    k = int(torch.randint(0, 4, (1,), generator=gen)) if turn else 0
    if k:
        x = torch.rot90(x, k, dims=(2, 3))
    return x.clamp_(0, 1)


def _shrunk(x: torch.Tensor, side: int) -> torch.Tensor:
    """The batch averaged down to ``side`` x ``side`` pixels (each output pixel the mean of the input
    pixels it covers, as a camera further away would record the index).

    Why: on a slow CPU the classifier's time cap buys about a third of its epochs (a 2-core first
    Zen EPYC: 15 of 40 in 75 minutes), and a batch at 32 px costs under half of one at 48 (the network
    ends in a global pooling, so it reads any size). Early epochs that learn the coarse shapes at the
    small size leave the later full-size epochs to refine them (progressive resizing). Measured at 40
    epochs (docs/vision.md, 5 December): 28% less time, but the held-out designs read 0.026 worse, so
    the shipped recipe does not use it; under a binding cap (15 epochs against 26) nothing was told apart."""
    return nn.functional.adaptive_avg_pool2d(x, side)


def _warp(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Each crop's glyphs bent a little as another printer's font would draw them: its own random affine
    map (turned up to 12 degrees, sheared up to 0.2, each axis scaled by 1/1.2..1.2, moved up to 6 % of
    the crop) and a smooth random displacement of about a pixel (a 4 x 4 field of offsets, blown up
    bicubically), resampled bilinearly with the border repeated.

    Why: of the held-out designs' misread cards most are their ranks (docs/vision.md, 5 December): the
    network knows the training decks' figures, not what makes a 6 a 6. Shapes bent within what a
    reader still recognises ask it to learn the figure, as such warps do for handwritten digits."""
    n, _, h, w = x.shape
    angle = (torch.rand(n, generator=gen) * 2 - 1) * math.radians(12)
    shear = (torch.rand(n, generator=gen) * 2 - 1) * 0.2
    scale = torch.exp((torch.rand(n, 2, generator=gen) * 2 - 1) * math.log(1.2))
    cos, sin = torch.cos(angle), torch.sin(angle)
    turn = torch.stack([torch.stack([cos, -sin], 1), torch.stack([sin, cos], 1)], 1)
    bend = torch.eye(2).repeat(n, 1, 1)
    bend[:, 0, 1] = shear
    linear = turn @ bend @ torch.diag_embed(scale)
    shift = (torch.rand(n, 2, 1, generator=gen) * 2 - 1) * 0.06
    grid = nn.functional.affine_grid(torch.cat([linear, shift], 2), [n, 3, h, w], align_corners=False)
    field = torch.randn(n, 2, 4, 4, generator=gen) * (2.0 / h)
    grid = grid + nn.functional.interpolate(field, size=(h, w), mode="bicubic", align_corners=False).permute(0, 2, 3, 1)
    return nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


SAME_COLOUR = torch.tensor([3, 2, 1, 0])
"""For each suit (S H D C, as the suit head orders them) the other suit of its colour: C, D, H, S."""


def _hide_pips(
    x: torch.Tensor, y: torch.Tensor, turns: torch.Tensor, gen: torch.Generator, share: float
) -> torch.Tensor:
    """Paint the lower part of that ``share`` of the index crops the paper's colour, upright, so that the
    rank shows and the suit pip does not; returns which crops were painted. Done before the batch's
    random quarter turn.

    Why: a deck that prints its suit away from the rank (tango_nuevo, held out, has a bare rank in the
    corner) gave crops with no pip, and the network named a suit for them anyway: at the synthetic table
    13 of its 48 cards were confirmed as the other suit of their colour. Taught that a rank without its pip
    says only the colour (:func:`suit_targets`), it can leave the suit in doubt, which the table turns into
    a question to the player rather than a wrong card."""
    n = x.shape[0]
    chosen = (torch.rand(n, generator=gen) < share) & (y < NOT_INDEX) & (turns >= 0)
    for i in torch.nonzero(chosen).flatten().tolist():
        k = int(turns[i])
        upright = torch.rot90(x[i], k, dims=(1, 2))
        size = upright.shape[1]
        cut = int(size * (0.52 + 0.12 * float(torch.rand(1, generator=gen))))
        paper = upright.reshape(3, -1).quantile(0.8, dim=1)[:, None, None]
        noise = 0.02 * torch.randn(3, size - cut, upright.shape[2], generator=gen)
        upright[:, cut:, :] = (paper + noise).clamp(0, 1)
        x[i] = torch.rot90(upright, -k, dims=(1, 2))
    return chosen


def suit_targets(suits: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """Soft suit targets ``(n, 4)``: one-hot, or half on each suit of the card's colour where its pip was hidden."""
    target = nn.functional.one_hot(suits, 4).float()
    if hidden.any():
        target[hidden] = 0.0
        rows = torch.nonzero(hidden).flatten()
        target[rows, suits[hidden]] = 0.5
        target[rows, SAME_COLOUR[suits[hidden]]] = 0.5
    return target


def _turn_each(x: torch.Tensor, turns: torch.Tensor) -> torch.Tensor:
    """Each crop turned by its own number of quarter turns (``torch.rot90``, as ``np.rot90``)."""
    out = x.clone()
    for k in (1, 2, 3):
        chosen = turns % 4 == k
        if chosen.any():
            out[chosen] = torch.rot90(x[chosen], k, dims=(2, 3))
    return out


UPRIGHT_SHARE = 0.5
"""Share of the index crops an upright-only model sees upright (and learns the card from); the rest
are turned by one to three quarter turns and labelled "turned"."""


def _upright_batch(
    x: torch.Tensor, y: torch.Tensor, turns: torch.Tensor, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """An upright-only model's batch: crops turned, and their index-head targets (0 upright, 1 turned,
    2 not an index). Index crops are stood upright or turned away from it; the others turned at random."""
    n = len(y)
    card = y < NOT_INDEX
    upright = card & (torch.rand(n, generator=gen) < UPRIGHT_SHARE)
    away = torch.randint(1, 4, (n,), generator=gen)
    random = torch.randint(0, 4, (n,), generator=gen)
    k = torch.where(card, turns + torch.where(upright, 0, away), random)
    target = torch.where(card, torch.where(upright, 0, 1), 2)
    return _turn_each(x, k), target


def _heads_loss(
    loss_fn: nn.Module,
    heads: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    labels: torch.Tensor,
    hidden: torch.Tensor,
    index_target: torch.Tensor,
    card: torch.Tensor,
) -> torch.Tensor:
    """The three heads' loss for one set of targets: index-or-not for every crop, rank and suit (soft
    where the pip was hidden, :func:`suit_targets`) for the crops that teach the card."""
    rank, suit, index = heads
    loss: torch.Tensor = loss_fn(index, index_target)
    if card.any():
        suits = suit_targets(labels[card] // 13, hidden[card])
        loss = loss + loss_fn(rank[card], labels[card] % 13) + loss_fn(suit[card], suits)
    return loss


def predict(model: nn.Module, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    """The top-1 class of each BGR uint8 crop (``NOT_INDEX``: not an index); an upright-only model's
    crops are read at the four quarter turns and combined as the runtime combines them."""
    model.eval()
    upright = bool(getattr(model, "upright", False))
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = _to_tensor(crops[i : i + batch])
            if upright:
                reads = [torch.exp(model(torch.rot90(x, k, dims=(2, 3)))).numpy() for k in range(4)]
                out.append(combine_upright_turns(reads).argmax(1))
            else:
                out.append(model(x).argmax(1).numpy())
    return np.concatenate(out) if out else np.zeros((0,), np.int64)


def evaluate(model: nn.Module, crops: np.ndarray, labels: np.ndarray, batch: int = 512) -> float:
    """Top-1 accuracy of ``model`` on the crops that show a corner index (a reject counts as wrong)."""
    cards = labels < NOT_INDEX
    return float((predict(model, crops[cards], batch) == labels[cards]).mean()) if cards.any() else 0.0


def reject_rates(model: nn.Module, crops: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """How often non-index crops are rejected, and how often index crops are wrongly rejected."""
    pred = predict(model, crops)
    cards, blanks = labels < NOT_INDEX, labels == NOT_INDEX
    return {
        "not_index_rejected": float((pred[blanks] == NOT_INDEX).mean()) if blanks.any() else 0.0,
        "index_rejected": float((pred[cards] == NOT_INDEX).mean()) if cards.any() else 0.0,
    }


def _learning_rate(max_lr: float, step_progress: float, time_progress: float) -> float:
    """A short warmup, then a cosine down to nothing by the end of the epochs *or* of the time cap.

    Whichever ends first sets the pace, so a time-capped run still anneals and ends on a low
    learning rate instead of being cut off mid-schedule.
    """
    progress = min(1.0, max(step_progress, time_progress))
    warmup = 0.03
    if progress < warmup:
        return max_lr * max(progress / warmup, 0.04)
    return max_lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * (progress - warmup) / (1 - warmup))))


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
    turns: np.ndarray | None = None,
    ink_spread: float = 0.0,
    arch: str = "plain",
    hide_pip: float = 0.0,
    pip_turns: np.ndarray | None = None,
    soften: float = 0.0,
    between_epochs: Callable[[], object] | None = None,
    width: int = 32,
    targets: np.ndarray | None = None,
    distill: float = 0.0,
    low_res: int = 0,
    low_res_share: float = 0.5,
    ema: float = 0.0,
    warp: float = 0.0,
    mixup: float = 0.0,
) -> CropNet:
    """Train with AdamW, a warmup-cosine learning rate paced by epochs or time cap (see
    :func:`_learning_rate`) and label smoothing; keeps the best model on ``val``. With ``turns`` (each
    crop's quarter turns to upright, see :func:`vision.training.dataset.make_crops`) the model learns to
    read indices upright only (:class:`CropNet` ``upright``). ``ink_spread`` is the share of each batch
    whose ink is spread (:func:`_spread_ink`). ``arch`` picks the network (:class:`CropNet`). ``hide_pip``
    is the share of index crops whose suit pip is painted over (:func:`_hide_pips`, which needs each crop's
    turns to upright, ``pip_turns``); their suit is taught as either of their colour (:func:`suit_targets`).
    ``soften`` is the share shown at a low resolution (:func:`_soften`). ``between_epochs`` is called
    after each epoch (the pipeline hands the classifier a second core there once the detector is done,
    :mod:`vision.training.cores`); each epoch's entry records the threads it ended on. ``width`` is
    :class:`CropNet`'s. With ``targets`` (``(n, 53)`` probabilities, another reader's reading of each
    crop: :mod:`vision.training.distill`) the loss is ``distill`` parts the cross-entropy of the model's
    output against them and the rest the heads' own losses; crops whose pip was painted over keep the
    heads' losses only (their target no longer says what they show). With ``low_res`` (a side in pixels,
    under the crops' own) the first ``low_res_share`` of the run, by steps or by the time cap as the
    learning rate is paced, shows each batch shrunk to that side (:func:`_shrunk`). With ``ema`` (a decay
    per step in (0, 1)) an exponential moving average of the weights and batch-norm statistics is kept
    beside them (``torch.optim.swa_utils``); the average is what is validated, kept as best and returned,
    and each epoch's entry logs the raw weights' validation as ``raw_val_acc``. Why: an average over the
    last few thousand steps sits in a flatter part of the loss than its last step, which often reads
    unseen data (here: decks never trained on) better, at no cost at run time.
    ``warp`` is the share of each batch whose crops are bent (:func:`_warp`). With ``mixup`` (a Beta
    distribution's parameter) each batch is blended with itself in another order, ``lam * x + (1 - lam)
    * x'`` with ``lam`` drawn from Beta(mixup, mixup) and kept over a half, and the loss is the same
    blend of the two orders' losses (Zhang et al., 2018). Why: a network that must say "mostly a 6, a
    little a 9" cannot lean on one deck's exact strokes.

    The model and each batch are kept channels-last: the same network and data (only the order of the
    sums within a convolution may differ), and a tenth to a fifth faster a batch on this CPU, so a
    time-capped run gets through more epochs."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    upright = turns is not None
    if targets is not None and (upright or len(targets) != len(crops) or not 0.0 < distill <= 1.0):
        raise ValueError("distilling needs an every-turn model, one target per crop and a weight in (0, 1]")
    model = CropNet(width=width, upright=upright, arch=arch)
    soft_all = torch.from_numpy(np.asarray(targets, np.float32)) if targets is not None else None
    t_all = torch.from_numpy(turns) if turns is not None else None
    if low_res and not (8 <= low_res < crops.shape[1] and 0.0 < low_res_share < 1.0):
        raise ValueError(f"low-resolution epochs need a side of 8 to {crops.shape[1] - 1} px and a share in (0, 1)")
    if hide_pip > 0 and pip_turns is None:
        raise ValueError("hiding pips needs each crop's turns to upright (pip_turns)")
    if not 0.0 <= warp <= 1.0:
        raise ValueError(f"the share of crops bent must be in [0, 1], not {warp}")
    if mixup < 0 or (mixup > 0 and (upright or targets is not None)):
        raise ValueError("blending crops (mixup) needs a parameter above 0 and an every-turn model trained on labels")
    blend = np.random.default_rng(seed)
    if not 0.0 <= ema < 1.0:
        raise ValueError(f"the weights' moving average needs a decay in [0, 1), not {ema}")
    p_all = torch.from_numpy(pip_turns) if pip_turns is not None else None
    if init is not None and init.suffix == ".onnx":  # continue from a shipped export
        load_onnx_weights(model, init, crops[:2048])
    elif init is not None:  # continue from our own earlier checkpoint
        model.load_state_dict(torch.load(init, weights_only=True))
    model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # (in place; the stub omits it)
    batch = 96
    steps = epochs * math.ceil(len(crops) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=_learning_rate(max_lr, 0.0, 0.0), weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    x_all = _to_tensor(crops)
    y_all = torch.from_numpy(labels)
    swa = torch.optim.swa_utils
    # torch leaves get_ema_multi_avg_fn unannotated
    average = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(ema), use_buffers=True) if ema else None  # type: ignore[no-untyped-call]
    kept = cast(CropNet, average.module) if average is not None else model  # what is validated and kept
    best = -1.0
    done = 0
    start = time.monotonic()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(crops), generator=gen)
        t0 = time.monotonic()
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            yb = y_all[idx]
            xb = x_all[idx].clone()
            hidden = (
                _hide_pips(xb, yb, p_all[idx], gen, hide_pip)
                if hide_pip > 0 and p_all is not None
                else torch.zeros(len(idx), dtype=torch.bool)
            )
            if warp > 0:
                bent = torch.rand(len(idx), generator=gen) < warp
                if bent.any():
                    xb[bent] = _warp(xb[bent], gen)
            xb = _augment(xb, gen, turn=not upright, ink_spread=ink_spread, soften=soften)
            lam, other = 1.0, None  # mixup: the blend's weight and the batch's other order
            if mixup > 0:
                lam = max(beta := float(blend.beta(mixup, mixup)), 1.0 - beta)
                other = torch.randperm(len(idx), generator=gen)
                xb = lam * xb + (1.0 - lam) * xb[other]
            if low_res and max(done / steps, (time.monotonic() - start) / time_limit_s) < low_res_share:
                xb = _shrunk(xb, low_res)
            if t_all is not None:
                xb, index_target = _upright_batch(xb, yb, t_all[idx], gen)
                card = index_target == 0  # only upright indices teach the rank and the suit
            else:
                card = yb < NOT_INDEX
                index_target = (~card).long()
            rank, suit, index = model.heads(xb.contiguous(memory_format=torch.channels_last))
            loss = _heads_loss(loss_fn, (rank, suit, index), yb, hidden, index_target, card)
            if other is not None:
                theirs = _heads_loss(
                    loss_fn, (rank, suit, index), yb[other], hidden[other], index_target[other], card[other]
                )
                loss = lam * loss + (1.0 - lam) * theirs
            if soft_all is not None:
                shown = ~hidden
                soft = soft_all[idx][shown]
                taught = -(soft * CropNet.combine(rank[shown], suit[shown], index[shown])).sum(dim=1).mean()
                loss = (1.0 - distill) * loss + distill * taught
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]  # (torch leaves Tensor.backward unannotated)
            opt.step()
            if average is not None:
                average.update_parameters(model)
            done += 1
            for group in opt.param_groups:
                group["lr"] = _learning_rate(max_lr, done / steps, (time.monotonic() - start) / time_limit_s)
            total += float(loss.detach()) * len(idx)
        acc = float((predict(kept, val[0]) == val[1]).mean())  # cards named and blanks rejected
        entry = {
            "epoch": epoch + 1,
            "loss": total / len(crops),
            "val_acc": acc,
            "val_card_acc": evaluate(kept, *val),
            **({"raw_val_acc": float((predict(model, val[0]) == val[1]).mean())} if average is not None else {}),
            "seconds": time.monotonic() - t0,
            "threads": torch.get_num_threads(),
        }
        log.append(entry)
        print(f"classifier epoch {epoch + 1}/{epochs}: {entry}", flush=True)
        if acc > best:
            best = acc
            torch.save(kept.state_dict(), out / "classifier-best.pt")
        if time.monotonic() - start + 0.5 * entry["seconds"] > time_limit_s:
            print("classifier: time limit reached, stopping", flush=True)
            break
        if between_epochs is not None:
            between_epochs()
    model.load_state_dict(torch.load(out / "classifier-best.pt", weights_only=True))
    model.to(memory_format=torch.contiguous_format)  # type: ignore[call-overload]
    model.eval()
    return model


def float_export(path: Path) -> tuple[dict[str, np.ndarray], list[Any]]:
    """A float ONNX export's stored tensors by name and its convolution nodes, or a ValueError naming
    the file when it cannot be read or is not one (the 8-bit graph keeps its weights behind
    quantisation nodes)."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as exc:  # onnx raises its own untyped errors for unreadable files
        raise ValueError(f"{path}: not an ONNX model: {exc}") from None
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    if not convs or not all(len(n.input) == 3 and n.input[1] in weights and n.input[2] in weights for n in convs):
        raise ValueError(f"{path}: not a float export (its convolutions' weights are not stored as tensors)")
    return weights, convs


def load_onnx_weights(model: CropNet, path: Path, crops: np.ndarray) -> None:
    """Load ``model`` (the plain network) from its own float ONNX export, to train it on from there.

    Why: only the exports are committed, and the export folds each batch norm into the convolution
    before it (weight and bias). Loading the folded weights with identity batch norms reproduces the
    export in eval mode, but training normalises each batch by its own statistics, which would undo
    the folded scales at the first step. So each batch norm is given the mean and variance of its
    convolution's output on ``crops`` as running statistics, its scale the matching standard
    deviation and its shift the mean plus the folded bias: eval mode computes exactly the export,
    and a training batch like ``crops`` about the same.
    """
    if model.arch != "plain" or model.upright:
        raise ValueError("only the plain, every-turn classifier can be loaded from an ONNX export")
    weights, convs = float_export(path)
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    pairs = [(cast(nn.Conv2d, b[0]), cast(nn.BatchNorm2d, b[1])) for b in blocks]
    if len(convs) != len(blocks):
        raise ValueError(f"{path}: {len(convs)} convolutions, the plain classifier has {len(blocks)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs, strict=True):
            w, b = (torch.from_numpy(weights[name].copy()) for name in node.input[1:3])
            if w.shape != conv.weight.shape:
                raise ValueError(f"{path}: convolution of shape {tuple(w.shape)}, expected {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            _running(bn)[0].zero_()
            _running(bn)[1].fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(b)
        for head in ("rank", "suit", "index"):
            layer = cast(nn.Linear, getattr(model, head))
            layer.weight.copy_(torch.from_numpy(weights[f"{head}.weight"].copy()))
            layer.bias.copy_(torch.from_numpy(weights[f"{head}.bias"].copy()))
        # the convolutions' outputs on real crops, before the (now identity) batch norms
        seen: dict[nn.Module, torch.Tensor] = {}
        hooks = [conv.register_forward_hook(lambda m, _i, o: seen.__setitem__(m, o)) for conv, _ in pairs]
        model.eval()
        model(_to_tensor(crops))
        for hook in hooks:
            hook.remove()
        for conv, bn in pairs:
            out = seen[conv]
            mean, var = out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3), unbiased=False)
            bn.bias.add_(mean)
            _running(bn)[0].copy_(mean)
            _running(bn)[1].copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))


def _running(bn: nn.BatchNorm2d) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch norm's running mean and variance (always kept by ours: ``track_running_stats``)."""
    assert bn.running_mean is not None and bn.running_var is not None
    return bn.running_mean, bn.running_var


def export_onnx(model: nn.Module, path: Path, size: int) -> None:
    """Export with a dynamic batch axis (the runtime classifies all crops of a frame at once) and a
    free height and width (the network is convolutional and pools globally), so that the runtime can
    also read wider crops with the index at its trained size (manifest ``suit_context``)."""
    model.eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["images"],
        output_names=["logits"],
        dynamic_axes={"images": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
