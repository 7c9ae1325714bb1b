"""A configured table runs the same loop live and in replay: frames -> tracker -> referee -> record."""

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.announcements import AskReplace, CameraTrouble, CardRejected, GameOver, ListOutput, Prompt
from controller.config import parse_config
from controller.demo import TruthRecogniser
from controller.feed.control import EndGame, NewGame
from controller.outputs import DisplayOutput
from controller.simulation import Collect, Gather, Pick, Place, script_358, script_makao
from controller.table import Table
from engine.cards import Card
from engine.makao.records import record_of
from hardware.events import Press, SeatButton
from tests.controller.test_outputs import RecordingBoard
from vision.calibration import Calibrator
from vision.detections import Detection
from vision.recognise import DEFAULT_MODEL_DIR
from vision.render import Collect as RCollect
from vision.render import Gather as RGather
from vision.render import PickUp as RPickUp
from vision.render import Place as RPlace
from vision.render import RenderSettings, TableRenderer
from vision.sources.base import Frame
from vision.synth.faces import available_designs
from vision.tracker import CardTracker
from vision.zones import layout_for


class Frames:
    """Rendered frames as a source; keeps the truth recogniser pointed at the current frame's truth."""

    def __init__(self, rendered: list[Any], recogniser: TruthRecogniser) -> None:
        self.rendered = rendered
        self.recogniser = recogniser

    def __iter__(self) -> Any:
        for r in self.rendered:
            self.recogniser.current = r.truth
            yield r.frame


def test_a_configured_table_referees_frames_and_writes_the_record(tmp_path: Path) -> None:
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
            "hardware": {"display": {"backend": f"png:{tmp_path / 'eink'}"}, "ring": {"backend": "simulated"}},
        }
    )
    actions, truth = script_358(seed=2, hands=1)
    first_trick = actions[: actions.index(next(a for a in actions if isinstance(a, Collect))) + 1]
    layout = layout_for("358")
    renderer = TableRenderer(layout, RenderSettings(), seed=2, design=available_designs()[0])
    rendered = renderer.still(3)
    presses = [a for a in first_trick if isinstance(a, SeatButton)]
    for action in first_trick:
        if isinstance(action, Place):
            rendered += renderer.apply(RPlace(action.card, action.where, seat=action.seat)) + renderer.still(4)
        elif isinstance(action, Collect):
            rendered += renderer.apply(RCollect(tuple(f"seat{s}" for s in action.seats), seat=action.winner))
            rendered += renderer.still(6)
    table = Table(cfg, hardware=True, feed=False, printer=False)
    for press in presses:  # the contract and the kitty, before the first card
        table.inputs.put(press)
    recogniser = TruthRecogniser()
    frames = table.run(
        Frames(rendered, recogniser),
        recogniser=recogniser,
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
    )
    assert frames == len(rendered)
    path = table.close()
    record = json.loads(path.read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]
    assert list((tmp_path / "eink").glob("*.png")), "the e-ink board drew nothing"


def _journalled(tmp_path: Path) -> Any:
    return parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )


def _watched_table(tmp_path: Path, first_trick: list[Any]) -> tuple[Table, ListOutput, RecordingBoard]:
    """A table with its journal under ``tmp_path``, what it announces and what its board shows kept, and the first
    trick's presses (the contract) waiting on its queue."""
    table = Table(_journalled(tmp_path), hardware=False, feed=False, printer=False)
    heard = ListOutput()
    table.announcer.add(heard)
    board = RecordingBoard()
    table.announcer.add(DisplayOutput(board))
    for press in (a for a in first_trick if isinstance(a, SeatButton)):
        table.inputs.put(press)
    return table, heard, board


def _first_trick_filmed() -> tuple[list[Any], Any, list[Any], list[int]]:
    """The first trick of 3-5-8 seed 2 drawn by the renderer: its actions (the contract's presses first), the bots'
    game, the frames, and the frame just after each card has settled."""
    actions, truth = script_358(seed=2, hands=1)
    first_trick = actions[: actions.index(next(a for a in actions if isinstance(a, Collect))) + 1]
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=2, design=available_designs()[0])
    rendered = renderer.still(3)
    settled = []
    for action in first_trick:
        if isinstance(action, Place):
            rendered += renderer.apply(RPlace(action.card, action.where, seat=action.seat)) + renderer.still(6)
            settled.append(len(rendered))
        elif isinstance(action, Collect):
            rendered += renderer.apply(RCollect(tuple(f"seat{s}" for s in action.seats), seat=action.winner))
            rendered += renderer.still(6)
    return first_trick, truth, rendered, settled


