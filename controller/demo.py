"""The end-to-end demo: bots play, a synthetic camera films the felt, the real pipeline referees.

    bots (engine, full mode) ──script of table actions──▶ synthetic renderer ──frames──▶
    recogniser (ONNX models) ──detections──▶ tracker ──CardPlaced/...──▶ referee (engine, table mode)
    ──announcements──▶ terminal, e-ink (PNG frames), LED ring (simulated), MQTT feed (embedded broker)

The bots' game is the truth; the referee never sees it. Simulated players behave like people at a
table: they wait for the table to accept their card before the next player plays, wait for the
"collect" signal before sweeping the trick, place a card again when the table asks, and take back a
card the table announced wrongly (long press, pick up, place again), which the report counts as a
correction. The report compares what the table announced with the truth.

Latency (``announce_latency_ms``) is pipeline time: from the frame in which the card lay still to the
moment its announcement reached every output, counting the frame interval of the simulated camera
(frames that arrive at ``fps``) plus the measured processing time of the frame that confirmed it.
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from controller.announcements import (
    Announcement,
    Announcer,
    AskReplace,
    CardAccepted,
    CardRejected,
    Correction,
    GameOver,
    HandScored,
    HandStarted,
    ListOutput,
    PrinterOutput,
    TrickWon,
    ViolationFound,
)
from controller.commands import EnterCard
from controller.journal import Journal
from controller.outputs import TrackerOutput
from controller.referee.makao import MakaoReferee
from controller.referee.threefiveeight import Phase, ThreeFiveEightReferee
from controller.simulation import Collect, Gather, Pick, Place, script_358, script_makao
from engine.cards import Card
from hardware.events import Press, SeatButton
from vision.detections import Detection, Region

__all__ = ["DemoOptions", "TruthRecogniser", "run_demo"]

MAKAO_NAMES = ("Ada", "Ben", "Cem", "Dan", "Eve", "Fay")

log = logging.getLogger(__name__)


@dataclass
class DemoOptions:
    game: str = "358"
    preset: str = ""
    players: int = 3
    hands: int = 1
    seed: int = 0
    out: Path = Path("runs/demo")
    headless: bool = False
    broker: tuple[str, int] | None = None
    """An MQTT broker's host and port to publish to; None starts an embedded one."""
    table: str = "demo"
    feed: bool = True
    quiet: bool = False
    recogniser: str = "auto"
    """``onnx`` (the trained models in vision/models), ``truth`` (a labelled stand-in that reads the
    renderer's ground truth), or ``auto`` (onnx when the models are there)."""
    model_dir: Path | None = None
    names: Sequence[str] = ("Ada", "Ben", "Cem")
    fps: float = 10.0
    size: tuple[int, int] = (1280, 720)
    design: str | None = None
    """The card design the synthetic camera sees (default: the committed demo deck)."""
    settle_frames: int = 3
    """Still frames the renderer draws after each action; the simulated players then wait for the table
    (more still frames, only as many as the tracker needs)."""
    display_png: bool = True
    max_retries: int = 2
    retake: float = 0.0
    """The share of the cards the table accepted that their player picks up again and lays again in the same
    place's zone (to straighten it, or nearer the pile), as players do: the table must take it for no card played.
    Drawn from its own random stream, so the game is the same with it as without."""
    nudge: float = 0.0
    """The share of the cards the table accepted that their player then squares up where it lies (a hand comes,
    pushes it 2-8 mm and turns it up to 6 degrees, and goes), as players do with the pile and their trick card:
    nothing was played, so anything the table says of it is false. Its own random stream, as ``retake``'s."""
    shadows: float = 0.0
    """A lamp over the table: each hand throws a shadow taking this share of the light, and after a share
    (``vision.render.LEAN_SHARE``) of the cards the table accepted a player leans over the table, their shadow as deep
    (``vision.render.Lean``): nothing was played, so anything the table says then is false. 0: no shadows."""
    rest: float = 0.0
    """The share of the cards the table accepted after which a player rests a hand on the mat for three seconds,
    still (``vision.render.Rest``), 0.2-0.6 of the way into their own zone (3-5-8), on their trick's card or beside
    it, or onto the pile (Makao): nothing was played, so anything the table says then is false. Its own stream."""


