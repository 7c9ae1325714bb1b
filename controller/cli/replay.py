"""Referee a recorded game offline: ``cardtable replay SOURCE``.

SOURCE is a video file or a folder of frames of a table filmed from above (with the mat's markers in
view). The frames go through the same recogniser, tracker and referee as at a live table; the
announcements are printed and the game record is written. No buttons, ring, display or feed: a
contract or a press the camera cannot see can be given as console lines in ``--inputs FILE``, applied
before the first frame (e.g. ``k H`` for the contract, ``p 0`` for seat 0's short press).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "replay"
HELP = "referee a video file or a folder of frames offline, through the same pipeline"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a video file, a folder of frames, or a source spec (file:..., folder:...)")
    parser.add_argument("--config", type=Path, help="table config (players, game, preset); default: 3-5-8")
    parser.add_argument("--game", choices=["358", "makao"], help="override the config's game")
    parser.add_argument("--preset", help="override the config's preset")
    parser.add_argument("--players", help="comma-separated names, seat 0 first")
    parser.add_argument("--calibration", type=Path, help="a saved calibration (default: from the markers)")
    parser.add_argument("--inputs", type=Path, help="console lines to apply before the first frame")
    parser.add_argument("--models", type=Path, help="ONNX models folder (default: the config's, else vision/models)")
    parser.add_argument("--fps", type=float, default=10.0, help="frame rate of a folder of frames")
    parser.add_argument("--records", type=Path, default=Path("runs/replay"), help="where the record goes")


def run(args: argparse.Namespace) -> int:
    from controller.cli.run import saved_empty_mat
    from controller.commands import parse_console
    from controller.config import ConfigError, load_config, parse_config
    from controller.table import Table
    from vision.calibration import Calibration, CalibrationError, Calibrator
    from vision.recognise import DEFAULT_MODEL_DIR, ModelError, OnnxRecogniser
    from vision.sources import SourceError, open_source
    from vision.tracker import CardTracker
    from vision.zones import layout_for

    try:
        data: dict[str, object] = {}
        if args.config is not None:
            data = load_config(args.config).model_dump(exclude_unset=True)
        game = dict(data.get("game", {}))  # type: ignore[call-overload]
        if args.game:
            game["name"] = args.game
            game.setdefault("preset", "")
        if args.preset:
            game["preset"] = args.preset
        table = dict(data.get("table", {}))  # type: ignore[call-overload]
        if args.players:
            table["players"] = [p.strip() for p in args.players.split(",")]
        data.update(
            game=game,
            table=table,
            records={"dir": str(args.records)},
            journal={"path": str(args.records / "replay-journal.jsonl"), "fsync": False},
        )
        cfg = parse_config(data, str(args.config or "replay options"))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    spec = args.source
    if ":" not in spec.split("/")[0]:
        spec = f"folder:{spec}" if Path(spec).is_dir() else f"file:{spec}"
    try:
        source = open_source(spec, fps=args.fps)
        recogniser = OnnxRecogniser(args.models or cfg.camera.models or DEFAULT_MODEL_DIR, threads=1)
    except (SourceError, ModelError) as exc:
        print(f"cardtable replay: {exc}", file=sys.stderr)
        return 2
    layout = layout_for(cfg.game.name, cfg.mat.paper)
    calibration = empty_mat = None
    if args.calibration:
        try:
            calibration = Calibration.load(args.calibration)
            calibration.check_mat(layout)
        except CalibrationError as exc:
            source.close()
            print(f"cardtable replay: {args.calibration}: {exc}", file=sys.stderr)
            return 2
        empty_mat = saved_empty_mat(calibration, args.calibration, "cardtable replay")
    journal = Path(cfg.journal.path)
    if journal.exists():
        journal.unlink()
    table = Table(cfg, hardware=False, feed=False)
    table.referee.start()
    if args.inputs is not None:
        for number, line in enumerate(args.inputs.read_text().splitlines(), start=1):
            if line.strip() and not line.startswith("#"):
                try:
                    table.referee.submit(parse_console(line))
                except ValueError as exc:
                    print(f"{args.inputs}:{number}: {exc}", file=sys.stderr)
                    return 2
    try:
        frames = table.run(
            source,
            recogniser=recogniser,
            make_tracker=lambda cal: CardTracker(layout, cal, cfg.tracker_settings(), reader=recogniser.read),
            calibrator=Calibrator(layout),
            calibration=calibration,
            empty_mat=empty_mat,
            after_game="stop",  # a replay ends with its game, whatever the table's config says
        )
    finally:
        source.close()
        record = table.close()
    print(f"{frames} frames; record: {record}")
    return 0
