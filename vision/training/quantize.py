"""The 8-bit classifier, calibrated on synthetic training crops.

onnxruntime's static quantisation (QDQ, per-channel int8 weights in a 7-bit range, uint8
activations) turns every convolution into an integer one; on a CPU with 8-bit dot-product
instructions (x86 VNNI, the Pi 5's
Arm ``sdot``) that runs the classifier about twice as fast at the same accuracy, which matters
because the classifier reads every corner in view, up to four times. Only convolutions are
quantised, so softmax-like heads keep their float precision. The detector stays float: an 8-bit
one, tried the same way, lost 1-2 points of recall and precision (vision/models/HISTORY.md); tried again on 5
December with its head's last convolutions left float, it found the held-out corners as the float one
does in half the time, but the whole reading lost a little on every set (docs/vision.md, "5 December,
night").

Calibration uses synthetic training crops only (never the real photos), fed as the runtime feeds
them (RGB in 0..1).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision.recognise.classifier import combine_upright_turns, softmax
from vision.recognise.session import open_session

from .dataset import NOT_INDEX

__all__ = ["classifier_batches", "onnx_accuracy", "onnx_predictions", "quantize_model"]


class _Batches(CalibrationDataReader):  # type: ignore[misc]
    def __init__(self, name: str, batches: Iterator[np.ndarray]) -> None:
        self.name = name
        self.batches = batches

    def get_next(self) -> dict[str, np.ndarray] | None:
        batch = next(self.batches, None)
        return None if batch is None else {self.name: batch}


def calibration_crops(crops_bgr: np.ndarray, seed: int, count: int = 1024) -> np.ndarray:
    """The training crops the 8-bit graph is calibrated on: ``count`` of them, drawn without repeats by ``seed``."""
    rng = np.random.default_rng(seed)
    return crops_bgr[rng.choice(len(crops_bgr), min(count, len(crops_bgr)), replace=False)]


def classifier_batches(crops_bgr: np.ndarray, batch: int = 64) -> Iterator[np.ndarray]:
    """Crops (N x H x W x 3 BGR uint8, as training cut them) as the runtime feeds them: RGB, 0..1."""
    for i in range(0, len(crops_bgr), batch):
        part = crops_bgr[i : i + batch, :, :, ::-1].astype(np.float32) / 255.0
        yield np.ascontiguousarray(part.transpose(0, 3, 1, 2))


def quantize_model(src: Path, dst: Path, batches: Iterator[np.ndarray], work: Path) -> Path:
    """Write the 8-bit version of ``src`` to ``dst``, calibrated on ``batches``; returns ``dst``."""
    import onnx

    work.mkdir(parents=True, exist_ok=True)
    prepared = work / f"{src.stem}-prepared.onnx"
    quant_pre_process(str(src), str(prepared))  # shape inference and graph clean-up, as onnxruntime advises
    name = onnx.load(str(prepared)).graph.input[0].name
    quantize_static(
        str(prepared),
        str(dst),
        _Batches(name, batches),
        quant_format=QuantFormat.QDQ,
        op_types_to_quantize=["Conv"],
        per_channel=True,
        # 7-bit weights: x86 CPUs without VNNI (AVX2, as this project's machines) multiply u8 activations by
        # s8 weights in pairs summed into 16 bits, which saturates at full range (onnxruntime's quantization
        # guide); the shipped graph lost 2.4 points of held-out crops to it here, none with the 7-bit range
        reduce_range=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    return dst


def onnx_predictions(path: Path, crops_bgr: np.ndarray, upright: bool = False) -> np.ndarray:
    """The class the graph at ``path`` names for each crop (N x H x W x 3 BGR uint8), fed as the runtime
    feeds it (an ``upright`` model's crops read at the four quarter turns and combined, as the runtime
    does): how an 8-bit graph is checked against its float original."""
    session = open_session(path, threads=1)
    name = session.get_inputs()[0].name

    def top(batch: np.ndarray) -> np.ndarray:
        if not upright:
            return np.asarray(np.asarray(session.run(None, {name: batch})[0]).argmax(axis=1), np.int64)
        turns = [np.ascontiguousarray(np.rot90(batch, k, axes=(2, 3))) for k in range(4)]
        reads = [softmax(np.asarray(session.run(None, {name: t})[0])) for t in turns]
        return np.asarray(combine_upright_turns(reads).argmax(axis=1), np.int64)

    predicted = [top(b) for b in classifier_batches(crops_bgr, 256)]
    return np.concatenate(predicted) if predicted else np.zeros(0, np.int64)


def onnx_accuracy(path: Path, crops_bgr: np.ndarray, labels: np.ndarray, upright: bool = False) -> float:
    """Top-1 accuracy of the classifier graph at ``path`` on the crops that show a corner index (a
    reject counts as wrong), as :func:`vision.training.classifier.evaluate` measures the torch model."""
    cards = labels < NOT_INDEX
    if not cards.any():
        return 0.0
    return float((onnx_predictions(path, crops_bgr[cards], upright) == labels[cards]).mean())
