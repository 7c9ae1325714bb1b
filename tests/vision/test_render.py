"""The synthetic table draws what a script plays and knows the truth of every frame."""

from typing import Any

import cv2
import numpy as np
import pytest

from engine.cards import Card
from tests.vision.placeholder_faces import placeholder_boxes, placeholder_face
from vision.calibration import calibrate
from vision.render import (
    Collect,
    Gather,
    Lean,
    Nudge,
    PickUp,
    Place,
    RenderSettings,
    Rest,
    Slide,
    TableRenderer,
    Wait,
)
from vision.render.script import REST_DRIFT_MM, Action
from vision.sources.synthetic import SyntheticSource, demo_script
from vision.zones import LayoutError, layout_for

C = Card.from_text


def _renderer(game: str = "358", seed: int = 3, **kw: Any) -> TableRenderer:
    return TableRenderer(
        layout_for(game), RenderSettings(**kw), seed=seed, face_loader=placeholder_face, boxes_loader=placeholder_boxes
    )


def test_a_trick_is_drawn_with_its_truth():
    r = _renderer()
    frames = list(r.render([Place(C("QS"), "seat0", 0), Place(C("10H"), "seat1", 1), Collect(("seat0", "seat1"), 1)]))
    assert all(f.frame.image.shape == (720, 1280, 3) for f in frames)
    assert [f.frame.index for f in frames] == list(range(len(frames)))
    placed = [e for e in r.events if e.kind == "placed"]
    assert [(e.card, e.zone) for e in placed] == [(C("QS"), "seat0"), (C("10H"), "seat1")]
    for e in placed:
        still = frames[e.still_frame]
        assert not still.truth.hand
        assert frames[e.still_frame - 1].truth.hand, "the frame before the card became still has the hand in it"
        assert e.card in still.truth.zones[e.zone]
        seen = [c for c in still.truth.corners if c.card == e.card and c.visible]
        assert len(seen) == 2, "both printed corners visible once the hand is gone"
    cleared = {e.zone for e in r.events if e.kind == "cleared"}
    assert cleared == {"seat0", "seat1"}
    assert frames[-1].truth.zones["seat0"] == () and not frames[-1].truth.hand


def test_hand_hides_corners_while_placing():
    r = _renderer(seed=5)
    frames = r.apply(Place(C("7D"), "seat0", 0))
    let_go = next(f for f in frames if f.truth.zones["seat0"])
    assert let_go.truth.hand
    assert any(not c.visible for c in let_go.truth.corners), "the placing hand covers a corner"


def test_same_seed_same_frames_and_the_calibration_matches():
    a = [f.frame.image for f in _renderer(seed=9).render([Place(C("2C"), "seat2", 2), Wait(2)])]
    b = [f.frame.image for f in _renderer(seed=9).render([Place(C("2C"), "seat2", 2), Wait(2)])]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    r = _renderer(seed=9)
    image = r.apply(Wait(1))[0].frame.image
    cal = calibrate(image, r.layout)
    truth = r.true_calibration()
    probe = np.array([[100.0, 100.0], [500.0, 350.0]])
    px = truth.to_image(probe)
    assert np.abs(cal.to_table(px) - probe).max() < 1.5


def test_a_camera_out_of_focus_or_streaming_mjpeg_films_the_same_table_softer_or_blockier():
    script: list[Action] = [Place(C("2C"), "seat2", 2), Wait(1)]
    sharp = [f.frame.image for f in _renderer(seed=9, noise_sigma=0).render(script)]
    soft = [f.frame.image for f in _renderer(seed=9, noise_sigma=0, blur_sigma=2.0).render(script)]
    mjpeg = [f.frame.image for f in _renderer(seed=9, noise_sigma=0, jpeg_quality=30).render(script)]

    def detail(image: np.ndarray) -> float:  # how much fine detail a frame holds: its Laplacian's variance
        return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    assert detail(soft[-1]) < 0.5 * detail(sharp[-1])
    # the same table, lit the same: only the pixels' fine structure differs
    assert abs(float(soft[-1].mean()) - float(sharp[-1].mean())) < 1.0
    assert 0 < float(np.abs(mjpeg[-1].astype(int) - sharp[-1]).mean()) < 3.0
    assert mjpeg[-1].shape == sharp[-1].shape == (720, 1280, 3)


def test_slide_and_pick_up_truth():
    r = _renderer()
    list(r.render([Place(C("AS"), "seat1", 1), Slide(C("AS"), "exchange", 1), PickUp(C("AS"), 1)]))
    kinds = [(e.kind, e.zone) for e in r.events]
    assert kinds == [
        ("placed", "seat1"),
        ("moved", "exchange"),
        ("cleared", "seat1"),
        ("removed", "exchange"),
        ("cleared", "exchange"),
    ]
    with pytest.raises(LayoutError, match="not on the table"):
        r.apply(PickUp(C("AS")))


