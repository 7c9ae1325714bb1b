"""The crop classifier's networks: either one, exported, is read by the Pi's runtime exactly as torch
reads it, and a network that does not exist is refused by name (needs the train extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch

from vision.recognise.classifier import CornerClassifier
from vision.recognise.manifest import ClassifierSpec, OrientationSpec
from vision.recognise.orientation import IndexOrientation
from vision.training import pipeline
from vision.training.classifier import CropNet, _warp, export_onnx, train_classifier
from vision.training.dataset import ARCHITECTURES, NOT_INDEX
from vision.training.orientation import accuracy, train_orientation
from vision.training.orientation import export_onnx as export_orientation


@pytest.mark.parametrize("arch", ARCHITECTURES)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own, about its legacy ONNX exporter
def test_an_exported_network_reads_the_same_on_the_runtime(arch: str, tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = CropNet(arch=arch).eval()
    path = tmp_path / "classifier.onnx"
    export_onnx(model, path, 48)
    spec = ClassifierSpec.model_validate(pipeline._manifest(pipeline._args([]), tmp_path)["classifier"])
    runtime = CornerClassifier(path, spec)
    crops = np.random.default_rng(0).random((5, 3, 48, 48), dtype=np.float32)
    with torch.no_grad():
        expected = torch.exp(model(torch.from_numpy(crops))).numpy()
    assert np.allclose(runtime._read(crops), expected, atol=1e-4)
    assert runtime._read(crops).shape == (5, 53)  # 52 cards and "not an index"
    # its height and width are free: a wider crop (manifest suit_context) is read by the same graph
    wide = np.random.default_rng(1).random((2, 3, 67, 67), dtype=np.float32)
    with torch.no_grad():
        assert np.allclose(runtime._read(wide), torch.exp(model(torch.from_numpy(wide))).numpy(), atol=1e-4)


def test_a_short_residual_training_learns_and_comes_back_ready_to_export(tmp_path: Path) -> None:
    """Trained channels-last, the model comes back in the ordinary layout and better than chance on
    crops it was trained on (two cards that differ in every pixel)."""
    rng = np.random.default_rng(1)
    crops = np.concatenate([np.full((48, 48, 48, 3), 30, np.uint8), np.full((48, 48, 48, 3), 220, np.uint8)])
    crops = np.clip(crops + rng.integers(-20, 20, crops.shape), 0, 255).astype(np.uint8)
    labels = np.array([0] * 48 + [NOT_INDEX] * 48, np.int64)
    log: list[dict[str, float]] = []
    model = train_classifier(crops, labels, (crops, labels), 20, 0, tmp_path, 600.0, log, arch="residual")
    assert model.arch == "residual" and len(log) == 20
    assert all(p.is_contiguous() for p in model.parameters())
    with torch.no_grad():
        x = torch.from_numpy(crops[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
        pred = model(x).argmax(1).numpy()
    assert (pred == labels).mean() > 0.9


def test_an_unknown_network_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="resnet50"):
        CropNet(arch="resnet50")
    with pytest.raises(SystemExit):
        pipeline._args(["--cls-arch", "resnet50"])
    assert "resnet50" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_classifier_is_trained_on_from_its_shipped_export(tmp_path: Path) -> None:
    """Only exports are committed, with each batch norm folded into its convolution. Loaded back, the
    network reads as the export does, and a training batch (normalised by its own statistics) reads
    about the same, so training on starts where the shipped model is, not from scrambled scales."""
    from vision.recognise.manifest import DEFAULT_MODEL_DIR
    from vision.training.classifier import load_onnx_weights

    rng = np.random.default_rng(2)
    crops = rng.integers(0, 256, (64, 48, 48, 3), dtype=np.uint8)
    crops[:, 8:40, 16:32] //= 4  # some ink
    shipped = DEFAULT_MODEL_DIR / "corner-classifier.onnx"
    model = CropNet()
    load_onnx_weights(model, shipped, crops)
    x = torch.from_numpy(crops[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
    runtime = CornerClassifier(
        shipped, ClassifierSpec.model_validate(pipeline._manifest(pipeline._args([]), tmp_path)["classifier"])
    )
    with torch.no_grad():
        read = torch.exp(model.eval()(x)).numpy()
        model.train()
        model.features[-1].eval()  # (dropout off: the batch norms alone)
        batch = torch.exp(model(x)).numpy()
    assert np.allclose(read, runtime._read(x.numpy()), atol=1e-4)
    assert np.abs(batch - read).max() < 1e-3


def test_only_the_plain_classifier_loads_from_an_export() -> None:
    from vision.recognise.manifest import DEFAULT_MODEL_DIR
    from vision.training.classifier import load_onnx_weights

    with pytest.raises(ValueError, match="plain"):
        load_onnx_weights(
            CropNet(arch="residual"), DEFAULT_MODEL_DIR / "corner-classifier.onnx", np.zeros((1, 48, 48, 3), np.uint8)
        )


def test_an_eight_bit_export_is_refused_by_name() -> None:
    """The 8-bit graph's weights sit behind quantisation nodes: training on from it is refused, not garbled."""
    from vision.recognise.manifest import DEFAULT_MODEL_DIR
    from vision.training.classifier import load_onnx_weights

    path = DEFAULT_MODEL_DIR / "corner-classifier-int8.onnx"
    with pytest.raises(ValueError, match="not a float export"):
        load_onnx_weights(CropNet(), path, np.zeros((1, 48, 48, 3), np.uint8))


