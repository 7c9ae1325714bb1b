"""Measure the card tracker on synthetic played games with hands and noise (the target of issue 3).

The synthetic table renderer plays whole hands (3-5-8: sixteen tricks of three cards, each trick swept
off by its winner; Makao: cards onto a growing pile), hands in the way, uneven light, flicker and sensor
noise. The frames go through a recogniser (``truth``: the renderer's visible corners with missed
corners, misreads and jitter, which isolates the tracker; ``onnx``: the trained models) and the tracker,
and the events are scored against the renderer's truth: every played card confirmed exactly once,
within 5 still frames, and no false card events. ``--retake`` has players pick a share of their cards up
again once settled and lay them again (on a pile that is one play, reported once; on a trick's zone a card
removed and placed again). ``--nudge`` has them push a share of their cards a few millimetres where they lie,
squaring up the pile or the trick: nothing played, nothing to report. ``--bump`` knocks the camera during play,
with the table's calibrator in the loop. ``--shadows`` puts a lamp over the table: hands throw shadows, and
players lean over it between plays. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

from controller.cli.retake import (
    add_nudge_argument,
    add_rest_argument,
    add_retake_argument,
    add_shadows_argument,
)
from vision.argtypes import in_range
from vision.render.script import LEAN_FRAMES, LEAN_SHARE, REST_FRAMES

NAME = "tracker"
HELP = "tracker on synthetic played games: confirmed once, within 5 still frames, no false events"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=["358", "makao"], default="358")
    parser.add_argument("--hands", type=int, default=3, help="hands (3-5-8) or piles of 40 cards (Makao)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--decks",
        type=int,
        choices=[1, 2],
        default=1,
        help="Makao: decks shuffled together for the piles (2: five or six players, a face may land on its copy)",
    )
    parser.add_argument("--recogniser", choices=["truth", "onnx"], default="truth")
    parser.add_argument("--misread", type=float, default=0.03, help="truth recogniser: misread rate per corner")
    parser.add_argument("--miss", type=float, default=0.1, help="truth recogniser: missed corner rate")
    parser.add_argument("--noise", type=float, default=4.0, help="sensor noise sigma (grey levels)")
    parser.add_argument(
        "--blur",
        type=in_range(float, 0.0, 20.0, "a blur sigma in pixels, 0..20"),
        default=0.0,
        help="the camera out of focus: Gaussian blur sigma in pixels (default 0, in focus)",
    )
    parser.add_argument(
        "--flicker",
        type=in_range(float, 0.0, 0.5, "a flicker share in 0..0.5"),
        default=None,
        help="frame-to-frame brightness change, a share (default: the renderer's, 0.02; mains-lit rooms and "
        "auto-exposure flicker more)",
    )
    parser.add_argument(
        "--jpeg",
        type=in_range(int, 1, 100, "a JPEG quality in 1..100"),
        default=None,
        help="each frame JPEG-compressed at this quality, as a USB webcam's MJPEG stream (default: raw)",
    )
    parser.add_argument(
        "--relit",
        action="store_true",
        help="the tracker's picture of the empty mat taken under another light than the play (a new uneven light"
        " after it: calibrated by daylight, played by lamplight)",
    )
    parser.add_argument(
        "--no-empty-mat",
        action="store_true",
        help="give the tracker no picture of the empty mat (a table calibrated with a card on the mat)",
    )
    parser.add_argument(
        "--bump",
        type=in_range(int, 0, 20, "a number of knocks, 0..20"),
        default=0,
        metavar="N",
        help="knock the camera N times during the game, each just before a card is laid: the view moves to a new"
        " place 20-45 px off the first along each axis and turns by up to 3 degrees (which can push an edge of the"
        " mat, two markers, out of view); the table's calibrator watches"
        " the markers and hands the tracker each new calibration, as `cardtable run` does (default 0: the camera"
        " stays put, no calibrator)",
    )
    parser.add_argument(
        "--look-away",
        type=in_range(int, 0, 20, "a number of times, 0..20"),
        default=0,
        metavar="N",
        help=f"N times during the game, each just before a card is laid, the camera is knocked off the mat (onto the"
        f" floor beside it) for {LOOK_AWAY_FRAMES} frames while the players wait, then put back where it was; the"
        " table's calibrator watches, and the tracker reads no frame it cannot vouch for, as in `cardtable run`"
        " (default 0)",
    )
    parser.add_argument("--model-dir", help="onnx recogniser: folder of the models (default vision/models)")
    parser.add_argument("--design", help="card design for the faces (default: the committed demo deck)")
    parser.add_argument(
        "--whole-frame",
        action="store_true",
        help="onnx recogniser: read the whole frame, not the tracker's zones (as before 2 December)",
    )
    parser.add_argument(
        "--no-outlines",
        action="store_true",
        help="onnx recogniser: give the tracker no reader, so that it reads only what the detector finds and "
        "not also a new card's indices where its outline puts them (the one-card rules stay)",
    )
    parser.add_argument(
        "--think",
        type=int,
        default=0,
        metavar="FRAMES",
        help="still frames after each card played, a player thinking (default 0: as fast as the renderer plays)",
    )
    parser.add_argument(
        "--read-every-frame",
        action="store_true",
        help="read every frame, also those of a table at rest (tracker rest_frames 0, as before 3 December)",
    )
    add_retake_argument(parser, "the cards played, once settled,")
    add_nudge_argument(parser, "the cards played, once settled,")
    add_shadows_argument(parser, "the cards played (the calibrator watching the markers, as in `cardtable run`)")
    add_rest_argument(parser, "the cards played")
    parser.add_argument("--list-errors", action="store_true", help="print every missed, wrong, late or false event")


LOOK_AWAY_FRAMES = 50
"""Frames a ``--look-away`` lasts: five seconds at 10 fps, longer than the calibrator waits to tell the players."""


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from engine.cards import Card, deck
    from vision.calibration import Calibrator
    from vision.events import VisionEvent
    from vision.render import (
        Collect,
        Lean,
        Nudge,
        PickUp,
        Place,
        RenderSettings,
        Rest,
        TableRenderer,
        Wait,
        squared_up,
    )
    from vision.render.script import Action
    from vision.render.truth import TruthRecogniser, laid_again_as_one, score_events
    from vision.tracker import CardTracker, TrackerSettings
    from vision.zones import LayoutError, layout_for

    if args.hands < 1 or args.think < 0:
        print("cardtable bench tracker: --hands must be at least 1 and --think at least 0", file=sys.stderr)
        return 2
    if args.decks > 1 and args.game != "makao":
        print("cardtable bench tracker: --decks 2 is for --game makao (3-5-8 is played with one deck)", file=sys.stderr)
        return 2
    layout = layout_for(args.game)
    settings = RenderSettings(
        noise_sigma=args.noise, blur_sigma=args.blur, jpeg_quality=args.jpeg, hand_shadow=args.shadows
    )
    if args.flicker is not None:
        settings = replace(settings, flicker=args.flicker)
    try:
        renderer = TableRenderer(layout, settings, seed=args.seed, design=args.design)
    except LayoutError as exc:
        from vision.synth.faces import available_designs

        designs = available_designs()
        if args.design is not None or not designs:
            print(f"cardtable bench tracker: {exc}", file=sys.stderr)
            return 2
        renderer = TableRenderer(layout, settings, seed=args.seed, design=designs[0])
    onnx = None
    if args.recogniser == "onnx":
        try:
            from vision.recognise import DEFAULT_MODEL_DIR, OnnxRecogniser

            onnx = OnnxRecogniser(args.model_dir or DEFAULT_MODEL_DIR, threads=1)
        except Exception as exc:
            print(f"cardtable bench tracker: the trained models are not usable: {exc}", file=sys.stderr)
            return 2
    truth_rec = TruthRecogniser(miss_rate=args.miss, misread_rate=args.misread, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    # its own stream, so that the games played are the same cards with --retake as without
    retakes = np.random.default_rng([args.seed, 1])
    nudges = np.random.default_rng([args.seed, 2])
    leans = np.random.default_rng([args.seed, 4])
    rests = np.random.default_rng([args.seed, 5])
    actions: list[Action] = []

    def play(card: Card, zone: str, seat: int) -> None:
        actions.append(Place(card, zone, seat))
        if args.retake and retakes.random() < args.retake:
            actions.extend((PickUp(card, seat), Place(card, zone, seat)))
        if args.nudge and nudges.random() < args.nudge:
            actions.append(squared_up(card, seat, nudges))
        if args.shadows and leans.random() < LEAN_SHARE:
            who, reach = int(leans.integers(0, settings.seats)), leans.uniform(0.4, 0.8)
            actions.append(Lean(who, LEAN_FRAMES, args.shadows, float(reach)))
        if args.rest and rests.random() < args.rest:  # the next player, waiting for their turn
            after = (seat + 1) % settings.seats
            into = float(rests.uniform(0.2, 0.6))
            actions.append(Rest(after, zone if zone == "pile" else f"seat{after}", REST_FRAMES, into))
        actions.extend([Wait(args.think)] if args.think else [])

    pool = deck(args.decks)
    for _ in range(args.hands):
        cards = [pool[int(i)] for i in rng.permutation(len(pool))]  # (one deck: the same cards as before --decks)
        if args.game == "358":
            leader = int(rng.integers(0, 3))
            for trick in range(16):
                for i in range(3):
                    seat = (leader + i) % 3
                    play(cards[trick * 3 + i], f"seat{seat}", seat)
                leader = int(rng.integers(0, 3))
                actions.append(Collect(("seat0", "seat1", "seat2"), leader))
        else:
            for k in range(40):
                play(cards[k], "pile", int(rng.integers(0, 4)))
            actions.append(Collect(("pile",), 0))
    # the knocks: each just before a card is laid, spread over the game (its own stream: the same cards with or without)
    places = [i for i, action in enumerate(actions) if isinstance(action, Place)]
    knocks = np.random.default_rng([args.seed, 3])
    bumps: dict[int, tuple[float, float, float]] = {}
    offset = np.zeros(2)
    for j in range(args.bump):
        target = knocks.uniform(40, 90, size=2) * knocks.choice([-1, 1], size=2) / 2  # the mat mostly in view
        dx, dy = target - offset
        offset = target
        bumps[places[(j + 1) * len(places) // (args.bump + 1)]] = (float(dx), float(dy), float(knocks.uniform(-3, 3)))
    # the looks away: each just before a card is laid, spread over the game; two places on from an even spread, which
    # in 3-5-8 falls at a trick's start, so that cards lie in the zones while the camera is away
    spread = [(2 * j + 1) * len(places) // (2 * args.look_away) for j in range(args.look_away)]
    aways = {places[min(k + 2, len(places) - 1)] for k in spread}
    # the pushes a pile's top card got (a trick card read again where it was pushed is the same card, no new one)
    pushes = sum(isinstance(a, Nudge) for a in actions) if args.game == "makao" else 0
    reader = onnx.read if onnx is not None and not args.no_outlines else None
    tracker_settings = TrackerSettings(rest_frames=0) if args.read_every_frame else TrackerSettings()
    tracker = CardTracker(layout, renderer.true_calibration(), tracker_settings, reader=reader, decks=args.decks)
    empty = renderer.still(1)[0].frame.image  # the mat before anyone plays (drawn either way: the same game after)
    if not args.no_empty_mat:
        tracker.set_empty_mat(empty)
    if args.relit:
        renderer.relight()  # ... seen under another light than the play
    calibrator = Calibrator(layout, renderer.true_calibration()) if bumps or aways or args.shadows else None
    events: list[VisionEvent] = []
    track_ms: list[float] = []
    frames = frames_read = zones_read = 0
    started = time.perf_counter()
    render_s = recog_s = 0.0
    held = 0
    for index, action in enumerate(actions):
        if index in bumps:
            renderer.bump(*bumps[index][:2], rotate_deg=bumps[index][2])
        t0 = time.perf_counter()
        if index in aways:  # off the mat and back, the players waiting
            off = float(settings.size[0] + 200)
            renderer.bump(off, 0.0)
            rendered_frames = renderer.still(LOOK_AWAY_FRAMES)
            renderer.bump(-off, 0.0)
            rendered_frames += renderer.apply(action)
        else:
            rendered_frames = renderer.apply(action)
        render_s += time.perf_counter() - t0
        for rendered in rendered_frames:
            if calibrator is not None:
                new = calibrator.update(rendered.frame.index, rendered.frame.image)
                if new is not None:
                    tracker.set_calibration(new)
                if not calibrator.sure:  # as `cardtable run`: a view it cannot vouch for is not the tracker's
                    if onnx is None:
                        truth_rec.detect_rendered(rendered)  # (the stand-in's draws stay in step)
                    held += 1
                    frames += 1
                    continue
            t1 = time.perf_counter()
            dets = None  # zones at rest are not read (CardTracker.regions_to_read)
            wanted = tracker.regions_to_read(rendered.frame)
            if wanted:
                frames_read += 1
                zones_read += len(wanted)
                if onnx is not None:
                    regions = None if args.whole_frame else tracker.regions()
                    outlines = tracker.new_card_outlines(rendered.frame)
                    dets = onnx.detect(rendered.frame.image, regions, within=wanted, outlines=outlines)
                else:
                    dets = truth_rec.detect_rendered(rendered)
            elif onnx is None:
                # the stand-in draws its misses and misreads for every frame, read or not, so that a table at
                # rest does not change which corners it gets wrong later (the figures stay comparable)
                truth_rec.detect_rendered(rendered)
            recog_s += time.perf_counter() - t1
            t2 = time.perf_counter()
            events += tracker.update(rendered.frame, dets)
            track_ms.append((time.perf_counter() - t2) * 1000)
            frames += 1
    wall = time.perf_counter() - started
    piles = [zone.name for zone in layout.zones if zone.kind == "pile"]
    score = score_events(laid_again_as_one(renderer.events, piles), events)
    result = {
        "game": args.game,
        "hands": args.hands,
        "seed": args.seed,
        "decks": args.decks,
        "retake": args.retake,
        "nudge": args.nudge,
        **({"shadows": args.shadows, "leans": sum(isinstance(a, Lean) for a in actions)} if args.shadows else {}),
        **({"rest": args.rest, "rests": sum(isinstance(a, Rest) for a in actions)} if args.rest else {}),
        "pushes": pushes,
        "pushes_followed": tracker.pushes_followed,
        **({"bumps": len(bumps), "recalibrations": calibrator.recalibrations} if calibrator and bumps else {}),
        **({"looks_away": len(aways)} if aways else {}),
        **({"frames_held": held} if calibrator is not None else {}),
        "recogniser": args.recogniser if onnx is None else repr(onnx),
        "frames": frames,
        "frames_read": frames_read,
        "zone_reads": f"{zones_read} of {frames * len(tracker.regions())}",
        **score.as_dict(),
        "tracker_ms_per_frame": {
            "p50": round(float(np.percentile(track_ms, 50)), 2),
            "p95": round(float(np.percentile(track_ms, 95)), 2),
        },
        "render_ms_per_frame": round(render_s * 1000 / max(1, frames), 2),
        "recognise_ms_per_frame": round(recog_s * 1000 / max(1, frames), 2),
        "wall_s": round(wall, 1),
    }
    print(json.dumps(result, indent=2))
    if args.list_errors:
        for line in score.missed + score.wrong + score.late + score.false_events:
            print(line, file=sys.stderr)
    return 0 if score.ok else 1