def test_a_card_nudged_moves_where_it_lies_under_a_hand_that_comes_and_goes_and_nothing_is_played():
    r = _renderer("makao", seed=2)
    list(r.render([Place(C(t), "pile", i % 3) for i, t in enumerate(["5H", "KD"])]))
    events = list(r.events)
    before = np.array([c.polygon for c in r.still(1)[0].truth.corners if c.card == C("KD")])
    frames = r.apply(Nudge(C("KD"), 6.0, -3.0, 4.0, seat=1))
    assert any(f.truth.hand for f in frames) and not frames[-1].truth.hand
    after = np.array([c.polygon for c in frames[-1].truth.corners if c.card == C("KD")])
    shift = float(np.abs(after - before).max())
    assert 3.0 < shift < 30.0  # pixels: a few millimetres, not off the pile
    assert frames[-1].truth.zones["pile"] == (C("5H"), C("KD"))
    assert r.events == events


def test_a_player_leaning_over_the_table_shades_their_side_of_the_mat_and_plays_nothing():
    r = _renderer("358", seed=1, noise_sigma=0.0, flicker=0.0)
    list(r.render([Place(C("AH"), "seat1", 1)]))
    lit = r.still(1)[0]
    events = list(r.events)
    frames = r.apply(Lean(seat=1, frames=12, depth=0.5, reach=0.7))
    shaded = frames[6]
    seat1 = layout_for("358").zone("seat1")
    x, y = (int(v) for v in np.round(r.true_calibration().to_image(np.array([seat1.center]))[0]))
    patch = (slice(y - 5, y + 5), slice(x - 5, x + 5))
    ratio = shaded.frame.image[patch].mean() / lit.frame.image[patch].mean()
    assert 0.45 < ratio < 0.7  # about half the lamp's light taken where the shadow lies
    assert not any(f.truth.hand for f in frames)  # no hand: a shadow
    assert frames[-1].truth == lit.truth  # nothing moved
    assert np.abs(frames[-1].frame.image.astype(int) - lit.frame.image.astype(int)).mean() < 1.0  # and it went
    assert r.events == events


def test_a_player_resting_a_hand_on_the_mat_lays_it_still_in_the_zone_and_plays_nothing():
    r = _renderer("358", seed=1, noise_sigma=0.0, flicker=0.0)
    list(r.render([Place(C("AH"), "seat1", 1)]))
    before = r.still(1)[0]
    events = list(r.events)
    frames = r.apply(Rest(seat=2, zone="seat2", frames=10, into=0.4, drift=0.0))
    resting = [f for f in frames if f.truth.hand]
    still = resting[3:13]  # after the three frames that bring it in
    assert len(resting) == 3 + 10 + 2 and len(still) == 10
    assert all(np.array_equal(f.frame.image, still[0].frame.image) for f in still)  # it lies still
    seat2 = layout_for("358").zone("seat2")
    x, y = (int(v) for v in np.round(r.true_calibration().to_image(np.array([seat2.center]))[0]))
    changed = np.abs(still[0].frame.image.astype(int) - before.frame.image.astype(int)).sum(axis=2)
    assert changed[y - 3 : y + 3, x - 3 : x + 3].mean() > 60  # the palm 0.4 of the way in covers the zone's middle
    assert (changed > 60).sum() > 2000  # a hand's worth of the zone covered
    assert frames[-1].truth == before.truth and r.events == events  # nothing moved, nothing played


def test_a_resting_hand_wanders_a_millimetre_or_two_as_a_real_one_does():
    r = _renderer("358", seed=1, noise_sigma=0.0, flicker=0.0)
    before = r.still(1)[0]
    frames = [f for f in r.apply(Rest(seat=2, zone="seat2", frames=30, into=0.4)) if f.truth.hand][3:33]
    calibration = r.true_calibration()
    x, y = layout_for("358").zone("seat2").center
    ends = calibration.to_image(np.array([(x, y), (x + 10.0, y)]))
    px_per_mm = float(np.linalg.norm(ends[1] - ends[0])) / 10.0
    centroids = []
    for f in frames:
        changed = np.abs(f.frame.image.astype(int) - before.frame.image.astype(int)).sum(axis=2) > 60
        ys, xs = np.nonzero(changed)
        centroids.append((xs.mean(), ys.mean()))
    c = np.array(centroids) / px_per_mm
    spread = float(np.max(np.linalg.norm(c[:, None] - c[None], axis=2)))
    assert not all(np.array_equal(f.frame.image, frames[0].frame.image) for f in frames)  # not still to the pixel
    assert 0.2 < spread <= 2 * REST_DRIFT_MM  # yet it stays where it lies: a millimetre or two
    assert frames[-1].truth.zones == before.truth.zones and r.events == []  # nothing played


