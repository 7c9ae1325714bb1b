"""Referee a real table: ``cardtable run --config FILE``.

Opens the camera, the buttons, the e-ink board, the LED ring and the MQTT feed named in the config,
resumes the game from the journal if the last run was interrupted, and referees game after game until it
is stopped (SIGTERM from systemd, Ctrl-C): at game over the operator starts the next one (or, with
``table.after_game = "stop"``, the run ends). Each game's record is written to the records folder.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from vision.calibration import Calibration

NAME = "run"
HELP = "referee a real table from a config file (camera, buttons, display, ring, feed)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, help="the table's TOML config")
    parser.add_argument("--console", action="store_true", help="read operator commands from stdin (? for help)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, load_config

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    return run_table(cfg, console=args.console)


def run_table(cfg: object, *, console: bool = False, hardware: bool = True, feed: bool = True) -> int:
    from controller.config import TableConfig
    from controller.table import Table
    from vision.calibration import Calibration, CalibrationError, Calibrator
    from vision.recognise import DEFAULT_MODEL_DIR, ModelError, OnnxRecogniser
    from vision.sources import SourceError, open_source
    from vision.tracker import CardTracker
    from vision.zones import layout_for

    assert isinstance(cfg, TableConfig)
    layout = layout_for(cfg.game.name, cfg.mat.paper)
    try:
        recogniser = OnnxRecogniser(cfg.camera.models or DEFAULT_MODEL_DIR, threads=1)
        source = open_source(cfg.camera.source, width=cfg.camera.width, height=cfg.camera.height, fps=cfg.camera.fps)
    except (ModelError, SourceError) as exc:
        print(f"cardtable run: {exc}", file=sys.stderr)
        return 2
    calibration = empty_mat = None
    if cfg.mat.calibration is not None and cfg.mat.calibration.exists():
        try:
            calibration = Calibration.load(cfg.mat.calibration)
            calibration.check_mat(layout)
        except CalibrationError as exc:
            source.close()
            print(f"cardtable run: {cfg.mat.calibration}: {exc}", file=sys.stderr)
            return 2
        empty_mat = saved_empty_mat(calibration, cfg.mat.calibration, "cardtable run")
    table = Table(cfg, hardware=hardware, feed=feed, console=console)
    table.install_signals()
    try:
        frames = table.run(
            source,
            recogniser=recogniser,
            make_tracker=lambda cal: CardTracker(layout, cal, cfg.tracker_settings(), reader=recogniser.read),
            calibrator=Calibrator(layout),
            calibration=calibration,
            empty_mat=empty_mat,
        )
    finally:
        source.close()
        record = table.close()
    logging.getLogger("cardtable").info("stopped after %d frames; record %s", frames, record)
    print(f"record: {record}")
    if source.status == "lost" and not table.referee.is_over:
        # Not a finished game: exit non-zero, so that systemd (Restart=on-failure) starts the table again; the
        # referee replays its journal and the game goes on once the camera is back.
        print(f"cardtable run: the camera {source.name} was lost ({source.dropouts} failed reads)", file=sys.stderr)
        return 1
    return 0


def saved_empty_mat(calibration: Calibration, path: Path, command: str) -> np.ndarray | None:
    """The picture of the empty mat ``cardtable calibrate`` saved beside the calibration at ``path``, or None: when
    there is none, or (said on stderr, naming the file) when it is no picture of that calibration's frames. The
    table then goes on without it, as before it was saved: the felt's colour stands in."""
    from vision.calibration import CalibrationError, empty_mat_path, load_empty_mat

    try:
        image = load_empty_mat(calibration, path)
    except CalibrationError as exc:
        print(f"{command}: warning: {exc}; going on without the empty mat", file=sys.stderr)
        return None
    log = logging.getLogger("cardtable")
    if image is None:
        log.info(
            "no picture of the empty mat beside %s: calibrate with the mat empty to have its printing ignored", path
        )
    else:
        log.info("the empty mat as calibrated: %s (its printing is never a card)", empty_mat_path(path))
    return image