class TruthRecogniser:
    """A stand-in recogniser that reads the renderer's ground truth: NOT the real models.

    It exists so the pipeline can run before trained models are present; the demo labels every run
    that uses it. It returns each visible printed corner as a detection.
    """

    label = "truth stand-in (renderer ground truth, not the trained models)"

    def __init__(self) -> None:
        self.current: Any = None

    def detect(
        self,
        image: np.ndarray,
        regions: Sequence[Region] | None = None,
        *,
        within: Sequence[Region] | None = None,
        outlines: Sequence[np.ndarray] = (),
    ) -> list[Detection]:
        """Every visible corner, wherever it lies: the truth needs no closer look at the zones (and the tracker
        ignores what lies in the zones at rest, ``within`` or not), nor the cards' ``outlines``."""
        truth = self.current
        if truth is None:
            return []
        return [Detection(c.card, 0.97, c.polygon, candidates=((c.card, 0.97),)) for c in truth.corners if c.visible]


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return round(float(np.percentile(np.array(values), q)), 1)


@dataclass
class _Stats:
    latencies: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)
    frames: int = 0
    frames_read: int = 0
    """Frames the recogniser read; in the others every zone was at rest (CardTracker.regions_to_read)."""
    misreads: int = 0
    player_corrections: int = 0
    entered: int = 0
    replaced: int = 0
    picked_by_button: int = 0
    first_time_right: int = 0
    laid_again: int = 0
    """Cards accepted, then picked up and laid again by their player (``DemoOptions.retake``)."""
    laid_again_announced: int = 0
    """Of those, laid again and announced as a card played (which its player took back with a long press), asked
    about, or rejected: each one a thing the table said that nobody did."""
    nudged: int = 0
    """Cards accepted, then squared up where they lie by their player (``DemoOptions.nudge``)."""
    nudged_announced: int = 0
    """Of those, announced as a card played, asked about, or rejected: each one a thing nobody did."""
    leaned: int = 0
    """Times a player leaned over the table under the lamp after a card was accepted (``DemoOptions.shadows``)."""
    leaned_announced: int = 0
    """Of those, times the table announced a card, asked about one, or rejected one: each one a thing nobody did."""
    rested: int = 0
    """Times a player rested a hand on the mat after a card was accepted (``DemoOptions.rest``)."""
    rested_announced: int = 0
    """Of those, times the table announced a card, asked about one, or rejected one: each one a thing nobody did."""


