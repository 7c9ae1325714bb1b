"""Calibration finds the mat in a camera view and maps pixels to table millimetres."""

import json
import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import (
    FOCUS_LIMIT_MM,
    Calibration,
    CalibrationError,
    Calibrator,
    CalibratorSettings,
    CameraFault,
    MarkersMissing,
    assess_image,
    calibrate,
    detect_markers,
    draw_overlay,
    edge_spread_mm,
    felt_mask,
    focus_warning,
)
from vision.mat import render_mat
from vision.zones import ZoneLayout, layout_for

PPM = 2.0


def _view(
    layout: ZoneLayout, corners_px: list[list[int]], size: tuple[int, int] = (1280, 720)
) -> tuple[np.ndarray, np.ndarray]:
    """The mat seen by a camera whose view puts the mat's corners at ``corners_px``; returns image and H."""
    mat = render_mat(layout, PPM)
    src = np.array([[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]], np.float32)
    table_to_image = cv2.getPerspectiveTransform(src, np.array(corners_px, np.float32))
    # a mat pixel's centre is at (i + 0.5) / PPM mm
    mat_to_table = np.array([[1 / PPM, 0, 0.5 / PPM], [0, 1 / PPM, 0.5 / PPM], [0, 0, 1]])
    image = cv2.warpPerspective(mat, table_to_image @ mat_to_table, size, borderValue=(60, 90, 120))
    return image, table_to_image


TILTED = [[250, 60], [1040, 75], [1130, 690], [160, 680]]


def test_recovers_known_homography_within_a_millimetre():
    layout = layout_for("358")
    image, table_to_image = _view(layout, TILTED)
    cal = calibrate(image, layout)
    assert cal.error_mm < 0.5
    table = np.array([[60.0, 80.0], [297.0, 210.0], [550.0, 380.0], [120.0, 400.0]])
    seen = cv2.perspectiveTransform(table.reshape(-1, 1, 2), table_to_image).reshape(-1, 2)
    assert np.abs(cal.to_table(seen) - table).max() < 1.0
    assert np.abs(cal.to_image(table) - seen).max() < 1.0


def test_missing_markers_are_named():
    layout = layout_for("makao")
    image, _ = _view(layout, TILTED)
    image[:200, 900:] = (60, 90, 120)  # cover the top-right marker
    image[500:, :400] = (60, 90, 120)  # and the bottom-left one
    with pytest.raises(MarkersMissing) as info:
        calibrate(image, layout)
    assert info.value.missing == [1, 3]
    assert "1 (top-right)" in str(info.value) and "3 (bottom-left)" in str(info.value)


def test_three_markers_are_enough_when_allowed():
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    image[:200, 900:] = (60, 90, 120)
    cal = calibrate(image, layout, min_markers=3)
    assert cal.error_mm < 0.5


def test_save_and_load_round_trip(tmp_path):
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    cal = calibrate(image, layout)
    path = tmp_path / "calib.json"
    cal.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.homography, cal.homography)
    assert again.image_size == (1280, 720)
    (tmp_path / "bad.json").write_text(json.dumps({"homography": [1, 2]}))
    with pytest.raises(CalibrationError, match="not a calibration file"):
        Calibration.load(tmp_path / "bad.json")
    with pytest.raises(CalibrationError, match="not found"):
        Calibration.load(tmp_path / "nope.json")


def test_a_calibration_knows_its_mat_and_refuses_a_table_set_for_other_paper(tmp_path):
    a3 = layout_for("358", "A3")
    image, _ = _view(a3, TILTED)
    cal = calibrate(image, a3)
    path = tmp_path / "calib.json"
    cal.save(path)
    again = Calibration.load(path)
    assert again.mat_mm == (420.0, 297.0)
    again.check_mat(layout_for("makao", "A3"))  # same mat size: fine
    with pytest.raises(CalibrationError, match=r"made for a 420 x 297 mm mat.*set for 594 x 420 mm.*mat\.paper"):
        again.check_mat(layout_for("358"))
    # a file saved before the mat's size was kept says nothing about it, and is taken as it is
    old = json.loads(path.read_text())
    del old["mat_mm"]
    path.write_text(json.dumps(old))
    Calibration.load(path).check_mat(layout_for("358"))


