"""Procedurally drawn decks: the same 52 cards in many more printers' hands than Debian ships.

The vector decks give 17 training designs, and the classifier learns their glyphs too well: on the
real webcam photos it read 96 of 105 clubs as spades (a club whose lobes blur together at 10 px, with
the wide flared stem of the real deck, looks more like the training decks' spades than their clubs).
Real decks differ mostly in exactly what this module varies: the rank font and weight, the shape of
the suit pips (lobe size, stem width and flare, how pointed a heart is, how curved a diamond's sides
are), the index's size and placement, ink and paper colours. Every deck here is drawn from a seed,
so the same name always gives the same faces.

The rank glyphs come from OpenCV's Hershey fonts (always there) and, when Pillow and Debian's
``fonts-dejavu-core`` are installed (the training setup installs both), from the DejaVu families.
Court cards get an abstract framed picture: the models read the index, and a court's picture is what
the classifier must learn to reject. Index boxes are known exactly (they are drawn), so no design
needs measuring.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit

__all__ = [
    "BLEEDING",
    "DRAWN",
    "MORE_DRAWN",
    "PRINTERS_FONTS",
    "DrawnStyle",
    "FontsMissing",
    "bleeds",
    "draw_face",
    "draw_suit",
    "is_current",
    "is_drawn",
    "render_drawn",
    "style_for",
    "with_bleeding_courts",
]

DRAWN: tuple[str, ...] = tuple(f"drawn-{i:02d}" for i in range(12))
"""The drawn decks the training uses (training designs only: the held-out designs stay real decks)."""

BLEEDING: tuple[str, ...] = ("drawn-01", "drawn-04", "drawn-07", "drawn-10")
"""The drawn decks that ``cardtable vision train --bleeding-courts`` swaps for their ``-bleed`` twins.

A ``drawn-NN-bleed`` deck is ``drawn-NN`` with its court pictures printed to the card's edges and the
index over the picture (half of those cards keep a paper halo under the index, half have the picture
only washed pale there). Real decks do this (orell's courts, held out here, are the cards the Makao
pile misses: its detector scores their indices 0.02-0.03), and no other training deck does. A
different name, not a changed ``drawn-NN``, so the shipped models keep reproducing and two training
runs can share one faces cache. Measured on 2 December against a control trained beside it: half the
court cards missed on the pile, but not adopted (vision/models/HISTORY.md, "Tried on 2 December,
evening")."""

PRINTERS_FONTS: tuple[tuple[str, str], ...] = (
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/C059-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/C059-Roman.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Regular.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/P052-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWBookman-Demi.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWGothic-Book.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf"),
    ("fonts-linuxlibertine", "/usr/share/fonts/opentype/linux-libertine/LinBiolinum_RB.otf"),
    ("fonts-linuxlibertine", "/usr/share/fonts/opentype/linux-libertine/LinLibertine_RB.otf"),
    ("fonts-roboto-unhinted", "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Bold.ttf"),
    ("fonts-roboto-unhinted", "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Black.ttf"),
    ("fonts-roboto-unhinted", "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf"),
    ("fonts-open-sans", "/usr/share/fonts/truetype/open-sans/OpenSans-CondBold.ttf"),
    ("fonts-open-sans", "/usr/share/fonts/truetype/open-sans/OpenSans-ExtraBold.ttf"),
    ("fonts-lato", "/usr/share/fonts/truetype/lato/Lato-Black.ttf"),
    ("fonts-lato", "/usr/share/fonts/truetype/lato/Lato-Bold.ttf"),
    ("fonts-ebgaramond", "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Bold.otf"),
)
"""(Debian package, font file) of the printers' faces the decks of :data:`MORE_DRAWN` draw ranks in
(serif, slab, condensed, geometric and heavy grotesque faces, as card printers use).
``scripts/train-deps.sh`` installs them; a deck that needs one that is missing raises
:class:`FontsMissing` rather than quietly drawing in another font (the faces would then differ from
machine to machine)."""


MORE_DRAWN: tuple[str, ...] = tuple(f"drawn-{i:02d}" for i in range(len(DRAWN), len(DRAWN) + len(PRINTERS_FONTS)))
"""Drawn decks beyond the shipped twelve (``cardtable vision train -- --drawn-decks N`` trains on the
first ``N - 12`` of them too), each drawing its ranks in a face of its own from :data:`PRINTERS_FONTS`
where the twelve drew theirs in Hershey and DejaVu faces. Tried on 4 December against a control: the
held-out decks' ranks were read no better (their misreads are small, blurred indices, not type faces),
the real webcam's clubs better the more decks when trained on from the shipped classifier (read as
spades 57, 41, 22 times with 12, 24, 39 decks), but from nothing, at a 2-core host's epochs, 39 decks
read the real photos worse than 12 (vision/models/HISTORY.md). Decks 00-11 keep the fonts they were
drawn with, so the shipped models reproduce."""


class FontsMissing(RuntimeError):
    """A drawn deck needs font files that are not installed; the message names their packages."""


_NAME = re.compile(r"drawn-(\d+)(-bleed)?")

_SCALE = 2  # drawn at twice the size, then shrunk with area averaging (anti-aliased edges)
_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_DEJAVU_FACES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed-Bold.ttf",
    "DejaVuSansMono-Bold.ttf",
    "DejaVuSans-ExtraLight.ttf",
)
_HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)


