"""The torch-free recogniser, against tiny ONNX models with the shipped models' inputs and outputs."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine.cards import Card
from tests.vision.recognise_models import BLUE, CLASSES, GREEN, RED, write_models
from vision.detections import Detection
from vision.recognise import CardVote, ModelError, OnnxRecogniser, cards_in_image
from vision.recognise.detector import closer_windows, letterbox, plan_windows

ROOT = Path(__file__).resolve().parents[2]


def paint(image: np.ndarray, center: tuple[int, int], size: tuple[int, int], bgr: tuple[int, int, int]) -> None:
    cx, cy = center
    w, h = size
    image[cy - h // 2 : cy + h // 2, cx - w // 2 : cx + w // 2] = bgr


def test_polygons_are_in_the_input_images_pixels_after_letterboxing(tmp_path: Path) -> None:
    # 1280x720 into a 320 square: scale 1/4, 70 px of padding above. The model "sees" a 20x40 box
    # centred at (160, 160) of its input, which is (640, 360) of the frame, 80x160 there.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 20, 40, 0.9)])
    frame = np.full((720, 1280, 3), 90, np.uint8)
    paint(frame, (640, 360), (80, 160), (0, 0, 255))  # red, in BGR

    found = OnnxRecogniser(models, tile="off").detect(frame)

    assert len(found) == 1
    detection = found[0]
    assert isinstance(detection, Detection)
    assert detection.card == Card.from_text(RED)
    assert detection.box == pytest.approx((600, 280, 680, 440), abs=1.0)
    assert detection.center == pytest.approx((640, 360), abs=1.0)
    assert len(detection.polygon) == 4


def test_each_corner_is_classified_from_its_own_crop(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=100, boxes=[(20, 20, 10, 10, 0.8), (80, 80, 10, 10, 0.7)])
    image = np.full((200, 200, 3), 60, np.uint8)
    paint(image, (40, 40), (24, 24), (0, 255, 0))  # green
    paint(image, (160, 160), (24, 24), (255, 0, 0))  # blue

    found = sorted(OnnxRecogniser(models).detect(image), key=lambda d: d.center)

    assert [str(d.card) for d in found] == [GREEN, BLUE]
    assert all(d.confidence > 0.9 for d in found)


def test_candidates_are_best_first_and_start_with_the_card(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=64, boxes=[(32, 32, 16, 16, 0.9)])
    image = np.zeros((64, 64, 3), np.uint8)
    image[:, :] = (40, 120, 200)  # mostly red, some green

    (detection,) = OnnxRecogniser(models, top_k=3).detect(image)

    probabilities = [p for _, p in detection.candidates]
    assert len(detection.candidates) == 3
    assert detection.candidates[0] == (detection.card, detection.confidence)
    assert probabilities == sorted(probabilities, reverse=True)
    assert str(detection.card) == RED and str(detection.candidates[1][0]) == GREEN


@pytest.mark.parametrize(("fixed_batch", "softmax"), [(True, False), (False, True), (True, True)])
def test_fixed_batch_and_softmax_exports_read_the_same(tmp_path: Path, fixed_batch: bool, softmax: bool) -> None:
    boxes = [(16, 16, 8, 8, 0.9), (48, 48, 8, 8, 0.9)]
    image = np.zeros((128, 128, 3), np.uint8)
    paint(image, (32, 32), (20, 20), (0, 0, 255))
    paint(image, (96, 96), (20, 20), (0, 255, 0))
    plain = OnnxRecogniser(write_models(tmp_path / "plain", boxes=boxes)).detect(image)
    other = OnnxRecogniser(
        write_models(tmp_path / "other", boxes=boxes, fixed_batch=fixed_batch, softmax=softmax)
    ).detect(image)

    assert [d.card for d in other] == [d.card for d in plain]
    assert [d.confidence for d in other] == pytest.approx([d.confidence for d in plain], abs=1e-5)


def test_wide_frames_are_read_as_tiles_with_boxes_in_frame_pixels(tmp_path: Path) -> None:
    # Two 720x720 tiles at x=0 and x=560; the model sees its box in the middle of each tile.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    frame = np.zeros((720, 1280, 3), np.uint8)

    centres = sorted(d.center for d in OnnxRecogniser(models, tile="auto").detect(frame))

    assert plan_windows(720, 1280, 320, 320, "auto") == ([(0, 0, 720, 720), (560, 0, 720, 720)], 320)
    assert centres == [pytest.approx((360, 360), abs=1.0), pytest.approx((920, 360), abs=1.0)]


def test_frames_are_shown_at_the_training_scale_inside_a_larger_graph(tmp_path: Path) -> None:
    # Trained at 160, exported at 320: a 640x640 frame is scaled to 160x160 and centred in the 320
    # square (scale 1/4, padding 80 all round), so the box at (160, 160) is the frame's centre.
    models = write_models(tmp_path, imgsz=320, train_imgsz=160, boxes=[(160, 160, 10, 20, 0.9)])
    frame = np.zeros((640, 640, 3), np.uint8)

    (detection,) = OnnxRecogniser(models).detect(frame)

    assert detection.box == pytest.approx((300, 280, 340, 360), abs=1.0)


def test_a_wide_frame_at_training_scale_is_read_whole_when_it_fits_the_graph(tmp_path: Path) -> None:
    # 1280x720 with its short side at 160 is 284x160, centred in the 320 graph (scale 0.222).
    models = write_models(tmp_path, imgsz=320, train_imgsz=160, boxes=[(160, 160, 10, 20, 0.9)])
    recogniser = OnnxRecogniser(models)

    (detection,) = recogniser.detect(np.zeros((720, 1280, 3), np.uint8))

    assert detection.center == pytest.approx((640, 360), abs=1.5)
    assert detection.box[2] - detection.box[0] == pytest.approx(10 / (284 / 1280), abs=1.0)


def test_a_dynamic_detector_runs_at_the_training_size(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=640, train_imgsz=96, boxes=[(48, 48, 8, 8, 0.9)], dynamic=True)
    recogniser = OnnxRecogniser(models)
    (detection,) = recogniser.detect(np.zeros((192, 192, 3), np.uint8))
    assert recogniser.detector.size == 96
    assert detection.center == pytest.approx((96, 96), abs=1.0)
    assert detection.box[2] - detection.box[0] == pytest.approx(16, abs=1.0)


def test_square_frames_are_never_tiled_and_wide_ones_only_when_the_graph_is_too_small() -> None:
    assert plan_windows(640, 640, 640, 320, "auto") == ([(0, 0, 640, 640)], 320)
    # 1280x720 at training scale 320 is 569x320: it fits a 640 graph whole, so one run reads it.
    assert plan_windows(720, 1280, 640, 320, "auto") == ([(0, 0, 1280, 720)], 569)
    assert plan_windows(720, 1280, 320, 320, "off") == ([(0, 0, 1280, 720)], 320)
    assert len(plan_windows(720, 1280, 640, 320, "on")[0]) == 2


def test_letterbox_pads_a_wide_image_above_and_below() -> None:
    tensor, fit = letterbox(np.zeros((50, 100, 3), np.uint8), 64)
    assert tensor.shape == (1, 3, 64, 64) and tensor.dtype == np.float32
    assert fit.scale == pytest.approx(0.64) and fit.pad_x == 0 and fit.pad_y == 16
    assert tensor[0, :, 0, 0] == pytest.approx([114 / 255] * 3)  # padding grey


def test_nothing_seen_gives_no_detections(tmp_path: Path) -> None:
    recogniser = OnnxRecogniser(write_models(tmp_path, boxes=[]))
    assert recogniser.detect(np.zeros((64, 64, 3), np.uint8)) == []


def test_grey_and_bgra_frames_are_accepted_and_bad_arrays_are_named(tmp_path: Path) -> None:
    recogniser = OnnxRecogniser(write_models(tmp_path, boxes=[(32, 32, 8, 8, 0.9)]))
    assert len(recogniser.detect(np.zeros((64, 64), np.uint8))) == 1
    assert len(recogniser.detect(np.zeros((64, 64, 4), np.uint8))) == 1
    with pytest.raises(ValueError, match="uint8"):
        recogniser.detect(np.zeros((64, 64, 3), np.float32))
    with pytest.raises(ValueError, match="shape"):
        recogniser.detect(np.zeros((64, 64, 5), np.uint8))


def test_missing_models_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no model manifest"):
        OnnxRecogniser(tmp_path / "nowhere")


def test_manifest_errors_name_the_field(tmp_path: Path) -> None:
    models = write_models(tmp_path)
    manifest = json.loads((models / "models.json").read_text())
    manifest["classifier"]["classes"][3] = "XX"
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"classifier\.classes.*'XX'"):
        OnnxRecogniser(models)


def test_finds_the_classifier_rejects_are_dropped_and_never_named_as_cards(tmp_path: Path) -> None:
    # Two finds: a red index and a white blob (a pip or glare) that the classifier calls "not an index".
    models = write_models(tmp_path, imgsz=100, boxes=[(20, 20, 10, 10, 0.8), (80, 80, 10, 10, 0.7)], reject=True)
    image = np.full((200, 200, 3), 60, np.uint8)
    paint(image, (40, 40), (24, 24), (0, 0, 255))  # red
    paint(image, (160, 160), (24, 24), (255, 255, 255))  # white

    recogniser = OnnxRecogniser(models)
    found = recogniser.detect(image)

    assert [str(d.card) for d in found] == [RED]
    assert len(recogniser.cards) == 52  # the reject class is not a card
    assert all(str(card) != "none" for d in found for card, _ in d.candidates)


def test_a_reject_class_that_is_not_last_is_refused(tmp_path: Path) -> None:
    models = write_models(tmp_path, reject=True)
    manifest = json.loads((models / "models.json").read_text())
    manifest["classifier"]["reject_class"] = "AS"
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="reject_class 'AS' must be the last"):
        OnnxRecogniser(models)


def test_a_turned_class_out_of_place_is_refused(tmp_path: Path) -> None:
    models = write_models(tmp_path, upright=True)
    manifest = json.loads((models / "models.json").read_text())
    manifest["classifier"]["turned_class"] = "AC"
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="turned_class 'AC' must come just before a reject_class"):
        OnnxRecogniser(models)


def test_an_upright_only_classifiers_cards_are_found_by_the_recogniser(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=64, boxes=[(32, 32, 16, 16, 0.9)], upright=True)
    image = np.full((64, 64, 3), 60, np.uint8)
    image[24:32, 24:40] = (0, 0, 255)  # a red index's upper half: read upside down it is blank
    found = OnnxRecogniser(models).detect(image[::-1].copy())  # the crop stands on its head
    assert [str(d.card) for d in found] == [RED]
    assert all(str(card) not in ("turned", "none") for d in found for card, _ in d.candidates)


def test_each_index_carries_which_way_up_it_stands_when_the_models_say_so_surely(tmp_path: Path) -> None:
    boxes = [(20, 20, 10, 10, 0.8), (80, 80, 10, 10, 0.7), (20, 80, 10, 10, 0.6)]
    models = write_models(tmp_path, imgsz=100, boxes=boxes, orientation=(24, 24))
    image = np.full((200, 200, 3), 60, np.uint8)
    paint(image, (40, 40), (24, 24), (0, 255, 0))  # green: one quarter turn to upright
    paint(image, (160, 160), (24, 24), (255, 0, 0))  # blue: two
    # (40, 160) left dark grey: every turn alike, so its orientation stays unknown
    found = sorted(OnnxRecogniser(models, orient=True).detect(image), key=lambda d: d.center)
    assert [(str(d.card), d.turns) for d in found] == [(GREEN, 1), (RED, None), (BLUE, 2)]
    assert all(d.turns is None for d in OnnxRecogniser(models).detect(image))  # the table's reading: not asked
    plain = write_models(tmp_path / "plain", imgsz=100, boxes=boxes)  # no orientation network
    assert all(d.turns is None for d in OnnxRecogniser(plain).detect(image))


def test_an_orientation_network_that_is_missing_or_reads_other_crops_is_named(tmp_path: Path) -> None:
    models = write_models(tmp_path, orientation=(24, 24))
    (models / "corner-orientation.onnx").unlink()
    with pytest.raises(ModelError, match=r"corner-orientation\.onnx"):
        OnnxRecogniser(models)
    models = write_models(tmp_path / "other", orientation=(32, 32))  # the classifier cuts 24 x 24 crops
    with pytest.raises(ModelError, match="orientation network reads the classifier's crops"):
        OnnxRecogniser(models, orient=True)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    models = write_models(tmp_path)
    (models / "corner-classifier.onnx").unlink()
    with pytest.raises(ModelError, match=r"corner-classifier\.onnx"):
        OnnxRecogniser(models)


def test_a_detector_with_the_wrong_output_shape_is_refused(tmp_path: Path) -> None:
    models = write_models(tmp_path, boxes=[(32, 32, 8, 8, 0.9)])
    manifest = json.loads((models / "models.json").read_text())
    manifest["detector"]["classes"] = ["corner", "back"]  # the graph gives 4 + 1 rows
    (models / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match=r"\(1, 6, N\)"):
        OnnxRecogniser(models).detect(np.zeros((64, 64, 3), np.uint8))


def _reading(
    card: str, *alternatives: tuple[str, float], p: float, at: tuple[float, float] = (0, 0), turns: int | None = None
) -> Detection:
    """A corner reading with a 20 x 30 px box whose top-left corner is ``at``, standing ``turns`` quarter
    turns from upright (None: unknown)."""
    candidates = ((Card.from_text(card), p), *((Card.from_text(c), q) for c, q in alternatives))
    x, y = at
    polygon = ((x, y), (x + 20, y), (x + 20, y + 30), (x, y + 30))
    return Detection(Card.from_text(card), p, polygon, candidates, turns=turns)


def test_two_hesitant_corners_that_agree_find_a_card_one_does_not() -> None:
    vote = CardVote(threshold=0.6)
    assert cards_in_image([_reading("QH", p=0.4)], vote) == set()
    two_corners = [_reading("QH", p=0.4), _reading("QH", p=0.45, at=(200, 300))]
    assert cards_in_image(two_corners, vote) == {Card.from_text("QH")}
    assert cards_in_image([_reading("QH", p=0.9)], vote) == {Card.from_text("QH")}


def test_one_index_boxed_twice_is_one_witness() -> None:
    vote = CardVote(threshold=0.6)
    boxed_twice = [_reading("QH", p=0.4), _reading("QH", p=0.45, at=(3, 4))]  # the same index, two boxes
    assert cards_in_image(boxed_twice, vote) == set()
    assert cards_in_image(boxed_twice, CardVote(threshold=0.6, same_place=None)) == {Card.from_text("QH")}


def test_a_weak_second_box_of_a_read_index_names_no_second_card() -> None:
    readings = [_reading("KD", p=0.95), _reading("KS", p=0.3, at=(2, 5)), _reading("KS", p=0.3, at=(150, 200))]
    assert cards_in_image(readings) == {Card.from_text("KD")}  # the KS at the KD's place does not testify
    assert cards_in_image(readings, CardVote(same_place=None)) == {Card.from_text("KD"), Card.from_text("KS")}


def test_same_place_outside_its_range_is_refused() -> None:
    with pytest.raises(ValueError, match="same_place"):
        CardVote(same_place=0.0)


def test_a_card_shows_at_most_two_indices_so_the_weaker_readings_name_their_next_card() -> None:
    # A QS's two corners read sure, and two more places read QS, hesitating towards QC: the webcam's clubs.
    readings = [
        _reading("QS", ("QC", 0.04), p=0.95),
        _reading("QS", ("QC", 0.05), p=0.9, at=(200, 300)),
        _reading("QS", ("QC", 0.2), p=0.6, at=(400, 0)),
        _reading("QS", ("QC", 0.25), p=0.55, at=(600, 300)),
    ]
    assert cards_in_image(readings) == {Card.from_text("QS"), Card.from_text("QC")}
    assert cards_in_image(readings, CardVote(decks=None)) == {Card.from_text("QS")}
    assert cards_in_image(readings, CardVote(decks=2)) == {Card.from_text("QS")}  # two decks: four QS corners


def test_one_card_read_in_two_places_side_by_side_is_two_cards() -> None:
    row = [_reading("8S", p=0.9), _reading("8S", ("8C", 0.3), p=0.6, at=(12, 0))]  # a fanned row, 12 px apart
    assert cards_in_image(row) == {Card.from_text("8S"), Card.from_text("8C")}
    assert cards_in_image(row, CardVote(decks=2)) == {Card.from_text("8S")}  # two copies can lie side by side
    corners = [_reading("8S", p=0.9), _reading("8S", ("8C", 0.3), p=0.6, at=(90, 120))]  # one card's two corners
    assert cards_in_image(corners) == {Card.from_text("8S")}


def test_two_indices_standing_alike_one_above_the_other_are_two_cards() -> None:
    # The webcam's fanned rows: a club read as the spade of its rank, the real spade a row below, both
    # printed upside down; far enough apart to be one card's two corners, were it not for their turns.
    rows = [_reading("7S", p=0.9, at=(100, 300), turns=2), _reading("7S", ("7C", 0.35), p=0.55, turns=2)]
    assert cards_in_image(rows) == {Card.from_text("7S"), Card.from_text("7C")}
    unknown = [_reading("7S", p=0.9, at=(100, 300)), _reading("7S", ("7C", 0.35), p=0.55, turns=2)]
    assert cards_in_image(unknown) == {Card.from_text("7S")}  # one orientation unknown: could be one card
    # a four-index deck's top two indices stand alike side by side, across their up axis: one card
    top_pair = [_reading("7S", p=0.9, at=(150, 10), turns=0), _reading("7S", ("7C", 0.35), p=0.55, turns=0)]
    assert cards_in_image(top_pair) == {Card.from_text("7S")}


def test_indices_half_a_turn_apart_are_one_card_only_with_the_inverted_one_below() -> None:
    upright_above = [_reading("KH", p=0.9, turns=0), _reading("KH", ("KD", 0.4), p=0.5, at=(90, 120), turns=2)]
    assert cards_in_image(upright_above) == {Card.from_text("KH")}  # top-left and bottom-right of one card
    inverted_above = [_reading("KH", p=0.9, turns=2), _reading("KH", ("KD", 0.4), p=0.5, at=(90, 120), turns=0)]
    assert cards_in_image(inverted_above) == {Card.from_text("KH"), Card.from_text("KD")}
    quarter = [_reading("KH", p=0.9, turns=1), _reading("KH", ("KD", 0.4), p=0.5, at=(90, 120), turns=2)]
    assert cards_in_image(quarter) == {Card.from_text("KH")}  # a quarter turn apart proves nothing


def test_a_place_with_every_candidate_ruled_out_names_nothing() -> None:
    readings = [_reading("2H", p=0.9), _reading("2H", p=0.8, at=(300, 300)), _reading("2H", p=0.7, at=(600, 0))]
    vote = CardVote()
    assert [str(d.card) for d in vote.within_deck(vote.witnesses(readings))] == ["2H", "2H"]


def test_decks_and_apart_outside_their_range_are_refused() -> None:
    with pytest.raises(ValueError, match="decks"):
        CardVote(decks=0)
    with pytest.raises(ValueError, match="apart"):
        CardVote(apart=0.0)


def test_second_candidates_count_unless_top_only() -> None:
    readings = [_reading("6S", ("8S", 0.45), p=0.5), _reading("8S", ("6S", 0.3), p=0.55, at=(200, 300))]
    assert cards_in_image(readings, CardVote(threshold=0.6)) == {Card.from_text("6S"), Card.from_text("8S")}
    assert cards_in_image(readings, CardVote(threshold=0.6, top_only=True)) == set()


def test_the_runtime_never_imports_torch_or_ultralytics(tmp_path: Path) -> None:
    models = write_models(tmp_path, boxes=[(32, 32, 8, 8, 0.9)])
    script = textwrap.dedent(
        f"""
        import sys
        import numpy as np
        from vision.recognise import OnnxRecogniser, cards_in_image
        found = OnnxRecogniser({str(models)!r}).detect(np.zeros((64, 64, 3), np.uint8))
        assert len(found) == 1 and cards_in_image(found) is not None
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "ultralytics", "torchvision"))
        print(",".join(heavy))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == ""


