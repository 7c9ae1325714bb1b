"""Card face images: rendered from Debian's vector decks for training, or read from the small deck
committed under ``vision/assets/deck/`` for the synthetic table renderer at runtime.

Training needs many designs (so the models learn what a corner index is, not one printer's font) and
must keep some designs out entirely (the honest measure of "a deck it has never seen"). The designs,
the held-out list and where each SVG lives are therefore data here, in one place.

Faces are rendered with ``rsvg-convert --export-id`` (librsvg renders both the aisleriot sheets and the
KDE decks per element id correctly; cairosvg does not) and cached as BGRA PNGs under ``data/faces/``.
Nothing here needs the Debian packages at runtime when a design is in the committed assets.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit

from .drawn import DRAWN, FontsMissing, is_current, is_drawn, render_drawn

__all__ = [
    "ASSET_DIR",
    "CACHE_DIR",
    "DESIGNS",
    "DRAWN",
    "HELD_OUT",
    "TRAIN_DESIGNS",
    "Design",
    "FaceError",
    "available_designs",
    "card_code",
    "load_back",
    "load_face",
    "load_jokers",
    "render_design",
    "render_jokers",
]

REPO = Path(__file__).resolve().parents[2]
ASSET_DIR = Path(__file__).resolve().parents[1] / "assets" / "deck"
CACHE_DIR = REPO / "data" / "faces"
FACE_HEIGHT = 360  # px; a corner index is then ~80 px tall, more than any crop or scene needs

_AISLERIOT = Path("/usr/share/aisleriot/cards")
_KDE = Path("/usr/share/carddecks")
NPM_DECKS = REPO / "data" / "npm-decks"
"""Where ``scripts/train-deps.sh`` unpacks the npm packages of per-card SVG decks."""


class FaceError(RuntimeError):
    """A design or face that cannot be loaded; the message says which and what to install."""


@dataclass(frozen=True, slots=True)
class Design:
    """One 52-card vector deck. ``kind`` says how its faces are found: ``"aisleriot"`` (one sheet),
    ``"kde"`` (one file, element ids ``1_club``), or one SVG file per card in the folder ``svg``:
    ``"kennard"`` (``TH.svg``, ``AC.svg``) or ``"responsive"`` (``10h.svg``, ``1c.svg``, ``13s.svg``).
    ``back`` is a back's SVG for a deck that has none of its own."""

    name: str
    kind: str
    svg: Path
    back: Path | None = None


def _aisleriot(name: str) -> Design:
    return Design(name, "aisleriot", _AISLERIOT / f"{name}.svgz")


def _kde(name: str, file: str) -> Design:
    return Design(name, "kde", _KDE / f"svg-{name}" / file)


_PER_CARD_KINDS = ("kennard", "responsive")
"""Design kinds with one SVG file per card (:func:`_card_file`)."""


def _per_card(name: str, kind: str, folder: str, back: str | None = None) -> Design:
    return Design(name, kind, NPM_DECKS / folder, None if back is None else NPM_DECKS / back)


_RESPONSIVE = "playing-cards-standard-deck/package/cards"
_KENNARD = "react-playing-cards/package/src/images"
_BACK = f"{_RESPONSIVE}/back.svg"  # a tile: the backs are cards of this pattern (:func:`_patterned_back`)
# One SVG per card, from npm (scripts/train-deps.sh): Adrian Kennard's generated decks (CC0), as normal
# and as large-index faces (two colours only; the four-colour ones are not a standard deck), and the
# "responsive playing cards" after Chris Aguilar's vectorized deck (LGPL-3). Trained on only with
# ``--npm-decks`` (vision/models/HISTORY.md).
NPM_DESIGNS: dict[str, Design] = {
    d.name: d
    for d in [
        _per_card("kennard", "kennard", f"{_KENNARD}/2color", _BACK),
        _per_card("kennard-large-index", "kennard", f"{_KENNARD}/2color-bf", _BACK),
        _per_card("responsive", "responsive", _RESPONSIVE, _BACK),
    ]
}

