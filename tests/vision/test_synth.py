"""The synthetic data: committed demo deck, corner-index boxes, scenes deterministic from a seed.

These run on the committed held-out deck (vision/assets/deck/orell), so they need neither the Debian
card packages nor the rendered face cache.
"""

import shutil
from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine.cards import Card, deck
from vision.synth.faces import (
    DESIGNS,
    DRAWN,
    HELD_OUT,
    NPM_DECKS,
    NPM_DESIGNS,
    TRAIN_DESIGNS,
    FaceError,
    available_designs,
    corner_boxes,
    load_face,
    load_jokers,
    render_jokers,
)
from vision.synth.scenes import SceneConfig, render_scene
from vision.training.dataset import CROP_SIZE, NOT_INDEX, crop_label, make_crops, negative_boxes

DEMO = "orell"


def test_demo_deck_is_committed_and_held_out():
    assert DEMO in available_designs()
    assert DEMO in HELD_OUT
    for card in deck():
        face = load_face(DEMO, card)
        assert face.dtype == np.uint8 and face.ndim == 3 and face.shape[2] == 4  # BGRA
        assert 240 <= face.shape[0] <= 260


def test_unknown_design_is_named_in_the_error():
    with pytest.raises(FaceError, match="no-such-deck"):
        load_face("no-such-deck", Card.from_text("AS"))


def test_held_out_designs_never_train():
    assert len(HELD_OUT) >= 3
    assert not set(HELD_OUT) & set(TRAIN_DESIGNS)
    assert set(HELD_OUT) | set(TRAIN_DESIGNS) | set(NPM_DESIGNS) == set(DESIGNS) | set(DRAWN)
    assert not set(HELD_OUT) & set(DRAWN)  # the held-out measure stays on real deck art


def test_each_card_of_a_per_card_deck_has_its_own_file():
    from vision.synth.faces import _card_file

    kennard, responsive = NPM_DESIGNS["kennard"], NPM_DESIGNS["responsive"]
    assert _card_file(kennard, Card.from_text("10H")).name == "TH.svg"
    assert _card_file(kennard, Card.from_text("AC")).name == "AC.svg"
    assert _card_file(responsive, Card.from_text("QS")).name == "12s.svg"
    assert _card_file(responsive, Card.from_text("AH")).name == "1h.svg"
    assert _card_file(responsive, Card.from_text("7D")).name == "7d.svg"