def test_a_reading_must_hold_at_every_quarter_turn_to_stay_confident(tmp_path: Path) -> None:
    """A doubtful crop is read again at three quarter turns and the readings combined; a crop read
    upright with near certainty is settled and kept as read."""
    from vision.recognise.classifier import CornerClassifier
    from vision.recognise.manifest import Manifest

    from .recognise_models import BLUE, GREEN, RED, classifier_model, write_models

    write_models(tmp_path, manifest_extra={"rotations": 4})
    classifier_model(tmp_path / "corner-classifier.onnx", (24, 24), top_half=True)  # reads the upper half only
    spec = Manifest.load(tmp_path).classifier
    turning = CornerClassifier(tmp_path / spec.file, spec)
    upright_only = CornerClassifier(tmp_path / spec.file, spec.model_copy(update={"rotations": 1}))
    red, green = spec.classes.index(RED), spec.classes.index(GREEN)
    assert spec.classes.index(BLUE) not in (red, green)

    def crop(top: tuple[float, float, float], bottom: tuple[float, float, float]) -> np.ndarray:
        x = np.zeros((1, 3, 24, 24), np.float32)
        x[0, :, :12] = np.array(top, np.float32)[:, None, None]
        x[0, :, 12:] = np.array(bottom, np.float32)[:, None, None]
        return x

    dim_red, dim_green = (0.15, 0, 0), (0, 0.15, 0)
    # the same reading at every turn: as sure as upright
    same = crop(dim_red, dim_red)
    assert np.allclose(turning.probabilities(same), upright_only.probabilities(same), atol=1e-4)
    # red upright, green upside down: the reading does not hold, so it loses its confidence
    mixed = crop(dim_red, dim_green)
    upright = upright_only.probabilities(mixed)[0]
    turned = turning.probabilities(mixed)[0]
    assert upright.argmax() == red and upright[red] < turning.settled
    assert turned[red] < upright[red] * 0.9
    assert abs(turned[red] - turned[green]) < 0.05
    # read with near certainty upright: settled, never turned (upside down it would read green)
    sure = crop((1.0, 0, 0), (0, 1.0, 0))
    assert turning.probabilities(sure)[0][red] > 0.99