def is_drawn(name: str) -> bool:
    """Whether ``name`` is a drawn deck (``drawn-NN`` or ``drawn-NN-bleed``) rather than a vector one."""
    return _NAME.fullmatch(name) is not None


def bleeds(name: str) -> bool:
    """Whether drawn deck ``name`` prints its court pictures to the edges (a ``drawn-NN-bleed`` deck)."""
    match = _NAME.fullmatch(name)
    return match is not None and match.group(2) is not None


def with_bleeding_courts(designs: Sequence[str]) -> tuple[str, ...]:
    """``designs`` with each deck of :data:`BLEEDING` swapped for its ``-bleed`` twin."""
    return tuple(f"{name}-bleed" if name in BLEEDING else name for name in designs)


@dataclass(frozen=True)
class DrawnStyle:
    """Everything that tells one drawn deck from another (all fractions of the card's height)."""

    seed: int
    font: str | int  # a DejaVu file name, a font file's path (PRINTERS_FONTS), or an OpenCV Hershey font id
    weight: float  # stroke weight for Hershey fonts, fraction of the glyph height
    italic: bool
    rank_height: float
    rank_squeeze: float  # glyph width scale: condensed (< 1) to wide (> 1)
    suit_height: float
    gap: float  # between rank and suit pip, fraction of the rank height
    index_x: float  # left edge of the index, fraction of the card width
    index_y: float
    pip_height: float
    paper: tuple[int, int, int]
    black: tuple[int, int, int]
    red: tuple[int, int, int]
    shapes: dict[Suit, tuple[float, ...]]  # per-suit shape parameters, see draw_suit
    court_colours: tuple[tuple[int, int, int], ...]


