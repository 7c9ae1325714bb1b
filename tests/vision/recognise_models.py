"""Tiny ONNX stand-ins for the shipped models, with the same inputs and outputs, built in tests.

The detector ignores its input and always "sees" the boxes it was built with (in letterboxed
pixels), so a test knows exactly where they must land in the caller's image. The classifier
averages each colour channel of the crop: a red crop reads as class 0, green as class 1, blue as
class 2 (of the 52 cards in deck order), so a test can paint a card and check it is read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from engine.cards import deck

CLASSES = [str(card) for card in deck()]
RED, GREEN, BLUE = CLASSES[0], CLASSES[1], CLASSES[2]


def _save(graph: onnx.GraphProto, path: Path) -> None:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="cardtable-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def detector_model(
    path: Path, imgsz: int, boxes: Sequence[tuple[float, float, float, float, float]], dynamic: bool = False
) -> None:
    """A YOLOv8-shaped detector whose output is always ``boxes`` (cx, cy, w, h, score), plus chaff."""
    rows = [*boxes, (5.0, 5.0, 4.0, 4.0, 0.01)]  # below any threshold: must be dropped
    constant = np.array(rows, dtype=np.float32).T[None]  # (1, 5, N)
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], keepdims=0),
        helper.make_node("Mul", ["mean", "zero"], ["nothing"]),
        helper.make_node("Add", ["boxes", "nothing"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "detector",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, *(["h", "w"] if dynamic else [imgsz] * 2)])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 5, len(rows)])],
        initializer=[
            numpy_helper.from_array(constant, "boxes"),
            numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        ],
    )
    _save(graph, path)


def classifier_model(
    path: Path,
    size: tuple[int, int],
    *,
    fixed_batch: bool = False,
    softmax: bool = False,
    reject: bool = False,
    top_half: bool = False,
    upright: bool = False,
    free_size: bool = False,
) -> None:
    """A 52-class classifier reading the crop's mean colour; logits, or probabilities with ``softmax``.
    With ``free_size`` its input's height and width are free (any crop size), as the shipped graphs'.

    With ``reject`` a 53rd class, "not an index", wins for light grey and white crops (every channel
    high), like the shipped classifier's reject class. With ``top_half`` it reads only the upper half
    of the crop, so a crop turned upside down reads differently (like a real index). With ``upright``
    (implies ``reject`` and ``top_half``) it is an upright-only reader: a "turned" class before "not an
    index" wins when the upper half holds no colour, as an index standing on its head would.
    """
    reject = reject or upright
    top_half = top_half or upright
    classes = len(CLASSES) + (1 if reject else 0) + (1 if upright else 0)
    weights = np.zeros((3, classes), np.float32)
    weights[0, 0] = weights[1, 1] = weights[2, 2] = 20.0
    if reject:
        weights[:, -1] = 8.0
    bias = np.zeros((classes,), np.float32)
    if upright:
        bias[-2] = 6.0  # "turned", unless a colour stands in the upper half
    last = "probs" if softmax else "output0"
    source = "top" if top_half else "images"
    nodes = [
        *([helper.make_node("Slice", ["images", "starts", "ends", "axes"], ["top"])] if top_half else []),
        helper.make_node("GlobalAveragePool", [source], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "weights"], ["product"]),
        helper.make_node("Add", ["product", "bias"], [last]),
    ]
    if softmax:
        nodes.append(helper.make_node("Softmax", ["probs"], ["output0"], axis=1))
    batch: int | str = 1 if fixed_batch else "batch"
    graph = helper.make_graph(
        nodes,
        "classifier",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [batch, 3, *(("h", "w") if free_size else size)])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [batch, classes])],
        initializer=[
            numpy_helper.from_array(weights, "weights"),
            numpy_helper.from_array(bias, "bias"),
            numpy_helper.from_array(np.array([0], np.int64), "starts"),
            numpy_helper.from_array(np.array([size[0] // 2], np.int64), "ends"),
            numpy_helper.from_array(np.array([2], np.int64), "axes"),
        ],
    )
    _save(graph, path)


def orientation_model(path: Path, size: tuple[int, int]) -> None:
    """An orientation network reading the crop's mean colour: red says its index needs no turn to stand
    upright, green one quarter turn, blue two; a grey crop leaves every turn alike (in doubt)."""
    weights = np.zeros((3, 4), np.float32)
    weights[0, 0] = weights[1, 1] = weights[2, 2] = 20.0
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "weights"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "orientation",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, *size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])],
        initializer=[numpy_helper.from_array(weights, "weights")],
    )
    _save(graph, path)


def write_models(
    directory: Path,
    *,
    imgsz: int = 64,
    boxes: Sequence[tuple[float, float, float, float, float]] | None = None,
    crop: tuple[int, int] = (24, 24),
    fixed_batch: bool = False,
    softmax: bool = False,
    manifest_extra: dict[str, object] | None = None,
    train_imgsz: int | None = None,
    dynamic: bool = False,
    reject: bool = False,
    upright: bool = False,
    free_size: bool = False,
    orientation: tuple[int, int] | None = None,
    detector_extra: dict[str, object] | None = None,
) -> Path:
    """Both models and their ``models.json`` in ``directory``; returns the directory. With
    ``orientation`` (its input size) an orientation network too (:func:`orientation_model`);
    ``detector_extra`` is added to the manifest's detector entry."""
    directory.mkdir(parents=True, exist_ok=True)
    detector_model(directory / "corner-detector.onnx", imgsz, boxes if boxes is not None else [], dynamic)
    classifier_model(
        directory / "corner-classifier.onnx",
        crop,
        fixed_batch=fixed_batch,
        softmax=softmax,
        reject=reject,
        upright=upright,
        free_size=free_size,
    )
    classifier: dict[str, object] = {
        "file": "corner-classifier.onnx",
        "input_size": list(crop),
        "channels": "RGB",
        "scale": "0..1 float",
        "classes": [*CLASSES, *(["turned"] if upright else []), *(["none"] if reject or upright else [])],
        **({"reject_class": "none"} if reject or upright else {}),
        **({"turned_class": "turned"} if upright else {}),
        **(manifest_extra or {}),
    }
    detector: dict[str, object] = {
        "file": "corner-detector.onnx",
        "imgsz": imgsz,
        "classes": ["corner"],
        **(detector_extra or {}),
    }
    if train_imgsz is not None:
        detector["train_imgsz"] = train_imgsz
    manifest: dict[str, object] = {"detector": detector, "classifier": classifier}
    if orientation is not None:
        orientation_model(directory / "corner-orientation.onnx", orientation)
        manifest["orientation"] = {"file": "corner-orientation.onnx", "sure": 0.9}
    (directory / "models.json").write_text(json.dumps(manifest), encoding="utf-8")
    return directory