def test_a_crop_read_upright_as_no_index_is_not_read_again_turned(tmp_path: Path) -> None:
    """A plain corner or court art the detector boxed, which the upright reading already calls "not an
    index" with the recogniser's ``reject`` probability, is dropped whatever the turns would say: it is
    settled, and not read seven more times (turned, thinned) only to be dropped. A doubtful card's crop
    is still read at every turn."""
    from vision.recognise.classifier import CornerClassifier
    from vision.recognise.manifest import Manifest

    from .recognise_models import RED, classifier_model, write_models

    write_models(tmp_path, reject=True, manifest_extra={"rotations": 4, "thin_ink": 2})
    classifier_model(tmp_path / "corner-classifier.onnx", (24, 24), reject=True, top_half=True)
    spec = Manifest.load(tmp_path).classifier
    assert spec.reject_class == "none"
    settling = CornerClassifier(tmp_path / spec.file, spec, rejected=0.5)
    turning = CornerClassifier(tmp_path / spec.file, spec)
    upright_only = CornerClassifier(tmp_path / spec.file, spec.model_copy(update={"rotations": 1, "thin_ink": 0}))
    red = spec.classes.index(RED)
    crops_read: list[int] = []
    real_read = settling._read

    def counted(batch: np.ndarray) -> np.ndarray:
        crops_read.append(len(batch))
        return real_read(batch)

    settling._read = counted  # type: ignore[method-assign]

    plain = np.zeros((1, 3, 24, 24), np.float32)
    plain[0, :, :12] = 0.6  # light paper above: "not an index", not surely
    plain[0, 0, 12:] = 1.0  # red ink below, which a turned reading would call a card
    upright = upright_only.probabilities(plain)[0]
    assert 0.5 <= upright[-1] < settling.settled
    assert turning.probabilities(plain)[0][-1] < upright[-1]  # read at every turn, it looks less like no index
    assert np.allclose(settling.probabilities(plain)[0], upright, atol=1e-5)
    assert sum(crops_read) == 1
    # a doubtful card is still read turned and thinned
    crops_read.clear()
    dim = np.zeros((1, 3, 24, 24), np.float32)
    dim[0, 0] = 0.15
    assert settling.probabilities(dim)[0].argmax() == red
    assert sum(crops_read) > 4


