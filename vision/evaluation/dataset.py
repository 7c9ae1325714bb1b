"""Labelled image folders to score recognition against: real photos or synthetic held-out scenes.

The format is the one of ``../shared/data/real-cards-dev`` so that real and synthetic sets score the
same way: ``index.json`` is a list of entries ``{"image": "images/x.jpg", "cards": [{"card": "JD",
"box": [x1, y1, x2, y2]}, ...], "subset": "...", "distinct_cards": ["JD", ...]}``. ``width``,
``height`` and keys this module does not know are ignored; a missing ``distinct_cards`` is taken from
``cards``; a missing ``subset`` is ``"all"``. A malformed index raises :class:`DatasetError` naming the
entry and the field, never a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.cards import Card, CardError

INDEX_NAME = "index.json"


class DatasetError(ValueError):
    """A dataset folder that cannot be evaluated; the message says which file and entry is wrong."""


class _Corner(BaseModel):
    model_config = ConfigDict(extra="ignore")

    card: str
    box: tuple[float, float, float, float]

    @field_validator("card")
    @classmethod
    def _card(cls, value: str) -> str:
        _parse(value)
        return value


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    image: str = Field(min_length=1)
    cards: list[_Corner] = Field(default_factory=list)
    subset: str = Field(default="all", min_length=1)
    distinct_cards: list[str] | None = None

    @field_validator("distinct_cards")
    @classmethod
    def _cards(cls, value: list[str] | None) -> list[str] | None:
        for text in value or []:
            _parse(text)
        return value


def _parse(text: str) -> Card:
    try:
        return Card.from_text(text)
    except CardError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class LabelledCorner:
    """One labelled corner index: its card and box ``(x1, y1, x2, y2)`` in image pixels."""

    card: Card
    box: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Sample:
    """One image of a dataset and what it shows."""

    path: Path
    subset: str
    corners: tuple[LabelledCorner, ...]
    cards: frozenset[Card]

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True, slots=True)
class Dataset:
    """A loaded, checked dataset folder."""

    root: Path
    samples: tuple[Sample, ...]

    @classmethod
    def load(cls, root: Path | str) -> Dataset:
        """Read ``root/index.json`` and check every entry and image file exists."""
        root = Path(root)
        if not root.is_dir():
            raise DatasetError(f"{root}: no such dataset folder")
        index = root / INDEX_NAME
        if not index.is_file():
            raise DatasetError(f"{root}: no {INDEX_NAME} in the dataset folder")
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{index}: not readable JSON ({exc})") from None
        if not isinstance(data, list):
            raise DatasetError(f"{index}: expected a list of image entries, found {type(data).__name__}")
        samples = []
        for number, raw in enumerate(data):
            where = f"{index}: entry {number}"
            if isinstance(raw, dict) and isinstance(raw.get("image"), str):
                where += f" ({raw['image']})"
            try:
                entry = _Entry.model_validate(raw)
            except ValidationError as exc:
                raise DatasetError(f"{where}: {_explain(exc)}") from None
            path = root / entry.image
            if not path.is_file():
                raise DatasetError(f"{where}: image file {path} does not exist")
            corners = tuple(LabelledCorner(Card.from_text(c.card).face, c.box) for c in entry.cards)
            if entry.distinct_cards is None:
                cards = frozenset(c.card for c in corners)
            else:
                cards = frozenset(Card.from_text(t).face for t in entry.distinct_cards)
            samples.append(Sample(path=path, subset=entry.subset, corners=corners, cards=cards))
        if not samples:
            raise DatasetError(f"{index}: the dataset lists no images")
        return cls(root=root, samples=tuple(samples))


def _explain(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "entry"
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)