# Standard French-suited designs with A/K/Q/J indices (vision-research.md section 3). Variants that
# share art with another entry (anglo_bitmap, gnomangelo, KDE dondorf/gm-paris/tigullio) are left
# out; konqi-modern is excluded by licence; the Oxygen decks print a bare rank in odd places (no
# rank-over-suit index), unlike any real deck, so they would only teach the detector wrong boxes.
DESIGNS: dict[str, Design] = {
    d.name: d
    for d in [
        _aisleriot("anglo"),
        _aisleriot("anglo_modern"),
        _aisleriot("anglo_poker"),
        _aisleriot("atlasnye"),
        _aisleriot("bellot"),
        _aisleriot("dondorf"),
        _aisleriot("neoclassical"),
        _aisleriot("orell"),
        _aisleriot("ornamental"),
        _aisleriot("paris"),
        _aisleriot("plastic"),
        _aisleriot("simplistic"),
        _aisleriot("tango"),
        _aisleriot("tango_nuevo"),
        _aisleriot("tigullio"),
        _kde("standard", "standard.svgz"),
        _kde("nicu-ornamental", "ornamental.svgz"),
        _kde("nicu-white", "white.svgz"),
        _kde("penguins", "penguins.svgz"),
        _kde("jolly-royal", "jolly-royal.svgz"),
        _kde("ancient-egyptians", "Ancient_Egyptians.svgz"),
    ]
} | NPM_DESIGNS

# Never used for training: the measure of a deck the models have never seen. The committed demo
# deck is one of these, so the demo never shows the models a face they were trained on.
HELD_OUT: tuple[str, ...] = ("anglo_modern", "orell", "tango_nuevo", "penguins")
# The vector decks not held out, then the procedurally drawn decks (vision.synth.drawn): drawn fonts
# and pip shapes widen what the classifier has seen; the held-out measure stays on real deck art.
TRAIN_DESIGNS: tuple[str, ...] = (*(n for n in DESIGNS if n not in HELD_OUT and n not in NPM_DESIGNS), *DRAWN)

_AISLERIOT_SUIT = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart", Suit.SPADES: "spade"}
_COURT = {Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}


def card_code(card: Card) -> str:
    """File-name form of a card's face: ``"10H"``, ``"QS"`` (never the ``#copy`` suffix)."""
    return str(card.face)


def _element_id(design: Design, card: Card) -> str:
    suit = _AISLERIOT_SUIT[card.suit]
    if card.rank == Rank.ACE:
        rank = "1"
    elif card.rank in _COURT:
        rank = _COURT[card.rank]
    else:
        rank = str(int(card.rank))
    return f"{suit}_{rank}" if design.kind == "aisleriot" else f"{rank}_{suit}"


def _card_file(design: Design, card: Card) -> Path:
    """The SVG of ``card`` in a deck of one file per card."""
    if design.kind == "kennard":
        rank = "T" if card.rank == Rank.TEN else card.rank.code
        return design.svg / f"{rank}{card.suit.value}.svg"
    rank = "1" if card.rank == Rank.ACE else str(int(card.rank))
    return design.svg / f"{rank}{card.suit.value.lower()}.svg"


