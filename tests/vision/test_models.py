"""The committed models (vision/models/): they load with onnxruntime alone and read a deck they were
never trained on (the committed held-out demo deck), with nothing but numpy and OpenCV around them."""

import json
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort
import pytest

from engine.cards import Card, deck
from vision.synth.faces import HELD_OUT, corner_boxes, load_face
from vision.synth.scenes import SceneConfig, render_scene
from vision.training.dataset import crop_label

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
DEMO = "orell"


@pytest.fixture(scope="module")
def manifest():
    return json.loads((MODELS / "models.json").read_text())


def _session(path: Path) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def test_manifest_names_existing_models_and_the_card_order(manifest):
    assert (MODELS / manifest["detector"]["file"]).is_file()
    assert (MODELS / manifest["classifier"]["file"]).is_file()
    cards = [str(card) for card in sorted(deck(), key=lambda c: c.index)]
    reject = manifest["classifier"].get("reject_class")
    assert manifest["classifier"]["classes"] == cards + ([reject] if reject else [])
    assert manifest["detector"]["classes"] == ["corner"]
    assert set(manifest["held_out_designs"]) == set(HELD_OUT)
    assert manifest["trained"]


def _classify(session: ort.InferenceSession, crops_bgr: list[np.ndarray]) -> np.ndarray:
    batch = np.stack([c[..., ::-1] for c in crops_bgr]).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    (logits,) = session.run(None, {session.get_inputs()[0].name: batch})
    predicted: np.ndarray = np.asarray(logits).argmax(axis=1)
    return predicted


def _on_felt(face: np.ndarray) -> np.ndarray:
    """The face pasted on a green felt, with a margin, BGR."""
    h, w = face.shape[:2]
    out = np.zeros((h + 40, w + 40, 3), np.float32)
    out[:] = (40, 110, 30)
    alpha = face[..., 3:4].astype(np.float32) / 255.0
    out[20 : 20 + h, 20 : 20 + w] = out[20 : 20 + h, 20 : 20 + w] * (1 - alpha) + face[..., :3] * alpha
    return out.astype(np.uint8)


def test_classifier_reads_the_held_out_demo_deck(manifest):
    session = _session(MODELS / manifest["classifier"]["file"])
    size = manifest["classifier"]["input_size"][0]
    reject = manifest["classifier"].get("reject_class")
    classes: list[Card | None] = [None if t == reject else Card.from_text(t) for t in manifest["classifier"]["classes"]]
    crops, truth = [], []
    for card in deck():
        image = _on_felt(load_face(DEMO, card))
        for x1, y1, x2, y2 in corner_boxes(DEMO, card):
            # shrink the face so the index is as small as on a table camera (about 30 px tall)
            scale = 30.0 / (y2 - y1)
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            box = ((x1 + 20) * scale, (y1 + 20) * scale, (x2 + 20) * scale, (y2 + 20) * scale)
            crops.append(crop_label(small, box, None, size))
            truth.append(card)
    predicted = [classes[i] for i in _classify(session, crops)]
    accuracy = np.mean([p == t for p, t in zip(predicted, truth, strict=True)])
    assert accuracy >= ACCURACY_FLOOR, f"read {accuracy:.0%} of the held-out deck's corners"


def _letterbox(image: np.ndarray, size: int, fit: int) -> tuple[np.ndarray, float, float, float]:
    """The image scaled to ``fit`` px (the training scale) and centred in the ``size`` square input."""
    h, w = image.shape[:2]
    r = min(fit / h, fit / w)
    nh, nw = round(h * r), round(w * r)
    canvas = np.full((size, size, 3), 114, np.uint8)
    top, left = (size - nh) // 2, (size - nw) // 2
    canvas[top : top + nh, left : left + nw] = cv2.resize(image, (nw, nh))
    return canvas, r, left, top


def test_detector_finds_corner_indices_of_the_held_out_deck(manifest):
    session = _session(MODELS / manifest["detector"]["file"])
    size = manifest["detector"]["imgsz"]
    fit = manifest["detector"].get("train_imgsz", size)
    found = total = 0
    for seed in range(3):
        scene = render_scene(seed, [DEMO], SceneConfig(size=640, card_height=(120.0, 300.0), hand_probability=0.0))
        lb, r, left, top = _letterbox(scene.image, size, fit)
        x = lb[..., ::-1].astype(np.float32).transpose(2, 0, 1)[None] / 255.0
        (out,) = session.run(None, {session.get_inputs()[0].name: x})
        pred = np.asarray(out)[0].T  # anchors x (cx, cy, w, h, score)
        pred = pred[pred[:, 4] > CONF]
        boxes = np.stack(
            [
                (pred[:, 0] - pred[:, 2] / 2 - left) / r,
                (pred[:, 1] - pred[:, 3] / 2 - top) / r,
                (pred[:, 0] + pred[:, 2] / 2 - left) / r,
                (pred[:, 1] + pred[:, 3] / 2 - top) / r,
            ],
            axis=1,
        )
        for label in scene.labels:
            total += 1
            lx1, ly1, lx2, ly2 = label.box
            ix = np.clip(np.minimum(boxes[:, 2], lx2) - np.maximum(boxes[:, 0], lx1), 0, None)
            iy = np.clip(np.minimum(boxes[:, 3], ly2) - np.maximum(boxes[:, 1], ly1), 0, None)
            inter = ix * iy
            union = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) + (lx2 - lx1) * (ly2 - ly1) - inter
            if len(boxes) and (inter / np.maximum(union, 1e-6)).max() > 0.3:
                found += 1
    assert total >= 5
    assert found / total >= RECALL_FLOOR, f"found {found} of {total} labelled corners"


# Floors below what the committed models measure (see MODEL_CARD.md), so a broken export, a wrong
# channel order or a shuffled class list fails loudly; they are not the targets of issue 3.
ACCURACY_FLOOR = 0.9  # measured 1.0 on the 104 corners of the clean held-out deck at 30 px
RECALL_FLOOR = 0.5  # measured 13 of 16 labelled corners on three held-out scenes
CONF = 0.1
