"""The pip reader: which blobs near an index are taken for pips, and what the pip network says of them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.recognise_models import CLASSES, write_models
from vision.detections import Detection
from vision.recognise import DEFAULT_MODEL_DIR, Manifest, ModelError, OnnxRecogniser
from vision.recognise.pips import SuitPips, pip_blobs, pip_crop

NINES_FIRST = ["9S", "9C", *(c for c in CLASSES if c not in ("9S", "9C"))]
"""Stand-in classes whose red reading names 9S and green 9C: two suits of one colour and rank."""

INDEX = np.array([[100.0, 100.0, 112.0, 124.0]])
"""One index box, 24 px long, its centre at (106, 112)."""


def _card() -> np.ndarray:
    """White paper on green felt; inside the index box a black rank glyph; around it pips."""
    image = np.full((300, 300, 3), (40, 120, 40), np.uint8)
    image[80:260, 90:230] = 255
    cv2.rectangle(image, (102, 103), (110, 121), (0, 0, 0), -1)  # the rank: inside the index box
    cv2.circle(image, (160, 120), 9, (0, 0, 0), -1)  # a black pip, 54 px from the index's centre
    cv2.circle(image, (140, 200), 9, (0, 0, 0), -1)  # another, 94 px away
    cv2.circle(image, (200, 110), 9, (0, 0, 220), -1)  # a red pip
    cv2.circle(image, (130, 150), 1, (0, 0, 0), -1)  # a speck: far smaller than a pip
    cv2.line(image, (95, 240), (225, 240), (0, 0, 0), 2)  # a rule: far longer than wide
    return image


def _centres(blobs: list[tuple[float, float, float, float]]) -> list[tuple[int, int]]:
    return [(round((x1 + x2) / 2), round((y1 + y2) / 2)) for x1, y1, x2, y2 in blobs]


def test_black_pips_near_an_index_are_found_nearest_first_and_its_own_glyph_is_not() -> None:
    blobs = pip_blobs(_card(), INDEX[0], False, INDEX, radius=5.0)
    assert _centres(blobs) == [(160, 120), (140, 200)]


def test_the_colour_chooses_the_ink() -> None:
    assert _centres(pip_blobs(_card(), INDEX[0], True, INDEX, radius=5.0)) == [(200, 110)]


def test_only_pips_within_the_radius_are_looked_at() -> None:
    # 3 index lengths (72 px) from the centre: the pip 94 px away lies outside the square searched
    assert _centres(pip_blobs(_card(), INDEX[0], False, INDEX, radius=3.0)) == [(160, 120)]


def test_a_pip_inside_another_index_box_is_that_index_and_not_a_pip() -> None:
    other = np.array([[150.0, 108.0, 170.0, 132.0]])  # a second index whose pip is the black one at (160, 120)
    blobs = pip_blobs(_card(), INDEX[0], False, np.concatenate([INDEX, other]), radius=5.0)
    assert (160, 120) not in _centres(blobs)


def test_in_a_photo_a_pip_nearer_another_cards_index_is_that_cards() -> None:
    # the next card of a fan: its index lies 18 px from the pip at (140, 200), which is 94 px from ours
    other = np.array([[140.0, 205.0, 152.0, 229.0]])
    indices = np.concatenate([INDEX, other])
    assert _centres(pip_blobs(_card(), INDEX[0], False, indices, radius=5.0, nearest=True)) == [(160, 120)]
    # the table gives the pips to the card just played, whatever lies under it
    assert _centres(pip_blobs(_card(), INDEX[0], False, indices, radius=5.0)) == [(160, 120), (140, 200)]
    # the same index boxed twice (a tight and a loose box) is not another card
    twice = np.concatenate([INDEX, [[99.0, 99.0, 113.0, 125.0]]])
    assert _centres(pip_blobs(_card(), INDEX[0], False, twice, radius=5.0, nearest=True)) == [(160, 120), (140, 200)]


def test_on_a_card_known_by_its_outline_only_its_own_pips_are_taken() -> None:
    # another card beneath, peeking out above ours: its pip lies nearer our index than our own pips do
    image = _card()
    image[20:80, 60:230] = 255
    cv2.circle(image, (106, 62), 9, (0, 0, 0), -1)
    ours = np.array([[90.0, 80.0], [230.0, 80.0], [230.0, 260.0], [90.0, 260.0]])
    assert _centres(pip_blobs(image, INDEX[0], False, INDEX, radius=5.0)) == [(106, 62), (160, 120), (140, 200)]
    assert _centres(pip_blobs(image, INDEX[0], False, INDEX, radius=5.0, card=ours)) == [(160, 120), (140, 200)]


def test_an_index_at_the_frame_edge_searches_what_there_is() -> None:
    image = _card()
    edge = np.array([0.0, 0.0, 6.0, 12.0])
    assert pip_blobs(image, edge, False, edge[None], radius=2.0) == []


def test_the_weave_of_a_dark_felt_is_not_taken_for_pips_round_the_card() -> None:
    """Dark blobs of a pip's size lie all round the card on a dark felt, nearer the index than the card's
    own far pip: only ink with paper round it is a pip, so the card's pips are the ones found."""
    image = _card()
    image[image[..., 1] == 120] = (90, 70, 10)  # the green felt made a dark teal
    for x, y in ((75, 100), (75, 130), (100, 70), (130, 70), (245, 120), (245, 160)):
        cv2.circle(image, (x, y), 8, (20, 25, 10), -1)  # the weave's dark tufts, a pip's size, off the card
    assert _centres(pip_blobs(_card(), INDEX[0], False, INDEX, radius=5.0)) == [(160, 120), (140, 200)]
    assert _centres(pip_blobs(image, INDEX[0], False, INDEX, radius=5.0)) == [(160, 120), (140, 200)]