def test_a_camera_that_does_not_see_the_mat_is_told_on_the_board_until_it_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The camera looks at the bare table for the first three seconds (the mat not yet under it): the board says so,
    in words a player can act on, rather than leaving the players to lay cards nobody reads, and so does
    ``systemctl status``; once the mat is in view the message goes, and the first trick is refereed as ever."""
    import socket

    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(tmp_path / "notify.sock"))
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify.sock"))
    first_trick, truth, rendered, _settled = _first_trick_filmed()
    layout = layout_for("358")
    bare = 30
    table, heard, board = _watched_table(tmp_path, first_trick)
    recogniser = TruthRecogniser()

    def frames() -> Any:
        floor = np.full_like(rendered[0].frame.image, (40, 60, 90))
        for i in range(bare):
            yield Frame(i, i / 10, floor)
        for r in rendered:
            recogniser.current = r.truth
            yield dataclasses.replace(r.frame, index=r.frame.index + bare)

    table.run(
        frames(),
        recogniser=recogniser,
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
    )
    told = CameraTrouble("mat not found", "aim the camera at the whole mat (0 of its 4 corner markers in view)")
    assert heard.of(CameraTrouble) == [told, CameraTrouble(None)]
    messages = [v.message for v in board.views]
    assert "Camera: mat not found" in messages, "the board must say why nothing is read"
    assert not messages[-1].startswith("Camera"), "the board must stop saying so once the mat is in view"
    server.setblocking(False)
    said = []
    while True:
        try:
            said.append(server.recv(4096).decode())
        except BlockingIOError:
            break
    server.close()
    assert [m for m in said if m.startswith("STATUS")] == [
        f"STATUS=table table1: camera {told.headline}: {told.advice}",
        "STATUS=refereeing table table1",
    ]
    record = json.loads(table.close().read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]


def test_a_camera_knocked_off_the_mat_mid_trick_and_put_back_reports_nothing_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two cards of the first trick lie on the mat when the camera is knocked onto the floor for five seconds, then
    put back. The table tells the players, reads nothing while it cannot see the mat, and the trick goes on as
    played: before, the tracker took the floor for the zones emptied and then the same two cards laid again."""
    first_trick, truth, rendered, settled = _first_trick_filmed()
    layout = layout_for("358")
    knock = settled[1]  # the second card has settled
    away = 50
    table, heard, _board = _watched_table(tmp_path, first_trick)
    events: list[Any] = []
    submit = table.referee.submit

    def seen(event: Any) -> None:  # what the tracker told the referee
        events.append(event)
        submit(event)

    monkeypatch.setattr(table.referee, "submit", seen)
    recogniser = TruthRecogniser()

    def frames() -> Any:
        for k, r in enumerate(rendered):
            if k == knock:  # onto the floor: nothing of the mat in view, nothing read
                recogniser.current = None
                floor = np.full_like(r.frame.image, (40, 60, 90))
                for i in range(away):
                    yield Frame(k + i, (k + i) / 10, floor)
            recogniser.current = r.truth
            yield dataclasses.replace(r.frame, index=r.frame.index + (away if k >= knock else 0))

    table.run(
        frames(),
        recogniser=recogniser,
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
    )
    assert knock and [t.headline for t in heard.of(CameraTrouble)] == ["mat out of view", None]
    placed = [str(e.card) for e in events if type(e).__name__ == "CardPlaced"]
    cleared = [e for e in events if type(e).__name__ in ("ZoneCleared", "CardRemoved")]
    plays = truth.session.hands[0].plays[:3]
    assert placed == [str(c) for _s, c in plays], "each card of the trick once"
    assert len(cleared) == 6, "the zones cleared once, when the trick was collected"
    assert not heard.of(CardRejected)
    record = json.loads(table.close().read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in plays]


