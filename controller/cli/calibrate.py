"""Calibrate the camera against the mat: find its four ArUco markers, measure the homography from
image pixels to table millimetres, and save it, with a picture of what the camera sees (markers and
zones drawn on, and a warning for glare or bad exposure).

Run it with the mat empty and the light as it will be during play: the frame it calibrated from is saved
beside the calibration as the empty mat (``calib.json`` -> ``calib.empty.png``), which the table compares
its frames with (the mat's printing is never a card), unless something (a card, a hand, a player's shadow) lies
in a zone: then the frames after it are looked at for one without.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.config import CameraConfig
    from vision.zones import Zone

NAME = "calibrate"
HELP = "find the mat's markers, save the camera-to-table homography and a check picture"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        help="the table's config: its camera (source, size, rate), game, mat paper and calibration file, so that "
        "the calibration fits the frames `cardtable run` will read; the options below override it",
    )
    parser.add_argument("--source", help="usb:N, file:PATH, folder:PATH, picamera2, synthetic, URL")
    parser.add_argument("--out", type=Path, help="calibration file to write (default: mat.calibration, or calib.json)")
    parser.add_argument("--picture", type=Path, help="PNG of the view with markers, zones and warnings")
    parser.add_argument("--game", choices=["358", "makao"], help="which mat (default: the config's, or 358)")
    parser.add_argument("--paper", help="paper the mat was printed on (default: mat.paper, or A2)")
    parser.add_argument("--frames", type=int, default=10, help="frames to try before giving up (default 10)")


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, TableConfig, load_config

    try:
        cfg = load_config(args.config) if args.config is not None else TableConfig()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.source is None and args.config is None:
        print("cardtable calibrate: give --source (or --config with the table's camera)", file=sys.stderr)
        return 2
    source_spec = args.source or cfg.camera.source
    game = args.game or cfg.game.name
    paper = args.paper or cfg.mat.paper
    out = args.out or cfg.mat.calibration or Path("calib.json")
    return _calibrate(args, cfg.camera, source_spec, game, paper, out)


def _calibrate(
    args: argparse.Namespace, camera: CameraConfig, source_spec: str, game: str, paper: str, out: Path
) -> int:
    from vision.calibration import (
        Calibration,
        CalibrationError,
        assess_image,
        calibrate,
        detect_markers,
        draw_overlay,
        edge_spread_mm,
        empty_mat_path,
        felt_mask,
        focus_warning,
    )
    from vision.sources import SourceError, open_source
    from vision.tracker import CardTracker
    from vision.zones import LayoutError, layout_for

    try:
        layout = layout_for(game, paper)
        source = open_source(source_spec, width=camera.width, height=camera.height, fps=camera.fps)
    except (LayoutError, SourceError) as exc:
        print(f"cardtable calibrate: {exc}", file=sys.stderr)
        return 2
    import cv2

    calibration: Calibration | None = None
    error: CalibrationError | None = None
    image = None
    occupied: list[str] = []
    with source:
        # The first frame that shows the markers calibrates; the frames after it, up to --frames in all, are
        # looked at only while something lies in a zone (a hand passing), for a picture of the empty mat.
        zones: CardTracker | None = None
        for n, frame in enumerate(source):
            if zones is None:
                image = frame.image
                try:
                    calibration = calibrate(image, layout)
                except CalibrationError as exc:
                    error = exc
                else:
                    zones = CardTracker(layout, calibration)
                    occupied = zones.occupied_zones(image)
            elif not zones.occupied_zones(frame.image):
                image, occupied = frame.image, []
            if (zones is not None and not occupied) or n + 1 >= args.frames:
                break
    if image is None:
        print(f"cardtable calibrate: no frame from {source_spec} (status {source.status})", file=sys.stderr)
        return 1
    found = detect_markers(image)
    warnings: tuple[str, ...] = ()
    spread: float | None = None
    if calibration is not None:
        spread = edge_spread_mm(image, found, layout)
        focus = focus_warning(spread)
        lying = [] if not occupied else [_occupied_warning([layout.zone(name) for name in occupied])]
        warnings = (*assess_image(image, felt_mask(calibration, layout)).warnings, *([focus] if focus else []), *lying)
    if args.picture:
        args.picture.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(args.picture), draw_overlay(image, layout, calibration, found, warnings))
    if calibration is None:
        print(f"cardtable calibrate: {error}", file=sys.stderr)
        if args.picture:
            print(f"see {args.picture} for what the camera sees", file=sys.stderr)
        return 1
    empty = empty_mat_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        calibration.save(out)
        empty.unlink(missing_ok=True)  # an older calibration's picture: it no longer matches the view
    except OSError as exc:
        print(f"cardtable calibrate: cannot write {out}: {exc.strerror or exc} (run it with sudo?)", file=sys.stderr)
        return 2
    if not occupied and not cv2.imwrite(str(empty), image):
        print(f"cardtable calibrate: cannot write {empty} (run it with sudo?)", file=sys.stderr)
        return 2
    size = f"{calibration.image_size[0]}x{calibration.image_size[1]}"
    sharp = "" if spread is None else f"; edges sharp to {spread:.1f} mm"
    print(f"calibrated from {len(found)} markers at {size}: error {calibration.error_mm:.2f} mm{sharp}; wrote {out}")
    if not occupied:
        print(f"empty mat: {empty}")
    for warning in warnings:
        print(f"warning: {warning}")
    if args.picture:
        print(f"picture: {args.picture}")
    return 0


def _occupied_warning(zones: list[Zone]) -> str:
    """Why the frame was not kept as the empty mat (printed, and drawn on the check picture), naming each zone
    as the mat prints it."""
    named = ", ".join(zone.label or zone.name for zone in zones)
    return (
        f"something lies in {named} (a card, a hand, a deep shadow?): the empty mat was not saved (clear the mat and"
        " calibrate again, so that the table ignores the mat's own printing)"
    )