def test_calibrator_redoes_the_homography_when_the_camera_is_bumped():
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout), CalibratorSettings(check_every=5, confirm_checks=2))
    for i in range(1, 11):
        assert calibrator.update(i, image) is None
    bumped_corners = [[x + 25, y + 12] for x, y in TILTED]
    bumped, table_to_image = _view(layout, bumped_corners)
    results = [calibrator.update(i, bumped) for i in range(11, 21)]
    new = [r for r in results if r is not None]
    assert len(new) == 1, "one recalibration after two drifted checks"
    probe = cv2.perspectiveTransform(np.array([[[300.0, 200.0]]]), table_to_image).reshape(-1, 2)
    assert np.abs(new[0].to_table(probe) - [300, 200]).max() < 1.0


def test_a_knock_is_recalibrated_as_soon_as_the_camera_is_at_rest_not_at_the_next_scheduled_check() -> None:
    """Checks are due every 30 frames, but the markers' surroundings are compared on every frame: the knock makes a
    check at once, and the next frame, the camera at rest, confirms it. A card put down meanwhile would be placed
    with the old view."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    assert calibrator.settings.check_every == 30
    for i in range(1, 11):
        assert calibrator.update(i, image) is None
    assert calibrator.checks == 1, "the calibration handed in is checked on the first frame, and then not till due"
    shaking, _ = _view(layout, [[x + 12, y + 5] for x, y in TILTED])
    bumped, table_to_image = _view(layout, [[x + 25, y + 12] for x, y in TILTED])
    assert calibrator.update(11, shaking) is None  # moving: not yet
    assert calibrator.update(12, bumped) is None  # moved on since: still not at rest
    new = calibrator.update(13, bumped)  # where it was a frame ago: at rest
    assert new is not None and calibrator.recalibrations == 1
    probe = cv2.perspectiveTransform(np.array([[[300.0, 200.0]]]), table_to_image).reshape(-1, 2)
    assert np.abs(new.to_table(probe) - [300, 200]).max() < 1.0
    checks = calibrator.checks
    for i in range(14, 30):
        assert calibrator.update(i, bumped) is None
    assert calibrator.checks == checks, "at rest in the new view, the markers are not looked for between checks"


def test_a_knock_that_pushes_two_markers_out_of_view_is_followed_from_the_two_left(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Knocked up and turned, the camera loses the mat's top edge: two markers are left, too few for a homography
    of their own, and the old one put every card laid until the camera was put back where the old view saw it. The
    move is followed from the two left (a shift and a turn), over the whole mat, and the players are told to
    bring the mat back into view."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    assert calibrator.update(1, image) is None
    turn = cv2.getRotationMatrix2D((640.0, 360.0), 1.5, 1.0)
    turn[:, 2] += np.array([30.0, -95.0])
    knocked = cv2.transform(np.array([TILTED], np.float64), turn)[0].tolist()
    bumped, table_to_image = _view(layout, knocked)
    assert len(detect_markers(bumped)) == 2, "the top markers are out of view"
    with caplog.at_level(logging.WARNING, logger="vision.calibration"):
        results = [calibrator.update(i, bumped) for i in range(2, 6)]
    new = [r for r in results if r is not None]
    assert len(new) == 1 and calibrator.recalibrations == 1
    table = np.array([[60.0, 80.0], [297.0, 210.0], [550.0, 380.0], [120.0, 400.0], [500.0, 100.0]])
    seen = cv2.perspectiveTransform(table.reshape(-1, 1, 2), table_to_image).reshape(-1, 2)
    assert np.abs(new[0].to_table(seen) - table).max() < 1.5, "the whole mat maps right, far from the two markers too"
    assert (
        "only 2 of the mat's markers are in view" in caplog.text and "bring the whole mat back into view" in caplog.text
    )
    # the camera put back: calibrated again from all four
    assert [r for r in (calibrator.update(i, image) for i in range(6, 10)) if r is not None]
    assert len(calibrator.calibration.markers_px) == 4  # type: ignore[union-attr]


def test_a_move_followed_from_two_markers_is_redone_from_the_whole_mat_when_the_hands_leave() -> None:
    """Knocked while two players' arms covered the top markers, the camera also tilted a little (the mat's far edge
    moved less than its near edge), which two markers cannot tell: the move is followed from them at once, and the
    homography is redone from all four as soon as the arms are gone."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    assert calibrator.update(1, image) is None
    knocked = [[x + 20, y + 10] for x, y in TILTED[:2]] + [[x + 35, y + 18] for x, y in TILTED[2:]]
    bumped, table_to_image = _view(layout, knocked)
    covered = bumped.copy()
    for i, corners in detect_markers(bumped).items():
        if i in (0, 1):  # the top two, under arms
            x1, y1 = corners.min(axis=0).astype(int) - 12
            x2, y2 = corners.max(axis=0).astype(int) + 12
            covered[y1:y2, x1:x2] = (90, 140, 200)
    followed = [r for r in (calibrator.update(i, covered) for i in range(2, 6)) if r is not None]
    assert len(followed) == 1 and calibrator.followed and len(followed[0].markers_px) == 2
    whole = [r for r in (calibrator.update(i, bumped) for i in range(6, 9)) if r is not None]
    assert len(whole) == 1 and not calibrator.followed and calibrator.recalibrations == 2
    table = np.array([[60.0, 80.0], [297.0, 210.0], [550.0, 380.0], [120.0, 400.0], [500.0, 60.0]])
    seen = cv2.perspectiveTransform(table.reshape(-1, 1, 2), table_to_image).reshape(-1, 2)
    far = np.abs(followed[0].to_table(seen) - table).max()
    assert far > 2.0, "the tilt is more than a shift and a turn"  # (else this test shows nothing)
    assert np.abs(whole[0].to_table(seen) - table).max() < 1.0
    checks = calibrator.checks
    assert all(calibrator.update(i, bumped) is None for i in range(9, 20))
    assert calibrator.checks == checks, "calibrated from the whole mat, the markers are looked for when due again"