def test_a_usb_camera_that_drops_out_is_told_while_it_reconnects_and_when_it_is_lost(tmp_path: Path) -> None:
    """The camera's cable is knocked loose after the first card: the table is blocked for as long as the camera
    takes to come back, so it tells the players as the dropout starts (board, ring), says when the camera is back,
    referees the trick as ever, and says the camera is lost when it does not come back (the service then starts the
    table again, and the journal resumes the game)."""
    from vision.sources import OpenCVSource

    first_trick, truth, rendered, settled = _first_trick_filmed()
    layout = layout_for("358")
    table, heard, board = _watched_table(tmp_path, first_trick)
    images = iter(rendered)
    truths: dict[int, Any] = {}
    boards_while_away: list[str] = []

    class Cable:
        """A USB camera showing the rendered frames, whose read after the first card's settling fails once."""

        def __init__(self) -> None:
            self.reads = 0

        def isOpened(self) -> bool:
            return True

        def read(self) -> tuple[bool, Any]:
            self.reads += 1
            if len(truths) == settled[0] and self.reads > 1:
                return False, None  # pulled out
            r = next(images, None)
            if r is None:
                return False, None
            truths[id(r.frame.image)] = r.truth
            return True, r.frame.image

        def get(self, prop: int) -> float:
            return 0.0

        def set(self, prop: int, value: float) -> bool:
            return False

        def release(self) -> None:
            pass

    opened = [0]

    def plug(target: Any) -> Any:
        opened[0] += 1
        if opened[0] > 1:  # plugged in again, while the table waits
            boards_while_away.append(board.views[-1].message)
        if opened[0] > 2:  # after the first trick: the cable gone for good
            raise OSError("no camera")
        return Cable()

    class Reader(TruthRecogniser):
        def detect(self, image: Any, *args: Any, **kwargs: Any) -> Any:
            self.current = truths[id(image)]
            return super().detect(image, *args, **kwargs)

    source = OpenCVSource(0, capture_factory=plug, sleep=lambda s: None, max_reconnects=2)
    recogniser = Reader()
    table.run(
        source, recogniser=recogniser, make_tracker=lambda cal: CardTracker(layout, cal), calibrator=Calibrator(layout)
    )
    told = [t.headline for t in heard.of(CameraTrouble)]
    assert told == ["disconnected", None, "disconnected", "lost"], told
    assert set(boards_while_away) == {"Camera: disconnected"}, "the board says it while the table waits for the camera"
    assert board.views[-1].message == "Camera: lost"
    record = json.loads(table.close().read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]


def test_a_makao_table_reads_the_cards_played_again_after_a_new_stock(tmp_path: Path) -> None:
    """The whole of Makao seed 5 through the table's own loop: the stock runs out after the 50th card and a
    player shuffles the pile from under its top card into a new one before drawing. The referee tells the
    tracker, so the cards of the old pile played again since are read where they land again; the record is
    the bots' game turn for turn (before, those cards were taken for the old ones seen again, and the game
    stalled at the first of them)."""
    film = _filmed("makao", 5)
    assert film.truth.game.reshuffles == 1
    record, _heard = _with_power_cuts(tmp_path, "makao", film, [])
    assert _as_played("makao", film, record)


@dataclass
class Filmed:
    """A bots' game drawn by the renderer, with the moments a power cut is tried at."""

    rendered: list[Any]
    presses: dict[int, list[Any]]
    """The buttons pressed as frame k arrives."""
    settled: list[int]
    """The frame just after each card has settled."""
    collected: list[tuple[int, int]]
    """Each trick's collection: the first frame of the hand's coming and the frame after it has gone."""
    truth: Any


def _filmed(game: str, seed: int) -> Filmed:
    actions: list[Any]
    truth: Any
    if game == "makao":
        actions, truth = script_makao(seed=seed, players=("Ada", "Ben", "Cem"))
    else:
        actions, truth = script_358(seed=seed, hands=1)
    renderer = TableRenderer(layout_for(game), RenderSettings(), seed=seed, design=available_designs()[0])
    film = Filmed(renderer.still(3), {}, [], [], truth)
    for action in actions:
        if isinstance(action, Place):
            film.rendered += renderer.apply(RPlace(action.card, action.where, seat=action.seat)) + renderer.still(4)
            film.settled.append(len(film.rendered) - 2)
        elif isinstance(action, Pick):
            film.rendered += renderer.apply(RPickUp(action.card, seat=action.seat))
        elif isinstance(action, Collect):
            first = len(film.rendered)
            film.rendered += renderer.apply(RCollect(tuple(f"seat{s}" for s in action.seats), seat=action.winner))
            film.collected.append((first, len(film.rendered)))
            film.rendered += renderer.still(6)
        elif isinstance(action, Gather):
            film.rendered += renderer.apply(RGather(action.zone, seat=action.seat))
        else:
            film.presses.setdefault(len(film.rendered), []).append(action)
            film.rendered += renderer.still(1)
    return film


