"""The printable felt mat: felt colour, zones with their labels, and an ArUco marker in each corner.

The same drawing serves the printer (300 dpi, :func:`save_mat`) and the synthetic renderer (a few
pixels per mm), so what the tests see is what the players print. Markers get a white quiet zone
because ArUco detection needs contrast around the black border, and felt is dark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import cv2
import numpy as np

from vision.zones import ARUCO_DICTIONARY, ZoneLayout

FELT_BGR: Final = (48, 110, 36)
LINE_BGR: Final = (200, 230, 200)
TEXT_BGR: Final = (215, 240, 215)
MM_PER_INCH: Final = 25.4


def aruco_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))


def render_mat(
    layout: ZoneLayout, px_per_mm: float, *, felt: tuple[int, int, int] = FELT_BGR, labels: bool = True
) -> np.ndarray:
    """Draw the mat as a BGR image, ``px_per_mm`` pixels per table millimetre."""
    w = round(layout.width * px_per_mm)
    h = round(layout.height * px_per_mm)
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = felt
    dictionary = aruco_dictionary()
    thick = max(1, round(1.2 * px_per_mm))
    for zone in layout.zones:
        pts = np.round(np.asarray(zone.polygon) * px_per_mm).astype(np.int32)
        cv2.polylines(img, [pts], True, LINE_BGR, thick, cv2.LINE_AA)
        if labels and zone.label:
            x1, y1, x2, _ = zone.bounds
            _put_text_fit(
                img, zone.label, (x1 + 4) * px_per_mm, (y1 + 4) * px_per_mm, (x2 - x1 - 8) * px_per_mm, 8 * px_per_mm
            )
    for marker in layout.markers:
        quiet = marker.size * 1.3
        cx, cy = marker.center
        x0 = round((cx - quiet / 2) * px_per_mm)
        y0 = round((cy - quiet / 2) * px_per_mm)
        side = round(quiet * px_per_mm)
        img[max(0, y0) : y0 + side, max(0, x0) : x0 + side] = 255
        msize = round(marker.size * px_per_mm)
        tag = cv2.aruco.generateImageMarker(dictionary, marker.id, msize, borderBits=1)
        mx = round((cx - marker.size / 2) * px_per_mm)
        my = round((cy - marker.size / 2) * px_per_mm)
        img[my : my + msize, mx : mx + msize] = tag[:, :, None]
    if labels:
        size = f"{layout.width:.0f}x{layout.height:.0f} mm"
        note = f"cardtable {layout.game} mat  {size}  ArUco {ARUCO_DICTIONARY} ids 0-3"
        m0 = layout.markers[0]
        _put_text_fit(
            img,
            note,
            (m0.center[0] + m0.size) * px_per_mm,
            6 * px_per_mm,
            (layout.width - 2 * (m0.center[0] + m0.size)) * px_per_mm,
            6 * px_per_mm,
        )
    return img


def _put_text_fit(img: np.ndarray, text: str, x: float, y: float, max_w: float, max_h: float) -> None:
    """Write ``text`` with its top-left at (x, y), as large as fits in ``max_w`` x ``max_h`` pixels."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = max(0.2, min(max_w / max(tw, 1), max_h / max(th, 1)))
    thickness = max(1, round(scale * 2))
    cv2.putText(img, text, (round(x), round(y + th * scale)), font, scale, TEXT_BGR, thickness, cv2.LINE_AA)


def save_mat(image: np.ndarray, path: Path, dpi: int = 300, fmt: str | None = None) -> Path:
    """Write the mat as PNG or PDF with the resolution recorded, so it prints at its true size."""
    from PIL import Image

    kind = (fmt or path.suffix.lstrip(".") or "png").lower()
    if kind not in ("png", "pdf"):
        raise ValueError(f"mat format must be png or pdf, not {kind!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    pil = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    if kind == "png":
        pil.save(path, format="PNG", dpi=(dpi, dpi))
    else:
        pil.save(path, format="PDF", resolution=float(dpi))
    return path


def mat_pixels_per_mm(dpi: int) -> float:
    return dpi / MM_PER_INCH
