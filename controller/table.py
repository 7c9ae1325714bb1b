"""A real table: config → referee, outputs and the camera pipeline, in one loop (``cardtable run``).

Frigate's ``app.py`` is the model: an explicit start order (journal and referee first, so a restart
resumes before anything is shown; then the outputs; then the inputs), one loop that owns the
referee, and a stop that closes everything in reverse. Buttons (gpiozero threads), the feed's
operator commands (paho's thread) and the console (a reader thread) put their inputs on one queue;
the loop drains it between frames, so the referee is only ever touched by one thread.

``cardtable replay`` uses the same :class:`Table` with a video or a folder of frames and no hardware.

Game after game: when a game is over the table keeps its final score on show and goes on watching
(``table.after_game = "wait"``, the default) until the operator starts the next one: the operator's
button (short press), ``new`` on the console or ``new_game`` on the feed's control topic. Then the
finished game's record is written, its journal set aside, and a new referee takes over the same outputs,
camera and tracker, so a club table plays on without anyone logging in to the Pi. ``"stop"`` ends
``cardtable run`` at game over instead (replay always does).
"""

from __future__ import annotations

import json
import logging
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from controller.announcements import Announcer, CameraTrouble, LogOutput, PrinterOutput, Prompt
from controller.config import TableConfig
from controller.feed.control import NewGame
from controller.journal import Journal
from controller.outputs import TrackerOutput
from controller.referee.base import Referee
from controller.speech import SpeechOutput
from controller.systemd_notify import Notifier
from hardware.events import Press, SeatButton

if TYPE_CHECKING:
    from vision.calibration import CameraFault

__all__ = ["Table", "build_referee", "save_record"]

log = logging.getLogger(__name__)


def _source_fault(status: str) -> CameraFault | None:
    """What a frame source's ``status`` (vision.sources.FrameSource) tells the players, if anything."""
    from vision.calibration import CameraFault

    if status == "reconnecting":
        return CameraFault("disconnected", "check its cable (the table is reconnecting)")
    if status == "lost":
        return CameraFault("lost", "check its cable; the table stops, and its service starts it again")
    return None


def _now() -> str:
    """A game's start time as records name it (UTC, to the second)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def build_referee(cfg: TableConfig, announcer: Announcer, journal: Journal | None) -> Referee:
    """The referee for the configured game and preset."""
    players = cfg.table.players
    if cfg.game.name == "358":
        from controller.referee.threefiveeight import ThreeFiveEightReferee

        return ThreeFiveEightReferee(players, cfg.game.preset_name, announcer, journal, hands=cfg.game.hands)
    from controller.referee.makao import MakaoReferee

    return MakaoReferee(players, cfg.game.preset_name, announcer, journal)


def save_record(referee: Referee, folder: Path, table_id: str, started: str) -> Path:
    """Write the game record atomically (a temporary file, then a rename) and return its path.

    Never over another game's record: two games started within the same second (one ended at once and
    the next begun) get ``-2``, ``-3``... after the time."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{table_id}-{started}.json"
    n = 2
    while path.exists():
        path = folder / f"{table_id}-{started}-{n}.json"
        n += 1
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(referee.record(), indent=1))
    tmp.replace(path)
    return path