def test_an_upright_only_classifier_reads_an_index_whichever_way_up_it_lies(tmp_path: Path) -> None:
    """A classifier trained on upright indices (manifest ``turned_class``) calls the other quarter turns
    "turned"; the runtime reads all four and the card is found however the crop lies, with "turned"
    never reaching the caller."""
    from vision.recognise.classifier import CornerClassifier
    from vision.recognise.manifest import Manifest

    write_models(tmp_path, upright=True)
    spec = Manifest.load(tmp_path).classifier
    assert spec.classes[-2:] == ["turned", "none"] and len(spec.card_classes) == 52
    classifier = CornerClassifier(tmp_path / spec.file, spec)
    red = spec.classes.index(RED)

    index = np.zeros((1, 3, 24, 24), np.float32)
    index[0, 0, :12] = 1.0  # a red index in the upper half: upright
    for turns in range(4):
        probabilities = classifier.probabilities(np.ascontiguousarray(np.rot90(index, turns, axes=(2, 3))))
        assert probabilities.shape == (1, 53)  # cards and "not an index": no "turned"
        assert probabilities[0].argmax() == red and probabilities[0, red] > 0.9, turns
    # read once, the index standing on its head is only "turned": no card is sure
    upside_down = np.ascontiguousarray(np.rot90(index, 2, axes=(2, 3)))
    once = classifier._read(upside_down)[0]
    assert once.argmax() == spec.classes.index("turned") and once[red] < 0.1