def test_training_on_from_a_wrong_file_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.recognise.manifest import DEFAULT_MODEL_DIR

    out = tmp_path / "run"
    int8 = DEFAULT_MODEL_DIR / "corner-classifier-int8.onnx"
    assert pipeline.main(["--stages", "classifier", "--cls-init", str(int8), "--out", str(out)]) == 2
    assert "not a float export" in capsys.readouterr().err
    assert pipeline.main(["--stages", "classifier", "--cls-init", str(tmp_path / "nope.onnx"), "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
    assert not any(out.glob("crops-*.npz"))


def test_hidden_pips_leave_the_rank_and_teach_only_the_colour() -> None:
    """``--hide-pip``: the painted half is the pip's (the far end from the rank, whatever the crop's turn),
    blanks are never painted, and a hidden pip's suit target is split over the two suits of its colour."""
    from vision.training.classifier import _hide_pips, suit_targets

    upright = torch.ones(3, 48, 48)
    upright[:, 4:20, 16:32] = 0.0  # the rank, on top
    upright[:, 30:44, 18:30] = 0.0  # the pip, below
    turns = torch.tensor([0, 1, 2, 3, 0])
    # each crop as the camera saw it: turned back from upright by its turns
    x = torch.stack([torch.rot90(upright, -int(k), dims=(1, 2)) for k in turns])
    y = torch.tensor([0, 13, 26, 39, NOT_INDEX])  # 2S, 2H, 2D, 2C, and a blank
    hidden = _hide_pips(x, y, turns, torch.Generator().manual_seed(0), share=1.0)

    assert hidden.tolist() == [True, True, True, True, False]
    for crop, k in zip(x[:4], turns[:4], strict=True):
        back = torch.rot90(crop, int(k), dims=(1, 2))
        assert back[:, 4:20, 16:32].max() == 0.0, "the rank was painted over"
        assert back[:, 32:44, 18:30].min() > 0.8, "the pip is still there"
    assert torch.equal(x[4], torch.rot90(upright, 0, dims=(1, 2))), "a blank crop was painted"

    targets = suit_targets(y[:4] // 13, hidden[:4])
    expected = torch.tensor([[0.5, 0, 0, 0.5], [0, 0.5, 0.5, 0], [0, 0.5, 0.5, 0], [0.5, 0, 0, 0.5]])
    assert torch.equal(targets, expected)
    assert torch.equal(suit_targets(y[:4] // 13, torch.zeros(4, dtype=torch.bool)), torch.eye(4))


def test_hiding_pips_without_the_crops_turns_is_refused(tmp_path: Path) -> None:
    crops = np.zeros((4, 48, 48, 3), np.uint8)
    labels = np.array([0, 1, 2, NOT_INDEX])
    with pytest.raises(ValueError, match="turns"):
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], hide_pip=0.2)


def test_softened_crops_lose_fine_strokes_but_keep_their_size_and_range() -> None:
    """A one-pixel checkerboard (the finest stroke a 48-px crop holds) is smoothed to near-flat grey,
    while a large dark block stays dark: the low-resolution look the option teaches, not a new image."""
    from vision.training.classifier import _soften

    fine = torch.zeros(2, 3, 48, 48)
    fine[:, :, ::2, ::2] = 1.0
    fine[:, :, 1::2, 1::2] = 1.0
    block = torch.ones(2, 3, 48, 48)
    block[:, :, 12:36, 12:36] = 0.0
    out = _soften(torch.cat([fine, block]), torch.Generator().manual_seed(0))
    assert out.shape == (4, 3, 48, 48)
    assert float(out.min()) >= -1e-6 and float(out.max()) <= 1 + 1e-6
    assert float(fine.std()) > 0.45 and float(out[:2].std()) < 0.15
    assert float(out[2:, :, 20:28, 20:28].max()) < 0.1 and float(out[2:, :, :4, :4].min()) > 0.9


def test_shrunk_crops_keep_their_light_and_their_coarse_shape() -> None:
    """A 48-px batch averaged down to 32 px: the mean grey of each crop is kept and a large dark block
    stays dark where it was, so the early low-resolution epochs see the same index, smaller."""
    from vision.training.classifier import _shrunk

    block = torch.ones(2, 3, 48, 48)
    block[:, :, 12:36, 12:36] = 0.0
    out = _shrunk(block, 32)
    assert out.shape == (2, 3, 32, 32)
    assert torch.allclose(out.mean(dim=(1, 2, 3)), block.mean(dim=(1, 2, 3)), atol=0.01)
    assert float(out[:, :, 10:22, 10:22].max()) < 1e-6 and float(out[:, :, :6, :6].min()) > 1 - 1e-6


def test_low_resolution_epochs_come_first_and_the_rest_are_full_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``low_res`` the first share of the batches (paced by steps here: the time cap is far off) is
    shown shrunk, the rest at the crops' own size, and the model still learns and is kept at full size."""
    from vision.training import classifier

    sizes: list[int] = []
    real_heads = classifier.CropNet.heads

    def heads(self: CropNet, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if self.training:
            sizes.append(int(x.shape[-1]))
        return real_heads(self, x)

    monkeypatch.setattr(classifier.CropNet, "heads", heads)
    rng = np.random.default_rng(1)
    crops = np.concatenate([np.full((48, 48, 48, 3), 30, np.uint8), np.full((48, 48, 48, 3), 220, np.uint8)])
    crops = np.clip(crops + rng.integers(-20, 20, crops.shape), 0, 255).astype(np.uint8)
    labels = np.array([0] * 48 + [NOT_INDEX] * 48, np.int64)  # one batch of 96 an epoch
    log: list[dict[str, float]] = []
    model = train_classifier(crops, labels, (crops, labels), 8, 0, tmp_path, 600.0, log, low_res=32, low_res_share=0.5)
    assert sizes == [32] * 4 + [48] * 4
    with torch.no_grad():
        x = torch.from_numpy(crops[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
        assert (model(x).argmax(1).numpy() == labels).mean() > 0.9


@pytest.mark.parametrize(("side", "share"), [(48, 0.5), (4, 0.5), (32, 1.0)])
def test_low_resolution_epochs_out_of_range_are_refused(tmp_path: Path, side: int, share: float) -> None:
    crops = np.zeros((4, 48, 48, 3), np.uint8)
    labels = np.array([0, 1, 2, NOT_INDEX])
    with pytest.raises(ValueError, match="low-resolution"):
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], low_res=side, low_res_share=share)


def test_the_command_refuses_a_low_resolution_side_it_cannot_use(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        pipeline._args(["--cls-low-res", "64"])
    assert "8-47 px" in capsys.readouterr().err
    assert pipeline._args(["--cls-low-res", "32"]).cls_low_res == 32
    assert pipeline._args([]).cls_low_res == 0  # the shipped recipe: every epoch at full size


def _two_kinds() -> tuple[np.ndarray, np.ndarray]:
    """Dark crops of one card and pale blanks, 96 in all: one batch an epoch."""
    rng = np.random.default_rng(1)
    crops = np.concatenate([np.full((48, 48, 48, 3), 30, np.uint8), np.full((48, 48, 48, 3), 220, np.uint8)])
    crops = np.clip(crops + rng.integers(-20, 20, crops.shape), 0, 255).astype(np.uint8)
    return crops, np.array([0] * 48 + [NOT_INDEX] * 48, np.int64)


def _beside_plain(
    tmp_path: Path, log: list[dict[str, float]], ema: float = 0.0, warp: float = 0.0, mixup: float = 0.0
) -> tuple[CropNet, CropNet]:
    """A classifier trained 16 epochs on :func:`_two_kinds` with the options, and one trained on the same
    seed and batches without them."""
    crops, labels = _two_kinds()
    model = train_classifier(
        crops, labels, (crops, labels), 16, 0, tmp_path, 600.0, log, ema=ema, warp=warp, mixup=mixup
    )
    (tmp_path / "plain").mkdir()
    return model, train_classifier(crops, labels, (crops, labels), 16, 0, tmp_path / "plain", 600.0, [])


def _read_right(model: CropNet, crops: np.ndarray, labels: np.ndarray) -> float:
    """The share of BGR crops ``model`` names right."""
    with torch.no_grad():
        x = torch.from_numpy(crops[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
        return float((model(x).argmax(1).numpy() == labels).mean())


def test_the_weights_moving_average_is_what_is_kept_and_it_still_reads(tmp_path: Path) -> None:
    crops, labels = _two_kinds()
    log: list[dict[str, float]] = []
    averaged, plain = _beside_plain(tmp_path, log, ema=0.5)
    assert all("raw_val_acc" in entry for entry in log)  # the raw weights' reading is logged beside
    # the same seed and batches: the plain run's weights are the raw ones, the kept ones their average
    first = next(iter(averaged.state_dict()))
    assert not torch.equal(averaged.state_dict()[first], plain.state_dict()[first])
    assert _read_right(averaged, crops, labels) > 0.9


def test_a_moving_average_decay_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crops, labels = _two_kinds()
    with pytest.raises(ValueError, match="moving average needs a decay"):
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], ema=1.0)
    with pytest.raises(SystemExit):
        pipeline._args(["--cls-ema", "1"])
    assert "a decay per step in 0..0.99999" in capsys.readouterr().err
    assert pipeline._args([]).cls_ema == 0.0  # the shipped recipe: no average


def test_bent_crops_keep_their_figure_in_place_and_differ_crop_by_crop() -> None:
    """A warp moves a crop's ink a little, not off the crop: a dark bar in the middle of a pale crop stays
    mostly where it was, and two crops bent in one call are bent differently."""
    bar = torch.ones(2, 3, 48, 48)
    bar[:, :, 12:36, 20:28] = 0.0
    bent = _warp(bar.clone(), torch.Generator().manual_seed(0))
    assert bent.shape == bar.shape and float(bent.min()) >= 0.0 and float(bent.max()) <= 1.0
    ink = bent < 0.5
    assert (ink & (bar < 0.5)).sum() > 0.6 * (bar < 0.5).sum()  # most of the bar is still on the bar
    assert not torch.equal(bent[0], bent[1])  # each crop its own warp
    assert not torch.equal(bent, bar)


@pytest.mark.parametrize(("warp", "mixup"), [(1.0, 0.0), (0.0, 0.4)])
def test_a_classifier_trained_on_bent_or_blended_crops_still_learns_them(
    warp: float, mixup: float, tmp_path: Path
) -> None:
    crops, labels = _two_kinds()
    model, plain = _beside_plain(tmp_path, [], warp=warp, mixup=mixup)
    first = next(iter(model.state_dict()))
    assert not torch.equal(model.state_dict()[first], plain.state_dict()[first])  # the option changed training
    assert _read_right(model, crops, labels) > 0.9


def test_bending_and_blending_out_of_range_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crops, labels = _two_kinds()
    with pytest.raises(ValueError, match="share of crops bent"):
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], warp=1.5)
    with pytest.raises(ValueError, match="mixup"):
        turns = np.zeros(len(labels), np.int64)
        train_classifier(crops, labels, (crops, labels), 1, 0, tmp_path, 60.0, [], turns=turns, mixup=0.2)
    with pytest.raises(SystemExit):
        pipeline._args(["--cls-warp", "2"])
    assert "a share of the crops in 0..1" in capsys.readouterr().err
    args = pipeline._args([])
    assert (args.cls_warp, args.cls_mixup) == (0.0, 0.0)  # the shipped recipe: neither


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own, about its legacy ONNX exporter
def test_an_orientation_network_learns_which_way_up_and_the_runtime_reads_its_export(tmp_path: Path) -> None:
    """Crops of a bar over a dot (a rank over its pip), each at one of the four quarter turns and
    labelled with the turns that stand it upright: a short training tells them apart, and the Pi's
    runtime reads the export as torch does, leaving a blank crop's orientation unknown."""
    rng = np.random.default_rng(2)
    upright = np.full((48, 48, 3), 235, np.uint8)
    upright[8:22, 14:34] = 20  # the rank, above
    upright[30:40, 20:28] = 20  # the pip, below
    crops, turns = [], []
    for _ in range(256):
        k = int(rng.integers(0, 4))
        noisy = np.clip(upright.astype(int) + rng.integers(-25, 25, upright.shape), 0, 255).astype(np.uint8)
        crops.append(np.rot90(noisy, k).copy())
        turns.append((4 - k) % 4)  # np.rot90 by -k stands it upright again
    x, t = np.stack(crops), np.array(turns, np.int64)
    log: list[dict[str, float]] = []
    model = train_orientation(x, t, (x, t), 12, 0, tmp_path, 600.0, log, soften=0.0, ink_spread=0.0)
    assert accuracy(model, x, t) > 0.9 and len(log) == 12
    path = tmp_path / "orientation.onnx"
    export_orientation(model, path, 48)
    runtime = IndexOrientation(path, OrientationSpec(file=path.name, sure=0.6), (3, 48, 48))
    batch = (x[..., ::-1].transpose(0, 3, 1, 2) / np.float32(255)).astype(np.float32)
    read = runtime.turns(batch)
    sure = [i for i, turn in enumerate(read) if turn is not None]
    assert len(sure) > 0.8 * len(read) and all(read[i] == t[i] for i in sure)
    with torch.no_grad():
        expected = torch.softmax(model(torch.from_numpy(batch)), 1).numpy()
    assert [i for i in range(len(read)) if expected[i].max() >= 0.6] == sure  # the same graph, the same doubt
    blank = np.full((1, 3, 48, 48), 0.9, np.float32)
    assert IndexOrientation(path, OrientationSpec(file=path.name, sure=0.99), (3, 48, 48)).turns(blank) == [None]
