"""`cardtable mat` writes a printable mat whose markers the calibrator finds."""

import cv2
import numpy as np
import pytest
from PIL import Image

from controller.cli import main
from vision.calibration import calibrate
from vision.mat import render_mat
from vision.zones import LayoutError, ZoneLayout, layout_for, parse_paper


def test_mat_png_is_300_dpi_and_its_markers_calibrate(tmp_path, capsys):
    out = tmp_path / "mat.png"
    assert main(["mat", "--game", "358", "--out", str(out), "--paper", "A3"]) == 0
    assert "seat0, seat1, seat2, exchange" in capsys.readouterr().out
    with Image.open(out) as img:
        assert img.size == (4961, 3508)  # 420 x 297 mm at 300 dpi
        assert tuple(round(v) for v in img.info["dpi"]) == (300, 300)
    image = cv2.imread(str(out))
    assert image is not None
    small = cv2.resize(image, (1240, 877), interpolation=cv2.INTER_AREA)
    layout = layout_for("358", "A3")
    # the printed sheet seen square-on: pixels scale to mm exactly
    cal = calibrate(small, layout)
    assert cal.error_mm < 0.5
    assert np.allclose(cal.to_table(np.array([[620, 438.5]]))[0], [210, 148.5], atol=1.0)


def test_mat_pdf_and_makao_zones(tmp_path, capsys):
    out = tmp_path / "makao.pdf"
    assert main(["mat", "--game", "makao", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert "pile, stock" in capsys.readouterr().out


def test_small_paper_warns_and_bad_paper_is_named(tmp_path, capsys):
    assert main(["mat", "--game", "358", "--out", str(tmp_path / "a5.png"), "--paper", "A5", "--dpi", "100"]) == 0
    assert "too small for a card" in capsys.readouterr().err
    assert main(["mat", "--game", "358", "--out", str(tmp_path / "x.png"), "--paper", "B7"]) == 2
    assert "'B7'" in capsys.readouterr().err


def test_zones_are_found_by_point_and_layouts_round_trip():
    layout = layout_for("358")
    for zone in layout.zones:
        assert layout.zone_at(*zone.center) == zone.name
    assert layout.zone_at(5, 5) is None
    x1, _y1, x2, y2 = layout.zone("seat0").bounds
    assert layout.zone_at((x1 + x2) / 2, y2 + 5, margin=10) == "seat0"
    assert ZoneLayout.from_dict(layout.to_dict()) == layout
    data = layout.to_dict()
    data["zones"][0]["colour"] = "red"
    with pytest.raises(LayoutError, match=r"zones\.0\.colour"):
        ZoneLayout.from_dict(data)
    with pytest.raises(LayoutError, match="no zone 'seat9'"):
        layout.zone("seat9")
    with pytest.raises(LayoutError, match="'poker'"):
        layout_for("poker")
    assert parse_paper("600x400mm") == (600, 400)
    assert parse_paper("a4") == (297, 210)


def test_mat_drawing_has_white_quiet_zones_round_markers():
    layout = layout_for("makao")
    img = render_mat(layout, 1.0)
    m = layout.markers[0]
    x = round(m.center[0] - m.size * 0.6)
    assert (img[round(m.center[1]), x] == 255).all()
