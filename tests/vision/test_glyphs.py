"""A six or a nine, told by the card its index is printed on (:mod:`vision.recognise.glyphs`).

``data/tango-*.png`` are crops of frames of the synthetic table (``cardtable bench tracker --recogniser onnx
--game 358 --hands 1 --seed 0 --design tango_nuevo``): a card of aisleriot's tango_nuevo design (GPL-3+,
Debian's gnome-cards-data; a held-out design, never trained on) just put down, with the tracker's outline
of it and a detector's box round one of its indices, in ``tango-sixes-and-nines.json``. The design prints
the rank alone in its corner, so the classifier cannot tell its six from its nine on its head.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import FULL_DECK, Card, Rank
from vision.recognise import OnnxRecogniser
from vision.recognise.glyphs import (
    NINE_ABOVE,
    SIX_BELOW,
    index_up,
    loop_depth,
    ruled_out,
    settle_by_glyph,
)

DATA = Path(__file__).parent / "data"
CARDS = list(FULL_DECK)
SAVED = json.loads((DATA / "tango-sixes-and-nines.json").read_text())


def _turned(points: np.ndarray, angle: float, centre: tuple[float, float]) -> np.ndarray:
    matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
    return np.hstack([points, np.ones((len(points), 1))]) @ matrix.T


def _drawn_card(glyph: str, angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A white card 120 x 176 px on green felt, turned ``angle`` degrees, with ``glyph`` printed black in its
    top-left corner standing with its top to the card's top end: the frame, the card's outline, the index box."""
    size = 400
    upright = np.full((size, size, 3), (40, 120, 40), np.uint8)
    x0, y0 = 140, 112
    cv2.rectangle(upright, (x0, y0), (x0 + 120, y0 + 176), (235, 235, 235), -1)
    cv2.putText(upright, glyph, (x0 + 6, y0 + 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 3, cv2.LINE_AA)
    centre = (size / 2, size / 2)
    turn = cv2.getRotationMatrix2D(centre, angle, 1.0)
    frame = cv2.warpAffine(upright, turn, (size, size), borderValue=(40, 120, 40))
    card = np.array([[x0, y0], [x0 + 120, y0], [x0 + 120, y0 + 176], [x0, y0 + 176]], float)
    index = np.array([[x0 + 3, y0 + 8], [x0 + 30, y0 + 8], [x0 + 30, y0 + 38], [x0 + 3, y0 + 38]], float)
    corners = _turned(index, angle, centre)
    return frame, _turned(card, angle, centre), np.array([*corners.min(axis=0), *corners.max(axis=0)])


def _saved(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Card]:
    entry = SAVED[name]
    image = cv2.imread(str(DATA / name))
    assert image is not None, name
    outline, box = np.array(entry["outline"], np.float32), np.array(entry["box"], np.float32)
    return image, outline, box, Card.from_text(entry["card"])


def _reading(**cards: float) -> np.ndarray:
    """A classifier reading over the 52 cards and a last "not an index" column, ``cards`` by name (``_6S``)."""
    row = np.zeros((1, len(CARDS) + 1), np.float32)
    for name, p in cards.items():
        row[0, CARDS.index(Card.from_text(name.lstrip("_")))] = p
    row[0, -1] = 1.0 - row.sum()
    return row


def test_an_index_stands_with_its_top_to_the_nearer_end_of_its_card() -> None:
    card = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], float)  # upright, portrait
    assert np.allclose(index_up(card, (8, 12)), (0, -1))  # the top-left index stands upright
    assert np.allclose(index_up(card, (52, 78)), (0, 1))  # the bottom-right one on its head
    lying = np.array([[0, 0], [90, 0], [90, 60], [0, 60]], float)  # the same card turned a quarter
    assert np.allclose(index_up(lying, (12, 52)), (-1, 0))


@pytest.mark.parametrize("angle", [0, 30, 90, 135, 180, 250, 315])
def test_a_six_and_a_nine_are_told_apart_by_their_card_at_any_turn(angle: float) -> None:
    for glyph in "69":
        frame, card, box = _drawn_card(glyph, angle)
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        depth = loop_depth(frame, box, index_up(card, centre), card)
        assert depth is not None, (glyph, angle)
        assert (depth >= SIX_BELOW) if glyph == "6" else (depth <= NINE_ABOVE), (glyph, angle, depth)