def _with_power_cuts(
    tmp_path: Path, game: str, film: Filmed, outages: list[tuple[int, int]]
) -> tuple[dict[str, Any], list[ListOutput]]:
    """Run a table over ``film``; at each outage ``(off, on)`` the power goes at frame ``off`` (the table is
    dropped, never closed) and a new table starts on the same journal at frame ``on``, as systemd would restart
    it; what happened at the table in between was not seen. The record, and what each table said."""
    cfg = parse_config(
        {
            "game": {"name": game},
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    layout = layout_for(game)
    heard: list[ListOutput] = []
    spans = [0, *(x for outage in outages for x in outage), len(film.rendered)]
    for lo, hi in zip(spans[::2], spans[1::2], strict=True):
        table = Table(cfg, hardware=False, feed=False, printer=False)
        heard.append(ListOutput())
        table.announcer.add(heard[-1])
        recogniser = TruthRecogniser()

        def frames(lo: int = lo, hi: int = hi, table: Table = table, recogniser: TruthRecogniser = recogniser) -> Any:
            for k in range(lo, hi):
                for item in film.presses.get(k, []):
                    table.inputs.put(item)
                recogniser.current = film.rendered[k].truth
                yield film.rendered[k].frame

        table.run(
            frames(),
            recogniser=recogniser,
            make_tracker=lambda cal: CardTracker(layout, cal),
            calibrator=Calibrator(layout),
            after_game="stop",
        )
        if hi < len(film.rendered):  # the process dies: its open files are closed, nothing else is done
            assert table.journal is not None
            table.journal.close()
    return json.loads(table.close().read_text()), heard


def _as_played(game: str, film: Filmed, record: dict[str, Any]) -> bool:
    if game == "makao":
        return bool(record["turns"] == record_of(film.truth.game, film.truth.turns, with_deal=False)["turns"])
    plays = film.truth.session.hands[0].plays
    return bool(record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in plays])


@pytest.mark.parametrize(
    ("game", "seed", "at"),
    [("makao", 5, (("card", 2), ("press", 5), ("card", 40))), ("358", 2, (("card", 4), ("card", 10), ("card", 20)))],
)
def test_after_a_power_cut_the_cards_on_the_mat_are_not_played_again(
    tmp_path: Path, game: str, seed: int, at: tuple[tuple[str, int], ...]
) -> None:
    """The power goes three times: just after a card has settled (mid-trick at 3-5-8, a card on the Makao pile
    with others beneath), or just after a player's button (Makao: the next card lands while the table is off).
    The restarted table's camera sees every card on the mat for the first time, and the referee, resumed from
    its journal, already has them: none is refused as played again ("already on the pile", "already played to
    this trick") nor asked about, the card put down while it was off is read, and the record is the game as
    played. Before, each restart refused one to three of them, and with the trained models a re-read pile card
    was laid as its second candidate, a card nobody played."""
    film = _filmed(game, seed)
    pressed = sorted(film.presses)
    cuts = [film.settled[k] if what == "card" else pressed[k] + 3 for what, k in at]
    record, heard = _with_power_cuts(tmp_path, game, film, [(c, c) for c in cuts])
    for after_cut in heard[1:]:
        assert after_cut.of(CardRejected) == [] and after_cut.of(AskReplace) == []
    assert _as_played(game, film, record)


@pytest.mark.parametrize("trick", [2, 7])
def test_a_trick_collected_while_the_power_was_off_is_not_waited_for(tmp_path: Path, trick: int) -> None:
    """3-5-8: the power goes as a trick's winner reaches for it and comes back once it has been taken. The
    referee, resumed, waits for that trick to be collected; the camera never saw it go. Its zones are empty and
    nothing card-shaped lies there, so the tracker reports them cleared, and the next trick is played as ever.
    Before, the referee waited for ever, refusing every card of the next trick ("wait until the trick is
    collected")."""
    film = _filmed("358", 2)
    record, heard = _with_power_cuts(tmp_path, "358", film, [film.collected[trick]])
    assert heard[1].of(CardRejected) == []
    assert _as_played("358", film, record)


@pytest.mark.parametrize(("players", "decks"), [(["Ada", "Ben", "Cem"], 1), (["Ada", "Ben", "Cem", "Dan", "Eve"], 2)])
def test_the_tracker_counts_the_decks_the_rules_play_with(tmp_path: Path, players: list[str], decks: int) -> None:
    """Makao for five or six players uses two decks: the table's tracker knows, so that a card put down on the
    other copy of its face is read as a card played (``CardTracker.decks``)."""
    cfg = parse_config(
        {
            "game": {"name": "makao"},
            "table": {"players": players},
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    layout = layout_for("makao")
    renderer = TableRenderer(layout, RenderSettings(), seed=1, design=available_designs()[0])
    table = Table(cfg, hardware=False, feed=False, printer=False)
    table.run(
        [],
        recogniser=TruthRecogniser(),
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
        calibration=renderer.true_calibration(),
    )
    tracker = table.tracker_output.tracker
    assert isinstance(tracker, CardTracker) and tracker.decks == decks
    table.close()


@dataclass
class _Trick:
    """A 3-5-8 table (display and ring simulated) with its seat buttons pressed, and the first trick filmed."""

    table: Table
    renderer: TableRenderer
    rendered: list[Any]
    truth: Any


def _first_trick(tmp_path: Path) -> _Trick:
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
            "hardware": {"display": {"backend": "none"}, "ring": {"backend": "none"}},
        }
    )
    actions, truth = script_358(seed=2, hands=1)
    first_trick = actions[: actions.index(next(a for a in actions if isinstance(a, Collect))) + 1]
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=2, design=available_designs()[0])
    rendered = renderer.still(3)
    for action in first_trick:
        if isinstance(action, Place):
            rendered += renderer.apply(RPlace(action.card, action.where, seat=action.seat)) + renderer.still(4)
    table = Table(cfg, hardware=True, feed=False, printer=False)
    for press in [a for a in first_trick if isinstance(a, SeatButton)]:
        table.inputs.put(press)
    return _Trick(table, renderer, rendered, truth)


