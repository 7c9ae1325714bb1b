"""The procedurally drawn training decks: deterministic, indices where the boxes say, suits that differ.

A drawn deck widens the fonts and pip shapes the classifier sees; if its boxes missed the ink, or its
clubs came out as spades, it would teach the wrong thing, so these look at the pixels.
"""

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit, deck
from vision.synth.drawn import (
    BLEEDING,
    DRAWN,
    MORE_DRAWN,
    PRINTERS_FONTS,
    FontsMissing,
    bleeds,
    draw_face,
    draw_suit,
    is_current,
    is_drawn,
    render_drawn,
    style_for,
    with_bleeding_courts,
)
from vision.synth.faces import FaceError, corner_boxes, load_back, load_face, render_design


def _ink(face: np.ndarray, box: list[int]) -> float:
    x1, y1, x2, y2 = box
    gray = face[..., :3].astype(np.float32).mean(axis=2)
    paper = np.median(gray[face[..., 3] > 200])
    return float((np.abs(gray[y1:y2, x1:x2] - paper) > 60).mean())


def test_a_drawn_deck_is_the_same_every_time_and_decks_differ():
    a, boxes_a = draw_face(DRAWN[0], Card.from_text("8C"))
    b, boxes_b = draw_face(DRAWN[0], Card.from_text("8C"))
    other, _ = draw_face(DRAWN[1], Card.from_text("8C"))
    assert np.array_equal(a, b) and boxes_a == boxes_b
    assert a.shape != other.shape or not np.array_equal(a, other)


_PRINTERS_FONTS_INSTALLED = all(Path(file).is_file() for _package, file in PRINTERS_FONTS)
needs_printers_fonts = pytest.mark.skipif(
    not _PRINTERS_FONTS_INSTALLED, reason="the printers' fonts are not installed (scripts/train-deps.sh)"
)