def test_an_upright_only_classifiers_turns_add_up_and_what_none_claims_stays_doubt() -> None:
    from vision.recognise.classifier import combine_upright_turns

    def read(card: float, turned: float, none: float) -> np.ndarray:
        row = np.zeros((1, 54), np.float32)  # 52 cards, "turned", "not an index"
        row[0, 0], row[0, 1] = card, (1 - card - turned - none)
        row[0, -2], row[0, -1] = turned, none
        return row

    # an index near 45 degrees: half claimed at two turns, turned at the other two
    combined = combine_upright_turns([read(0.45, 0.5, 0.0), read(0.45, 0.5, 0.0), read(0, 1, 0), read(0, 1, 0)])
    assert combined.shape == (1, 53) and combined[0, 0] == pytest.approx(0.9)
    # no turn stands a card upright: little card evidence, nothing normalised up
    doubtful = combine_upright_turns([read(0.05, 0.9, 0.05)] * 4)
    assert doubtful[0, 0] == pytest.approx(0.2) and doubtful[0, -1] == pytest.approx(0.05)
    # two turns both sure: never more than certainty
    assert combine_upright_turns([read(0.95, 0.0, 0.05)] * 2)[0].sum() == pytest.approx(1.0)


def test_thinned_ink_opens_a_gap_between_strokes_and_never_darkens() -> None:
    """``thin_ink``: the paper reaches a pixel further into each dark stroke, so the blurred gap between
    two of a club's lobes widens; nothing gets darker."""
    from vision.recognise.classifier import thin_ink

    x = np.full((1, 3, 24, 24), 0.9, np.float32)
    x[0, :, 6:18, 4:11] = 0.1  # two dark lobes ...
    x[0, :, 6:18, 12:19] = 0.1
    x[0, :, 6:18, 11] = 0.35  # ... run together by blur across a one-pixel gap
    thinned = thin_ink(x, 2)
    assert thinned.shape == x.shape and thinned.dtype == x.dtype
    assert bool((thinned >= x - 1e-6).all())

    def gap(crop: np.ndarray) -> int:  # grey pixels across the lobes' middle row
        return int(((crop[0, 0, 12] > 0.3) & (crop[0, 0, 12] < 0.5)).sum())

    assert gap(x) == 1 and gap(thinned) == 2  # the gap is two pixels wide now, and as light
    assert float(thinned[0, 0, 8, 4:19].min()) == pytest.approx(0.1)  # the lobes are still there
    assert (thinned < 0.5).sum() < (x < 0.5).sum()
    assert thin_ink(x[:0], 2).shape == (0, 3, 24, 24)


