"""A shadow over the table is told from a card: what changed only as a shadow changes things is no change."""

import numpy as np

from vision.proposals import changed_pixels, lit_only
from vision.shading import shading_only

FELT = np.array([40, 100, 40], np.float32)  # BGR green felt
PAPER = np.array([225, 225, 225], np.float32)


def _view(colour: np.ndarray, size: int = 60) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.clip(np.broadcast_to(colour, (size, size, 3)) + rng.normal(0, 3, (size, size, 3)), 0, 255)


def test_felt_in_a_shadow_is_shading_and_a_card_or_a_card_back_on_it_is_not() -> None:
    felt = _view(FELT)
    assert shading_only(felt, felt * 0.45).all()
    assert shading_only(FELT, felt * 0.45).all()  # against the felt's colour alone
    assert not shading_only(felt, _view(PAPER)).any()  # a white card laid there
    assert not shading_only(felt, _view(PAPER) * 0.5).any()  # a white card in the shadow
    assert not shading_only(felt, _view(np.array([150, 40, 40], np.float32))).any()  # a blue back
    assert not shading_only(felt, felt * 0.15).any()  # darker than any shadow: something black


def test_a_place_lit_brighter_than_before_is_no_shadow_it_may_be_a_card_of_its_colour() -> None:
    felt = _view(FELT)
    assert not shading_only(felt, felt * 1.5).any()  # a green card, lighter, on green felt
    assert shading_only(felt, felt * 1.1).all()  # the view evened out while a shadow lies elsewhere


def test_ink_on_paper_under_a_shadow_darkens_with_it_and_new_ink_does_not() -> None:
    card = _view(PAPER)
    card[20:40, 25:30] = 25  # a glyph's black stroke
    card[10:15, 40:50] = [40, 40, 200]  # a red pip's edge
    assert shading_only(card, card * 0.5, window=15).all()
    new = card.copy()
    new[20:40, 35:40] = 25  # another card's stroke where paper was
    assert shading_only(card, new, window=15)[20:40, 35:40].sum() == 0


def test_a_court_picture_laid_over_a_cards_paper_is_a_change_though_each_grey_line_only_darkens_it() -> None:
    paper = _view(PAPER)
    court = _view(PAPER)
    court[:, ::4] = court[:, 1::4] = 110  # grey lines a few pixels apart
    lines = np.zeros(court.shape[:2], bool)
    lines[:, ::4] = lines[:, 1::4] = True
    assert shading_only(paper, court)[lines].mean() > 0.9  # each line alone looks like the paper in a shadow
    assert shading_only(paper, court, window=15)[lines].mean() < 0.1  # their neighbourhood does not


def test_changed_pixels_sees_the_card_put_down_and_not_the_shadow_beside_it() -> None:
    before = _view(FELT, 120)
    now = before.copy()
    now[:, 60:] *= 0.5  # a player's shadow over half the view
    now[20:80, 10:50] = _view(PAPER, 120)[20:80, 10:50]  # a card put down in the other half
    changed = changed_pixels(before.astype(np.uint8), now.astype(np.uint8), threshold=30)
    assert changed[25:75, 15:45].all()
    assert changed[:, 70:].mean() < 0.01


def test_a_view_changed_only_by_its_light_is_told_from_one_where_a_card_was_also_put_down() -> None:
    before = _view(FELT, 120)
    shaded = before.copy()
    shaded[:, 60:] *= 0.5  # a player's shadow over half the view
    with_card = shaded.copy()
    with_card[20:80, 10:50] = _view(PAPER, 120)[20:80, 10:50]
    as_bytes = [v.astype(np.uint8) for v in (before, shaded, with_card)]
    assert lit_only(as_bytes[0], as_bytes[1], threshold=30)
    assert lit_only(as_bytes[1], as_bytes[0], threshold=30)  # the shadow lifting, as well
    assert not lit_only(as_bytes[0], as_bytes[2], threshold=30)  # a card too
    assert not lit_only(as_bytes[2], as_bytes[0], threshold=30)  # a card taken away
    assert not lit_only(as_bytes[0], as_bytes[0], threshold=30)  # nothing at all: no light, no card, no word


def test_a_shadow_over_most_of_the_view_leaves_the_rest_unchanged_though_the_median_fell() -> None:
    before = _view(FELT, 120)
    now = before.copy()
    now[:, 30:] *= 0.5  # three quarters of the view in the shadow: its median is the shadow's
    changed = changed_pixels(before.astype(np.uint8), now.astype(np.uint8), threshold=30)
    assert changed.mean() < 0.01
    carded = now.copy()
    carded[20:80, 5:25] = _view(PAPER, 120)[20:80, 5:25]  # a card's edge in the lit quarter
    assert changed_pixels(before.astype(np.uint8), carded.astype(np.uint8), threshold=30)[25:75, 8:22].all()


def _mat_under_a_lamp(size: tuple[int, int] = (150, 100)) -> np.ndarray:
    """A felt mat seen from above under a lamp low over one side of it (its light falling off to an eighth at the
    far corner) and a window's light across it, with its printed lines and a white card lying on it."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1.0 / (1.0 + ((xx - 0.3 * w) ** 2 + (yy - 0.4 * h) ** 2) / (0.6 * w) ** 2) ** 1.5 - 0.1 * xx / w
    view = FELT * light[..., None] * 1.6
    view[:, 40:42] = view[20:22, :] = (200, 230, 200)  # the zones' printed outlines
    view[60:82, 100:116] = PAPER * light[60:82, 100:116, None]  # a card
    rng = np.random.default_rng(0)
    return np.asarray(np.clip(view + rng.normal(0, 3, view.shape), 0, 255), np.float32)


def test_a_mat_under_a_lamps_uneven_light_has_no_shadow_and_a_player_leaning_over_it_casts_one() -> None:
    import cv2

    from vision.shading import shadowed

    mat = _mat_under_a_lamp()
    assert not shadowed(mat).any()  # the lamp's fall-off, the window, the printing and a card: no shadow
    disc = np.zeros(mat.shape[:2], np.float32)
    cv2.circle(disc, (70, 50), 14, 1.0, -1)
    head = cv2.GaussianBlur(disc, (0, 0), 4)  # a head's soft shadow, taking half the light at its middle
    leaning = mat * (1.0 - 0.5 * head)[..., None]
    found = shadowed(leaning)
    assert found[50, 70] and found[45:56, 65:76].all()
    assert not found[head < 0.2].any()  # only where the shadow lies
    assert not shadowed(mat * (1.0 - 0.2 * head)[..., None]).any()  # a faint one is under the lamp's unevenness