def test_a_saved_calibration_of_another_frame_size_is_replaced_from_the_markers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # calibrated at 640x480, but the camera now gives the renderer's frames: the table calibrates again from
    # the mat's markers and referees the trick, rather than stopping at the first frame
    import numpy as np

    from vision.calibration import Calibration

    trick = _first_trick(tmp_path)
    table, layout, rendered, truth = trick.table, trick.renderer.layout, trick.rendered, trick.truth
    recogniser = TruthRecogniser()
    with caplog.at_level("WARNING", logger="controller.table"):
        table.run(
            Frames(rendered, recogniser),
            recogniser=recogniser,
            make_tracker=lambda cal: CardTracker(layout, cal),
            calibrator=Calibrator(layout),
            calibration=Calibration(np.eye(3), (640, 480), 0.0),
        )
    record = json.loads(table.close().read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]
    assert any("made at 640x480" in r.getMessage() for r in caplog.records)


class _MatPrinting(TruthRecogniser):
    """The truth, and the mat's printing at ``box`` (image pixels) read as a 5S in every frame."""

    def __init__(self, box: tuple[float, float, float, float]) -> None:
        super().__init__()
        x1, y1, x2, y2 = box
        five = Card.from_text("5S")
        self.phantom = Detection(five, 0.7, ((x1, y1), (x2, y1), (x2, y2), (x1, y2)), candidates=((five, 0.7),))

    def detect(self, image: Any, regions: Any = None, *, within: Any = None, outlines: Any = ()) -> list[Detection]:
        return [*super().detect(image, regions, within=within, outlines=outlines), self.phantom]