def test_a_doubtful_crop_is_read_again_with_its_ink_thinned_and_a_settled_one_is_not(tmp_path: Path) -> None:
    from vision.recognise.classifier import CornerClassifier, softmax, thin_ink
    from vision.recognise.manifest import Manifest

    write_models(tmp_path, manifest_extra={"rotations": 1})
    spec = Manifest.load(tmp_path).classifier
    plain = CornerClassifier(tmp_path / spec.file, spec)
    thinning = CornerClassifier(tmp_path / spec.file, spec.model_copy(update={"thin_ink": 2}))
    red = spec.classes.index(RED)

    def inked(level: float) -> np.ndarray:  # a red crop crossed by dark strokes
        x = np.zeros((1, 3, 24, 24), np.float32)
        x[0, 0] = level
        x[0, :, :, 3::4] = 0.0
        return x

    doubtful = inked(0.2)
    first = plain.probabilities(doubtful)[0]
    again = plain.probabilities(thin_ink(doubtful, 2))[0]
    both = thinning.probabilities(doubtful)[0]
    assert first.max() < plain.settled and again[red] > first[red]  # thinner ink, more of the red seen
    assert first[red] < both[red] < again[red]
    assert np.allclose(both, softmax(((np.log(first + 1e-9) + np.log(again + 1e-9)) / 2)[None])[0], atol=1e-5)
    sure = inked(1.0)
    assert plain.probabilities(sure)[0].max() >= plain.settled
    assert np.array_equal(thinning.probabilities(sure), plain.probabilities(sure))


def test_a_thin_ink_size_out_of_range_is_refused(tmp_path: Path) -> None:
    models = write_models(tmp_path, manifest_extra={"thin_ink": 9})
    with pytest.raises(ModelError, match=r"classifier\.thin_ink"):
        OnnxRecogniser(models)