@pytest.mark.skipif(
    shutil.which("rsvg-convert") is None or not (NPM_DECKS / "react-playing-cards").is_dir(),
    reason="needs rsvg-convert and the npm decks (scripts/train-deps.sh)",
)
def test_an_npm_deck_renders_52_faces_and_a_back(tmp_path):
    from vision.synth.faces import FACE_HEIGHT, render_design

    out = render_design("kennard-large-index", cache_dir=tmp_path)
    faces = sorted(p.stem for p in out.glob("*.png"))
    assert len(faces) == 53 and "back" in faces and "10H" in faces
    for name in ("10H", "back"):
        img = np.asarray(cv2.imread(str(out / f"{name}.png"), cv2.IMREAD_UNCHANGED))
        assert img.shape[0] == FACE_HEIGHT and 0.68 < img.shape[1] / img.shape[0] < 0.74
        assert img[0, 0, 3] < 128 < img[FACE_HEIGHT // 2, img.shape[1] // 2, 3]  # rounded corner, opaque body


@pytest.mark.parametrize("text", ["AS", "10H", "QC", "7D", "KH", "2C"])
def test_corner_boxes_hold_ink_in_opposite_corners(text):
    card = Card.from_text(text)
    face = load_face(DEMO, card)
    h, w = face.shape[:2]
    boxes = corner_boxes(DEMO, card)
    assert len(boxes) == 2
    top_left, bottom_right = boxes
    assert top_left[2] < w / 3 and top_left[3] < h / 3
    assert bottom_right[0] > 2 * w / 3 and bottom_right[1] > 2 * h / 3
    gray = face[..., :3].mean(axis=2)
    paper = np.median(gray)
    for x1, y1, x2, y2 in boxes:
        patch = gray[y1:y2, x1:x2]
        ink = (np.abs(patch - paper) > 60).mean()
        assert 0.05 < ink < 0.8, f"{text}: index box {x1, y1, x2, y2} holds {ink:.0%} ink"


def test_scene_is_deterministic_from_its_seed():
    a = render_scene(11, [DEMO])
    b = render_scene(11, [DEMO])
    c = render_scene(12, [DEMO])
    assert np.array_equal(a.image, b.image)
    assert a.labels == b.labels
    assert not np.array_equal(a.image, c.image)


def test_scene_labels_sit_on_visible_printed_indices():
    cfg = SceneConfig(size=320, hand_probability=0.0, back_probability=0.0)
    seen = 0
    for seed in range(6):
        scene = render_scene(seed, [DEMO], cfg)
        assert scene.design == DEMO
        gray = scene.image.mean(axis=2)
        for label in scene.labels:
            x1, y1, x2, y2 = (round(v) for v in label.box)
            assert 0 <= x1 < x2 <= cfg.size and 0 <= y1 < y2 <= cfg.size
            patch = gray[y1 : y2 + 1, x1 : x2 + 1]
            assert patch.max() - patch.min() > 40, f"seed {seed}: {label.card} box {label.box} shows no ink"
            assert label.visible >= cfg.min_visible
            seen += 1
    assert seen >= 10


def test_corner_covered_by_a_hand_is_not_labelled():
    cfg = SceneConfig(size=320, hand_probability=1.0, back_probability=0.0)
    for seed in range(4):
        scene = render_scene(seed, [DEMO], cfg)
        for label in scene.labels:
            assert label.visible >= cfg.min_visible


def test_crop_is_square_and_sized_for_the_classifier():
    scene = render_scene(5, [DEMO], SceneConfig(size=320, hand_probability=0.0))
    label = scene.labels[0]
    crop = crop_label(scene.image, label.box, None)
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    jittered = crop_label(scene.image, label.box, np.random.default_rng(0))
    assert jittered.shape == crop.shape


def test_the_crop_margin_sets_how_much_of_the_crop_the_index_fills():
    """``--crop-margin``: a crop cut at 0.8 of the box lies inside it, one at 1.5 shows the index at
    under half its area, whatever the random shift."""
    image = np.full((200, 200, 3), 255, np.uint8)
    image[80:120, 80:120] = 0  # an "index" filling its box
    box = (80.0, 80.0, 120.0, 120.0)

    def ink(margin: tuple[float, float], seed: int) -> float:
        return float((crop_label(image, box, np.random.default_rng(seed), margin=margin) < 128).mean())

    for seed in range(8):
        assert ink((0.8, 0.81), seed) > 0.97
        assert 0.3 < ink((1.5, 1.51), seed) < 0.5


def test_reject_class_crops_hold_no_index_and_stay_in_the_image():
    cfg = SceneConfig(size=320, hand_probability=0.0, back_probability=0.0)
    made = 0
    for seed in range(6):
        scene = render_scene(seed, [DEMO], cfg)
        labels = [label.box for label in scene.labels]
        blanks = negative_boxes(labels, cfg.size, 3, np.random.default_rng(seed))
        assert len(blanks) <= 3
        for x1, y1, x2, y2 in blanks:
            assert 0 <= x1 < x2 <= cfg.size and 0 <= y1 < y2 <= cfg.size
            for lx1, ly1, lx2, ly2 in labels:
                overlap = max(0.0, min(x2, lx2) - max(x1, lx1)) * max(0.0, min(y2, ly2) - max(y1, ly1))
                assert overlap <= 0.15 * min((x2 - x1) * (y2 - y1), (lx2 - lx1) * (ly2 - ly1))
        made += len(blanks)
    assert made >= 10  # most scenes give their quota
    assert negative_boxes([], cfg.size, 3, np.random.default_rng(0)) == []


def test_crops_carry_the_reject_label_after_the_cards():
    cfg = SceneConfig(size=288, hand_probability=0.0, card_height=(70.0, 200.0))
    crops, labels, _ = make_crops(range(3), [DEMO], cfg, workers=1, negatives=2)
    assert crops.shape[1:] == (CROP_SIZE, CROP_SIZE, 3) and len(crops) == len(labels)
    assert (labels == NOT_INDEX).sum() >= 3
    assert labels.max() == NOT_INDEX and ((labels < 52) | (labels == NOT_INDEX)).all()


def _corner_angles(quad: tuple[tuple[float, float], ...]) -> list[float]:
    q = np.array(quad)
    out = []
    for i in range(4):
        a, b = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        out.append(float(np.degrees(np.arccos(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b)))))
    return out


def test_stretched_scenes_squash_indices_like_a_photo_saved_square():
    """Seen straight down an index is a rectangle at any rotation; a picture stretched along one image
    axis skews rotated indices (as in the webcam photos we measure on), and labels still hold ink."""
    flat = SceneConfig(size=320, hand_probability=0.0, back_probability=0.0, max_tilt_deg=0.0)
    stretched = replace(flat, stretch_probability=1.0)
    straight = [a for s in range(4) for lab in render_scene(s, [DEMO], flat).labels for a in _corner_angles(lab.quad)]
    assert max(abs(a - 90) for a in straight) < 1.0
    skew = []
    for seed in range(4):
        scene = render_scene(seed, [DEMO], stretched)
        gray = scene.image.mean(axis=2)
        for label in scene.labels:
            x1, y1, x2, y2 = (round(v) for v in label.box)
            patch = gray[y1 : y2 + 1, x1 : x2 + 1]
            assert patch.max() - patch.min() > 40, f"seed {seed}: {label.card} box {label.box} shows no ink"
            skew.append(max(abs(a - 90) for a in _corner_angles(label.quad)))
    assert len(skew) >= 8 and max(skew) > 5.0