@pytest.mark.parametrize("given", [True, False])
def test_the_mats_printing_read_as_a_card_is_ignored_given_the_empty_mat(tmp_path: Path, given: bool) -> None:
    """``cardtable calibrate`` keeps the frame of the empty mat beside the calibration and ``cardtable run`` hands
    it to the table: the mat's printing read as a card index, where the view is as it was on the empty mat, is
    never a card. Without the picture (the control) the players hear a 5S rejected that nobody played."""
    trick = _first_trick(tmp_path)
    table, layout, rendered, truth = trick.table, trick.renderer.layout, trick.rendered, trick.truth
    calibration = trick.renderer.true_calibration()
    cx, cy = layout.zone("seat1").center
    ((px, py),) = calibration.to_image([(cx - 45, cy - 65)])  # a corner of seat 1's zone, where its card lands not
    heard = ListOutput()
    table.announcer.add(heard)
    recogniser = _MatPrinting((px - 8, py - 10, px + 8, py + 10))
    table.run(
        Frames(rendered, recogniser),
        recogniser=recogniser,
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
        calibration=calibration,
        empty_mat=rendered[0].frame.image if given else None,  # the first frame: the mat before the trick
    )
    record = json.loads(table.close().read_text())
    assert record["hands"][0]["plays"] == [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]
    rejected = [str(a.card) for a in heard.of(CardRejected)]
    assert rejected == ([] if given else ["5S"])


def test_run_and_replay_refuse_bad_input_with_a_message(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    bad = tmp_path / "bad.toml"
    bad.write_text('[camera]\nsource = "webcam"\n')
    res = subprocess.run(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(bad)], capture_output=True, text=True, cwd=root
    )
    assert res.returncode == 2 and "camera.source: unknown camera source 'webcam'" in res.stderr
    res = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", str(tmp_path / "missing.mp4")],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert res.returncode == 2 and "missing.mp4" in res.stderr and "Traceback" not in res.stderr


def test_replay_refuses_a_calibration_made_for_a_mat_on_other_paper(tmp_path: Path) -> None:
    import subprocess
    import sys

    import cv2
    import numpy as np

    from vision.calibration import calibrate_from_markers

    root = Path(__file__).resolve().parents[2]
    a3 = layout_for("358", "A3")
    markers = {m.id: m.corners * 2 for m in a3.markers}  # a camera seeing the A3 mat at 2 px per mm
    calibration = tmp_path / "calibration.json"
    calibrate_from_markers(markers, a3, (1280, 720)).save(calibration)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "00000.png"), np.zeros((720, 1280, 3), np.uint8))
    command = [sys.executable, "-m", "controller.cli", "replay", str(frames), "--calibration", str(calibration)]
    command += ["--records", str(tmp_path / "records")]
    res = subprocess.run(command, capture_output=True, text=True, cwd=root)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "made for a 420 x 297 mm mat" in res.stderr and "mat.paper" in res.stderr
    config = tmp_path / "a3.toml"
    config.write_text('[mat]\npaper = "A3"\n')
    res = subprocess.run([*command, "--config", str(config)], capture_output=True, text=True, cwd=root)
    assert res.returncode == 0 and "made for a" not in res.stderr, res.stderr


@pytest.mark.slow
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "corner-detector.onnx").exists(), reason="trained models not present")
def test_replay_of_a_folder_of_frames_with_the_trained_models(tmp_path: Path) -> None:
    """A filmed trick (here: rendered frames on disk) replayed offline gives the trick in the record."""
    import subprocess
    import sys

    import cv2

    actions, truth = script_358(seed=5, hands=1)
    first_trick = actions[: actions.index(next(a for a in actions if isinstance(a, Collect))) + 1]
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=5)
    rendered = renderer.still(3)
    for action in first_trick:
        if isinstance(action, Place):
            rendered += renderer.apply(RPlace(action.card, action.where, seat=action.seat)) + renderer.still(6)
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, r in enumerate(rendered):
        cv2.imwrite(str(frames / f"{i:05d}.png"), r.frame.image)
    contract = truth.session.hands[0].contract
    assert contract is not None
    inputs = tmp_path / "inputs.txt"
    inputs.write_text(f"k {contract.value}\nn\n")
    root = Path(__file__).resolve().parents[2]
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "replay",
            str(frames),
            "--inputs",
            str(inputs),
            "--records",
            str(tmp_path / "records"),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=900,
    )
    assert res.returncode == 0, res.stderr
    record = json.loads(next((tmp_path / "records").glob("*.json")).read_text())
    want = [{"seat": s, "card": str(c)} for s, c in truth.session.hands[0].plays[:3]]
    assert record["hands"][0]["plays"] == want