def test_regions_are_read_closer_with_boxes_in_frame_pixels(tmp_path: Path) -> None:
    # The model always "sees" a 16x32 box at the middle of its 320 graph. A 160x160 region is shown
    # at twice its size, so the box lands at the region's middle, 8x16 in frame pixels; a 320x320
    # region at its own size.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((720, 1280, 3), np.uint8)

    found = recogniser.detect(frame, [(100, 100, 260, 260), (800, 300, 1120, 620)])

    boxes = sorted(d.box for d in found)
    assert boxes[0] == pytest.approx((176, 172, 184, 188), abs=1.0)
    assert boxes[1] == pytest.approx((952, 444, 968, 476), abs=1.0)
    assert len(boxes) == 2


def test_a_region_past_the_frame_is_clipped_and_a_sliver_or_a_broken_one_is_not_read(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((720, 1280, 3), np.uint8)

    nowhere = (float("nan"), 0.0, float("inf"), 10.0)  # a zone through a broken calibration
    (found,) = recogniser.detect(frame, [(1200, 600, 1400, 800), (5, 5, 9, 400), nowhere])

    # (1200, 600)-(1280, 720) is 80x120: fitted at 320/120, the box sits at its middle, 6x12
    assert found.box == pytest.approx((1237, 654, 1243, 666), abs=1.0)


def test_more_regions_than_the_whole_frame_takes_runs_read_the_whole_frame(tmp_path: Path) -> None:
    # 1280x720 is two tiles at 320: three regions would be three runs, so the frame is read as tiles
    # (the box lands at the middle of each tile, as without regions).
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((720, 1280, 3), np.uint8)
    three = [(0, 0, 200, 200), (400, 0, 600, 200), (800, 0, 1000, 200)]

    centres = sorted(d.center for d in recogniser.detect(frame, three))

    assert centres == [pytest.approx((360, 360), abs=1.0), pytest.approx((920, 360), abs=1.0)]


def test_regions_close_together_are_read_as_one_rectangle_around_them(tmp_path: Path) -> None:
    # Four zones would be four runs against the frame's two tiles; the rectangle around them (300, 60)-(1000,
    # 660) fits the graph at 320/700, more than the tiles' 320/720, so it is read in one run: the box lands at
    # that rectangle's middle, once.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((720, 1280, 3), np.uint8)
    four = [(300, 60, 600, 300), (700, 60, 1000, 300), (300, 400, 600, 660), (700, 400, 1000, 660)]

    centres = [d.center for d in recogniser.detect(frame, four)]

    assert centres == [pytest.approx((650, 360), abs=1.0)]


def test_only_the_boxes_within_the_wanted_parts_are_named(tmp_path: Path) -> None:
    # The tracker's zones at rest are not wanted: the detector reads as ever, the classifier names only the
    # boxes whose centre lies in a wanted part.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((320, 320, 3), np.uint8)

    assert recogniser.detect(frame, within=[(0, 0, 100, 100)]) == []
    (found,) = recogniser.detect(frame, within=[(0, 0, 100, 100), (100, 100, 200, 200)])
    assert found.center == pytest.approx((160, 160), abs=1.0)
    assert len(recogniser.detect(frame)) == 1


def test_a_box_cut_by_a_regions_edge_is_dropped_unless_the_frame_ends_there(tmp_path: Path) -> None:
    # The model sees a box touching the left edge of its input: inside the frame that is a region's
    # edge cutting through an index (dropped); at the frame's own left edge it is a whole index.
    models = write_models(tmp_path, imgsz=320, boxes=[(4, 160, 8, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((320, 640, 3), np.uint8)

    assert recogniser.detect(frame, [(300, 0, 620, 320)]) == []
    (kept,) = recogniser.detect(frame, [(0, 0, 320, 320)])
    assert kept.center == pytest.approx((4, 160), abs=1.0)


def test_no_regions_reads_nothing_and_none_reads_the_whole_frame(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 16, 32, 0.9)])
    recogniser = OnnxRecogniser(models)
    frame = np.zeros((320, 320, 3), np.uint8)
    assert recogniser.detect(frame, []) == []
    (whole,) = recogniser.detect(frame, None)
    assert whole.center == pytest.approx((160, 160), abs=1.0)


def test_a_frame_whose_indices_are_small_is_read_again_closer(tmp_path: Path) -> None:
    # The model "sees" an 8x16 box at the middle of whatever it is shown. A 640x640 frame is fitted to
    # 320, so that index is 16 px tall where the detector saw it: under 20, so the frame is read again
    # as four 480-px tiles (0.75 of its side) fitted to 320, each finding its own middle, 12x24 in frame
    # pixels. Both readings' boxes are kept.
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 8, 16, 0.9)], detector_extra={"closer": {"below": 20}})
    frame = np.zeros((640, 640, 3), np.uint8)

    found = OnnxRecogniser(models).detect(frame)

    centres = sorted(d.center for d in found)
    expected = [(240, 240), (240, 400), (320, 320), (400, 240), (400, 400)]
    assert centres == [pytest.approx(c, abs=1.0) for c in expected]
    near = next(d for d in found if d.center[0] < 300)
    assert (near.box[2] - near.box[0], near.box[3] - near.box[1]) == pytest.approx((12, 24), abs=1.0)


