"""The scoreboard as a 1-bit Pillow image, laid out to be read from across the table.

``layout(view, size)`` decides every piece of text, its font size and its box; ``render`` only
draws that layout. Keeping the two apart lets the tests measure what the players would see (every
box inside the panel, no box over another, the font never below a legible floor) without OCR.

The layout picks the largest font at which everything fits: one header line (game, preset, hand,
contract and trump), one row per seat (name and role, tricks/target or cards left, session score;
the player to move in white on black), then footer lines by priority (the Makao pile, the message,
the last trick's winner). When even the floor size cannot hold everything the lowest-priority
footers go first, then over-long names are cut with an ellipsis.

The font is DejaVu Sans Condensed Bold (shipped in ``fonts/``, Bitstream Vera licence): bold
because thin strokes vanish on e-ink at arm's length, condensed because the small panels are
narrow.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hardware.display.view import ScoreboardView, SeatLine

if TYPE_CHECKING:
    from PIL.Image import Image
    from PIL.ImageFont import FreeTypeFont

FONT_PATH = Path(__file__).with_name("fonts") / "DejaVuSansCondensed-Bold.ttf"
PANEL_SIZES = ((250, 122), (296, 128), (400, 300), (800, 480))
BLACK, WHITE = 0, 1


@dataclass(frozen=True, slots=True)
class TextBox:
    """One piece of text: where it is drawn (``origin``), the box its ink can occupy, its size."""

    text: str
    role: str  # header, name, stat, score, footer
    origin: tuple[int, int]
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive)
    size: int
    inverted: bool = False


@dataclass(frozen=True, slots=True)
class Layout:
    size: tuple[int, int]
    font_size: int
    texts: tuple[TextBox, ...]
    bars: tuple[tuple[int, int, int, int], ...]  # black backgrounds (the row of the player to move)
    dropped: tuple[str, ...]  # footer lines that did not fit


@functools.lru_cache(maxsize=64)
def font(size: int) -> FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_PATH), size)


def min_font_size(size: tuple[int, int]) -> int:
    """The legibility floor for a panel: about 2.5 mm letters on the ~110-130 dpi e-ink panels."""
    return max(12, size[1] // 16)


def _width(text: str, px: int) -> int:
    return int(font(px).getlength(text))


def _fit(text: str, px: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels ("" if not even "…" fits)."""
    if _width(text, px) <= width:
        return text
    for end in range(len(text) - 1, 0, -1):
        cut = text[:end].rstrip() + "…"
        if _width(cut, px) <= width:
            return cut
    return ""


def _header_variants(view: ScoreboardView) -> list[str]:
    trump = f"{view.trump.symbol} trumps" if view.trump is not None else ""
    said = view.contract
    if view.trump is not None and said.strip().upper() in (view.trump.value, view.trump.symbol):
        said = ""  # "H" and ♥ trumps say the same thing
    contract = " ".join(part for part in (said, trump) if part)
    hand_long = hand_short = ""
    if view.hand is not None:
        total = f"/{view.hands_total}" if view.hands_total else ""
        hand_long, hand_short = f"Hand {view.hand}{total}", f"H{view.hand}{total}"
    short_contract = view.trump.symbol if view.trump is not None else view.contract
    candidates = [
        [view.game, view.preset, hand_long, contract],
        [view.game, hand_long, contract],
        [view.game, hand_short, contract],
        [view.game, hand_short, short_contract],
        [view.game, hand_short],
        [view.game],
    ]
    return [" · ".join(part for part in parts if part) for parts in candidates]


def _stat(seat: SeatLine) -> str:
    if seat.out:
        return f"out #{seat.place}" if seat.place else "out"
    if seat.cards_left is not None:
        return f"{seat.cards_left} card" + ("" if seat.cards_left == 1 else "s")
    if seat.target is not None or seat.tricks is not None:
        return f"{seat.tricks if seat.tricks is not None else 0}/{seat.target if seat.target is not None else '-'}"
    return ""


def _pile(view: ScoreboardView) -> str:
    """The Makao pile in one line: top card, then what it asks of the next player."""
    if view.makao is None:
        return ""
    m = view.makao
    parts = [f"Top {m.top_card.symbol}" if m.top_card is not None else "Pile empty"]
    if m.penalty:
        parts.append(f"draw {m.penalty}")
    if m.skip:
        parts.append(f"skip {m.skip}")
    if m.demand:
        parts.append(f"wants {m.demand}")
    if m.suit is not None:
        parts.append(f"suit {m.suit.symbol}")
    return " · ".join(parts)


def _footers(view: ScoreboardView, with_pile: bool = True) -> list[str]:
    lines = []
    if view.makao is not None and with_pile:
        lines.append(_pile(view))
    if view.message:
        lines.append(view.message)
    if view.last_trick_winner is not None:
        lines.append(f"Trick → {view.seats[view.last_trick_winner].name}")
    lines.extend(view.extra)
    return lines