@pytest.mark.parametrize("name", [*DRAWN[:4], pytest.param(MORE_DRAWN[0], marks=needs_printers_fonts)])
def test_index_boxes_sit_on_ink_in_opposite_corners(name):
    for card in deck():
        face, boxes = draw_face(name, card)
        h, w = face.shape[:2]
        assert face.shape[2] == 4 and face[h // 2, w // 2, 3] == 255 and face[0, 0, 3] == 0  # rounded card
        top_left, bottom_right = boxes
        assert top_left[2] < w / 3 and top_left[3] < h / 3, f"{name} {card}: {top_left}"
        assert bottom_right[0] > 2 * w / 3 and bottom_right[1] > 2 * h / 3, f"{name} {card}: {bottom_right}"
        for box in boxes:
            # the box is tight: ink inside, and a clean margin of paper just outside it
            assert 0.1 < _ink(face, box) < 0.9, f"{name} {card}: box {box}"
        x1, _, x2, y2 = top_left
        assert _ink(face, [x1, y2 + 1, x2, y2 + 3]) < 0.25, f"{name} {card}: ink runs on below the index"


def test_the_four_suits_are_four_shapes():
    style = style_for(DRAWN[0])
    masks = {s: draw_suit(s, 40, style.shapes[s]) for s in Suit}
    for s, m in masks.items():
        assert m.shape[0] == 40 and 0.3 < (m > 127).mean() < 0.95, s
    # a club and a spade have the same stem and size; they must still differ where the lobes are
    club, spade = masks[Suit.CLUBS], masks[Suit.SPADES]
    width = min(club.shape[1], spade.shape[1])
    top = slice(0, 20)
    differ = np.mean((club[top, :width] > 127) != (spade[top, :width] > 127))
    assert differ > 0.1
    # a spade comes to a point at the top, a club is round there
    assert (spade[1] > 127).sum() < (club[1] > 127).sum()


def test_render_writes_a_deck_the_scene_generator_can_use(tmp_path, monkeypatch):
    out = render_drawn(DRAWN[2], tmp_path / DRAWN[2])
    assert len(list(out.glob("*.png"))) == 53  # 52 faces and a back
    monkeypatch.setattr("vision.synth.faces._dirs", lambda: [tmp_path])
    card = Card.from_text("QH")
    assert [list(b) for b in corner_boxes(DRAWN[2], card)] == draw_face(DRAWN[2], card)[1]
    assert load_face(DRAWN[2], card).shape[2] == 4 and load_back(DRAWN[2]).shape[2] == 4


def test_bad_names_are_named_in_the_error():
    with pytest.raises(ValueError, match="drawn-x"):
        style_for("drawn-x")
    with pytest.raises(FaceError, match="drawn-x"):
        render_design("drawn-x")


def test_a_drawn_deck_cached_by_older_drawing_code_is_drawn_again(tmp_path: Path) -> None:
    """The faces cache outlives code changes: faces drawn by an older style must not be trained on
    here while a fresh clone draws the new ones (the models would not reproduce)."""
    out = render_design(DRAWN[3], tmp_path)
    stamp = out / "drawn.txt"
    assert stamp.read_text().startswith("drawing ")
    first = (out / "QC.png").stat().st_mtime_ns
    assert render_design(DRAWN[3], tmp_path) == out and (out / "QC.png").stat().st_mtime_ns == first  # current: kept
    stamp.write_text(stamp.read_text().replace("drawing ", "drawing 0"))  # as if drawn by other code
    (out / "QC.png").write_bytes(b"stale")
    render_design(DRAWN[3], tmp_path)
    assert cv2.imread(str(out / "QC.png")) is not None and stamp.read_text().startswith("drawing ")
    assert "drawing 0" not in stamp.read_text()


def test_a_bleed_twin_differs_only_in_its_court_pictures_and_keeps_its_index_readable() -> None:
    """``--bleeding-courts`` trains on courts printed to the edges, the index over the picture (as
    orell prints them, the Makao pile's misses); the pips, the boxes and the plain deck stay as shipped."""
    plain, twin = BLEEDING[0], with_bleeding_courts([BLEEDING[0]])[0]
    assert twin == f"{plain}-bleed" and bleeds(twin) and not bleeds(plain) and is_drawn(twin)
    assert with_bleeding_courts(["paris", DRAWN[0]]) == ("paris", DRAWN[0])  # only the chosen decks
    assert style_for(twin) == style_for(plain)
    for text in ("5C", "AS"):
        a, boxes_a = draw_face(plain, Card.from_text(text))
        b, boxes_b = draw_face(twin, Card.from_text(text))
        assert np.array_equal(a, b) and boxes_a == boxes_b, text
    for card in (c for c in deck() if c.rank.code in "JQK"):
        a, boxes_a = draw_face(plain, card)
        b, boxes_b = draw_face(twin, card)
        assert boxes_a == boxes_b, card
        h, w = b.shape[:2]
        # the picture reaches the edges: the band along the long sides is no longer the plain deck's paper
        ring = np.zeros((h, w), bool)
        ring[h // 5 : 4 * h // 5, 3:10] = ring[h // 5 : 4 * h // 5, w - 10 : w - 3] = True
        changed = (np.abs(a[..., :3].astype(int) - b[..., :3]).max(axis=2) > 30)[ring].mean()
        assert changed > 0.05, f"{card}: picture does not run to the edge ({changed:.3f} of the band changed)"
        for box in boxes_b:  # the index stays ink on a paler ground
            assert 0.1 < _ink(b, box) < 0.9, f"{twin} {card}: box {box}"


def test_a_bleed_twin_has_a_cache_of_its_own(tmp_path: Path) -> None:
    twin = with_bleeding_courts([BLEEDING[0]])[0]
    out = render_drawn(twin, tmp_path / twin)
    assert is_current(twin, out) and not is_current(BLEEDING[0], out)


@needs_printers_fonts
def test_decks_past_the_twelfth_draw_their_ranks_each_in_another_printers_font() -> None:
    """The extra decks are there for the rank shapes the shipped twelve never drew: each in a face of
    its own, none of them a face the twelve drew in; the twelve keep theirs (the shipped models reproduce)."""
    printers = {file for _package, file in PRINTERS_FONTS}
    extra = [style_for(name).font for name in MORE_DRAWN]
    assert len(extra) == len(printers) and set(extra) == printers
    assert all(style_for(name).font not in printers for name in DRAWN)
    # the glyphs differ from font to font: the same card's index is not the same picture in two decks
    a, boxes_a = draw_face(MORE_DRAWN[0], Card.from_text("QC"))
    b, boxes_b = draw_face(MORE_DRAWN[1], Card.from_text("QC"))
    x1, y1, x2, y2 = boxes_a[0]
    u1, v1, u2, v2 = boxes_b[0]
    ink_a = cv2.resize(a[y1:y2, x1:x2, :3], (24, 40)).astype(int)
    ink_b = cv2.resize(b[v1:v2, u1:u2, :3], (24, 40)).astype(int)
    assert np.abs(ink_a - ink_b).mean() > 10


def test_a_deck_whose_fonts_are_missing_names_the_packages_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A missing font must not quietly become another font (the faces would differ between machines)."""
    monkeypatch.setattr(
        "vision.synth.drawn.PRINTERS_FONTS", (("fonts-nowhere", "/nonexistent/fonts/Nowhere-Bold.otf"),)
    )
    with pytest.raises(FontsMissing, match=r"drawn-12 .*fonts-nowhere.*train-deps\.sh"):
        style_for(MORE_DRAWN[0])
    with pytest.raises(FaceError, match="fonts-nowhere"):
        render_design(MORE_DRAWN[0], tmp_path)
    assert not (tmp_path / MORE_DRAWN[0]).exists()
    # the shipped decks need none of them: they still draw, their index where the boxes say
    face, boxes = draw_face(DRAWN[0], Card.from_text("QC"))
    assert len(boxes) == 2 and all(0.1 < _ink(face, box) < 0.9 for box in boxes)