class Table:
    """One table's controller. ``hardware=False`` (replay) uses no buttons, ring, display or feed."""

    def __init__(
        self,
        cfg: TableConfig,
        *,
        hardware: bool = True,
        feed: bool = True,
        console: bool = False,
        journal: bool = True,
        printer: bool = True,
    ) -> None:
        self.cfg = cfg
        #: systemd's Type=notify: READY once the pipeline runs, WATCHDOG pings per frame (no-op outside systemd).
        self.notifier = Notifier()
        self.inputs: queue.Queue[Any] = queue.Queue()
        self.stop_event = threading.Event()
        self.closers: list[Callable[[], None]] = []
        #: the SIGTERM and SIGINT handlers :meth:`install_signals` replaced, put back by :meth:`close`
        self._replaced_signals: dict[int, Any] = {}
        names = cfg.table.players
        outputs: list[Any] = [LogOutput(names)]
        if printer:
            outputs.append(PrinterOutput(names, skip=("clear_zones",)))
        if cfg.speech.enabled:
            outputs.append(SpeechOutput(names, voice=cfg.speech.voice, speed=cfg.speech.speed))
        #: tells the camera's tracker what the referee learnt that the camera cannot see (a new Makao stock)
        self.tracker_output = TrackerOutput()
        outputs.append(self.tracker_output)
        self.announcer = Announcer(outputs, names)
        self.journal = Journal(cfg.journal.path, fsync=cfg.journal.fsync) if journal else None
        self.referee = build_referee(cfg, self.announcer, self.journal)
        self.started = _now()
        self.records: list[Path] = []
        """The records of the games finished and replaced in this run, oldest first (:meth:`close` adds the last)."""
        self._told_over = False
        self._camera_trouble: CameraFault | None = None
        """What the table was last told keeps the camera from seeing the mat (:meth:`_tell_camera`)."""
        resumed = self.referee.resume()
        if resumed:
            log.info("resumed the game from %s (%d inputs)", cfg.journal.path, resumed)
        if hardware:
            self._hardware()
        if feed and cfg.mqtt.enabled:
            self._feed()
        if console:
            self._console()

    # ------------------------------------------------------------------ outputs and inputs

    def _hardware(self) -> None:
        from controller.outputs import DisplayOutput, RingOutput

        hw = self.cfg.hardware
        n = len(self.cfg.table.players)
        if hw.display.backend != "none":
            from hardware.display import scoreboard_from_config

            board = scoreboard_from_config(hw.display.backend, (hw.display.width, hw.display.height))
            self.announcer.add(DisplayOutput(board))
        if hw.ring.backend != "none":
            from hardware.ring import ring_from_config

            spec = "simulated" if hw.ring.backend == "simulated" else f"serial:{hw.ring.port or 'auto'}"
            ring = ring_from_config(spec, leds=hw.ring.leds)
            ring.brightness(hw.ring.brightness)
            self.announcer.add(RingOutput(ring, n))
        if hw.buttons.backend == "gpio":
            from hardware.buttons import SeatButtons

            buttons = SeatButtons(
                hw.buttons.pins, hw.buttons.operator_pin, self.inputs.put, long_press_s=hw.buttons.long_press_s
            )
            self.closers.append(buttons.close)

    def _feed(self) -> None:
        from controller.feed import Feed
        from controller.outputs import FeedOutput

        feed = Feed.open(self.cfg.feed_config())
        feed.on_command = self.inputs.put  # type: ignore[union-attr,unused-ignore]
        self.announcer.add(FeedOutput(feed))

    def _console(self) -> None:
        """Read console commands from stdin in a thread (development and the operator's terminal)."""
        from controller.commands import CONSOLE_HELP, parse_console

        def read() -> None:
            for line in sys.stdin:
                if line.strip() == "?":
                    print(CONSOLE_HELP, flush=True)
                    continue
                try:
                    self.inputs.put(parse_console(line))
                except ValueError as exc:
                    print(f"console: {exc}", flush=True)

        threading.Thread(target=read, name="console", daemon=True).start()

    # ------------------------------------------------------------------ the loop

    def drain(self) -> None:
        """Give the referee every queued button press, command and console input; once the game is over,
        the operator's short press or ``NewGame`` starts the next game instead (see the module's docstring)."""
        while True:
            try:
                item = self.inputs.get_nowait()
            except queue.Empty:
                return
            asks_new = isinstance(item, NewGame) or (
                isinstance(item, SeatButton) and item.seat is None and item.press is Press.SHORT
            )
            if self.referee.is_over and asks_new:
                self.next_game()
            elif isinstance(item, NewGame):
                log.warning("new_game refused: the game is not over (end_game ends it first)")
                self.announcer.announce(Prompt(None, "a new game can start once this one is over (end the game first)"))
                self.announcer.show(self.referee.state())  # the board shows the answer
            else:
                self.referee.submit(item)

    def next_game(self) -> Path:
        """Write the finished game's record, set its journal aside and start a new game with the same
        players, outputs and camera; returns the finished game's record."""
        path = save_record(self.referee, self.cfg.records.dir, self.cfg.table.id, self.started)
        self.records.append(path)
        if self.journal is not None:
            self.journal.reset()  # the old journal stays as .done; a crash from here on resumes the new game
        log.info("game over, record %s; the operator started a new game", path)
        self.referee = build_referee(self.cfg, self.announcer, self.journal)
        self.started = _now()
        self._told_over = False
        self.referee.start()
        self.announcer.show(self.referee.state())
        return path

    def _game_over(self) -> None:
        """Say once per game how the next one starts (``after_game = "wait"``)."""
        if not self._told_over:
            self._told_over = True
            self.announcer.announce(
                Prompt(None, "game over: press the operator button (or send new_game) to start a new game")
            )
            self.announcer.show(self.referee.state())  # the board shows the question

    def run(
        self,
        source: Iterable[Any],
        *,
        recogniser: Any,
        make_tracker: Callable[[Any], Any],
        calibrator: Any,
        calibration: Any = None,
        empty_mat: Any = None,
        after_game: Literal["wait", "stop"] | None = None,
    ) -> int:
        """Feed frames through the pipeline until the source ends, a signal stops it or (``after_game``
        ``"stop"``; default: the config's ``table.after_game``) the game ends.

        ``calibration`` (a saved one) starts the tracker at once; otherwise the first frames that show
        the mat's markers calibrate it. ``calibrator`` keeps it current when the camera is bumped.
        ``empty_mat``, the frame that saved calibration was made from (``cardtable calibrate`` keeps it when
        the mat was empty), is the tracker's picture of the empty mat, carried into the new view when the camera is
        bumped; a calibration made afresh (no saved one) goes without.
        """
        stop_at_end = (after_game or self.cfg.table.after_game) == "stop"
        self.referee.start()
        self.announcer.show(self.referee.state())
        tracker = self._tracker(make_tracker, calibration) if calibration is not None else None
        if tracker is not None and empty_mat is not None:
            tracker.set_empty_mat(empty_mat)
        if calibration is not None:
            calibrator.calibration = calibration
        frames = 0
        if hasattr(source, "on_status"):  # a camera that drops out: told while it reconnects, not after
            source.on_status = lambda status: self._tell_camera(_source_fault(status) or calibrator.trouble)
        self.notifier.ready(f"refereeing table {self.cfg.table.id}")
        for frame in source:
            self.notifier.ping()
            if self.stop_event.is_set():
                break
            known = calibrator.calibration
            if known is not None and known.image_size != (frame.image.shape[1], frame.image.shape[0]):
                # a calibration of another frame size maps nothing right (a saved one, or the camera came back
                # at another resolution): start again from the mat's markers rather than stop the game
                log.warning(
                    "the calibration was made at %dx%d but the camera gives %dx%d frames: calibrating again from "
                    "the mat's markers (save one at this size with `cardtable calibrate --config ...`)",
                    *known.image_size,
                    frame.image.shape[1],
                    frame.image.shape[0],
                )
                calibrator.calibration = None
                tracker = self.tracker_output.tracker = None
            new = calibrator.update(frame.index, frame.image)
            self._tell_camera(calibrator.trouble)
            if new is not None:
                if tracker is None:
                    tracker = self._tracker(make_tracker, new)
                    log.info("calibrated from the mat's markers (error %.2f mm)", new.error_mm)
                else:
                    tracker.set_calibration(new)
            if tracker is not None and calibrator.sure:  # a frame of a camera knocked off the mat is not read
                # zones at rest are not read again: their last reading stands until something moves there
                wanted = tracker.regions_to_read(frame)  # the whole mat is read as ever, the resting zones not named
                read = None
                if wanted:  # a card just put down is known by its outline: its pips are its own
                    outlines = tracker.new_card_outlines(frame)
                    read = recogniser.detect(frame.image, tracker.regions(), within=wanted, outlines=outlines)
                for event in tracker.update(frame, read):
                    self.referee.submit(event)
            elif tracker is None and frames % 50 == 0:
                log.warning("waiting for the mat's markers to calibrate the camera (frame %d)", frame.index)
            self.drain()
            frames += 1
            if self.referee.is_over:
                if stop_at_end:
                    break
                self._game_over()
            else:
                self._told_over = False  # an undo after game over (long press) reopens the game
        self.drain()
        return frames

    def _tell_camera(self, trouble: CameraFault | None) -> None:
        """Tell the table (board, voice, log), the spectators and systemd's status line (``systemctl status``) when
        the camera stops seeing the mat well enough to referee (the calibrator's
        :attr:`~vision.calibration.Calibrator.trouble`), and when it sees it again."""
        if trouble == self._camera_trouble:
            return
        self._camera_trouble = trouble
        table = self.cfg.table.id
        self.notifier.status(f"refereeing table {table}" if trouble is None else f"table {table}: camera {trouble}")
        self.announcer.announce(
            CameraTrouble(None) if trouble is None else CameraTrouble(trouble.headline, trouble.advice)
        )
        self.announcer.show(self.referee.state())

    def _tracker(self, make_tracker: Callable[[Any], Any], calibration: Any) -> Any:
        """A new tracker for ``calibration``, told what the referee knows lies on the mat when the game is under
        way (a restart after a power cut, or a camera calibrated afresh): those cards are not played again."""
        tracker = make_tracker(calibration)
        tracker.decks = getattr(self.referee, "decks", 1)  # two decks for Makao with five or six players
        if self.referee.inputs:
            tracker.expect(self.referee.lying())
        self.tracker_output.tracker = tracker
        return tracker

    def install_signals(self) -> None:
        """SIGTERM and SIGINT stop the loop after the current frame (systemd stops, Ctrl-C), until
        :meth:`close` puts the process's own handlers back.

        Why put them back: in a process that outlives the table (a test run, a program embedding it) a
        handler left behind only sets a closed table's event, so SIGTERM no longer ends the process nor
        anything it forks: ``multiprocessing.Pool.terminate`` stops its workers with SIGTERM, and workers
        that inherited this handler never exit (the pool's ``with`` block then waits for ever)."""

        def stop(_signum: int, _frame: object) -> None:
            self.stop_event.set()

        for signum in (signal.SIGTERM, signal.SIGINT):
            self._replaced_signals.setdefault(signum, signal.getsignal(signum))
            signal.signal(signum, stop)

    def _restore_signals(self) -> None:
        for signum, handler in self._replaced_signals.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self._replaced_signals.clear()

    def close(self) -> Path:
        """Write the record, close outputs and inputs in reverse order; returns the record's path.

        A game the operator started in this run and nobody played in yet leaves no record: the path is
        then the last finished game's. The signal handlers go back last, so that a second SIGTERM while
        the record is written still cannot cut it short."""
        self.notifier.stopping()
        try:
            if self.records and self.referee.inputs == 0:
                path = self.records[-1]
            else:
                path = save_record(self.referee, self.cfg.records.dir, self.cfg.table.id, self.started)
                self.records.append(path)
            if self.referee.is_over and self.journal is not None:
                self.journal.reset()  # the next start begins a new game; the old journal stays as .done
            for close in reversed(self.closers):
                try:
                    close()
                except Exception:
                    log.exception("closing failed")
            self.referee.close()
        finally:
            self._restore_signals()
        return path