class Demo:
    """One demo run; :meth:`run` returns the report."""

    def __init__(self, opts: DemoOptions) -> None:
        self.opts = opts
        if opts.game not in ("358", "makao"):
            raise ValueError(f"unknown game {opts.game!r} (358 or makao)")
        self.makao = opts.game == "makao"
        self.preset = opts.preset or ("makao" if self.makao else "sergeant-major")
        names = tuple(opts.names) if not self.makao else MAKAO_NAMES[: opts.players]
        if self.makao and not 2 <= opts.players <= 6:
            raise ValueError(f"Makao is for 2 to 6 players, not {opts.players}")
        self.names = names
        self.out = Path(opts.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.stats = _Stats()
        self.heard = ListOutput()
        self.frame_start = 0.0
        self.frame_t = 0.0
        self.closers: list[Callable[[], None]] = []
        self.spectator_url: str | None = None
        self.recogniser_label = ""
        self.display: Any = None
        self.commands: queue.Queue[Any] = queue.Queue()

    # ------------------------------------------------------------------ set-up

    def _outputs(self) -> list[Any]:
        opts = self.opts
        outputs: list[Any] = [self.heard]
        if not opts.quiet:
            outputs.append(PrinterOutput(self.names, skip=("prompt", "clear_zones")))
            outputs.append(_TerminalBoard())
        from controller.outputs import RingOutput
        from hardware.simring import SimulatedRing

        ring_log = (self.out / "ring.log").open("w", encoding="utf-8")
        self.closers.append(ring_log.close)
        outputs.append(RingOutput(SimulatedRing(png_dir=None, stream=ring_log), len(self.names)))
        display = _png_display(self.out / "eink") if opts.display_png else None
        if display is not None:
            from controller.outputs import DisplayOutput

            outputs.append(DisplayOutput(display))
            self.display = display
        if opts.feed:
            feed_output = self._feed()
            if feed_output is not None:
                outputs.append(feed_output)
        return outputs

    def _feed(self) -> Any:
        from controller.feed import Feed, FeedConfig
        from controller.outputs import FeedOutput

        opts = self.opts
        host, port = opts.broker if opts.broker else (None, 1883)
        try:
            feed = Feed.open(FeedConfig(table_id=opts.table, host=host, port=port))
        except Exception as exc:  # the feed is an output: the demo goes on without it
            log.warning("MQTT feed unavailable (%s); continuing without it", exc)
            return None
        broker = getattr(feed, "broker", None)
        where = f"{host}:{port}" if host else f"embedded broker 127.0.0.1:{broker.tcp_port}" if broker else "?"
        self._say_setup(f"MQTT feed: cardtable/{opts.table}/# on {where}")
        if broker is not None and not opts.headless:
            self.spectator_url = _serve_spectator(broker.ws_url, opts.table, self.closers)
            if self.spectator_url:
                self._say_setup(f"Spectator page: {self.spectator_url}")
        feed.on_command = self.commands.put  # operator commands from MQTT, applied between frames
        return FeedOutput(feed)

    def _say_setup(self, line: str) -> None:
        if not self.opts.quiet:
            print(line, flush=True)

    def _recogniser(self) -> Any:
        kind = self.opts.recogniser
        if kind in ("auto", "onnx"):
            try:
                from vision.recognise import DEFAULT_MODEL_DIR, OnnxRecogniser

                rec = OnnxRecogniser(self.opts.model_dir or DEFAULT_MODEL_DIR, threads=1)
                self.recogniser_label = f"onnx ({rec.model_dir})"
                return rec
            except Exception as exc:
                if kind == "onnx":
                    raise
                log.warning("trained models not usable (%s): using the truth stand-in", exc)
        rec2 = TruthRecogniser()
        self.recogniser_label = TruthRecogniser.label
        return rec2

    # ------------------------------------------------------------------ the run

    def run(self) -> dict[str, Any]:
        from vision.calibration import calibrate
        from vision.render import (
            LEAN_FRAMES,
            LEAN_SHARE,
            REST_FRAMES,
            Lean,
            RenderSettings,
            Rest,
            TableRenderer,
            squared_up,
        )
        from vision.render import Collect as RCollect
        from vision.render import Gather as RGather
        from vision.render import PickUp as RPickUp
        from vision.render import Place as RPlace
        from vision.tracker import CardTracker
        from vision.zones import LayoutError, layout_for

        opts = self.opts
        started = time.monotonic()
        truth: Any
        if self.makao:
            actions, truth = script_makao(self.preset, seed=opts.seed, players=self.names)
            what = f"Makao ({self.preset}), {len(self.names)} players"
        else:
            actions, truth = script_358(self.preset, seed=opts.seed, hands=opts.hands, players=self.names)
            what = f"3-5-8 ({self.preset}), {opts.hands} hand(s)"
        self.truth = truth
        recogniser = self._recogniser()
        self._say_setup(f"cardtable demo: {what}, seed {opts.seed}; recogniser: {self.recogniser_label}")
        outputs = self._outputs()
        to_tracker = TrackerOutput()  # the referee's word to the camera: a new Makao stock
        outputs += [to_tracker, _LatencyProbe(self)]
        announcer = Announcer(outputs, self.names)
        journal_path = self.out / "journal.jsonl"
        if journal_path.exists():
            journal_path.unlink()
        referee: Any
        if self.makao:
            referee = MakaoReferee(self.names, self.preset, announcer, Journal(journal_path, fsync=False))
        else:
            referee = ThreeFiveEightReferee(
                self.names, self.preset, announcer, Journal(journal_path, fsync=False), hands=opts.hands
            )
        self.referee = referee
        layout = layout_for(opts.game)
        settings = RenderSettings(
            size=opts.size,
            fps=opts.fps,
            seats=len(self.names),
            settle_frames=opts.settle_frames,
            hand_shadow=opts.shadows,
        )
        try:
            renderer = TableRenderer(layout, settings, seed=opts.seed, design=opts.design)
        except LayoutError:
            if opts.design is not None:
                raise
            from vision.synth.faces import available_designs

            designs = available_designs()
            if not designs:
                raise
            renderer = TableRenderer(layout, settings, seed=opts.seed, design=designs[0])
        first = renderer.still(1)[0]
        try:
            calibration = calibrate(first.frame.image, layout)
        except Exception as exc:
            log.warning("calibration from the mat's markers failed (%s); using the renderer's camera", exc)
            calibration = renderer.true_calibration()
        tracker = CardTracker(
            layout, calibration, reader=getattr(recogniser, "read", None), decks=getattr(referee, "decks", 1)
        )
        if not tracker.occupied_zones(first.frame.image):  # as `cardtable calibrate` saves it for the table
            tracker.set_empty_mat(first.frame.image)
        to_tracker.tracker = tracker
        referee.start()

        def process(frames: list[Any]) -> None:
            for rendered in frames:
                self.stats.frames += 1
                if isinstance(recogniser, TruthRecogniser):
                    recogniser.current = rendered.truth
                self.frame_start = time.perf_counter()
                self.frame_t = rendered.frame.t
                detections = None  # zones at rest are not read again (CardTracker.regions_to_read)
                wanted = tracker.regions_to_read(rendered.frame)
                if wanted:  # the whole mat read as ever; only the zones not at rest named
                    outlines = tracker.new_card_outlines(rendered.frame)  # a card just put down: its pips are its own
                    detections = recogniser.detect(
                        rendered.frame.image, tracker.regions(), within=wanted, outlines=outlines
                    )
                    self.stats.frames_read += 1
                for event in tracker.update(rendered.frame, detections):
                    referee.submit(event)
                while not self.commands.empty():
                    referee.submit(self.commands.get_nowait())
                spent = time.perf_counter() - self.frame_start
                self.stats.frame_ms.append(spent * 1000)
                if not opts.headless and spent < 1 / opts.fps:
                    time.sleep(1 / opts.fps - spent)  # a watcher sees the game at camera speed

        def place_again(action: Place) -> None:
            """The player picks the card up and lays it down again, where the table asked."""
            process(renderer.apply(RPickUp(action.card, seat=action.seat)))
            process(renderer.apply(RPlace(action.card, action.where, seat=action.seat)))

        def settle(done: Callable[[], bool], limit: int = 12) -> bool:
            for _ in range(limit):
                if done():
                    return True
                process(renderer.still(1))
            return done()

        retakes = np.random.default_rng([opts.seed, 1])  # its own stream: the same game with --retake as without

        nudges = np.random.default_rng([opts.seed, 2])  # (another stream of its own)
        leans = np.random.default_rng([opts.seed, 4])  # (and another)
        rests = np.random.default_rng([opts.seed, 5])  # (and another)

        def false_word(action: Place, said: tuple[int, int]) -> bool:
            """Whether the table said anything since ``said`` (:meth:`_said`) though nobody played: if so, a card
            announced is taken back with a long press (its player did not play it), and asked about, the player
            asked says with a long press that he laid no card."""
            settle(lambda: self._said() != said, 10)
            if self._said() == said:
                return False
            if len(self.heard.of(CardAccepted)) > said[0]:
                referee.submit(SeatButton(action.seat, Press.LONG))
            elif referee.unreadable and (asked := self.heard.of(AskReplace)[-1].seat) is not None:
                referee.submit(SeatButton(asked, Press.LONG))
            return True

        def lay_again(action: Place) -> None:
            """The player picks the card the table accepted up and lays it again: anything said is a false word."""
            said = self._said()
            self.stats.laid_again += 1
            place_again(action)
            self.stats.laid_again_announced += false_word(action, said)

        def square_up(action: Place) -> None:
            """The player pushes the card the table accepted straight where it lies: anything said is false."""
            said = self._said()
            self.stats.nudged += 1
            process(renderer.apply(squared_up(action.card, action.seat, nudges)))
            self.stats.nudged_announced += false_word(action, said)

        def lean_over(action: Place) -> None:
            """A player leans over the table to look, their shadow over the mat: anything said is false."""
            said = self._said()
            self.stats.leaned += 1
            who, reach = int(leans.integers(0, len(self.names))), float(leans.uniform(0.4, 0.8))
            process(renderer.apply(Lean(who, LEAN_FRAMES, opts.shadows, reach)))
            self.stats.leaned_announced += false_word(action, said)

        def rest_hand(action: Place) -> None:
            """A player rests a hand on the mat, still, in their zone or on the pile: anything said is false."""
            said = self._said()
            self.stats.rested += 1
            who, into = int(rests.integers(0, len(self.names))), float(rests.uniform(0.2, 0.6))
            zone = "pile" if self.makao else f"seat{who}"
            process(renderer.apply(Rest(who, zone, REST_FRAMES, into)))
            self.stats.rested_announced += false_word(action, said)

        for action in actions:
            if referee.is_over:
                break
            if isinstance(action, SeatButton):
                referee.submit(action)
            elif isinstance(action, Place):
                accepted_before = len(self.heard.of(CardAccepted))
                asks_before = self._asked()
                is_play = referee.mgame is not None if self.makao else referee.phase in (Phase.PLAY, Phase.KITTY)
                process(renderer.apply(RPlace(action.card, action.where, seat=action.seat)))
                if not is_play:
                    if self.makao:
                        self._start_until_read(action, referee, settle, place_again)
                    else:
                        settle(lambda: referee.phase not in (Phase.SHOW_2C,), 8)
                    continue
                self._play_until_accepted(action, referee, settle, place_again, accepted_before, asks_before)
                if opts.retake and retakes.random() < opts.retake and not referee.is_over:
                    lay_again(action)
                if opts.nudge and nudges.random() < opts.nudge and not referee.is_over:
                    square_up(action)
                if opts.shadows and leans.random() < LEAN_SHARE and not referee.is_over:
                    lean_over(action)
                if opts.rest and rests.random() < opts.rest and not referee.is_over:
                    rest_hand(action)
            elif isinstance(action, Pick):
                process(renderer.apply(RPickUp(action.card, seat=action.seat)))
            elif isinstance(action, Gather):
                process(renderer.apply(RGather(action.zone, seat=action.seat)))
            elif isinstance(action, Collect):
                settle(lambda: referee.phase is Phase.COLLECT, 12)
                process(renderer.apply(RCollect(tuple(f"seat{s}" for s in action.seats), seat=action.winner)))
                settle(lambda: referee.phase is not Phase.COLLECT, 15)
                if referee.phase is Phase.COLLECT:
                    log.warning("the table did not see the trick collected; the operator moves on")
                    for seat in action.seats:
                        from vision.events import ZoneCleared

                        referee.submit(ZoneCleared(f"seat{seat}"))
        wall = time.monotonic() - started
        if not opts.headless and self.spectator_url and sys.stdin.isatty():
            input("Game over. Press Enter to stop the broker and the spectator page... ")
        if self.display is not None:
            self.display.flush(timeout=10)
        referee.close()
        for close in reversed(self.closers):
            close()
        report = self._report(wall)
        (self.out / "report.json").write_text(json.dumps(report, indent=2))
        return report

    def _play_until_accepted(
        self,
        action: Place,
        referee: Any,
        settle: Callable[..., bool],
        place_again: Callable[[Place], None],
        accepted_before: int,
        asks_before: int,
    ) -> None:
        """Wait for the table to take the card; pick, re-place, correct or enter it like a player would."""
        for attempt in range(self.opts.max_retries + 1):

            def answered(acc: int = accepted_before, asks: int = asks_before) -> bool:
                return len(self.heard.of(CardAccepted)) > acc or self._asked() > asks

            settle(answered, 10)
            if len(self.heard.of(CardAccepted)) == accepted_before and self._pick_with_button(action, referee):
                self.stats.picked_by_button += 1
            accepted = self.heard.of(CardAccepted)[accepted_before:]
            if accepted:
                card = accepted[-1].card
                if card.same_face(action.card):  # (two decks: the camera cannot tell the copies apart)
                    if (
                        attempt == 0
                        and accepted[-1].corrected_from is None
                        and len(accepted) == 1
                        and self._asked() == asks_before
                    ):
                        self.stats.first_time_right += 1
                    return
                self._take_back(action, referee)  # the table announced the wrong card
            if attempt == self.opts.max_retries:
                break
            self.stats.replaced += 1
            accepted_before = len(self.heard.of(CardAccepted))
            asks_before = self._asked()
            place_again(action)
        # Still not read: the operator enters it.
        self.stats.entered += 1
        referee.submit(EnterCard(action.seat, action.card))

    def _start_until_read(
        self, action: Place, referee: Any, settle: Callable[..., bool], place_again: Callable[[Place], None]
    ) -> None:
        """Wait for the table to read the Makao starter (just placed); like a dealer who hears it named
        wrong, take it back with a long press and place it again, and have the operator enter it last."""

        def started() -> bool:
            return referee.mgame is not None

        for attempt in range(self.opts.max_retries + 1):
            settle(started, 8)
            if started() and referee.mgame.top.same_face(action.card):
                return
            if started():  # read as another card: taken back before anyone plays on it
                self._take_back(action, referee)
            if attempt == self.opts.max_retries:
                break
            self.stats.replaced += 1
            place_again(action)
        self.stats.entered += 1
        referee.submit(EnterCard(action.seat, action.card))

    def _asked(self) -> int:
        """How many cards the table asked about or rejected so far: each one a card its player must see to."""
        return len(self.heard.of(AskReplace)) + len(self.heard.of(CardRejected))

    def _said(self) -> tuple[int, int]:
        """How many cards the table accepted, and asked about or rejected, so far."""
        return len(self.heard.of(CardAccepted)), self._asked()

    def _take_back(self, action: Place, referee: Any) -> None:
        """The table named ``action``'s card wrong: its player takes it back with a long press (then places
        it again, or the operator enters it), which the report counts as a misread corrected."""
        self.stats.misreads += 1
        self.stats.player_corrections += 1
        referee.submit(SeatButton(action.seat, Press.LONG))

    def _pick_with_button(self, action: Place, referee: Any) -> bool:
        """The table could not read the card and offers its guesses: the player picks his card with the
        button (short presses to reach it, a long press to accept) when it is among them."""
        guesses = getattr(referee, "unreadable", {}).get(action.where) or ()
        at = next((i for i, guess in enumerate(guesses) if guess.same_face(action.card)), None)
        if at is None:
            return False
        asked = self.heard.of(AskReplace)
        if not asked or asked[-1].seat != action.seat:  # the table takes it for another player's card:
            return False  # his presses would mean something else (a long press: undo)
        for _ in range(at + 1):
            referee.submit(SeatButton(action.seat, Press.SHORT))
        referee.submit(SeatButton(action.seat, Press.LONG))
        return True

    # ------------------------------------------------------------------ the report

    def _report(self, wall: float) -> dict[str, Any]:
        if self.makao:
            return self._report_makao(wall)
        referee = self.referee
        truth = self.truth
        heard = self.heard
        record = referee.record()
        record_path = self.out / "record.json"
        record_path.write_text(json.dumps(record, indent=1))
        played_hands = [h for h in referee.session.hands if h.plays or h.contract is not None]
        n_hands = len(referee.session.scored_hands)
        true_hands = truth.session.hands[: len(played_hands)]
        true_plays = [(s, str(c)) for h in true_hands for s, c in h.plays]
        got_plays = [(p["seat"], p["card"]) for h in record["hands"] for p in h["plays"]]
        accepted = heard.of(CardAccepted)
        corrected = [a for a in accepted if a.corrected_from is not None]
        announced: dict[tuple[int, int], int] = {}
        hand_no = -1
        for a in heard.items:
            if isinstance(a, HandStarted):
                hand_no += 1
            if isinstance(a, TrickWon):
                announced[(hand_no, a.trick)] = a.winner
        true_winners = {(h, t): w for h, ws in enumerate(truth.winners[: len(played_hands)]) for t, w in enumerate(ws)}
        tricks_correct = sum(1 for k, w in true_winners.items() if announced.get(k) == w)
        scored = heard.of(HandScored)
        scores = list(scored[-1].totals) if scored else [0, 0, 0]
        true_scores = list(_totals(true_hands))
        check = _check_record(record)
        return {
            "game": "358",
            "preset": self.preset,
            "recogniser": self.recogniser_label,
            "hands": n_hands,
            "cards_played": len(true_plays),
            "cards_recognised": self.stats.first_time_right,
            "misreads": self.stats.misreads,
            "misreads_uncorrected": sum(1 for a, b in zip(got_plays, true_plays, strict=False) if a != b)
            + abs(len(got_plays) - len(true_plays)),
            "corrections": len(corrected) + len(heard.of(Correction)),
            "candidate_fallbacks": len(corrected),
            "unreadable": len(heard.of(AskReplace)),
            "replaced_by_player": self.stats.replaced,
            "picked_by_button": self.stats.picked_by_button,
            "entered_by_operator": self.stats.entered,
            "rejected": len(heard.of(CardRejected)),
            "laid_again": self.stats.laid_again,
            "laid_again_announced": self.stats.laid_again_announced,
            "nudged": self.stats.nudged,
            "nudged_announced": self.stats.nudged_announced,
            "leaned": self.stats.leaned,
            "leaned_announced": self.stats.leaned_announced,
            "rested": self.stats.rested,
            "rested_announced": self.stats.rested_announced,
            "tricks": len(true_winners),
            "tricks_correct": tricks_correct,
            "violations": check["violations"],
            "violations_announced": [_violation_json(v) for v in heard.of(ViolationFound)],
            "check_totals": check["totals"],
            "check_agrees": check["totals"] == scores,
            "scores": scores,
            "true_scores": true_scores,
            "game_over": bool(heard.of(GameOver)),
            "announce_latency_ms": {
                "p50": _percentile(self.stats.latencies, 50),
                "p95": _percentile(self.stats.latencies, 95),
                "n": len(self.stats.latencies),
            },
            "frame_ms": {"p50": _percentile(self.stats.frame_ms, 50), "p95": _percentile(self.stats.frame_ms, 95)},
            "frames": self.stats.frames,
            "frames_read": self.stats.frames_read,
            "wall_s": round(wall, 1),
            "record": str(record_path),
            "out": str(self.out),
            "spectator": self.spectator_url,
        }

    def _common(self, wall: float) -> dict[str, Any]:
        accepted = self.heard.of(CardAccepted)
        corrected = [a for a in accepted if a.corrected_from is not None]
        return {
            "misreads": self.stats.misreads,
            "corrections": len(corrected) + len(self.heard.of(Correction)),
            "candidate_fallbacks": len(corrected),
            "unreadable": len(self.heard.of(AskReplace)),
            "replaced_by_player": self.stats.replaced,
            "picked_by_button": self.stats.picked_by_button,
            "entered_by_operator": self.stats.entered,
            "rejected": len(self.heard.of(CardRejected)),
            "laid_again": self.stats.laid_again,
            "laid_again_announced": self.stats.laid_again_announced,
            "nudged": self.stats.nudged,
            "nudged_announced": self.stats.nudged_announced,
            "leaned": self.stats.leaned,
            "leaned_announced": self.stats.leaned_announced,
            "rested": self.stats.rested,
            "rested_announced": self.stats.rested_announced,
            "announce_latency_ms": {
                "p50": _percentile(self.stats.latencies, 50),
                "p95": _percentile(self.stats.latencies, 95),
                "n": len(self.stats.latencies),
            },
            "frame_ms": {"p50": _percentile(self.stats.frame_ms, 50), "p95": _percentile(self.stats.frame_ms, 95)},
            "frames": self.stats.frames,
            "frames_read": self.stats.frames_read,
            "wall_s": round(wall, 1),
            "out": str(self.out),
            "spectator": self.spectator_url,
        }

    def _report_makao(self, wall: float) -> dict[str, Any]:
        from engine.check import check_record
        from engine.makao.actions import Play as MakaoPlay
        from engine.makao.records import record_of

        record = self.referee.record()
        record_path = self.out / "record.json"
        record_path.write_text(json.dumps(record, indent=1))
        truth = self.truth
        true_record = record_of(truth.game, truth.turns, with_deal=False)
        check = check_record(record)
        true_cards = sum(len(a.cards) for _s, a in truth.turns if isinstance(a, MakaoPlay))
        over = self.heard.of(GameOver)
        outcome = truth.game.outcome()
        return {
            "game": "makao",
            "preset": self.preset,
            "recogniser": self.recogniser_label,
            "players": len(self.names),
            "hands": 1,
            "turns": len(record["turns"]),
            "cards_played": true_cards,
            "cards_recognised": self.stats.first_time_right,
            "misreads_uncorrected": _turns_differ(record["turns"], true_record["turns"]),
            "tricks": 0,
            "tricks_correct": 0,
            "violations": check["violations"],
            "violations_announced": [_violation_json(v) for v in self.heard.of(ViolationFound)],
            "scores": {"out": list(over[-1].winners) if over else [], "losers": list(over[-1].losers) if over else []},
            "true_scores": {
                "out": list(outcome.out[:1]) if outcome else [],
                "losers": list(outcome.losers) if outcome else [],
            },
            "check_totals": {"losers": check.get("losers")},
            "check_agrees": bool(over) and check.get("losers") == list(over[-1].losers),
            "record": str(record_path),
            **self._common(wall),
        }


def _turns_differ(got: Sequence[dict[str, Any]], want: Sequence[dict[str, Any]]) -> int:
    """How many Makao turns the record has wrong (at least 1 when only their number differs). Cards are
    compared by face: with two decks the bots' game names the copy ("3H#1"), which no camera can see."""

    def faces(turn: dict[str, Any]) -> dict[str, Any]:
        if "cards" not in turn:
            return turn
        return {**turn, "cards": [str(Card.from_text(c).face) for c in turn["cards"]]}

    a, b = [faces(t) for t in got], [faces(t) for t in want]
    if a == b:
        return 0
    return sum(1 for x, y in zip(a, b, strict=False) if x != y) or 1


def _totals(hands: Sequence[Any]) -> tuple[int, int, int]:
    t = [0, 0, 0]
    for h in hands:
        score = h.score()
        if score is not None and h.contract is not None and h.contract.value != "PASS":
            for s in range(3):
                t[s] += score[s]
    return (t[0], t[1], t[2])


def _violation_json(v: ViolationFound) -> dict[str, Any]:
    return {
        "hand": v.hand,
        "trick": v.trick,
        "seat": v.seat,
        "rule": v.rule,
        "proven_at": v.proven_at,
        "reason": v.reason,
    }


def _check_record(record: dict[str, Any]) -> dict[str, Any]:
    """What ``cardtable check`` says of the record: its totals and every violation, per hand."""
    from engine.check import check_record

    result = check_record(record)
    violations = [dict(v, hand=i) for i, h in enumerate(result["hands"]) for v in h["violations"]]
    return {"totals": result["totals"], "violations": violations}


class _LatencyProbe:
    """The last output: a card's announcement has reached every other output when it gets here."""

    def __init__(self, demo: Demo) -> None:
        self.demo = demo

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, CardAccepted) and announcement.still_t > 0:
            demo = self.demo
            waited = max(0.0, demo.frame_t - announcement.still_t) * 1000
            work = (time.perf_counter() - demo.frame_start) * 1000
            demo.stats.latencies.append(waited + work)

    def close(self) -> None:
        pass