def test_a_frame_whose_indices_are_large_enough_or_zones_or_no_tiles_are_read_once(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=320, boxes=[(160, 160, 8, 16, 0.9)], detector_extra={"closer": {"below": 16}})
    frame = np.zeros((640, 640, 3), np.uint8)
    (once,) = OnnxRecogniser(models).detect(frame)  # 16 px tall where seen: not under 16
    assert once.center == pytest.approx((320, 320), abs=1.0)

    small = write_models(
        tmp_path / "small", imgsz=320, boxes=[(160, 160, 4, 8, 0.9)], detector_extra={"closer": {"below": 16}}
    )
    # the tracker's zones are already read close, and tile="off" asks for one reading
    assert len(OnnxRecogniser(small).detect(frame, [(0, 0, 640, 640)])) == 1
    assert len(OnnxRecogniser(small, tile="off").detect(frame)) == 1
    assert len(OnnxRecogniser(small).detect(frame)) == 5


def test_the_closer_tiles_cover_the_frame_and_overlap() -> None:
    assert closer_windows(640, 640, 0.75) == [
        (0, 0, 480, 480),
        (160, 0, 480, 480),
        (0, 160, 480, 480),
        (160, 160, 480, 480),
    ]
    wide = closer_windows(720, 1280, 0.75)
    assert {(w, h) for _, _, w, h in wide} == {(540, 540)}
    covered = np.zeros((720, 1280), bool)
    for x, y, w, h in wide:
        covered[y : y + h, x : x + w] = True
    assert covered.all()
    xs = sorted({x for x, _, _, _ in wide})
    assert all(b - a <= 0.8 * 540 for a, b in itertools.pairwise(xs))  # neighbours overlap by a fifth or more


def test_a_closer_look_out_of_range_is_refused(tmp_path: Path) -> None:
    models = write_models(tmp_path, imgsz=320, detector_extra={"closer": {"below": 12, "tile": 1.5}})
    with pytest.raises(ModelError, match=r"detector\.closer\.tile"):
        OnnxRecogniser(models)


SUIT_CONTEXT = {"scale": 1.6, "weight": 2.0, "settled": 0.9}
"""The shipped models' ``suit_context`` (vision/models/models.json)."""


def _nines_first(tmp_path: Path, **extra: object) -> Path:
    """Stand-in models whose red reading names 9S and green 9C: two suits of one colour and rank."""
    classes = ["9S", "9C", *(c for c in CLASSES if c not in ("9S", "9C"))]
    return write_models(tmp_path, free_size=True, manifest_extra={"classes": classes, **extra})


def test_a_suit_in_doubt_is_decided_by_what_lies_around_the_index(tmp_path: Path) -> None:
    """The index alone leans to spades; the wider view (the big pips, here green all round) says clubs.
    The card named is then the club, and the rank-and-colour's probability is neither lost nor gained."""
    image = np.zeros((200, 200, 3), np.uint8)
    image[:] = (0, 255, 0)
    image[80:120, 80:120] = (0, 140, 255)  # mostly "9S", not quite sure
    box = [(80.0, 80.0, 120.0, 120.0)]
    before = OnnxRecogniser(_nines_first(tmp_path / "plain")).read(image, box)[0]
    after = OnnxRecogniser(_nines_first(tmp_path / "context", suit_context=SUIT_CONTEXT)).read(image, box)[0]
    assert before.card == Card.from_text("9S") and 0.5 < before.confidence < 0.9
    assert after.card == Card.from_text("9C") and after.confidence > before.confidence

    def pair(detection: Detection) -> float:
        return sum(p for card, p in detection.candidates if str(card) in ("9S", "9C"))

    assert pair(after) == pytest.approx(pair(before), abs=1e-4)  # (the whole colour keeps its share)


def test_a_sure_suit_or_an_unsure_rank_is_not_read_again(tmp_path: Path) -> None:
    plain = OnnxRecogniser(_nines_first(tmp_path / "plain"))
    context = OnnxRecogniser(_nines_first(tmp_path / "context", suit_context=SUIT_CONTEXT))
    sure = np.zeros((200, 200, 3), np.uint8)
    sure[:] = (0, 255, 0)
    sure[80:120, 80:120] = (0, 50, 255)  # plainly "9S", whatever lies around it
    box = [(80.0, 80.0, 120.0, 120.0)]
    assert plain.read(sure, box)[0].confidence > 0.99
    assert context.read(sure, box) == plain.read(sure, box)
    # read as 9S, 9C or 2S alike (a joker's lettering, say): no rank of the colour is sure, so the
    # green all round, which would make it a sure club, is not consulted and lends it no confidence
    unsure = sure.copy()
    unsure[80:120, 80:120] = (255, 173, 255)
    assert max(p for _, p in plain.read(unsure, box)[0].candidates) < 0.5
    assert context.read(unsure, box) == plain.read(unsure, box)


def test_suit_context_needs_a_graph_that_takes_any_crop_size(tmp_path: Path) -> None:
    models = write_models(tmp_path, manifest_extra={"suit_context": SUIT_CONTEXT})
    with pytest.raises(ModelError, match=r"suit_context reads 33x33 crops, but the graph's input is fixed at 24x24"):
        OnnxRecogniser(models)


def test_a_suit_context_weight_out_of_range_is_refused(tmp_path: Path) -> None:
    models = _nines_first(tmp_path, suit_context={**SUIT_CONTEXT, "weight": 0})
    with pytest.raises(ModelError, match=r"classifier\.suit_context\.weight"):
        OnnxRecogniser(models)
