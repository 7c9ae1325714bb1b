"""Torch-free card recognition for the Pi: a corner-index detector and a crop classifier, both ONNX.

Two stages, because a corner index is the least a camera needs to name a card (cards overlap, hands
cover them) and a small crop classifier generalises across deck designs better than one 52-class
detector (vision-research.md, 1.2). The stages run with onnxruntime, numpy and OpenCV only, so the Pi
never carries torch or ultralytics; a test holds that.

``OnnxRecogniser`` is the :class:`vision.detections.Recogniser` the tracker and the evaluation use;
:func:`cards_in_image` turns one frame's corner readings into the set of cards it shows.
"""

from __future__ import annotations

from vision.recognise.cards import CardVote, cards_in_image
from vision.recognise.manifest import DEFAULT_MODEL_DIR, ClassifierSpec, DetectorSpec, Manifest, ModelError
from vision.recognise.recogniser import OnnxRecogniser

__all__ = [
    "DEFAULT_MODEL_DIR",
    "CardVote",
    "ClassifierSpec",
    "DetectorSpec",
    "Manifest",
    "ModelError",
    "OnnxRecogniser",
    "cards_in_image",
]