def test_a_glyph_without_a_loop_says_nothing() -> None:
    frame, card, box = _drawn_card("7", 30)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert loop_depth(frame, box, index_up(card, centre), card) is None


@pytest.mark.parametrize("name", sorted(SAVED))
def test_tango_nuevo_sixes_and_nines_at_the_table_are_told_by_their_card(name: str) -> None:
    image, card, box, truth = _saved(name)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    depth = loop_depth(image, box, index_up(card, centre), card)
    assert depth is not None
    assert (depth >= SIX_BELOW) if truth.rank == Rank.SIX else (depth <= NINE_ABOVE)
    # the classifier gives the glyph's rank to the wrong one of the two: the card settles it
    wrong = "9" if truth.rank == Rank.SIX else "6"
    probs = _reading(**{f"_{wrong}{str(truth)[-1]}": 0.55, f"_{truth}": 0.2, "_QS": 0.05})
    settled = settle_by_glyph(probs, CARDS, image, box[None], [card])
    assert CARDS[int(np.argmax(settled[0, :-1]))] == truth
    assert settled[0, -1] == probs[0, -1]  # "not an index" keeps its share


def test_the_shipped_models_read_a_nine_the_classifier_takes_for_a_six_by_its_card() -> None:
    recogniser = OnnxRecogniser()
    image, card, box, truth = _saved("tango-9c.png")
    (with_card,) = recogniser.read(image, [tuple(box)], outlines=[card])
    assert with_card.card == truth
    assert with_card.confidence > 0.5
    (alone,) = recogniser.read(image, [tuple(box)])
    assert alone.card != truth  # without its card the index is the glyph only


def test_a_reading_without_its_card_or_already_sure_is_left_as_it_was() -> None:
    image, card, box, _ = _saved("tango-9c.png")
    doubt = _reading(_6C=0.55, _9C=0.2)
    assert np.array_equal(settle_by_glyph(doubt, CARDS, image, box[None], [None]), doubt)
    sure = _reading(_6C=0.95)
    assert np.array_equal(settle_by_glyph(sure, CARDS, image, box[None], [card]), sure)


def test_a_reading_the_glyph_contradicts_is_left_as_it_was_unless_what_it_allows_holds_enough() -> None:
    image, card, box, _ = _saved("tango-9c.png")  # a nine's loop: high up
    court = _reading(_KC=0.5, _JC=0.3)  # nothing it leaves holds IN_DOUBT of the reading
    assert np.array_equal(settle_by_glyph(court, CARDS, image, box[None], [card]), court)
    few = _reading(_KC=0.45, _JC=0.3, _QC=0.2)  # the queen, which a loop allows, holds 0.21 of it
    assert np.array_equal(settle_by_glyph(few, CARDS, image, box[None], [card]), few)
    enough = _reading(_KC=0.35, _JC=0.2, _QC=0.35)  # the queen holds 0.39: the loop is believed
    settled = settle_by_glyph(enough, CARDS, image, box[None], [card])
    assert CARDS[int(np.argmax(settled[0, :-1]))] == Card.from_text("QC")
    assert settled[0, :-1].sum() == pytest.approx(enough[0, :-1].sum())


def test_a_loop_rules_out_the_ranks_drawn_without_one_and_its_depth_a_six_or_a_nine() -> None:
    for depth in (0.3, 0.4, 0.5, 0.7):
        assert {Rank.SEVEN, Rank.JACK, Rank.KING} <= ruled_out(depth)
        # a real photo's blur closes loops in twos, threes and fives; an eight's lower loop may close up
        assert not {Rank.TWO, Rank.THREE, Rank.FIVE, Rank.EIGHT, Rank.FOUR} & ruled_out(depth)
    assert {Rank.NINE, Rank.QUEEN, Rank.ACE} <= ruled_out(0.7) and Rank.SIX not in ruled_out(0.7)
    assert Rank.SIX in ruled_out(0.3) and not {Rank.NINE, Rank.QUEEN} & ruled_out(0.3)
    assert not {Rank.TEN, Rank.QUEEN, Rank.ACE, Rank.SIX, Rank.NINE} & ruled_out(0.5)  # a "0", a queen, an ace
