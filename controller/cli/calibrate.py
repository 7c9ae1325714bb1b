"""Calibrate the camera against the mat: find its four ArUco markers, measure the homography from
image pixels to table millimetres, and save it, with a picture of what the camera sees (markers and
zones drawn on, and a warning for glare or bad exposure).

Run it with the mat empty and the light as it will be during play.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "calibrate"
HELP = "find the mat's markers, save the camera-to-table homography and a check picture"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, help="usb:N, file:PATH, folder:PATH, picamera2, synthetic, URL")
    parser.add_argument("--out", type=Path, default=Path("calib.json"), help="calibration file to write")
    parser.add_argument("--picture", type=Path, help="PNG of the view with markers, zones and warnings")
    parser.add_argument("--game", default="358", choices=["358", "makao"], help="which mat (default 358)")
    parser.add_argument("--paper", default="A2", help="paper the mat was printed on (default A2)")
    parser.add_argument("--frames", type=int, default=10, help="frames to try before giving up (default 10)")


def run(args: argparse.Namespace) -> int:
    from vision.calibration import (
        Calibration,
        CalibrationError,
        assess_image,
        calibrate,
        detect_markers,
        draw_overlay,
        felt_mask,
    )
    from vision.sources import SourceError, open_source
    from vision.zones import LayoutError, layout_for

    try:
        layout = layout_for(args.game, args.paper)
        source = open_source(args.source)
    except (LayoutError, SourceError) as exc:
        print(f"cardtable calibrate: {exc}", file=sys.stderr)
        return 2
    import cv2

    calibration: Calibration | None = None
    error: CalibrationError | None = None
    image = None
    with source:
        for n, frame in enumerate(source):
            image = frame.image
            try:
                calibration = calibrate(image, layout)
                break
            except CalibrationError as exc:
                error = exc
            if n + 1 >= args.frames:
                break
    if image is None:
        print(f"cardtable calibrate: no frame from {args.source} (status {source.status})", file=sys.stderr)
        return 1
    found = detect_markers(image)
    warnings: tuple[str, ...] = ()
    if calibration is not None:
        warnings = assess_image(image, felt_mask(calibration, layout)).warnings
    if args.picture:
        args.picture.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(args.picture), draw_overlay(image, layout, calibration, found, warnings))
    if calibration is None:
        print(f"cardtable calibrate: {error}", file=sys.stderr)
        if args.picture:
            print(f"see {args.picture} for what the camera sees", file=sys.stderr)
        return 1
    calibration.save(args.out)
    print(f"calibrated from {len(found)} markers: error {calibration.error_mm:.2f} mm; wrote {args.out}")
    for warning in warnings:
        print(f"warning: {warning}")
    if args.picture:
        print(f"picture: {args.picture}")
    return 0