def _render_file(svg: Path, height: int) -> np.ndarray | None:
    """One card's SVG file, rendered at twice ``height`` and shrunk to it (area averaging)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "face.png"
        res = subprocess.run(
            ["rsvg-convert", "-h", str(2 * height), str(svg), "-o", str(out)], capture_output=True, check=False
        )
        if res.returncode != 0 or not out.exists():
            return None
        card = _largest_card(np.asarray(cv2.imread(str(out), cv2.IMREAD_UNCHANGED)))
    return None if card is None else _fit(card, height)


def _patterned_back(pattern: Path, like: np.ndarray) -> np.ndarray:
    """A back: the card ``like`` (its outline and paper) with a white border round a panel tiled with
    the SVG ``pattern`` (the responsive deck's back is such a tile, not a card)."""
    h, w = like.shape[:2]
    tile_side = max(8, round(w / 6))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tile.png"
        subprocess.run(
            ["rsvg-convert", "-w", str(tile_side), "-h", str(tile_side), str(pattern), "-o", str(out)],
            capture_output=True,
            check=True,
        )
        tile = cv2.imread(str(out), cv2.IMREAD_COLOR)
    if tile is None:
        raise FaceError(f"rsvg-convert could not render the back pattern {pattern}")
    back = like.copy()
    back[..., :3] = 255
    m = max(2, round(0.07 * w))
    panel = np.tile(tile, ((h - 2 * m) // tile_side + 1, (w - 2 * m) // tile_side + 1, 1))
    back[m : h - m, m : w - m, :3] = panel[: h - 2 * m, : w - 2 * m]
    return back


def _largest_card(img: np.ndarray | None) -> np.ndarray | None:
    """Crop a render to its largest opaque region: librsvg's element bounds sometimes include stray
    artwork far from the card (or the whole sheet), but the card body is always the biggest blob."""
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return None
    mask = (img[..., 3] > 128).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if count < 2:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[best, :4])
    if w < 20 or h < 20 or not 0.5 < w / h < 0.85:
        return None
    return img[y : y + h, x : x + w]


def _fit(img: np.ndarray, height: int) -> np.ndarray:
    width = round(img.shape[1] * height / img.shape[0])
    return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)


def _render_kde(design: Design, element: str, height: int) -> np.ndarray | None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "face.png"
        for zoom in ("4", "1"):
            res = subprocess.run(
                ["rsvg-convert", "-z", zoom, f"--export-id={element}", str(design.svg), "-o", str(out)],
                capture_output=True,
                check=False,
            )
            if res.returncode == 0 and out.exists():
                card = _largest_card(np.asarray(cv2.imread(str(out), cv2.IMREAD_UNCHANGED)))
                if card is not None and card.shape[0] >= height // 2:
                    return _fit(card, height)
    return None


def _render_sheet(design: Design, height: int) -> dict[str, np.ndarray]:
    """Aisleriot sheets are a 13 x 5 grid (rows clubs, diamonds, hearts, spades, then jokers + back)."""
    rows = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sheet.png"
        subprocess.run(
            ["rsvg-convert", "-w", str(13 * height), str(design.svg), "-o", str(out)], capture_output=True, check=True
        )
        sheet = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if sheet is None:
        raise FaceError(f"rsvg-convert could not render the sheet {design.svg}")
    cw, ch = sheet.shape[1] / 13, sheet.shape[0] / 5
    faces: dict[str, np.ndarray] = {}

    def cell(col: int, row: int) -> np.ndarray | None:
        part = sheet[round(row * ch) : round((row + 1) * ch), round(col * cw) : round((col + 1) * cw)]
        card = _largest_card(part)
        return None if card is None else _fit(card, height)

    for index in range(52):
        card = Card.from_index(index)
        col = 0 if card.rank == Rank.ACE else int(card.rank) - 1
        img = cell(col, rows[card.suit])
        if img is None:
            raise FaceError(f"no card found in the sheet cell of {card} in {design.svg}")
        faces[card_code(card)] = img
    back = cell(2, 4)
    if back is not None:
        faces["back"] = back
    for number, col in ((1, 0), (2, 1)):  # the two jokers open the last row
        joker = cell(col, 4)
        if joker is not None:
            faces[f"joker-{number}"] = joker
    return faces


def render_design(name: str, cache_dir: Path = CACHE_DIR, height: int = FACE_HEIGHT) -> Path:
    """Render the 52 faces (and the back) of one design into ``cache_dir/<name>/`` (skips a done design)."""
    design = DESIGNS.get(name)
    if design is None and not is_drawn(name):
        raise FaceError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}, drawn-00..drawn-99")
    out_dir = cache_dir / name
    if design is None:  # drawn: redrawn when the drawing code has changed since
        try:
            return out_dir if is_current(name, out_dir, height) else render_drawn(name, out_dir, height)
        except FontsMissing as exc:
            raise FaceError(str(exc)) from None
    if (out_dir / "AS.png").exists() and len(list(out_dir.glob("*.png"))) >= 52:
        return out_dir
    if shutil.which("rsvg-convert") is None or not design.svg.exists():
        raise FaceError(f"cannot render {name!r}: needs rsvg-convert and {design.svg} (run scripts/train-deps.sh)")
    out_dir.mkdir(parents=True, exist_ok=True)
    if design.kind == "aisleriot":
        faces = _render_sheet(design, height)
    elif design.kind in _PER_CARD_KINDS:
        faces = {}
        for index in range(52):
            card = Card.from_index(index)
            img = _render_file(_card_file(design, card), height)
            if img is None:
                raise FaceError(f"rsvg-convert could not render {card} of {name!r} from {_card_file(design, card)}")
            faces[card_code(card)] = img
        if design.back is not None:
            faces["back"] = _patterned_back(design.back, faces["AS"])
    else:
        faces = {}
        for index in range(52):
            card = Card.from_index(index)
            img = _render_kde(design, _element_id(design, card), height)
            if img is None:
                raise FaceError(f"rsvg-convert could not render {card} of {name!r} from {design.svg}")
            faces[card_code(card)] = img
        for element in ("back", "card_back"):
            img = _render_kde(design, element, height)
            if img is not None:
                faces["back"] = img
                break
    for code, img in faces.items():
        cv2.imwrite(str(out_dir / f"{code}.png"), img)
    if design.kind == "aisleriot":  # the sheet held the jokers too
        jokers = sum(code.startswith("joker-") for code in faces)
        (out_dir / _JOKERS_STAMP).write_text(f"{jokers} jokers, height {height}\n")
    return out_dir