def test_defocused_scenes_are_softer_with_the_same_cards_in_the_same_places():
    """Defocus blurs the picture (less fine detail, even where the sharp one drew no noise and the soft
    one did) and moves nothing: same cards, same boxes."""
    import cv2

    sharp_cfg = SceneConfig(size=320, hand_probability=0.0)
    soft_cfg = replace(sharp_cfg, defocus_probability=1.0, defocus=(0.03, 0.03))
    for seed in range(6):
        sharp, soft = render_scene(seed, [DEMO], sharp_cfg), render_scene(seed, [DEMO], soft_cfg)
        assert [(lab.card, lab.box) for lab in sharp.labels] == [(lab.card, lab.box) for lab in soft.labels]
        # at half size, where noise averages out and the edges of pips and letters stay
        grey = [
            cv2.resize(cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY), (160, 160), interpolation=cv2.INTER_AREA)
            for s in (sharp, soft)
        ]
        detail = [float(cv2.Laplacian(g, cv2.CV_64F).var()) for g in grey]
        assert detail[1] < 0.7 * detail[0], f"seed {seed}: detail {detail}"


def test_area_faces_draw_a_small_card_as_a_camera_would_and_move_nothing():
    """A face shrunk by area averaging before the warp is drawn closer to what a camera records (the card
    drawn four times larger and averaged down) than the point-sampled warp; these scenes keep their cards
    and boxes, since the option draws no random numbers."""
    from vision.synth.scenes import _warp_face

    face = load_face(DEMO, Card.from_text("8C"))
    height = 40.0
    k = height / face.shape[0]
    turn = cv2.getRotationMatrix2D((0, 0), 17, k)
    m = np.vstack([turn + np.array([[0, 0, 20], [0, 0, 6]]), [0, 0, 1]])
    four = np.diag([4.0, 4.0, 1.0]) @ m
    camera = cv2.resize(_warp_face(face, four, 256, 4 * height), (64, 64), interpolation=cv2.INTER_AREA)
    error = {
        name: float(np.abs(_warp_face(face, m, 64, drawn).astype(float) - camera.astype(float))[..., :3].mean())
        for name, drawn in (("point-sampled", None), ("area", height))
    }
    assert error["area"] < 0.6 * error["point-sampled"], error

    cfg = SceneConfig(size=288, card_height=(60.0, 90.0))
    for seed in range(3):
        plain, area = render_scene(seed, [DEMO], cfg), render_scene(seed, [DEMO], replace(cfg, area_faces=True))
        assert [(lab.card, lab.box) for lab in plain.labels] == [(lab.card, lab.box) for lab in area.labels]
        assert not np.array_equal(plain.image, area.image)


def test_the_demo_deck_has_its_jokers_committed():
    jokers = load_jokers(DEMO)
    assert len(jokers) == 2
    assert all(j.shape == load_face(DEMO, Card.from_text("AS")).shape for j in jokers)


def test_a_joker_in_a_scene_is_never_labelled_and_its_corner_marks_are_decoys():
    """A joker has no index: its corner marks (ink, where indices sit) are decoys, not labels, and no
    label sits on them; scenes without jokers have none."""
    cfg = SceneConfig(size=320, hand_probability=0.0, back_probability=0.0, joker_probability=1.0)
    plain = replace(cfg, joker_probability=0.0)
    decoys = 0
    for seed in range(6):
        scene, without = render_scene(seed, [DEMO], cfg), render_scene(seed, [DEMO], plain)
        assert without.decoys == ()
        gray = scene.image.mean(axis=2)
        for x1, y1, x2, y2 in scene.decoys:
            patch = gray[round(y1) : round(y2) + 1, round(x1) : round(x2) + 1]
            assert patch.max() - patch.min() > 40, f"seed {seed}: decoy {x1, y1, x2, y2} shows no ink"
            for label in scene.labels:
                lx1, ly1, lx2, ly2 = label.box
                assert min(x2, lx2) - max(x1, lx1) <= 0 or min(y2, ly2) - max(y1, ly1) <= 0 or label.visible < 1
        decoys += len(scene.decoys)
    assert decoys >= 6


_CROPS_CFG = SceneConfig(size=288, hand_probability=0.0, back_probability=0.0, card_height=(70.0, 200.0))


