"""The model manifest (``models.json``): which ONNX files to load and how to feed them.

Training writes the manifest beside its exports, so the runtime never guesses an input size, a
channel order or a class order: a retrained model with a new size or class list loads without a
code change. Unknown keys are ignored (training may record its metrics there), but every key the
runtime uses is checked, and a bad manifest raises :class:`ModelError` naming the file and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from engine.cards import Card, CardError

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
"""Where the shipped models live: ``vision/models/`` in the source tree and the installed package."""

MANIFEST_NAME = "models.json"


class ModelError(RuntimeError):
    """The models cannot be loaded: a missing file, a bad manifest, or an ONNX graph of the wrong shape."""


class CloserLook(BaseModel):
    """Read a whole frame again closer when the indices it first found are small (``DetectorSpec.closer``).

    Where the median longer side of the boxes found in a whole frame, at the scale the detector saw
    them, is under ``below`` pixels, the frame is read again as overlapping square tiles ``tile`` times
    its short side, each fitted to the training scale, and the two readings' boxes are merged by NMS.
    Why: a photo is shown to the detector at its training scale whatever it holds, so a table seen
    from far shows it indices of 6-8 pixels, which it finds at half the rate of larger ones; read closer
    they are found. The tracker never needs it: its zones are already read close.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    below: float = Field(gt=0.0, le=1000.0)
    tile: float = Field(default=0.75, ge=0.3, lt=1.0)


class DetectorSpec(BaseModel):
    """The corner-index detector: an ultralytics YOLOv8 export, letterboxed square RGB input in 0..1."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    file: str
    imgsz: int = Field(gt=0, le=4096)
    """The graph's input size."""
    train_imgsz: int | None = Field(default=None, gt=0, le=4096)
    """The size the detector was trained at: frames are shown to it at this scale by default."""
    classes: list[str] = Field(min_length=1)
    closer: CloserLook | None = None
    """Whole frames whose indices are small are read again closer (off unless the manifest says so)."""


class SuitContext(BaseModel):
    """Read a doubtful suit again from a wider view (``ClassifierSpec.suit_context``).

    The same classifier, fully convolutional, is shown a square ``scale`` times the index box's longer
    side at a proportionally larger input, so the index keeps the pixel size it was trained at and the
    card's big pips beside it come into view. Its suit reading re-weighs the two suits of the colour the
    index reading chose (never the colour, never the rank), log-linearly by ``weight``, for the crops
    where one rank of one colour holds at least ``settled`` of the index reading and its better suit
    less than ``settled`` of that colour. Why: on the real webcam photos clubs were read as spades from
    the small index pip alone, while the large pips beside it are plainly clubs. Off in the shipped
    manifest: it confirmed more wrong cards on a held-out deck at the synthetic table (docs/vision.md,
    "3 December, late afternoon: the suit seen beside the index").
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    scale: float = Field(default=1.6, gt=1.0, le=4.0)
    weight: float = Field(default=2.0, gt=0.0, le=10.0)
    settled: float = Field(default=0.9, gt=0.5, le=1.0)


class PipSpec(BaseModel):
    """Read a doubtful suit again from the card's pips near the index (:mod:`vision.recognise.pips`).

    Where one rank of one colour holds at least ``rank`` of an index reading (``photo_rank`` in a photo
    of a whole table) and its better suit less than ``settled`` of that colour, the ink blobs of that
    colour within ``radius`` index lengths of the index (not inside any index box, of a pip's size and
    shape) are cut out, the nearest
    ``most`` of them read by a small pip network (``file``, ``size`` px square, RGB 0..1, five logits:
    the suits in ``Suit`` order, then "no pip"), and those it names a suit of the colour at least
    ``sure`` (and "no pip" under one half) re-weigh the colour's two suits log-linearly by ``weight``:
    never the colour, never the rank. Why: a deck that prints a bare rank in its corner (tango_nuevo)
    and a webcam that runs a small club's lobes into a spade's blob both leave the suit to the pips.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    file: str
    size: int = Field(default=32, ge=8, le=256)
    radius: float = Field(default=3.0, gt=0.0, le=10.0)
    most: int = Field(default=6, ge=1, le=32)
    sure: float = Field(default=0.9, gt=0.5, le=1.0)
    weight: float = Field(default=1.0, gt=0.0, le=10.0)
    settled: float = Field(default=0.9, gt=0.5, le=1.0)
    rank: float = Field(default=0.9, gt=0.5, le=1.0)
    """How sure the index reading must be of one rank and colour for its suit to be read again, at the table
    (a zone holds the card just played, so the blobs near its index are its own pips)."""
    photo_rank: float | None = Field(default=None, gt=0.5, le=1.0)
    """The same for a photo of a whole table (``OnnxRecogniser(photo=True)``), whose fanned rows put a
    neighbour's pips beside every index (a photo gives each pip to the index it lies nearest to, which
    the table does not); None: ``rank``."""