_JOKER_IDS = ("black_joker", "red_joker", "joker")
_JOKERS_STAMP = "jokers.txt"


def render_jokers(name: str, cache_dir: Path = CACHE_DIR, height: int = FACE_HEIGHT) -> list[Path]:
    """The jokers of vector design ``name`` as ``joker-N.png`` beside its cached faces.

    Faces cached before jokers were rendered lack them, so they are rendered on their own here (the 52
    faces stay untouched); a stamp records that a design was tried, so a deck without jokers is not
    rendered again. Drawn decks have no jokers.
    """
    design = DESIGNS.get(name)
    out_dir = cache_dir / name
    if design is None:
        return []
    if not (out_dir / _JOKERS_STAMP).exists():
        if shutil.which("rsvg-convert") is None or not design.svg.exists():
            raise FaceError(f"cannot render the jokers of {name!r}: needs rsvg-convert and {design.svg}")
        out_dir.mkdir(parents=True, exist_ok=True)
        if design.kind == "aisleriot":
            jokers = [img for code, img in _render_sheet(design, height).items() if code.startswith("joker-")]
        elif design.kind in _PER_CARD_KINDS:
            jokers = []  # (not rendered: jokers are off for every model trained so far)
        else:
            found = (_render_kde(design, element, height) for element in _JOKER_IDS)
            jokers = [img for img in found if img is not None]
        for number, img in enumerate(jokers, 1):
            cv2.imwrite(str(out_dir / f"joker-{number}.png"), img)
        (out_dir / _JOKERS_STAMP).write_text(f"{len(jokers)} jokers, height {height}\n")
    return sorted(out_dir.glob("joker-*.png"))


def _dirs() -> list[Path]:
    return [ASSET_DIR, CACHE_DIR]


def available_designs() -> list[str]:
    """Designs whose 52 faces can be loaded now, without rendering (committed assets, then cache)."""
    found: list[str] = []
    for root in _dirs():
        if not root.is_dir():
            continue
        for sub in sorted(root.iterdir()):
            if sub.is_dir() and sub.name not in found and len(list(sub.glob("*.png"))) >= 52:
                found.append(sub.name)
    return found


def _face_path(design: str, code: str) -> Path:
    for root in _dirs():
        path = root / design / f"{code}.png"
        if path.exists():
            return path
    if design in DESIGNS or is_drawn(design):
        raise FaceError(f"no face {code} for design {design!r}: render it first (vision.synth.faces.render_design)")
    raise FaceError(f"unknown design {design!r}; available: {', '.join(available_designs()) or 'none'}")


@cache
def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FaceError(f"cannot read face image {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    img.setflags(write=False)
    return img


def load_face(design: str, card: Card) -> np.ndarray:
    """The face of ``card`` in ``design`` as a read-only BGRA ``uint8`` image (alpha 0 outside the card)."""
    return _read(_face_path(design, card_code(card)))


def load_back(design: str) -> np.ndarray:
    """The back of ``design`` as a read-only BGRA image."""
    return _read(_face_path(design, "back"))


def load_jokers(design: str) -> tuple[np.ndarray, ...]:
    """The jokers of ``design`` that are rendered or committed (read-only BGRA), often none."""
    for root in _dirs():
        paths = sorted((root / design).glob("joker-*.png"))
        if paths:
            return tuple(_read(path) for path in paths)
    return ()


def corner_boxes(design: str, card: Card) -> list[tuple[int, int, int, int]]:
    """Boxes ``(x1, y1, x2, y2)`` of the printed corner indices in the face image (usually two).

    Read from ``index_boxes.json`` beside the faces when present (written by
    :func:`vision.synth.corners.measure_design`).
    """
    for root in _dirs():
        meta = root / design / "index_boxes.json"
        if meta.exists():
            boxes = _read_boxes(meta).get(card_code(card))
            if boxes is not None:
                return [tuple(b) for b in boxes]  # type: ignore[misc]
    raise FaceError(f"no corner boxes for {card} of {design!r}: measure the design first")


@cache
def _read_boxes(path: Path) -> dict[str, list[list[int]]]:
    data: dict[str, list[list[int]]] = json.loads(path.read_text())
    return data