def test_a_lamp_or_a_hand_over_a_marker_is_no_knock() -> None:
    """A brighter room changes every marker's patch but not its pattern, and a hand covers one marker: neither
    makes a check before it is due, nor a recalibration."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    lamp = cv2.convertScaleAbs(image, alpha=1.3, beta=25)
    hand = image.copy()
    box = calibrator._marker_boxes((1280, 720))[layout.markers[0].id]
    hand[box[1] : box[3], box[0] : box[2]] = (90, 140, 200)  # skin over marker 0 and its quiet zone
    for i, frame in enumerate([image, lamp, lamp, hand, hand, image], start=1):
        assert calibrator.update(i, frame) is None
    assert calibrator.checks == 1 and calibrator.recalibrations == 0  # the first frame's only


def test_calibrator_ignores_a_hand_over_one_check():
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout), CalibratorSettings(check_every=1, confirm_checks=2))
    bumped, _ = _view(layout, [[x + 25, y + 12] for x, y in TILTED])
    assert calibrator.update(1, bumped) is None  # one odd check
    assert calibrator.update(2, image) is None  # back where it was
    assert calibrator.update(3, bumped) is None
    assert calibrator.recalibrations == 0


def test_calibrator_says_once_when_the_camera_drifts_out_of_focus_during_play_and_again_when_it_is_back(caplog):
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    soft = cv2.GaussianBlur(image, (0, 0), 2.5)  # a loose lens, turned by a knock
    calibrator = Calibrator(layout, calibrate(image, layout), CalibratorSettings(check_every=1, confirm_checks=2))
    caplog.set_level(logging.INFO, logger="vision.calibration")
    calibrator.update(1, image)
    calibrator.update(2, soft)
    assert not calibrator.out_of_focus  # one soft look is not enough: a hand's blur passes over
    for i in range(3, 7):
        calibrator.update(i, soft)
    assert calibrator.out_of_focus and calibrator.recalibrations == 0
    warned = [r.getMessage() for r in caplog.records if "out of focus" in r.getMessage()]
    assert len(warned) == 1 and "focus the lens on the mat" in warned[0]
    calibrator.update(7, image)
    assert not calibrator.out_of_focus
    assert any("back in focus" in r.getMessage() for r in caplog.records)


def test_glare_and_darkness_are_reported():
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    cal = calibrate(image, layout)
    felt = felt_mask(cal, layout)
    assert assess_image(image, felt).warnings == ()
    glare = image.copy()
    cv2.circle(glare, (640, 360), 90, (255, 255, 255), -1)
    assert any("glare" in w for w in assess_image(glare, felt).warnings)
    dark = (image // 8).astype(np.uint8)
    assert any("dark" in w for w in assess_image(dark, felt).warnings)
    picture = draw_overlay(glare, layout, cal, warnings=assess_image(glare, felt).warnings)
    assert picture.shape == image.shape and not np.array_equal(picture, glare)


def _folder_of(tmp_path: Path, image: np.ndarray) -> Path:
    """A folder source holding one frame: the camera's view for ``cardtable calibrate``."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), image)
    return frames


