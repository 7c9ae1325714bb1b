"""Where things go on the mat: zones and markers in table millimetres, defined in one place.

The mat, the calibration, the synthetic renderer and the tracker all read the same
:class:`ZoneLayout`, so a zone moved here moves everywhere at once. Table coordinates have their
origin at the mat's top-left corner (as printed, seen from seat 0), x to the right, y down, in mm.

The built-in layouts are drawn for an A2 sheet in landscape (594 x 420 mm) and scaled in proportion
to other paper; the four ArUco markers (``DICT_4X4_50``, ids 0 top-left, 1 top-right,
2 bottom-right, 3 bottom-left) sit in the corners. A layout can also come from config as a dict
(:meth:`ZoneLayout.from_dict`), which rejects unknown keys and names the bad one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

ZoneKind = Literal["play", "pile", "stock", "exchange"]
"""``play``: one card at a time (a seat's trick zone); ``pile``: cards stack (Makao discard pile);
``stock``: face-down cards, never read; ``exchange``: cards shown during a 3-5-8 exchange."""

ARUCO_DICTIONARY: Final = "DICT_4X4_50"
MARKER_IDS: Final = (0, 1, 2, 3)
"""Marker ids by corner: top-left, top-right, bottom-right, bottom-left."""
MARKER_CORNER_NAMES: Final = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}

PAPER_SIZES_MM: Final[dict[str, tuple[float, float]]] = {
    # landscape: (width, height)
    "A0": (1189.0, 841.0),
    "A1": (841.0, 594.0),
    "A2": (594.0, 420.0),
    "A3": (420.0, 297.0),
    "A4": (297.0, 210.0),
    "A5": (210.0, 148.0),
}
BASE_PAPER: Final = "A2"
CARD_SIZE_MM: Final = (63.0, 88.0)
"""A poker-size card (width, height); bridge cards are 57 x 88."""


class LayoutError(ValueError):
    """A zone layout, game name or paper size that cannot be used; the message names what was wrong."""


@dataclass(frozen=True, slots=True)
class Zone:
    """One named region of the mat: a polygon in table mm."""

    name: str
    polygon: tuple[tuple[float, float], ...]
    kind: ZoneKind = "play"
    label: str = ""

    @property
    def center(self) -> tuple[float, float]:
        pts = np.asarray(self.polygon, dtype=np.float64)
        return (float(pts[:, 0].mean()), float(pts[:, 1].mean()))

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        pts = np.asarray(self.polygon, dtype=np.float64)
        return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))

    @property
    def reads_cards(self) -> bool:
        """Whether cards in this zone lie face up and are read (not the face-down stock)."""
        return self.kind != "stock"

    def distance(self, x: float, y: float) -> float:
        """Signed distance in mm from the zone's edge: negative inside, positive outside."""
        import cv2

        contour = np.asarray(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return -float(cv2.pointPolygonTest(contour, (float(x), float(y)), True))


@dataclass(frozen=True, slots=True)
class Marker:
    """One ArUco marker printed on the mat: its id, centre and side length in table mm."""

    id: int
    center: tuple[float, float]
    size: float

    @property
    def corners(self) -> np.ndarray:
        """The four corners in table mm, in OpenCV's order (top-left, top-right, bottom-right, bottom-left)."""
        cx, cy = self.center
        h = self.size / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class ZoneLayout:
    """The mat of one game: its size, markers and zones, all in table mm."""

    game: str
    width: float
    height: float
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise LayoutError(f"no zone {name!r} in the {self.game} layout (zones: {', '.join(self.zone_names)})")

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    def marker(self, marker_id: int) -> Marker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise LayoutError(f"no marker id {marker_id} on the {self.game} mat")

    def zone_at(self, x: float, y: float, margin: float = 0.0) -> str | None:
        """The zone containing the point, or the nearest one within ``margin`` mm; ``None`` if none."""
        best: tuple[float, str] | None = None
        for z in self.zones:
            d = z.distance(x, y)
            if d <= margin and (best is None or d < best[0]):
                best = (d, z.name)
        return None if best is None else best[1]

    def scaled(self, width: float, height: float) -> ZoneLayout:
        """The same layout stretched to another sheet (markers keep their margin proportion)."""
        sx, sy = width / self.width, height / self.height
        s = min(sx, sy)
        markers = tuple(Marker(m.id, (m.center[0] * sx, m.center[1] * sy), m.size * s) for m in self.markers)
        zones = tuple(Zone(z.name, tuple((x * sx, y * sy) for x, y in z.polygon), z.kind, z.label) for z in self.zones)
        return ZoneLayout(self.game, width, height, markers, zones)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "width": self.width,
            "height": self.height,
            "markers": [{"id": m.id, "center": list(m.center), "size": m.size} for m in self.markers],
            "zones": [
                {"name": z.name, "polygon": [list(p) for p in z.polygon], "kind": z.kind, "label": z.label}
                for z in self.zones
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> ZoneLayout:
        """Build a layout from config data; unknown keys or bad values raise :class:`LayoutError` with the key path."""
        try:
            model = _LayoutModel.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in exc.errors()
            )
            raise LayoutError(f"bad zone layout: {problems}") from None
        names = [z.name for z in model.zones]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise LayoutError(f"bad zone layout: zone names repeat: {', '.join(dupes)}")
        return cls(
            game=model.game,
            width=model.width,
            height=model.height,
            markers=tuple(Marker(m.id, (m.center[0], m.center[1]), m.size) for m in model.markers),
            zones=tuple(Zone(z.name, tuple((p[0], p[1]) for p in z.polygon), z.kind, z.label) for z in model.zones),
        )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _MarkerModel(_Strict):
    id: int = Field(ge=0, lt=50)
    center: tuple[float, float]
    size: float = Field(gt=0)


class _ZoneModel(_Strict):
    name: str = Field(min_length=1)
    polygon: list[tuple[float, float]] = Field(min_length=3)
    kind: ZoneKind = "play"
    label: str = ""


class _LayoutModel(_Strict):
    game: str
    width: float = Field(gt=0)
    height: float = Field(gt=0)
    markers: list[_MarkerModel] = Field(min_length=4, max_length=4)
    zones: list[_ZoneModel] = Field(min_length=1)


def _rect(cx: float, cy: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    return ((cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2), (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2))


def _corner_markers(width: float, height: float, size: float = 50.0, margin: float = 15.0) -> tuple[Marker, ...]:
    o = margin + size / 2
    centers = {0: (o, o), 1: (width - o, o), 2: (width - o, height - o), 3: (o, height - o)}
    return tuple(Marker(i, centers[i], size) for i in MARKER_IDS)


def _layout_358() -> ZoneLayout:
    w, h = PAPER_SIZES_MM[BASE_PAPER]
    zones = (
        Zone("seat0", _rect(w * 0.50, h * 0.72, 130, 150), "play", "SEAT 1"),
        Zone("seat1", _rect(w * 0.22, h * 0.42, 130, 150), "play", "SEAT 2"),
        Zone("seat2", _rect(w * 0.78, h * 0.42, 130, 150), "play", "SEAT 3"),
        Zone("exchange", _rect(w * 0.50, h * 0.27, 180, 110), "exchange", "EXCHANGE"),
    )
    return ZoneLayout("358", w, h, _corner_markers(w, h), zones)


def _layout_makao() -> ZoneLayout:
    w, h = PAPER_SIZES_MM[BASE_PAPER]
    zones = (
        Zone("pile", _rect(w * 0.40, h * 0.50, 170, 190), "pile", "PILE"),
        Zone("stock", _rect(w * 0.68, h * 0.50, 120, 150), "stock", "STOCK"),
    )
    return ZoneLayout("makao", w, h, _corner_markers(w, h), zones)


GAMES: Final = ("358", "makao")


def parse_paper(text: str) -> tuple[float, float]:
    """``"A2"`` or ``"600x400mm"`` (``"600x400"``) to a landscape (width, height) in mm."""
    key = text.strip().upper()
    if key in PAPER_SIZES_MM:
        return PAPER_SIZES_MM[key]
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*X\s*(\d+(?:\.\d+)?)\s*(?:MM)?", key)
    if not m:
        raise LayoutError(f"not a paper size: {text!r} (expected one of {', '.join(PAPER_SIZES_MM)} or WxHmm)")
    a, b = float(m.group(1)), float(m.group(2))
    if min(a, b) < 100:
        raise LayoutError(f"paper {text!r} is too small for a card mat (at least 100 mm each side)")
    return (max(a, b), min(a, b))


def layout_for(game: str, paper: str | tuple[float, float] = BASE_PAPER) -> ZoneLayout:
    """The built-in layout of ``game`` (``358`` or ``makao``) on ``paper``."""
    key = game.strip().lower().replace("-", "")
    if key == "358":
        base = _layout_358()
    elif key == "makao":
        base = _layout_makao()
    else:
        raise LayoutError(f"no mat layout for game {game!r} (expected one of {', '.join(GAMES)})")
    size = parse_paper(paper) if isinstance(paper, str) else paper
    if size == (base.width, base.height):
        return base
    return base.scaled(*size)


@functools.cache
def _printed_labels() -> dict[str, str]:
    return {zone.name: zone.label for game in GAMES for zone in layout_for(game).zones if zone.label}


def printed_label(zone: str) -> str:
    """``zone`` as the mat prints it ("SEAT 2" for ``seat1``, "PILE" for ``pile``), for what players read or
    hear; a name no built-in layout has comes back as it is.

    Why: the zone names are those of the records, the feed and the engine, which count seats from 0; the mat
    counts them from 1, as players do. "Ada: the card in seat0 cannot be read" sent Ada to the zone printed
    SEAT 1 only if she knew the code's numbering."""
    return _printed_labels().get(zone, zone)