def test_a_black_ink_tinted_blue_by_the_printer_or_the_light_is_black() -> None:
    """A dark navy "black" (B 56, G 37, R 29: tango_nuevo's spades under a cool light) has an HSV saturation
    of about half, for it is dark; its chroma is small, and that is what tells black ink from red."""
    image = _card()
    cv2.circle(image, (160, 120), 9, (56, 37, 29), -1)
    cv2.circle(image, (140, 200), 9, (56, 37, 29), -1)
    assert _centres(pip_blobs(image, INDEX[0], False, INDEX, radius=5.0)) == [(160, 120), (140, 200)]
    assert _centres(pip_blobs(image, INDEX[0], True, INDEX, radius=5.0)) == [(200, 110)]


def test_a_pip_is_cut_square_around_its_blob_at_the_networks_size() -> None:
    patch = pip_crop(_card(), (151.0, 111.0, 169.0, 129.0), 32)
    assert patch.shape == (32, 32, 3)
    assert patch[16, 16].max() < 60  # the pip's ink at the centre
    assert patch[1, 1].min() > 200  # the paper around it


# The shipped pip network, on a held-out deck's pips (the committed demo deck, orell, never trained on).

ORELL = Path(__file__).resolve().parents[2] / "vision" / "assets" / "deck" / "orell"
ORELL_INDEX = np.array([6.0, 10.0, 22.0, 52.0])
"""Where orell prints the top-left index (rank over pip) on its 150 x 250 faces."""