@pytest.mark.parametrize(
    ("decoyed", "at_least"),
    [(replace(_CROPS_CFG, joker_probability=1.0), 3), (replace(_CROPS_CFG, marks_probability=1.0), 4)],
    ids=["jokers", "marks"],
)
def test_decoys_a_joker_or_marks_on_the_table_become_reject_crops(decoyed: SceneConfig, at_least: int) -> None:
    """A joker's corner lettering and the legends of a keyboard or a score sheet are "not an index"."""
    _, plain, _ = make_crops(range(4), [DEMO], _CROPS_CFG, workers=1, negatives=0)
    _, with_decoys, _ = make_crops(range(4), [DEMO], decoyed, workers=1, negatives=0)
    assert (plain == NOT_INDEX).sum() == 0
    assert (with_decoys == NOT_INDEX).sum() >= at_least


def test_a_keyboard_or_score_sheet_on_the_table_gives_decoys_where_it_shows_and_no_label_moves():
    """Legends of keys and words of a score sheet are decoys where they show and no card covers them
    (the marks lie under the cards); scenes without marks have none."""
    cfg = SceneConfig(size=320, hand_probability=0.0, back_probability=0.0, marks_probability=1.0)
    decoys = 0
    for seed in range(8):
        scene = render_scene(seed, [DEMO], cfg)
        assert render_scene(seed, [DEMO], replace(cfg, marks_probability=0.0)).decoys == ()
        gray = scene.image.mean(axis=2)
        for x1, y1, x2, y2 in scene.decoys:
            assert 0 <= x1 < x2 <= 319 and 0 <= y1 < y2 <= 319
            patch = gray[round(y1) : round(y2) + 1, round(x1) : round(x2) + 1]
            assert patch.max() - patch.min() > 15, f"seed {seed}: decoy {x1, y1, x2, y2} shows no ink"
            for label in scene.labels:
                lx1, ly1, lx2, ly2 = label.box
                overlap = max(0.0, min(x2, lx2) - max(x1, lx1)) * max(0.0, min(y2, ly2) - max(y1, ly1))
                assert overlap <= 0.5 * (x2 - x1) * (y2 - y1), f"seed {seed}: a decoy lies on {label.card}'s index"
        decoys += len(scene.decoys)
    assert decoys >= 8


def test_marks_never_show_a_lone_rank_or_a_suit():
    """A bare rank is what one held-out deck prints in its corner (tango_nuevo): teaching it as "not an
    index" would cost that deck its cards, so no mark is a rank on its own."""
    from vision.synth.marks import _KEY_WORDS, _LETTERS, _SHEET_WORDS

    ranks = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"}
    assert not ranks & (set(_LETTERS) | set(_KEY_WORDS) | set(_SHEET_WORDS))
    assert not set("\u2660\u2663\u2665\u2666") & set("".join(_KEY_WORDS + _SHEET_WORDS))


def test_jokers_are_rendered_once_per_design(tmp_path, monkeypatch):
    """A design tried once (jokers found or not) is not rendered again: no rsvg-convert needed."""
    import shutil

    import cv2

    out = tmp_path / "anglo"
    out.mkdir()
    cv2.imwrite(str(out / "joker-1.png"), np.zeros((20, 12, 4), np.uint8))
    (out / "jokers.txt").write_text("1 jokers, height 20\n")
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert [p.name for p in render_jokers("anglo", cache_dir=tmp_path)] == ["joker-1.png"]
    assert render_jokers("drawn-00", cache_dir=tmp_path) == []  # drawn decks have none
    with pytest.raises(FaceError, match="rsvg-convert"):
        render_jokers("paris", cache_dir=tmp_path)  # never tried, and nothing to render with


@pytest.mark.parametrize(("angle", "top", "bottom"), [(0, 0, 2), (90, 3, 1), (180, 2, 0), (270, 1, 3)])
def test_each_index_knows_the_quarter_turns_that_stand_it_upright(angle: float, top: int, bottom: int) -> None:
    """A card turned counter-clockwise by ``angle``: its top index needs the turns back, and the bottom
    index, printed upside down, two more (an upright-only classifier learns from these)."""
    from vision.synth.scenes import _card_matrix, _upright_turns

    m = _card_matrix((360, 250), 200.0, 200.0, angle, 360.0)
    assert _upright_turns(m, (10, 10, 40, 80), 360) == top
    assert _upright_turns(m, (210, 280, 240, 350), 360) == bottom


def test_scene_labels_carry_turns_that_stand_the_index_upright() -> None:
    cfg = SceneConfig(size=288, hand_probability=0.0, card_height=(70.0, 200.0))
    _, labels, turns = make_crops(range(3), [DEMO], cfg, workers=1, negatives=2)
    assert len(turns) == len(labels)
    assert ((turns >= 0) & (turns < 4))[labels < NOT_INDEX].all() and (turns[labels == NOT_INDEX] == -1).all()