def test_a_hand_throws_a_shadow_beside_it_under_a_lamp():
    plain = _renderer("358", seed=1, noise_sigma=0.0, flicker=0.0)
    lamp = _renderer("358", seed=1, noise_sigma=0.0, flicker=0.0, hand_shadow=0.5)
    frames = [r.apply(Place(C("AH"), "seat0", 0)) for r in (plain, lamp)]
    darker = [
        float(b.frame.image.astype(int).sum() - a.frame.image.astype(int).sum()) for a, b in zip(*frames, strict=True)
    ]
    with_hand = [d for d, f in zip(darker, frames[0], strict=True) if f.truth.hand]
    assert all(d <= 0 for d in darker) and sum(d < 0 for d in with_hand) >= 2  # (off the frame at first)
    assert darker[-1] == 0  # the hand gone, its shadow too
    assert frames[0][-1].truth == frames[1][-1].truth


def test_makao_pile_grows_and_covers_older_cards():
    r = _renderer("makao", seed=2)
    frames = list(r.render([Place(C(t), "pile", i % 3) for i, t in enumerate(["5H", "5S", "6S", "6D", "KD"])]))
    assert frames[-1].truth.zones["pile"] == tuple(C(t) for t in ["5H", "5S", "6S", "6D", "KD"])
    top = [c for c in frames[-1].truth.corners if c.card == C("KD")]
    assert all(c.visible for c in top)


def test_the_pile_gathered_from_under_its_top_card_leaves_that_card_where_it_lay():
    r = _renderer("makao", seed=2)
    list(r.render([Place(C(t), "pile", i % 3) for i, t in enumerate(["5H", "5S", "KD"])]))
    before = [c.polygon for c in r.still(1)[0].truth.corners if c.card == C("KD")]
    frames = r.apply(Gather("pile", seat=1))
    assert any(f.truth.hand for f in frames)  # a hand came and went
    last = frames[-1].truth
    assert last.zones["pile"] == (C("KD"),) and not last.hand
    assert [c.polygon for c in last.corners if c.card == C("KD")] == before
    assert {c.card for c in last.corners} == {C("KD")}  # the cards beneath are gone, not just covered
    assert [(e.kind, e.card) for e in r.events[-2:]] == [("removed", C("5H")), ("removed", C("5S"))]
    # a card of them laid again is one card on the pile, not a second copy beside the first
    list(r.render([Place(C("5S"), "pile", 2)]))
    assert r.still(1)[0].truth.zones["pile"] == (C("KD"), C("5S"))


def test_synthetic_source_and_demo_script():
    script = demo_script("358", seed=1, tricks=2)
    assert sum(isinstance(a, Place) for a in script) == 6 and sum(isinstance(a, Collect) for a in script) == 2
    src = SyntheticSource(_renderer(), script[:2])
    frames = list(src)
    assert src.last is not None and src.last.frame is frames[-1] and src.status == "ended"


def test_scorer_tells_misreads_late_cards_and_false_events_apart():
    from vision.events import CardPlaced, UnreadableCard, VisionEvent, ZoneCleared
    from vision.render.table import TruthEvent
    from vision.render.truth import score_events

    truth = [
        TruthEvent("placed", "seat0", C("QS"), 10, 1.0),
        TruthEvent("placed", "seat1", C("7H"), 20, 2.0),
        TruthEvent("placed", "seat2", C("2C"), 30, 3.0),
        TruthEvent("cleared", "seat0", None, 40, 4.0),
    ]
    events: list[VisionEvent] = [
        CardPlaced("seat0", C("QS"), 0.9, frame=11),
        CardPlaced("seat1", C("7D"), 0.8, frame=21),
        CardPlaced("seat2", C("2C"), 0.9, frame=36),
        UnreadableCard("seat0", frame=14),
        CardPlaced("seat0", C("AS"), 0.9, frame=90),
        ZoneCleared("seat0", frame=41),
    ]
    score = score_events(truth, events)
    assert score.confirmed_once == 2 and score.latencies == [1, 6]
    assert score.late == ["2C in seat2 (still at frame 30) confirmed in still frame 7"]
    assert score.wrong == ["7H in seat1 (still at frame 20) reported as 7D"]
    assert score.false_events == ["CardPlaced AS at frame 90"]  # the UnreadableCard had a card under it
    assert not score.ok


