"""A card just put down is found by what changed, and its indices are looked for where decks print them."""

import cv2
import numpy as np

from vision.proposals import INDEX_AT, changed_at, changed_card, changed_pixels, index_quads, misfit, unchanged_at
from vision.recognise.manifest import DEFAULT_MODEL_DIR, Manifest
from vision.zones import CARD_SIZE_MM

FELT = (40, 110, 40)


def _view() -> np.ndarray:
    """A top-down view of felt, 1 px per mm, with a little sensor noise."""
    rng = np.random.default_rng(0)
    view = np.empty((240, 220, 3), np.uint8)
    view[:] = FELT
    return np.clip(view + rng.normal(0, 3, view.shape), 0, 255).astype(np.uint8)


def _card_corners(cx: float, cy: float, angle: float) -> np.ndarray:
    w, h = CARD_SIZE_MM
    return cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float64)


def _with_card(view: np.ndarray, corners: np.ndarray, colour: tuple[int, int, int] = (235, 235, 235)) -> np.ndarray:
    out = view.copy()
    cv2.fillPoly(out, [np.round(corners).astype(np.int32)], colour)
    return out


def _worst_corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    return max(float(np.min(np.linalg.norm(found - t, axis=1))) for t in truth)


def test_a_card_put_down_on_the_felt_is_found_where_it_lies():
    before = _view()
    truth = _card_corners(110, 120, 23)
    found = changed_card(before, _with_card(before, truth), threshold=40, tolerance=0.12)
    assert found is not None
    assert _worst_corner_error(found, truth) < 2.0


def test_a_card_laid_over_another_is_found_and_not_the_one_beneath():
    under = _card_corners(100, 115, -10)
    before = _with_card(_view(), under)
    truth = _card_corners(118, 125, 30)
    now = _with_card(before, truth, (60, 40, 160))  # court art: colour all over the face
    found = changed_card(before, now, threshold=40, tolerance=0.12)
    assert found is not None
    assert _worst_corner_error(found, truth) < 2.0


def test_an_outline_is_off_a_cards_shape_by_its_worst_side() -> None:
    def box(w: float, h: float) -> np.ndarray:
        return cv2.boxPoints(((0, 0), (w, h), 30)).astype(np.float64)

    assert max(misfit(box(63, 88)), misfit(box(57, 88)), misfit(box(88, 60))) < 1e-3  # poker, bridge, between
    assert abs(misfit(box(56.8, 96.9)) - 8.9) < 0.01  # a 3C laid white on white, outlined from what changed
    assert abs(misfit(box(68.5, 90.0)) - 5.5) < 0.01


def test_a_card_taken_away_is_no_new_card():
    truth = _card_corners(110, 120, 5)
    with_card = _with_card(_view(), truth)
    assert changed_card(with_card, _view(), threshold=40, tolerance=0.12) is None


def test_a_change_of_another_size_is_no_card():
    before = _view()
    now = before.copy()
    cv2.circle(now, (110, 120), 60, (150, 170, 220), -1)  # a hand resting in the zone
    assert changed_card(before, now, threshold=40, tolerance=0.12) is None
    assert changed_card(before, before.copy(), threshold=40, tolerance=0.12) is None


def test_a_hand_leaving_at_the_views_edge_does_not_hide_the_card():
    before = _view()
    cv2.circle(before, (0, 0), 25, (150, 170, 220), -1)  # the last hand, still at the edge in the view before
    truth = _card_corners(120, 130, -15)
    found = changed_card(before, _with_card(_view(), truth), threshold=40, tolerance=0.12)
    assert found is not None
    assert _worst_corner_error(found, truth) < 2.0


def test_a_brighter_view_alone_is_no_card():
    before = _view()
    brighter = np.clip(before.astype(np.float32) * 1.3, 0, 255).astype(np.uint8)  # auto-exposure
    assert changed_card(before, brighter, threshold=40, tolerance=0.12) is None


