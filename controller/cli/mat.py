"""Write the printable felt mat of a game: zones drawn and labelled, ArUco markers in the corners.

Print it at 100 % (no "fit to page"): the calibration assumes the sizes printed on it. The markers
are DICT_4X4_50 ids 0 (top-left), 1 (top-right), 2 (bottom-right) and 3 (bottom-left).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "mat"
HELP = "write the printable mat (PNG or PDF, 300 dpi) with zones and ArUco markers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=["358", "makao"], help="which game's zones")
    parser.add_argument("--out", required=True, type=Path, help="file to write (.png or .pdf)")
    parser.add_argument("--paper", default="A2", help="A0..A5 or WxHmm, landscape (default A2)")
    parser.add_argument("--format", choices=["png", "pdf"], help="default: from the file name, else png")
    parser.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")


def run(args: argparse.Namespace) -> int:
    from vision.mat import mat_pixels_per_mm, render_mat, save_mat
    from vision.zones import LayoutError, layout_for

    try:
        layout = layout_for(args.game, args.paper)
    except LayoutError as exc:
        print(f"cardtable mat: {exc}", file=sys.stderr)
        return 2
    if not 72 <= args.dpi <= 600:
        print(f"cardtable mat: --dpi must be between 72 and 600, not {args.dpi}", file=sys.stderr)
        return 2
    fmt = args.format or (args.out.suffix.lstrip(".").lower() if args.out.suffix.lower() in (".png", ".pdf") else "png")
    image = render_mat(layout, mat_pixels_per_mm(args.dpi))
    try:
        path = save_mat(image, args.out, args.dpi, fmt)
    except OSError as exc:
        print(f"cardtable mat: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    from vision.zones import CARD_SIZE_MM

    for zone in layout.zones:
        x1, y1, x2, y2 = zone.bounds
        if min(x2 - x1, y2 - y1) < CARD_SIZE_MM[0] + 10 or max(x2 - x1, y2 - y1) < CARD_SIZE_MM[1] + 10:
            print(
                f"warning: zone {zone.name} is {x2 - x1:.0f} x {y2 - y1:.0f} mm, too small for a card on "
                f"{args.paper}; use A3 or larger",
                file=sys.stderr,
            )
    print(
        f"wrote {path}: {args.game} mat {layout.width:.0f} x {layout.height:.0f} mm, {image.shape[1]} x "
        f"{image.shape[0]} px at {args.dpi} dpi; zones: {', '.join(layout.zone_names)}; "
        "ArUco DICT_4X4_50 ids 0-3 (print at 100 %)"
    )
    return 0