def _png_display(folder: Path) -> Any:
    """The e-ink scoreboard as numbered PNG frames (the hardware package's PNG panel, 400x300)."""
    from hardware.display import scoreboard_from_config

    try:
        return scoreboard_from_config(f"png:{folder}", size=(400, 300))
    except Exception as exc:  # an output: the demo goes on without it
        log.warning("simulated e-ink unavailable: %s", exc)
        return None


class _TerminalBoard:
    """The scoreboard as text in the terminal, drawn when a hand is scored and when the game ends."""

    def __init__(self) -> None:
        self.due = False

    def announce(self, announcement: Announcement) -> None:
        if isinstance(announcement, HandScored | GameOver):
            self.due = True

    def show(self, state: Any) -> None:
        if not self.due:
            return
        self.due = False
        from controller.outputs import scoreboard_view
        from hardware.display.render import text_lines

        lines = text_lines(scoreboard_view(state))
        width = max(len(line) for line in lines)
        print("┌" + "─" * (width + 2) + "┐")
        for line in lines:
            print(f"│ {line.ljust(width)} │")
        print("└" + "─" * (width + 2) + "┘", flush=True)

    def close(self) -> None:
        pass


def _serve_spectator(ws_url: str, table: str, closers: list[Callable[[], None]]) -> str | None:
    """Serve the spectator page locally (``cardtable serve``'s server); None when the page is not built."""
    from controller.cli.serve import page_url, start_spectator_server

    try:
        server = start_spectator_server("127.0.0.1", 0)
    except (FileNotFoundError, OSError) as exc:
        log.warning("spectator page not served: %s", exc)
        return None
    closers.append(server.shutdown)
    host, port = server.server_address[:2]
    return page_url(str(host), int(port), ws_url, table)


def run_demo(opts: DemoOptions) -> dict[str, Any]:
    """Run the demo and return its report (also written to ``OUT/report.json``)."""
    return Demo(opts).run()