def _noisy(view: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """``view`` as a frame of a dim room's camera: fresh sensor noise of ``sigma`` grey levels."""
    noise = np.random.default_rng(seed).normal(0, sigma, view.shape)
    return np.clip(view + noise, 0, 255).astype(np.uint8)


def test_a_card_put_down_is_found_through_a_dim_rooms_sensor_noise():
    # each frame has its own noise: two views of the same felt differ by about 23 grey levels a pixel, and
    # the threshold (40) is crossed all over the view unless the noise is averaged away first
    felt, truth = _view(), _card_corners(110, 120, 23)
    before, now = _noisy(felt, 16, 1), _noisy(_with_card(felt, truth), 16, 2)
    found = changed_card(before, now, threshold=40, tolerance=0.12)
    assert found is not None
    assert _worst_corner_error(found, truth) < 3.0  # averaged over a millimetre, the edge spreads a little
    assert changed_card(before, _noisy(felt, 16, 3), threshold=40, tolerance=0.12) is None
    # a camera of ordinary noise is compared pixel by pixel, as before: the outline as sharp as ever
    found = changed_card(_noisy(felt, 4, 1), _noisy(_with_card(felt, truth), 4, 2), threshold=40, tolerance=0.12)
    assert found is not None and _worst_corner_error(found, truth) < 2.0


def test_index_places_lie_inside_the_card_near_each_corner_at_every_angle():
    w, h = CARD_SIZE_MM
    for angle in (0.0, 37.0, 90.0, 200.0):
        card = _card_corners(100, 100, angle)
        quads = index_quads(card)
        assert len(quads) == 4 * len(INDEX_AT)
        for k, quad in enumerate(quads):
            corner = card[k // len(INDEX_AT)]
            centre = quad.mean(axis=0)
            assert cv2.pointPolygonTest(card.astype(np.float32), (float(centre[0]), float(centre[1])), False) > 0
            # an index sits within a fifth of the card's height from its corner, and is taller than wide
            assert np.linalg.norm(centre - corner) < 0.25 * h
            sides = sorted(float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(2))
            assert 0.05 * w < sides[0] < sides[1] < 0.3 * h


def test_a_jumbo_ten_lies_whole_and_centred_in_the_crop_of_one_place():
    """A jumbo deck prints its "10" as two wide glyphs from 8 % to 39 % of the card's width (the held-out
    tango_nuevo deck, measured on its face). A crop centred on the "1" alone reads "1(" as a 7: one place
    of each corner must hold the whole "10" near the middle of the square crop the classifier cuts
    (the shipped manifest's ``crop_scale`` times the box's longer side)."""
    crop_scale = Manifest.load(DEFAULT_MODEL_DIR).classifier.crop_scale
    w, h = CARD_SIZE_MM
    glyph_x = (0.083 * w, 0.394 * w)
    glyph_centre = sum(glyph_x) / 2
    card = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])  # upright, the top-left corner first
    best = 0.0
    for quad in index_quads(card)[: len(INDEX_AT)]:
        (x1, _), (x2, _) = quad.min(axis=0), quad.max(axis=0)
        side = crop_scale * max(x2 - x1, float(quad[:, 1].max() - quad[:, 1].min()))
        left, right = (x1 + x2) / 2 - side / 2, (x1 + x2) / 2 + side / 2
        inside = (min(right, glyph_x[1]) - max(left, glyph_x[0])) / (glyph_x[1] - glyph_x[0])
        if abs((x1 + x2) / 2 - glyph_centre) < side / 6:
            best = max(best, inside)
    assert best > 0.95


def test_only_what_the_hand_left_alone_is_unchanged():
    # A card lay on the felt with a corner index (dark ink) at (60, 60); another card is put down over the rest
    # of the view, its own index at (150, 170). The first index is unchanged, the new card's is not; with nothing
    # changed anywhere the views say nothing of what lay where.
    before = _with_card(_view(), _card_corners(70, 80, 0))
    cv2.rectangle(before, (56, 51), (64, 69), (40, 40, 40), -1)
    now = _with_card(before, _card_corners(150, 160, 10))
    cv2.rectangle(now, (146, 161), (154, 179), (40, 40, 40), -1)
    changed = changed_pixels(before, now, threshold=40)
    assert unchanged_at(changed, np.array([[60.0, 60.0]]), share=0.1)
    assert not unchanged_at(changed, np.array([[150.0, 170.0]]), share=0.1)
    assert not unchanged_at(changed, np.array([[60.0, 60.0], [150.0, 170.0]]), share=0.1)  # every place must be
    still = changed_pixels(before, before.copy(), threshold=40)
    assert not unchanged_at(still, np.array([[60.0, 60.0]]), share=0.1)
    # compared with an earlier view than the one before the hand (a card laid, then picked up again): nothing
    # changed since then, and what the hand changed is said by its own map
    assert unchanged_at(still, np.array([[60.0, 60.0]]), share=0.1, hand=changed)
    assert not unchanged_at(still, np.array([[60.0, 60.0]]), share=0.1, hand=still)  # a hand that changed nothing
    # what changed is asked the other way round: where something new lies, and nowhere in a view that did not change
    assert changed_at(changed, np.array([[150.0, 170.0]]), share=0.1)
    assert not changed_at(changed, np.array([[60.0, 60.0]]), share=0.1)
    assert not changed_at(changed, np.array([[60.0, 60.0], [150.0, 170.0]]), share=0.1)  # every place must be
    assert not changed_at(still, np.array([[150.0, 170.0]]), share=0.1)
    assert not changed_at(changed, np.array([[500.0, 500.0]]), share=0.1)  # off the view: nothing is known there
    assert not unchanged_at(changed, np.array([[500.0, 500.0]]), share=0.1)