def test_a_card_read_right_is_not_scored_as_misread_because_the_same_card_was_missed_in_another_hand():
    # The QC is missed in hand 1 and read right in hand 3, where a KC is also reported beside it: that KC is
    # a false card event, not hand 3's QC "reported as KC".
    from vision.events import CardPlaced, VisionEvent
    from vision.render.table import TruthEvent
    from vision.render.truth import score_events

    truth = [TruthEvent("placed", "seat1", C("QC"), 254, 25.4), TruthEvent("placed", "seat1", C("QC"), 1289, 128.9)]
    events: list[VisionEvent] = [
        CardPlaced("seat1", C("QC"), 0.94, frame=1289),
        CardPlaced("seat1", C("KC"), 0.76, frame=1289),
    ]
    score = score_events(truth, events)
    assert score.confirmed_once == 1 and score.missed == ["placed QC in seat1 (still at frame 254)"]
    assert score.wrong == [] and score.false_events == ["CardPlaced KC at frame 1289"]


def test_a_card_reported_before_it_was_played_is_a_false_event_not_that_card():
    # Penguins Makao seed 7: the 9C, read QC at a second box, was reported as a QC while the real QC was still in
    # a player's hand; once the QC landed the tracker knew it already. The early report is a false card event and
    # the QC itself was never confirmed.
    from vision.events import CardPlaced, VisionEvent
    from vision.render.table import TruthEvent
    from vision.render.truth import score_events

    truth = [TruthEvent("placed", "pile", C("9C"), 18, 1.8), TruthEvent("placed", "pile", C("QC"), 51, 5.1)]
    events: list[VisionEvent] = [
        CardPlaced("pile", C("9C"), 0.96, frame=19),
        CardPlaced("pile", C("QC"), 0.81, frame=22),
    ]
    score = score_events(truth, events)
    assert score.confirmed_once == 1 and score.missed == ["placed QC in pile (still at frame 51)"]
    assert score.false_events == ["CardPlaced QC at frame 22"] and score.wrong == []
    assert not score.ok


def test_two_copies_of_a_face_put_down_in_quick_succession_are_two_cards_confirmed():
    # Two decks (Makao for five or six players): a 6D#1 lands, then the other 6D nine frames later, and each is
    # reported once. The second report is the second card's, not the first one's reported again; a report of
    # the first one again before the second landed is still a duplicate.
    from vision.events import CardPlaced, VisionEvent
    from vision.render.table import TruthEvent
    from vision.render.truth import score_events

    truth = [TruthEvent("placed", "pile", C("6D#1"), 100, 10.0), TruthEvent("placed", "pile", C("6D"), 109, 10.9)]
    events: list[VisionEvent] = [
        CardPlaced("pile", C("6D"), 0.9, frame=102),
        CardPlaced("pile", C("6D"), 0.9, frame=111),
    ]
    score = score_events(truth, events)
    assert score.confirmed_once == 2 and score.duplicates == [] and score.ok
    again = [*events[:1], CardPlaced("pile", C("6D"), 0.9, frame=105), *events[1:]]
    score = score_events(truth, again)
    assert score.confirmed_once == 2 and score.duplicates == ["6D#1 in pile reported again at frame 105"]


def test_a_card_picked_up_off_the_pile_and_laid_again_is_one_play_and_reported_twice_is_a_false_event():
    from vision.events import CardPlaced
    from vision.render.truth import laid_again_as_one, score_events

    r = _renderer("makao")
    list(
        r.render([Place(C("5H"), "pile", 1), Place(C("9H"), "pile", 2), PickUp(C("9H"), 2), Place(C("9H"), "pile", 2)])
    )
    kinds = [(t.kind, str(t.card)) for t in r.events]
    assert kinds == [("placed", "5H"), ("placed", "9H"), ("removed", "9H"), ("placed", "9H")]
    plays = laid_again_as_one(r.events, ["pile"])
    assert [(t.kind, str(t.card), t.still_frame) for t in plays] == [
        ("placed", "5H", r.events[0].still_frame),
        ("placed", "9H", r.events[1].still_frame),
    ]
    first, second = r.events[1].still_frame, r.events[3].still_frame
    once = score_events(
        plays,
        [
            CardPlaced("pile", C("5H"), 0.9, frame=r.events[0].still_frame + 1),
            CardPlaced("pile", C("9H"), 0.9, frame=first + 1),
        ],
    )
    assert once.ok and once.confirmed_once == 2
    twice = score_events(
        plays,
        [
            CardPlaced("pile", C("5H"), 0.9, frame=r.events[0].still_frame + 1),
            CardPlaced("pile", C("9H"), 0.9, frame=first + 1),
            CardPlaced("pile", C("9H"), 0.9, frame=second + 1),
        ],
    )
    assert not twice.ok and twice.false_events == [f"9H in pile reported again at frame {second + 1}"]
    # on a trick's zone a card taken is a CardRemoved, and laid again it is a card played again
    assert laid_again_as_one(r.events, []) == r.events