class ClassifierSpec(BaseModel):
    """The crop classifier that names the card from one corner index (any rotation)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    file: str
    float_file: str | None = None
    """The float graph ``file`` was quantised from, when ``file`` is the 8-bit one (kept to compare)."""
    input_size: tuple[int, int]
    """``(height, width)`` of one crop."""
    channels: Literal["RGB", "BGR", "GRAY"] = "RGB"
    scale: Literal["0..1 float", "0..255 float"] = "0..1 float"
    reject_class: str | None = None
    """The class (listed last in ``classes``) that means "no corner index in this crop", if any."""
    turned_class: str | None = None
    """The class (listed just before ``reject_class``) that means "an index, but not upright": the
    classifier reads indices upright only, and the runtime reads every quarter turn and adds up the
    cards (:func:`vision.recognise.classifier.combine_upright_turns`). Needs a ``reject_class``."""
    classes: list[str] = Field(min_length=2)
    crop_scale: float = Field(default=1.15, ge=1.0, le=4.0)
    """The crop's side over the detector box's longer side (training cut its crops at 1.15 on average)."""
    crop_shape: Literal["square", "box"] = "square"
    """``square``: a square centred on the box, so the index keeps its aspect ratio whatever its
    rotation (how training cut its crops); ``box``: the box scaled by ``crop_scale``, stretched."""
    thin_ink: int = Field(default=0, ge=0, le=5)
    """Read each crop the other readings leave in doubt once more with its dark ink thinned by a grey
    dilation of this size (2: a 2x2 neighbourhood) and combine the two by their geometric mean; 0: off.
    See :func:`vision.recognise.classifier.thin_ink`."""
    rotations: Literal[1, 2, 4] = 4
    """Read each crop at this many quarter turns and combine (geometric mean): an index is printed
    at every angle, and averaging the turns steadies a small network's reading."""
    suit_context: SuitContext | None = None
    """Read doubtful suits again with the big pips in view (:class:`SuitContext`); needs a graph whose
    height and width are free. None: off."""

    @field_validator("input_size")
    @classmethod
    def _positive(cls, value: tuple[int, int]) -> tuple[int, int]:
        if min(value) <= 0 or max(value) > 1024:
            raise ValueError(f"input_size must be two sizes in 1..1024, not {list(value)}")
        return value

    @field_validator("classes")
    @classmethod
    def _cards(cls, value: list[str], info: ValidationInfo) -> list[str]:
        reject = info.data.get("reject_class")
        turned = info.data.get("turned_class")
        if reject is not None and value[-1] != reject:
            raise ValueError(f"reject_class {reject!r} must be the last of classes")
        if turned is not None and (reject is None or len(value) < 3 or value[-2] != turned):
            raise ValueError(f"turned_class {turned!r} must come just before a reject_class, last of classes")
        named = len(value) - (reject is not None) - (turned is not None)
        for text in value[:named]:
            try:
                Card.from_text(text)
            except CardError as exc:
                raise ValueError(str(exc)) from None
        if len(set(value)) != len(value):
            raise ValueError("classes repeat a card")
        return value

    @property
    def card_classes(self) -> list[str]:
        """The classes that name cards: all but the reject (and turned) class."""
        return self.classes[: len(self.classes) - (self.reject_class is not None) - (self.turned_class is not None)]

    def cards(self) -> list[Card]:
        """The output classes that name cards, as cards, in output order (the reject class left out)."""
        return [Card.from_text(text) for text in self.card_classes]


class OrientationSpec(BaseModel):
    """Which way up each corner index stands (:mod:`vision.recognise.orientation`): a small network that
    reads the classifier's own crops (same size, channels and scale) and gives four logits, the quarter
    turns that would stand the index upright. Optional: without it no detection carries ``turns``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    file: str
    sure: float = Field(default=0.9, gt=0.25, le=1.0)
    """The probability a turn needs to be kept; below it the index's orientation is left unknown (None),
    which the card vote treats as "could be either" (an index lying near 45 degrees has two)."""


class Manifest(BaseModel):
    """The whole ``models.json``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    detector: DetectorSpec
    classifier: ClassifierSpec
    orientation: OrientationSpec | None = None
    pips: PipSpec | None = None
    """The suits an index leaves in doubt read again from the pips near it (:class:`PipSpec`); None: off."""

    @classmethod
    def load(cls, model_dir: Path) -> Manifest:
        """Read and check ``model_dir/models.json``; raise :class:`ModelError` saying what is wrong."""
        path = Path(model_dir) / MANIFEST_NAME
        if not path.is_file():
            raise ModelError(f"no model manifest at {path} (train with `cardtable vision train`, or pass --models DIR)")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"{path}: not readable JSON ({exc})") from None
        try:
            manifest = cls.model_validate(data)
        except ValidationError as exc:
            raise ModelError(f"{path}: {_explain(exc)}") from None
        for spec in (manifest.detector, manifest.classifier, manifest.orientation, manifest.pips):
            if spec is not None and not (Path(model_dir) / spec.file).is_file():
                raise ModelError(f"{path}: model file {spec.file!r} is missing from {model_dir}")
        return manifest


def _explain(exc: ValidationError) -> str:
    """Pydantic's errors as ``field.path: message`` lines, without its URLs."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "(top level)"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)