def style_for(name: str) -> DrawnStyle:
    """The style of drawn deck ``name``, from its number alone."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"not a drawn deck: {name!r} (drawn decks are named drawn-00, drawn-01, ..., drawn-01-bleed)")
    seed = int(match.group(1))
    rng = np.random.default_rng(10_007 + seed)
    fonts: list[str | int] = list(_HERSHEY)
    if _pillow_fonts():
        fonts += list(_pillow_fonts())
    font = fonts[int(rng.integers(len(fonts)))]
    if seed >= len(DRAWN):
        # a printer's face, each deck another: steps of 7 go round all 27 (7 is prime to 27)
        printers = _printers_fonts(name)
        font = printers[(seed - len(DRAWN)) * 7 % len(printers)]
    paper_base = int(rng.integers(225, 256))
    paper = tuple(int(np.clip(paper_base + rng.integers(-12, 6), 0, 255)) for _ in range(3))
    k = int(rng.integers(10, 70))
    black = (int(np.clip(k + rng.integers(0, 40), 0, 255)), int(k + rng.integers(0, 15)), int(k))
    red = (int(rng.integers(20, 80)), int(rng.integers(10, 60)), int(rng.integers(150, 235)))
    shapes = {
        Suit.SPADES: (
            rng.uniform(0.22, 0.32),
            rng.uniform(0.05, 0.16),
            rng.uniform(0.18, 0.42),
            rng.uniform(0.2, 0.35),
        ),
        Suit.HEARTS: (rng.uniform(0.25, 0.32), rng.uniform(0.25, 0.45), 0.0, 0.0),
        Suit.DIAMONDS: (rng.uniform(0.55, 0.8), rng.uniform(-0.12, 0.12), 0.0, 0.0),
        Suit.CLUBS: (rng.uniform(0.2, 0.29), rng.uniform(0.05, 0.16), rng.uniform(0.18, 0.45), rng.uniform(0.2, 0.35)),
    }
    rank_height = float(rng.uniform(0.075, 0.13))
    return DrawnStyle(
        seed=seed,
        font=font,
        weight=float(rng.uniform(0.06, 0.16)),
        italic=bool(rng.random() < 0.15),
        rank_height=rank_height,
        rank_squeeze=float(rng.uniform(0.7, 1.15)),
        suit_height=float(rank_height * rng.uniform(0.55, 0.9)),
        gap=float(rng.uniform(0.04, 0.25)),
        index_x=float(rng.uniform(0.03, 0.08)),
        index_y=float(rng.uniform(0.025, 0.06)),
        pip_height=float(rng.uniform(0.1, 0.16)),
        paper=(paper[0], paper[1], paper[2]),
        black=black,
        red=red,
        shapes={s: tuple(float(v) for v in p) for s, p in shapes.items()},
        court_colours=tuple(
            (int(rng.integers(0, 256)), int(rng.integers(0, 256)), int(rng.integers(0, 256))) for _ in range(4)
        ),
    )


@cache
def _pillow_fonts() -> tuple[str, ...]:
    try:
        import PIL.ImageFont  # noqa: F401
    except ImportError:
        return ()
    return tuple(f for f in _DEJAVU_FACES if (_DEJAVU / f).exists())


def _printers_fonts(name: str) -> list[str]:
    """The files of :data:`PRINTERS_FONTS` for deck ``name``, all of them or :class:`FontsMissing`."""
    missing = sorted({package for package, file in PRINTERS_FONTS if not Path(file).is_file()})
    if len(_pillow_fonts()) < len(_DEJAVU_FACES):
        missing.append("fonts-dejavu-core, fonts-dejavu-extra (and Pillow)")
    if missing:
        raise FontsMissing(
            f"drawn deck {name} draws its ranks in fonts that are not installed: {', '.join(missing)};"
            " run scripts/train-deps.sh"
        )
    return [file for _package, file in PRINTERS_FONTS]


def draw_suit(suit: Suit, height: int, params: tuple[float, ...]) -> np.ndarray:
    """A ``height``-tall mask (uint8 0/255) of one suit pip drawn from shape ``params``.

    Spades and clubs: (lobe radius, stem width at the top, stem width at the foot, stem length), as
    fractions of the pip's height; hearts: (lobe radius, how far the point reaches below the lobes);
    diamonds: (width over height, how much the sides bow in or out).
    """
    s = height * 4  # drawn large, shrunk at the end
    w = s
    canvas = np.zeros((s, w), np.uint8)
    cx = w / 2
    if suit is Suit.DIAMONDS:
        ratio, bow = params[0], params[1]
        half = ratio * s / 2
        pts = []
        for corner in range(4):
            a = np.array([(cx, 0.0), (cx + half, s / 2), (cx, float(s)), (cx - half, s / 2)][corner])
            b = np.array([(cx + half, s / 2), (cx, float(s)), (cx - half, s / 2), (cx, 0.0)][corner])
            mid = (a + b) / 2
            outward = mid - np.array([cx, s / 2])
            control = mid + outward * bow * 2
            for t in np.linspace(0, 1, 12, endpoint=False):
                pts.append((1 - t) ** 2 * a + 2 * (1 - t) * t * control + t**2 * b)
        cv2.fillPoly(canvas, [np.round(np.array(pts)).astype(np.int32)], 255, cv2.LINE_AA)
    elif suit is Suit.HEARTS:
        r, point = params[0] * s, params[1]
        cy = r * 1.05
        for dx in (-r * 0.95, r * 0.95):
            cv2.circle(canvas, (round(cx + dx), round(cy)), round(r), 255, -1, cv2.LINE_AA)
        tip = (cx, s - 1.0)
        left = (cx - r * 1.9, cy + r * 0.35)
        right = (cx + r * 1.9, cy + r * 0.35)
        bulge = point * r
        poly = [left, (cx - r * 0.9, cy + r * 0.9 + bulge), tip, (cx + r * 0.9, cy + r * 0.9 + bulge), right, (cx, cy)]
        cv2.fillPoly(canvas, [np.round(np.array(poly)).astype(np.int32)], 255, cv2.LINE_AA)
    else:
        r, stem_top, stem_foot, stem_len = (p * s for p in params)
        body = s - stem_len * 0.7
        if suit is Suit.SPADES:
            # an upside-down heart on a flared stem
            cy = body - r * 1.05
            for dx in (-r * 0.95, r * 0.95):
                cv2.circle(canvas, (round(cx + dx), round(cy)), round(r), 255, -1, cv2.LINE_AA)
            poly = [(cx - r * 1.9, cy - r * 0.3), (cx, 0.0), (cx + r * 1.9, cy - r * 0.3), (cx, cy)]
            cv2.fillPoly(canvas, [np.round(np.array(poly)).astype(np.int32)], 255, cv2.LINE_AA)
        else:
            # three round lobes and a filled centre
            top_y = r
            low_y = r + r * 1.55
            for x, y in ((cx, top_y), (cx - r * 1.05, low_y), (cx + r * 1.05, low_y)):
                cv2.circle(canvas, (round(x), round(y)), round(r), 255, -1, cv2.LINE_AA)
            cv2.circle(canvas, (round(cx), round((top_y + low_y) / 2 + r * 0.2)), round(r * 0.6), 255, -1, cv2.LINE_AA)
        foot = float(s - 1)
        stem_y = foot - stem_len
        stem = [
            (cx - stem_top / 2, stem_y),
            (cx + stem_top / 2, stem_y),
            (cx + stem_foot / 2, foot),
            (cx - stem_foot / 2, foot),
        ]
        cv2.fillPoly(canvas, [np.round(np.array(stem)).astype(np.int32)], 255, cv2.LINE_AA)
    # crop to the ink, scale to the height asked for
    ys, xs = np.nonzero(canvas > 127)
    canvas = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    out_w = max(2, round(height * canvas.shape[1] / canvas.shape[0]))
    return np.asarray(cv2.resize(canvas, (out_w, height), interpolation=cv2.INTER_AREA))


def _rank_mask(text: str, height: int, style: DrawnStyle, max_width: int | None = None) -> np.ndarray:
    """A mask of the rank text, cropped to its ink and scaled to ``height`` (and squeezed, and
    narrowed to ``max_width``: a real deck's "10" is condensed to fit its index column)."""
    if isinstance(style.font, str):
        from PIL import Image, ImageDraw, ImageFont

        truetype = ImageFont.truetype(
            str(_DEJAVU / style.font), size=height * 3
        )  # (a PRINTERS_FONTS path is absolute: / keeps it)
        img = Image.new("L", (height * 3 * (len(text) + 1), height * 5), 0)
        ImageDraw.Draw(img).text((height, height), text, fill=255, font=truetype)
        mask = np.asarray(img)
    else:
        scale = height * 3 / 22  # Hershey glyphs are about 22 units tall at scale 1
        thickness = max(1, round(style.weight * height * 3))
        font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
        (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
        mask = np.zeros((th + base + 4 * thickness + height, tw + 4 * thickness + height), np.uint8)
        cv2.putText(
            mask, text, (2 * thickness + height // 2, th + 2 * thickness), font, scale, 255, thickness, cv2.LINE_AA
        )
    ys, xs = np.nonzero(mask > 127)
    mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    width = max(2, round(height * mask.shape[1] / mask.shape[0] * style.rank_squeeze * (0.8 if len(text) > 1 else 1)))
    if max_width is not None:
        width = min(width, max_width)
    return np.asarray(cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA))


def _stamp(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    """Ink ``mask`` onto ``canvas`` with its top-left at (x, y) (clipped at the canvas edge)."""
    h, w = mask.shape
    region = canvas[y : y + h, x : x + w]
    alpha = (mask[: region.shape[0], : region.shape[1]].astype(np.float32) / 255.0)[..., None]
    region[:] = (region * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


def _pip_layout(rank: Rank) -> list[tuple[float, float]]:
    """Centre pips of a number card as (column, row) in 0..1 of the pip area (standard layouts)."""
    n = int(rank)
    lft, c, r = 0.0, 0.5, 1.0
    layouts: dict[int, list[tuple[float, float]]] = {
        2: [(c, 0), (c, 1)],
        3: [(c, 0), (c, 0.5), (c, 1)],
        4: [(lft, 0), (r, 0), (lft, 1), (r, 1)],
        5: [(lft, 0), (r, 0), (c, 0.5), (lft, 1), (r, 1)],
        6: [(lft, 0), (r, 0), (lft, 0.5), (r, 0.5), (lft, 1), (r, 1)],
        7: [(lft, 0), (r, 0), (c, 0.25), (lft, 0.5), (r, 0.5), (lft, 1), (r, 1)],
        8: [(lft, 0), (r, 0), (c, 0.25), (lft, 0.5), (r, 0.5), (c, 0.75), (lft, 1), (r, 1)],
        9: [(x, y) for y in (0, 1 / 3, 2 / 3, 1) for x in (lft, r)] + [(c, 0.5)],
        10: [(x, y) for y in (0, 1 / 3, 2 / 3, 1) for x in (lft, r)] + [(c, 1 / 6), (c, 5 / 6)],
    }
    return [(float(x), float(y)) for x, y in layouts.get(n, [])]


def draw_face(name: str, card: Card, height: int = 360) -> tuple[np.ndarray, list[list[int]]]:
    """Card ``card`` of drawn deck ``name``: a BGRA face ``height`` tall and its two index boxes."""
    style = style_for(name)
    rng = np.random.default_rng(style.seed * 1000 + card.index)
    big_h = height * _SCALE
    big_w = round(big_h * 0.714)
    face = np.empty((big_h, big_w, 3), np.uint8)
    face[:] = style.paper
    colour = style.red if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else style.black
    shape = style.shapes[card.suit]

    # the index, top-left, and the same turned half a turn at bottom-right
    layer = np.zeros((big_h, big_w), np.uint8)
    rank_h = round(style.rank_height * big_h)
    rank = _rank_mask(card.rank.code, rank_h, style, max_width=round(0.15 * big_w))
    suit = draw_suit(card.suit, round(style.suit_height * big_h), shape)
    x0, y0 = round(style.index_x * big_w), round(style.index_y * big_h)
    layer[y0 : y0 + rank.shape[0], x0 : x0 + rank.shape[1]] = rank
    sx, sy = x0 + (rank.shape[1] - suit.shape[1]) // 2, y0 + rank_h + round(style.gap * rank_h)
    sx = max(sx, 1)
    region = layer[sy : sy + suit.shape[0], sx : sx + suit.shape[1]]
    np.maximum(region, suit[: region.shape[0], : region.shape[1]], out=region)
    ys, xs = np.nonzero(layer > 127)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    # centre: pips, one big ace pip, or a court's framed picture (to the edges on a -bleed deck)
    top, bottom = round(0.13 * big_h), round(0.87 * big_h)
    left, right = round(0.25 * big_w), round(0.75 * big_w)
    court = card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING)
    bleeding = court and bleeds(name)
    if bleeding:
        _court(face, style, rng, (0, 0, big_w, big_h), colour, border=False)
    elif court:
        _court(face, style, rng, (left - round(0.06 * big_w), top, right + round(0.06 * big_w), bottom), colour)
    elif card.rank is Rank.ACE:
        pip = draw_suit(card.suit, round(big_h * rng.uniform(0.18, 0.32)), shape)
        _stamp(face, pip, (big_w - pip.shape[1]) // 2, (big_h - pip.shape[0]) // 2, colour)
    else:
        pip_h = round(style.pip_height * big_h)
        pip = draw_suit(card.suit, pip_h, shape)
        area_h = bottom - top - pip_h
        # the pip columns keep clear of the index column, as a real deck's do
        left = max(left, box[2] + round(0.03 * big_w) + pip.shape[1] // 2)
        right = big_w - left
        for col, row in _pip_layout(card.rank):
            x = round(left + col * (right - left) - pip.shape[1] / 2)
            y = round(top + row * area_h)
            _stamp(face, pip if row <= 0.5 else pip[::-1, ::-1], x, y, colour)

    layer = np.maximum(layer, layer[::-1, ::-1])
    # clear the paper under the index (a court frame must not run into it), then ink it; a court
    # printed to the edges keeps a paper halo there half the time, else its picture is only washed pale
    clear = cv2.dilate((layer > 0).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    if bleeding and rng.random() < 0.5:
        wash = float(rng.uniform(0.35, 0.7))
        face[clear] = (face[clear] * (1 - wash) + np.array(style.paper, np.float32) * wash).astype(np.uint8)
    else:
        face[clear] = style.paper
    alpha = (layer.astype(np.float32) / 255.0)[..., None]
    face = (face * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)

    out = _with_rounded_alpha(cv2.resize(face, (big_w // _SCALE, height), interpolation=cv2.INTER_AREA))
    w = out.shape[1]
    s = 1 / _SCALE
    tl = [math.floor(box[0] * s), math.floor(box[1] * s), math.ceil(box[2] * s), math.ceil(box[3] * s)]
    br = [w - tl[2], height - tl[3], w - tl[0], height - tl[1]]
    return out, [tl, br]


def _court(
    face: np.ndarray,
    style: DrawnStyle,
    rng: np.random.Generator,
    frame: tuple[int, int, int, int],
    colour: tuple[int, int, int],
    border: bool = True,
) -> None:
    """An abstract court picture: a frame of blocks, stripes and curves, mirrored half a turn (no
    letter in it: a rank without its suit pip is what the classifier must learn to reject).
    ``border=False`` for a picture printed to the card's edges, which has no frame line."""
    x1, y1, x2, y2 = frame
    mid = (y1 + y2) // 2
    half = face[y1:mid, x1:x2]
    palette = [*style.court_colours, colour]
    if border:
        half[:] = style.paper
    else:  # a picture to the edges is printed on a tinted ground, not on the paper
        tint = np.array(palette[int(rng.integers(len(palette)))], np.float32)
        pale = float(rng.uniform(0.45, 0.8))  # (pale enough that a dark index stays legible on it)
        half[:] = (tint * (1 - pale) + np.array(style.paper, np.float32) * pale).astype(np.uint8)
    for _ in range(int(rng.integers(6, 14))):
        c = palette[int(rng.integers(len(palette)))]
        kind = rng.integers(3)
        hh, ww = half.shape[:2]
        if kind == 0:
            a, b = rng.integers(0, ww, 2), rng.integers(0, hh, 2)
            cv2.rectangle(half, (int(a[0]), int(b[0])), (int(a[1]), int(b[1])), c, -1)
        elif kind == 1:
            pts = np.stack([rng.integers(0, ww, 5), rng.integers(0, hh, 5)], axis=1).astype(np.int32)
            cv2.polylines(half, [pts], False, c, int(rng.integers(2, 8)), cv2.LINE_AA)
        else:
            cv2.ellipse(
                half,
                (int(rng.integers(0, ww)), int(rng.integers(0, hh))),
                (int(rng.integers(5, ww // 3)), int(rng.integers(5, hh // 3))),
                float(rng.uniform(0, 180)),
                0,
                360,
                c,
                -1,
                cv2.LINE_AA,
            )
    face[mid:y2, x1:x2] = half[::-1, ::-1][: y2 - mid]
    if border:
        cv2.rectangle(face, (x1, y1), (x2 - 1, y2 - 1), colour, 3, cv2.LINE_AA)


def _with_rounded_alpha(bgr: np.ndarray) -> np.ndarray:
    h, w = bgr.shape[:2]
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, round(0.05 * w))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return np.dstack([bgr, alpha])


def _back(name: str, height: int) -> np.ndarray:
    style = style_for(name)
    rng = np.random.default_rng(style.seed + 77)
    w = round(height * 0.714)
    back = np.empty((height, w, 3), np.uint8)
    back[:] = style.paper
    c = style.court_colours[0] if rng.random() < 0.5 else (style.red if rng.random() < 0.5 else (120, 40, 20))
    m = round(0.06 * w)
    cv2.rectangle(back, (m, m), (w - m, height - m), c, -1)
    step = int(rng.integers(6, 16))
    for k in range(-height, w + height, step):
        cv2.line(back, (k, 0), (k + height, height), style.paper, 1, cv2.LINE_AA)
    return _with_rounded_alpha(back)


DRAWING_VERSION = 1
"""Raised whenever the drawing code changes what a deck looks like (1: as the shipped models were trained)."""

_STAMP = "drawn.txt"


def _stamp_text(name: str, height: int) -> str:
    # (a plain deck's stamp is as it was before -bleed decks existed, so its cache stays current)
    bleed = ", courts to the edges" if bleeds(name) else ""
    return f"drawing {DRAWING_VERSION}, height {height}, {style_for(name)!r}{bleed}\n"


def is_current(name: str, out_dir: Path, height: int = 360) -> bool:
    """Whether ``out_dir`` holds drawn deck ``name`` as the code draws it now.

    The faces cache outlives code changes: without this a changed style range would train on the
    old faces here and on new ones in a fresh clone, and the shipped models would not reproduce.
    """
    stamp = out_dir / _STAMP
    return stamp.is_file() and stamp.read_text() == _stamp_text(name, height) and (out_dir / "AS.png").is_file()


def render_drawn(name: str, out_dir: Path, height: int = 360) -> Path:
    """Write drawn deck ``name`` as the vector decks are cached: 52 BGRA PNGs, a back, index boxes,
    and a stamp of the style and drawing version they were drawn with (see :func:`is_current`)."""
    stamp = _stamp_text(name, height)  # (a deck whose fonts are missing fails here, before anything is written)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / _STAMP).unlink(missing_ok=True)
    boxes: dict[str, list[list[int]]] = {}
    from .faces import card_code

    for index in range(52):
        card = Card.from_index(index)
        face, card_boxes = draw_face(name, card, height)
        code = card_code(card)
        cv2.imwrite(str(out_dir / f"{code}.png"), face)
        boxes[code] = card_boxes
    cv2.imwrite(str(out_dir / "back.png"), _back(name, height))
    (out_dir / "index_boxes.json").write_text(json.dumps({"corners": [0, 2], **boxes}))
    (out_dir / _STAMP).write_text(stamp)
    return out_dir