def test_calibrate_command_saves_homography_and_picture(tmp_path, capsys):
    from controller.cli import main

    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    frames = _folder_of(tmp_path, image)
    out, picture = tmp_path / "calib.json", tmp_path / "calib.png"
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(out), "--picture", str(picture)]) == 0
    assert "calibrated from 4 markers" in capsys.readouterr().out
    assert Calibration.load(out).error_mm < 0.5
    shown = cv2.imread(str(picture))
    assert shown is not None and shown.shape == image.shape


def test_the_focus_is_measured_on_the_markers_edges_in_table_millimetres():
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    soft = cv2.GaussianBlur(image, (0, 0), 2.5)  # a lens out of focus
    sharp_mm = edge_spread_mm(image, detect_markers(image), layout)
    soft_mm = edge_spread_mm(soft, detect_markers(soft), layout)
    assert sharp_mm is not None and soft_mm is not None
    assert sharp_mm < 1.2 < FOCUS_LIMIT_MM < soft_mm
    assert focus_warning(sharp_mm) is None
    assert "out of focus" in (focus_warning(soft_mm) or "")
    assert edge_spread_mm(image, {}, layout) is None  # no marker, no measure


def test_calibrate_command_warns_when_the_lens_is_out_of_focus(tmp_path, capsys):
    from controller.cli import main

    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    out = tmp_path / "calib.json"
    assert (
        main(
            [
                "calibrate",
                "--source",
                f"folder:{_folder_of(tmp_path, cv2.GaussianBlur(image, (0, 0), 2.5))}",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "warning: out of focus: a sharp edge spreads over" in said and "focus the lens" in said
    assert out.exists()  # the calibration itself is still good: the warning asks for a better picture


def test_calibrate_command_names_missing_markers(tmp_path, capsys):
    from controller.cli import main

    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    image[:200, :500] = (60, 90, 120)
    frames = _folder_of(tmp_path, image)
    assert (
        main(
            [
                "calibrate",
                "--source",
                f"folder:{frames}",
                "--out",
                str(tmp_path / "c.json"),
                "--picture",
                str(tmp_path / "c.png"),
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "0 (top-left)" in err and "see " in err
    assert not (tmp_path / "c.json").exists() and (tmp_path / "c.png").exists()
    assert main(["calibrate", "--source", "webcam"]) == 2


def test_calibrate_command_takes_the_tables_config_and_writes_where_run_reads(tmp_path, capsys):
    from controller.cli import main

    a3 = layout_for("makao", "A3")
    image, _ = _view(a3, TILTED)
    frames = _folder_of(tmp_path, image)
    saved = tmp_path / "state" / "calibration.json"
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nplayers = ["Ada", "Ben"]\n[game]\nname = "makao"\n'
        f'[camera]\nsource = "folder:{frames}"\n[mat]\ncalibration = "{saved}"\npaper = "A3"\n'
    )
    assert main(["calibrate", "--config", str(config)]) == 0
    assert "at 1280x720" in capsys.readouterr().out
    cal = Calibration.load(saved)
    assert cal.mat_mm == (420.0, 297.0) and cal.game == "makao" and cal.error_mm < 0.5


def test_calibrate_command_needs_a_source_or_a_config(capsys):
    from controller.cli import main

    assert main(["calibrate"]) == 2
    assert "give --source" in capsys.readouterr().err


def test_calibrate_command_names_a_calibration_file_it_cannot_write(tmp_path, capsys):
    from controller.cli import main

    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    frames = _folder_of(tmp_path, image)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(blocked / "calib.json")]) == 2
    assert f"cannot write {blocked / 'calib.json'}" in capsys.readouterr().err


def _with_card(image: np.ndarray, table_to_image: np.ndarray, at_mm: tuple[float, float]) -> np.ndarray:
    """``image`` with a blank card lying face up (63 x 88 mm, a little turned) centred at ``at_mm`` on the table."""
    from vision.zones import CARD_SIZE_MM

    w, h = CARD_SIZE_MM
    corners = cv2.boxPoints(((at_mm[0], at_mm[1]), (w, h), 12.0)).reshape(-1, 1, 2).astype(np.float64)
    outline = cv2.perspectiveTransform(corners, table_to_image).reshape(-1, 2)
    shown = image.copy()
    cv2.fillPoly(shown, [np.round(outline).astype(np.int32)], (238, 240, 242))
    return shown


def test_calibrate_command_keeps_the_empty_mat_beside_the_calibration(tmp_path, capsys):
    """The frame calibrated from is the table's picture of the empty mat (``calib.empty.png``), read back as it
    was saved; calibrated again with a card in a zone, the old picture goes and none replaces it."""
    from controller.cli import main
    from vision.calibration import empty_mat_path, load_empty_mat

    layout = layout_for("358")
    image, table_to_image = _view(layout, TILTED)
    out = tmp_path / "calib.json"
    (tmp_path / "empty").mkdir()
    (tmp_path / "card").mkdir()
    assert main(["calibrate", "--source", f"folder:{_folder_of(tmp_path / 'empty', image)}", "--out", str(out)]) == 0
    assert f"empty mat: {tmp_path / 'calib.empty.png'}" in capsys.readouterr().out
    assert empty_mat_path(out) == tmp_path / "calib.empty.png"
    saved = load_empty_mat(Calibration.load(out), out)
    assert saved is not None and np.array_equal(saved, image)

    played = _with_card(image, table_to_image, layout.zone("seat1").center)
    assert main(["calibrate", "--source", f"folder:{_folder_of(tmp_path / 'card', played)}", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    # the zone named as the mat prints it
    assert "something lies in SEAT 2 (a card, a hand, a deep shadow?): the empty mat was not saved" in said
    assert Calibration.load(out).error_mm < 0.5  # the calibration itself is saved
    assert not empty_mat_path(out).exists() and load_empty_mat(Calibration.load(out), out) is None


def test_calibrate_waits_for_a_player_leaning_over_the_mat_to_sit_back(tmp_path, capsys):
    """Pictured while a player leans over the table under the lamp, the mat is not kept as the empty mat: the zone
    in the shadow is named; when a later frame shows the mat lit again, that one is kept."""
    from controller.cli import main
    from tests.vision.placeholder_faces import placeholder_boxes, placeholder_face
    from vision.calibration import empty_mat_path, load_empty_mat
    from vision.render import Lean, TableRenderer

    renderer = TableRenderer(layout_for("358"), seed=2, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    leaning = renderer.apply(Lean(seat=1, frames=12, depth=0.6, reach=0.7))[8].frame.image
    sat_back = renderer.still(1)[0].frame.image
    out = tmp_path / "calib.json"
    assert main(["calibrate", "--source", f"folder:{_folder_of(tmp_path, leaning)}", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "something lies in SEAT 2" in said  # and in the exchange zone beside it, reached by the shadow too
    assert "(a card, a hand, a deep shadow?): the empty mat was not saved" in said
    assert not empty_mat_path(out).exists()

    frames = tmp_path / "two"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), leaning)
    cv2.imwrite(str(frames / "1.png"), sat_back)
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(out)]) == 0
    assert f"empty mat: {empty_mat_path(out)}" in capsys.readouterr().out
    saved = load_empty_mat(Calibration.load(out), out)
    assert saved is not None and np.array_equal(saved, sat_back)


def test_calibrate_keeps_the_bare_mat_pictured_through_a_lens_a_little_out_of_focus(tmp_path, capsys):
    """A soft lens spreads the mat's printing; two zones' outlines side by side (SEAT 3's and the exchange's) ran
    into one blob, and calibrate named a bare SEAT 3 occupied and kept no picture of the empty mat."""
    from controller.cli import main
    from tests.vision.placeholder_faces import placeholder_boxes, placeholder_face
    from vision.calibration import empty_mat_path
    from vision.render import RenderSettings, TableRenderer

    soft = RenderSettings(blur_sigma=1.5, tilt_deg=0.0)
    renderer = TableRenderer(
        layout_for("358"), settings=soft, seed=0, face_loader=placeholder_face, boxes_loader=placeholder_boxes
    )
    out = tmp_path / "calib.json"
    bare = renderer.still(1)[0].frame.image
    assert main(["calibrate", "--source", f"folder:{_folder_of(tmp_path, bare)}", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "something lies" not in said
    assert f"empty mat: {empty_mat_path(out)}" in said and empty_mat_path(out).exists()


def test_a_picture_of_the_empty_mat_that_does_not_fit_its_calibration_is_named(tmp_path, capsys):
    from controller.cli.run import saved_empty_mat
    from vision.calibration import empty_mat_path, load_empty_mat

    calibration = Calibration(np.eye(3), (1280, 720), 0.1)
    out = tmp_path / "calib.json"
    calibration.save(out)
    empty_mat_path(out).write_bytes(b"not a PNG")
    with pytest.raises(CalibrationError, match=r"calib\.empty\.png is not a picture"):
        load_empty_mat(calibration, out)
    assert saved_empty_mat(calibration, out, "cardtable run") is None
    assert "cardtable run: warning: " in capsys.readouterr().err
    cv2.imwrite(str(empty_mat_path(out)), np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(CalibrationError, match="is 640x480, but the calibration was made at 1280x720"):
        load_empty_mat(calibration, out)


def test_calibrate_waits_for_the_zones_to_clear_before_it_keeps_the_empty_mat(tmp_path, capsys):
    """Something in a zone when the markers are first found (a hand passing, a card being cleared away): the frames
    after it, up to ``--frames``, are looked at for the empty mat, and the first clear one is kept."""
    from controller.cli import main
    from vision.calibration import load_empty_mat

    layout = layout_for("358")
    image, table_to_image = _view(layout, TILTED)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), _with_card(image, table_to_image, layout.zone("seat1").center))
    cv2.imwrite(str(frames / "1.png"), image)
    out = tmp_path / "calib.json"
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "empty mat: " in said and "something lies" not in said
    saved = load_empty_mat(Calibration.load(out), out)
    assert saved is not None and np.array_equal(saved, image)
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(out), "--frames", "1"]) == 0
    assert "something lies in SEAT 2" in capsys.readouterr().out  # one frame allowed: the card was still there


FELT = (60, 90, 120)


@pytest.mark.parametrize(
    ("view", "told"),
    [
        ("the floor", "mat out of view: aim the camera at the mat or clear its corners (0 of 4 markers in view)"),
        ("one corner", "knocked off the mat: aim it at the whole mat (1 of its 4 corner markers in view)"),
        (
            "the top edge out",
            "mat cut off: bring the whole mat into view (its top-left and top-right corners out of view)",
        ),
    ],
)
def test_the_players_are_told_when_a_knock_leaves_the_camera_short_of_the_mat_and_when_it_sees_it_again(
    view: str, told: str
) -> None:
    """Knocked off the mat (onto the floor, or so far that one corner is left), the camera reads no card where it is
    laid; knocked so that an edge of the mat is out of view, it reads on from the markers left but should be put
    back. The table tells the players what to put right (:attr:`Calibrator.trouble`) once it has lasted longer than
    an arm over the corners does, and stops as soon as the whole mat is in view again."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    assert calibrator.update(1, image) is None and calibrator.trouble is None
    if view == "the floor":
        knocked = np.full_like(image, FELT)
    elif view == "one corner":
        knocked, _ = _view(layout, [[x + 700, y + 450] for x, y in TILTED])
        assert len(detect_markers(knocked)) == 1
    else:
        knocked, _ = _view(layout, [[x + 30, y - 95] for x, y in TILTED])
        assert len(detect_markers(knocked)) == 2
    wait = calibrator.settings.warn_frames
    said: list[CameraFault | None] = []
    for i in range(2, 2 + wait + 3):
        calibrator.update(i, knocked)
        said.append(calibrator.trouble)
    assert said[: wait - 1] == [None] * (wait - 1), "an arm's stay over the corners is not told"
    assert str(said[-1]) == told
    calibrator.update(2 + wait + 3, image)  # the camera put back where it was
    assert calibrator.trouble is None


def test_the_light_going_out_is_told_as_such_and_nothing_is_read_in_the_dark() -> None:
    """Someone switches the room's light off mid-game: no marker is found, and the players are told to turn the
    light on (not to aim the camera); a dim room whose markers are still found is not told anything."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    rng = np.random.default_rng(0)
    dim = np.clip(image * 0.15 + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    dark = np.clip(image * 0.03 + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    assert len(detect_markers(dim)) == 4 and not detect_markers(dark)
    for i in range(1, 40):
        calibrator.update(i, dim)
    assert calibrator.trouble is None and calibrator.sure
    settings = calibrator.settings
    for i in range(40, 40 + settings.check_every + settings.warn_frames + 2):  # (the markers' pattern stays: no
        calibrator.update(i, dark)  # check before one is due)
    assert not calibrator.sure
    fault = calibrator.trouble
    assert fault is not None and fault.headline == "too dark" and fault.advice.startswith("turn on the light")
    calibrator.update(200, image)
    assert calibrator.trouble is None and calibrator.sure


def test_a_hand_over_every_corner_for_a_moment_is_not_told() -> None:
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout, calibrate(image, layout))
    covered = np.full_like(image, FELT)
    frames = [image] + [covered] * (calibrator.settings.warn_frames - 2) + [image] * 40
    for i, frame in enumerate(frames, start=1):
        calibrator.update(i, frame)
        assert calibrator.trouble is None, f"told at frame {i}"
    assert calibrator.recalibrations == 0


def test_a_camera_that_never_finds_the_mat_is_told_and_calibrates_when_it_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """At the start of a game the camera looks at the table without the mat in view: the table says so (once in the
    log, on the board after ``warn_frames``), and calibrates as soon as the mat is in view."""
    layout = layout_for("358")
    image, _ = _view(layout, TILTED)
    calibrator = Calibrator(layout)
    floor = np.full_like(image, FELT)
    wait = calibrator.settings.warn_frames
    with caplog.at_level(logging.WARNING, logger="vision.calibration"):
        said = [calibrator.trouble for i in range(wait + 2) if calibrator.update(i, floor) is None]
    assert said[0] is None and said[-1] == CameraFault(
        "mat not found", "aim the camera at the whole mat (0 of its 4 corner markers in view)"
    )
    assert len([r for r in caplog.records if "mat markers not found" in r.getMessage()]) == 1, "logged once"
    assert calibrator.update(wait + 2, image) is not None
    assert calibrator.trouble is None