def test_the_table_tells_systemd_it_is_ready_and_stopping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cardtable.service is Type=notify: without READY=1 systemd would kill the table at start-up."""
    import socket

    sock_path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(sock_path))
    server.settimeout(5)
    monkeypatch.setenv("NOTIFY_SOCKET", str(sock_path))
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    table = Table(cfg, hardware=False, feed=False, printer=False)
    layout = layout_for("358")
    recogniser = TruthRecogniser()
    table.run(
        [], recogniser=recogniser, make_tracker=lambda cal: CardTracker(layout, cal), calibrator=Calibrator(layout)
    )
    assert server.recv(4096).decode().startswith("READY=1")
    table.close()
    assert server.recv(4096).decode() == "STOPPING=1"
    server.close()


def test_a_closed_table_gives_sigterm_back_so_that_forked_workers_can_be_stopped(tmp_path: Path) -> None:
    """While it runs, SIGTERM stops the table's loop; once closed the process has its own handlers again.

    Left installed, the handler only sets a closed table's event: a ``multiprocessing.Pool`` forked
    later in the same process (a test run, the training's crop workers) inherits it, and the pool's
    ``with`` block, which stops its workers with SIGTERM, then waits for ever."""
    import multiprocessing
    import signal

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    table = Table(cfg, hardware=False, feed=False, printer=False)
    table.install_signals()
    signal.raise_signal(signal.SIGTERM)
    assert table.stop_event.wait(5), "SIGTERM asks the running table to stop after its frame"
    table.close()
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.map(abs, [-2, 3]) == [2, 3]  # leaving the block terminates the worker with SIGTERM


def test_run_exits_non_zero_when_the_camera_is_lost_so_that_systemd_restarts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    import vision.sources as sources
    from controller.cli.run import run_table
    from vision.sources import OpenCVSource

    class Unplugged:
        """A camera that gives two frames, then nothing, and cannot be opened again."""

        opened = 0

        def __init__(self) -> None:
            Unplugged.opened += 1
            self.reads = 0

        def isOpened(self) -> bool:
            return Unplugged.opened == 1

        def read(self) -> tuple[bool, Any]:
            self.reads += 1
            return (True, np.zeros((720, 1280, 3), np.uint8)) if self.reads <= 2 else (False, None)

        def set(self, prop: int, value: float) -> bool:
            return True

        def release(self) -> None:
            pass

    def unplugged(spec: str, **_: Any) -> OpenCVSource:
        return OpenCVSource(0, capture_factory=lambda target: Unplugged(), sleep=lambda s: None, max_reconnects=2)

    monkeypatch.setattr(sources, "open_source", unplugged)
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    assert run_table(cfg, hardware=False, feed=False) == 1
    assert "the camera usb:0 was lost (1 failed reads)" in capsys.readouterr().err
    assert list((tmp_path / "records").glob("*.json")), "the record of the game so far was written"


def test_run_takes_the_empty_mat_calibrate_kept_beside_the_calibration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``cardtable calibrate`` then ``cardtable run`` on the same camera (here a folder of the synthetic table's
    frames): the table is handed the picture of the empty mat, and says so."""
    import cv2

    from controller.cli import main
    from controller.cli.run import run_table

    frames = tmp_path / "camera"
    frames.mkdir()
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=4, design=available_designs()[0])
    for i, rendered in enumerate(renderer.still(3)):
        cv2.imwrite(str(frames / f"{i:03d}.png"), rendered.frame.image)
    calibration = tmp_path / "calib.json"
    assert main(["calibrate", "--source", f"folder:{frames}", "--out", str(calibration)]) == 0
    cfg = parse_config(
        {
            "camera": {"source": f"folder:{frames}"},
            "mat": {"calibration": str(calibration)},
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    with caplog.at_level("INFO", logger="cardtable"):
        assert run_table(cfg, hardware=False, feed=False) == 0
    said = [r.getMessage() for r in caplog.records]
    assert f"the empty mat as calibrated: {tmp_path / 'calib.empty.png'} (its printing is never a card)" in said
    (tmp_path / "calib.empty.png").unlink()  # a calibration made with a card on the mat keeps none
    caplog.clear()
    with caplog.at_level("INFO", logger="cardtable"):
        assert run_table(cfg, hardware=False, feed=False) == 0
    assert any(r.getMessage().startswith("no picture of the empty mat beside") for r in caplog.records)


def _ended_table(tmp_path: Path, **config: Any) -> tuple[Table, ListOutput, list[Any]]:
    """A 3-5-8 table whose operator ends the game at once, with its announcements kept, and still frames."""
    cfg = parse_config(
        {
            "table": config,
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    table = Table(cfg, hardware=False, feed=False, printer=False)
    heard = ListOutput()
    table.announcer.add(heard)
    table.inputs.put(EndGame())
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=3, design=available_designs()[0])
    return table, heard, renderer.still(12)


def _run(table: Table, rendered: list[Any], at: dict[int, list[Any]]) -> int:
    """Run the table over ``rendered``, putting ``at[k]``'s inputs on its queue as frame k arrives."""
    recogniser = TruthRecogniser()
    layout = layout_for("358")

    def frames() -> Any:
        for k, r in enumerate(rendered):
            for item in at.get(k, []):
                table.inputs.put(item)
            recogniser.current = r.truth
            yield r.frame

    return table.run(
        frames(),
        recogniser=recogniser,
        make_tracker=lambda cal: CardTracker(layout, cal),
        calibrator=Calibrator(layout),
    )


def test_after_game_over_the_operator_starts_the_next_game_without_a_restart(tmp_path: Path) -> None:
    """A club table plays game after game: the finished game keeps its record, the next one its own journal."""
    table, heard, rendered = _ended_table(tmp_path)
    board = RecordingBoard()
    table.announcer.add(DisplayOutput(board))
    operator_short = SeatButton(None, Press.SHORT)
    frames = _run(table, rendered, {4: [operator_short], 8: [EndGame()]})

    assert frames == len(rendered), "the table stopped watching at game over"
    waits = [p for p in heard.of(Prompt) if "new game" in p.message]
    assert len(waits) == 2, "each game over should say once how the next game starts"
    assert len(heard.of(GameOver)) == 2
    assert board.views[-1].message.startswith("Game over: press the operator button"), "the board must say it too"
    outcome = heard.of(GameOver)[-1].outcome(table.cfg.table.players)
    assert outcome.endswith((" won", " lost"))
    assert board.views[-1].extra == (outcome,) and board.views[-1].last_trick_winner is None, "who won, not a trick"
    first_wait = next(i for i, v in enumerate(board.views) if v.message.startswith("Game over: press"))
    assert board.views[first_wait].extra != ()
    assert any(v.extra == () for v in board.views[first_wait + 1 :]), "the next game shows no result"
    last = table.close()
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == 2 and set(table.records) == set(records) and table.records[-1] == last
    for path in records:
        assert json.loads(path.read_text())["game"] == "358"
    assert (tmp_path / "journal.jsonl.done").exists(), "the finished game's journal was not set aside"


def test_a_new_game_is_refused_while_the_game_goes_on(tmp_path: Path) -> None:
    cfg = parse_config(
        {
            "journal": {"path": str(tmp_path / "journal.jsonl"), "fsync": False},
            "records": {"dir": str(tmp_path / "records")},
        }
    )
    table = Table(cfg, hardware=False, feed=False, printer=False)
    heard = ListOutput()
    table.announcer.add(heard)
    referee = table.referee
    renderer = TableRenderer(layout_for("358"), RenderSettings(), seed=3, design=available_designs()[0])
    _run(table, renderer.still(4), {1: [NewGame()]})

    assert table.referee is referee and not referee.is_over
    assert any("once this one is over" in p.message for p in heard.of(Prompt))
    table.close()
    assert len(list((tmp_path / "records").glob("*.json"))) == 1


def test_after_game_stop_ends_the_run_at_game_over(tmp_path: Path) -> None:
    table, _heard, rendered = _ended_table(tmp_path, after_game="stop")
    frames = _run(table, rendered, {})
    assert frames == 1 and table.referee.is_over
    table.close()
    assert len(list((tmp_path / "records").glob("*.json"))) == 1