def _on_felt(card: str, index_colour: tuple[int, int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """An orell face on green felt and its top-left index box in the image; with ``index_colour`` the
    index is painted over in that colour (what a stand-in classifier reads)."""
    face = cv2.imread(str(ORELL / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None, f"the committed demo deck has {card}"
    alpha = face[..., 3:4].astype(np.float32) / 255
    image = np.full((330, 230, 3), (40, 110, 30), np.uint8)
    image[40:290, 40:190] = (face[..., :3] * alpha + image[40:290, 40:190] * (1 - alpha)).astype(np.uint8)
    box = ORELL_INDEX + 40.0
    if index_colour is not None:
        x1, y1, x2, y2 = (int(v) for v in box)
        image[y1:y2, x1:x2] = index_colour
    return image, box


@pytest.fixture(scope="module")
def pips() -> SuitPips:
    manifest = Manifest.load(DEFAULT_MODEL_DIR)
    assert manifest.pips is not None, "the shipped manifest reads doubtful suits from the pips"
    return SuitPips(DEFAULT_MODEL_DIR / manifest.pips.file, manifest.pips)


@pytest.mark.parametrize("card", ["5S", "5H", "5D", "5C", "8C", "3D"])
def test_the_shipped_pip_network_names_the_suit_of_a_held_out_decks_pips(pips: SuitPips, card: str) -> None:
    image, box = _on_felt(card)
    suit = "SHDC".index(card[-1])
    blobs = pip_blobs(image, box, suit in (1, 2), box[None], pips.spec.radius)
    assert len(blobs) >= 2, "the card's big pips beside its index are found"
    probs = pips.read(np.stack([pip_crop(image, blob, pips.spec.size) for blob in blobs[:3]]))
    assert (probs.argmax(axis=1) == suit).all(), probs.round(2)


def test_on_a_dark_woven_felt_the_pips_read_are_the_cards_own(pips: SuitPips) -> None:
    """A dark cloth woven in tufts of a pip's size round the card: the blobs taken for pips all lie on the
    card, and the shipped network names the card's suit from them."""
    image, box = _on_felt("5S")
    rows, cols = np.indices(image.shape[:2])
    cells: np.ndarray = np.logical_and(rows % 14 < 10, cols % 14 < 10)  # dark tufts 10 px square, lighter threads
    weave = np.where(cells[..., None], np.array([60, 62, 48], np.uint8), np.array([120, 125, 100], np.uint8))
    card = np.zeros(image.shape[:2], bool)
    card[40:290, 40:190] = True
    image[~card] = weave[~card]
    blobs = pip_blobs(image, box, False, box[None], pips.spec.radius)
    assert len(blobs) >= 2, "the card's big pips beside its index are found"
    on_card = [x1 >= 40 and x2 <= 190 and y1 >= 40 and y2 <= 290 for x1, y1, x2, y2 in blobs[: pips.spec.most]]
    assert all(on_card), blobs
    probs = pips.read(np.stack([pip_crop(image, blob, pips.spec.size) for blob in blobs[: pips.spec.most]]))
    assert (probs.argmax(axis=1) == 0).all(), probs.round(2)


def test_the_pip_network_says_court_art_and_felt_are_no_pips(pips: SuitPips) -> None:
    felt = np.full((pips.spec.size, pips.spec.size, 3), (40, 110, 30), np.uint8)
    assert pips.read(felt[None]).argmax(axis=1).tolist() == [4]


def _with_pips(folder: Path) -> Path:
    """Stand-in models (:data:`NINES_FIRST`) with the shipped pip network and its manifest entry."""
    models = write_models(folder, manifest_extra={"classes": NINES_FIRST})
    manifest = json.loads((models / "models.json").read_text())
    shipped = Manifest.load(DEFAULT_MODEL_DIR).pips
    assert shipped is not None
    shutil.copy(DEFAULT_MODEL_DIR / shipped.file, models / shipped.file)
    manifest["pips"] = shipped.model_dump()
    (models / "models.json").write_text(json.dumps(manifest))
    return models


def test_a_suit_the_index_leaves_in_doubt_is_read_from_the_pips_beside_it(tmp_path: Path) -> None:
    """A stand-in classifier reads the painted index as 9S, not quite sure against 9C; the card's real
    pips, read by the shipped pip network, make it 9C on a club and leave it 9S on a spade. The rank
    and colour keep their probability either way (each suit's cards are scaled alike, so the nines'
    share moves only by what the other ranks' suit split does)."""
    plain = write_models(tmp_path / "plain", manifest_extra={"classes": NINES_FIRST})
    with_pips = _with_pips(tmp_path / "pips")

    def pair(detection: Detection) -> float:
        return sum(p for card, p in detection.candidates if str(card) in ("9S", "9C"))

    for card, named in (("5C", "9C"), ("5S", "9S")):
        image, box = _on_felt(card, index_colour=(0, 140, 255))  # "mostly 9S, not quite sure"
        before = OnnxRecogniser(plain).read(image, [tuple(box)])[0]
        after = OnnxRecogniser(with_pips).read(image, [tuple(box)])[0]
        assert str(before.card) == "9S" and 0.5 < before.confidence < 0.9
        assert str(after.card) == named, (card, after.candidates)
        assert pair(after) == pytest.approx(pair(before), abs=0.01)


def test_a_bad_pip_setting_or_a_missing_pip_network_is_a_clear_error(tmp_path: Path) -> None:
    models = write_models(tmp_path, manifest_extra={"classes": NINES_FIRST})
    manifest = json.loads((models / "models.json").read_text())
    manifest["pips"] = {"file": "suit-pips.onnx", "rank": 0.4}
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"pips\.rank"):
        OnnxRecogniser(models)
    manifest["pips"] = {"file": "suit-pips.onnx"}
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"model file 'suit-pips.onnx' is missing"):
        OnnxRecogniser(models)


def test_in_a_photo_pips_nearer_another_cards_index_do_not_name_this_cards_suit(tmp_path: Path) -> None:
    """A photo's fanned rows put the next card's pips beside an index, and that card's own index nearer
    to them: a photo gives each pip to the index it lies nearest to. The table's zone holds the card just
    played, on top of whatever lies under it, and reads the pips beside its index as that card's."""
    models = _with_pips(tmp_path)
    image, box = _on_felt("5C", index_colour=(0, 140, 255))  # "mostly 9S, not quite sure"
    spec = Manifest.load(models).pips
    assert spec is not None
    others = []
    for _x1, y1, x2, _y2 in pip_blobs(image, box, False, box[None], spec.radius):
        other = (x2 + 1.0, y1, x2 + 10.0, y1 + 14.0)  # an index printed just beside each pip, nearer than ours
        image[int(other[1]) : int(other[3]), int(other[0]) : int(other[2])] = (0, 0, 255)  # sure 9S
        others.append(other)
    assert len(others) >= 2
    table = OnnxRecogniser(models).read(image, [tuple(box), *others])[0]
    photo = OnnxRecogniser(models, photo=True).read(image, [tuple(box), *others])[0]
    assert str(table.card) == "9C", table.candidates
    assert str(photo.card) == "9S", photo.candidates


def test_the_shipped_manifest_asks_the_pips_in_a_photo_nearly_as_readily_as_at_the_table() -> None:
    """Since a photo gives each pip to its nearest index, the rank need be little surer there than at the
    table (docs/vision.md, "5 December, afternoon": 0.9 before)."""
    spec = Manifest.load(DEFAULT_MODEL_DIR).pips
    assert spec is not None and spec.photo_rank is not None and spec.rank <= spec.photo_rank <= 0.6
    table, photo = OnnxRecogniser(DEFAULT_MODEL_DIR), OnnxRecogniser(DEFAULT_MODEL_DIR, photo=True)
    assert table.pips is not None and table.pips.rank == spec.rank and not table.pips.photo
    assert photo.pips is not None and photo.pips.rank == spec.photo_rank and photo.pips.photo


def _paste(image: np.ndarray, card: str, x: int, y: int) -> np.ndarray:
    """Lay an orell face on ``image`` with its top-left corner at ``(x, y)``; its outline in image pixels."""
    face = cv2.imread(str(ORELL / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None, f"the committed demo deck has {card}"
    alpha = face[..., 3:4].astype(np.float32) / 255
    h, w = face.shape[:2]
    under = image[y : y + h, x : x + w]
    under[:] = (face[..., :3] * alpha + under * (1 - alpha)).astype(np.uint8)
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def test_at_the_table_a_card_just_put_down_reads_its_suit_from_its_own_pips_not_the_card_beneath(
    tmp_path: Path,
) -> None:
    """A pile: a KC put down on a KS, whose big spade and index pip peek out beside the KC's index. The
    stand-in classifier reads the KC's painted index as "mostly 9S, not quite sure"; the spades beneath
    keep it a spade, unless the recogniser is told where the card just put down lies (the tracker's
    outline), and then the KC's own club names it."""
    models = _with_pips(tmp_path)
    image = np.full((330, 330, 3), (40, 110, 30), np.uint8)
    _paste(image, "KS", 10, 20)
    top = _paste(image, "KC", 100, 60)
    box = ORELL_INDEX + np.array([100.0, 60.0, 100.0, 60.0])  # the KC's top-left index
    x1, y1, x2, y2 = (int(v) for v in box)
    image[y1:y2, x1:x2] = (0, 200, 255)  # in this crop: 9S, not quite sure
    recogniser = OnnxRecogniser(models)
    blind = recogniser.read(image, [tuple(box)])[0]
    told = recogniser.read(image, [tuple(box)], outlines=[top])[0]
    assert str(blind.card) == "9S", blind.candidates
    assert str(told.card) == "9C", told.candidates