def _row_height(px: int) -> int:
    ascent, descent = font(px).getmetrics()
    return ascent + descent + max(1, px // 8)


def _try(
    view: ScoreboardView, size: tuple[int, int], px: int, headers: list[str], footers: list[str], cut: bool
) -> Layout | None:
    """The layout at font size ``px`` with these footers, or None if it does not fit.

    Without ``cut`` every name must fit whole; with it, long ones get an ellipsis (footers may
    always be cut: a name is what a player looks for).
    """
    w, h = size
    margin = max(2, h // 60)
    row = _row_height(px)
    rows = 1 + len(view.seats) + len(footers)
    if rows * row > h - 2 * margin:
        return None
    inner = w - 2 * margin
    gap = max(4, px // 2)
    stats = [_stat(s) for s in view.seats]
    scores = [str(s.score) if s.score is not None else "" for s in view.seats]
    stat_w = max((_width(t, px) for t in stats), default=0)
    score_w = max((_width(t, px) for t in scores), default=0)
    name_w = inner - stat_w - score_w - (gap if stat_w else 0) - (gap if score_w else 0) - px // 3
    if name_w < _width("Mmmmm…", px):
        return None
    if not cut and any(_width(seat.name, px) > name_w for seat in view.seats):
        return None
    texts: list[TextBox] = []
    bars: list[tuple[int, int, int, int]] = []
    pad = (row - sum(font(px).getmetrics())) // 2

    def place(text: str, role: str, x: int, top: int, inverted: bool = False) -> None:
        if not text:
            return
        y = top + pad
        x0, y0, x1, y1 = (int(v) for v in font(px).getbbox(text))
        texts.append(TextBox(text, role, (x, y), (x + x0, y + y0, x + x1, y + y1), px, inverted))

    header = next((t for t in headers if _width(t, px) <= inner), None)
    if header is None:
        if not cut:
            return None
        header = _fit(headers[-1], px, inner)
    top = margin
    place(header, "header", margin, top)
    # a rule under the header
    bars.append((margin, top + row - 1, w - margin, top + row))
    top += row
    for i, seat in enumerate(view.seats):
        turn = view.turn == i
        if turn:
            bars.append((0, top, w, top + row))
        label = f"{seat.name} · {seat.role}" if seat.role else seat.name
        if _width(label, px) > name_w:
            label = seat.name
        place(_fit(label, px, name_w), "name", margin + px // 3, top, turn)
        if stats[i]:
            x = w - margin - score_w - (gap if score_w else 0) - _width(stats[i], px)
            place(stats[i], "stat", x, top, turn)
        if scores[i]:
            place(scores[i], "score", w - margin - _width(scores[i], px), top, turn)
        top += row
    for line in footers:
        text = _fit(line, px, inner)
        place(text, "footer", margin, top)
        top += row
    return Layout(size, px, tuple(texts), tuple(bars), ())


def layout(view: ScoreboardView, size: tuple[int, int]) -> Layout:
    """Lay ``view`` out on a ``size`` panel at the largest font that fits (see the module doc)."""
    w, h = size
    if w < 100 or h < 60:
        raise ValueError(f"scoreboard size {w}x{h} is too small (at least 100x60)")
    floor = min_font_size(size)
    # Makao: the pile may also ride in the header, which frees a whole line on small panels.
    options = [(_header_variants(view), _footers(view))]
    if view.makao is not None:
        pile = _pile(view)
        options.append(([f"{view.game} · {pile}", pile], _footers(view, with_pile=False)))
    for drop in range(0, 1 + max(len(f) for _, f in options)):
        best: Layout | None = None
        for cut in (False, True):
            for headers, all_footers in options:
                footers = all_footers[: len(all_footers) - drop] if drop else all_footers
                if drop and len(all_footers) < drop:
                    continue
                rows = 1 + len(view.seats) + len(footers)
                for px in range(min(h // rows, h // 4), floor - 1, -1):
                    if best is not None and px <= best.font_size:
                        break
                    found = _try(view, size, px, headers, footers, cut)
                    if found is not None:
                        best = Layout(
                            found.size, found.font_size, found.texts, found.bars, tuple(all_footers[len(footers) :])
                        )
                        break
            if best is not None:
                return best
    raise ValueError(f"{len(view.seats)} seats do not fit a {w}x{h} panel at {floor} px text")


def render(view: ScoreboardView, size: tuple[int, int] = (296, 128)) -> Image:
    """The scoreboard for ``view`` as a 1-bit image of ``size`` (width, height)."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    plan = layout(view, size)
    image = PILImage.new("1", size, WHITE)
    draw = ImageDraw.Draw(image)
    for bar in plan.bars:
        draw.rectangle((bar[0], bar[1], bar[2] - 1, bar[3] - 1), fill=BLACK)
    for text in plan.texts:
        draw.text(text.origin, text.text, font=font(text.size), fill=WHITE if text.inverted else BLACK)
    return image


def text_lines(view: ScoreboardView, width: int = 40) -> list[str]:
    """The same board as plain text (the terminal backend, logs)."""
    header = _header_variants(view)[0]
    lines = [header, "-" * min(width, max(len(header), 20))]
    stats = [_stat(s) for s in view.seats]
    name_w = max(len(s.name) + (len(s.role) + 3 if s.role else 0) for s in view.seats) if view.seats else 0
    for i, seat in enumerate(view.seats):
        label = f"{seat.name} · {seat.role}" if seat.role else seat.name
        score = "" if seat.score is None else str(seat.score)
        mark = "▶" if view.turn == i else " "
        lines.append(f"{mark} {label:<{name_w}}  {stats[i]:>8}  {score:>5}".rstrip())
    lines.extend(_footers(view))
    return lines
