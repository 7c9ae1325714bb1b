"""Renderer -> noisy truth recogniser -> tracker: a played trick, a slide and a Makao pile, scored."""

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from engine.cards import Card
from tests.vision.placeholder_faces import placeholder_boxes, placeholder_face
from vision.calibration import Calibrator, calibrate
from vision.detections import Detection
from vision.events import CardMoved, CardPlaced, UnreadableCard, VisionEvent, ZoneCleared
from vision.render import Collect, Lean, Nudge, Place, RenderSettings, Rest, Slide, TableRenderer, Wait
from vision.render.script import Action
from vision.render.truth import TruthRecogniser, score_events
from vision.tracker import CardTracker, TrackerSettings
from vision.zones import layout_for

C = Card.from_text
SEATS = ("seat0", "seat1", "seat2")


def _play(
    game: str, actions: list[Action], seed: int = 0, *, relit: bool = False
) -> tuple[TableRenderer, list[VisionEvent]]:
    """``actions`` rendered and tracked, the tracker given the first frame as the empty mat (``relit``: taken
    under another light than the play, as a calibration made hours before)."""
    renderer = TableRenderer(layout_for(game), seed=seed, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    if relit:
        renderer.relight()
    recogniser = TruthRecogniser(seed=seed)
    events: list[VisionEvent] = []
    for rendered in renderer.render(actions):
        events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    return renderer, events


def test_tricks_with_hands_and_noise_are_confirmed_exactly_once_within_five_still_frames():
    actions: list[Action] = []
    cards = iter(["QS", "10H", "2C", "AD", "7C", "9H"])
    for leader in (0, 2):
        for i in range(3):
            seat = (leader + i) % 3
            actions.append(Place(C(next(cards)), f"seat{seat}", seat))
        actions.append(Collect(("seat0", "seat1", "seat2"), leader))
    renderer, events = _play("358", actions, seed=4)
    score = score_events(renderer.events, events)
    assert score.as_dict()["ok"], score.as_dict()
    assert score.played == 6 and score.clears_missed == 0


@pytest.mark.parametrize("game", ["358", "makao"])
def test_a_player_leaning_over_a_settled_table_is_no_hand_and_nothing_is_read_again(game: str) -> None:
    """A still shadow coming, lying and going over the zones is no motion: a table at rest stays at rest (its zones
    read only as a resting table's are, every ``rest_check_frames``), where a hand over the same zones has them read
    again. Before, the shadow was taken for a hand: the zones were read again from nothing in the shadow."""
    renderer = TableRenderer(layout_for(game), seed=1, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    recogniser = TruthRecogniser(seed=1)
    zone = "pile" if game == "makao" else "seat1"
    events: list[VisionEvent] = []
    for rendered in renderer.render([Place(C("QS"), zone, 1), Wait(tracker.settings.rest_frames + 2)]):
        events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    assert [type(e).__name__ for e in events] == ["CardPlaced"]
    assert tracker.regions_to_read(renderer.still(1)[0].frame) == []  # at rest
    read_in_shadow = []
    for rendered in renderer.apply(Lean(seat=1, frames=20, depth=0.6, reach=0.8)):
        read_in_shadow.append(tracker.regions_to_read(rendered.frame))
        events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    checks = len(read_in_shadow) // tracker.settings.rest_check_frames + 1  # a resting table's periodic reads
    assert sum(bool(regions) for regions in read_in_shadow) <= checks and len(events) == 1
    read_with_hand = []
    for rendered in renderer.apply(Nudge(C("QS"), 0.0, 0.0, 0.0, seat=1)):  # a hand that comes and goes
        read_with_hand.append(tracker.regions_to_read(rendered.frame))
        events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    assert sum(bool(regions) for regions in read_with_hand) > checks and len(events) == 1


@pytest.mark.parametrize("into", [0.3, 0.5])
def test_a_hand_resting_still_in_a_zone_is_no_card_and_a_card_under_it_is_not_taken_away(into: float) -> None:
    """A player rests a hand on the mat for three seconds, still: in an empty zone it is no card to ask about (a hand
    is as large as a card, not of its outline); on the trick's card it hides the card's indices, and the card is
    not gone for that, nor played again when the hand lifts. The trick collected after it is reported as ever.
    Before: asks about a card in the empty zone, then "cleared"; the card under the hand reported taken away, and
    played again."""
    renderer = TableRenderer(layout_for("358"), seed=0, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    recogniser = TruthRecogniser(seed=0)

    def play(actions: Sequence[Action]) -> list[str]:
        said = []
        for rendered in renderer.render(actions):
            said += [
                f"{type(e).__name__} {e.to_zone if isinstance(e, CardMoved) else e.zone}"
                for e in tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
            ]
        return said

    assert play([Place(C("QS"), "seat0", 0)]) == ["CardPlaced seat0"]
    frames = 30
    assert play([Rest(seat=1, zone="seat1", frames=frames, into=into)]) == []  # in the empty zone
    assert play([Rest(seat=0, zone="seat0", frames=frames, into=into)]) == []  # on the QS
    assert tracker.cards_in("seat0") == [C("QS")]
    assert play([Collect(("seat0",), 0)]) == ["CardRemoved seat0", "ZoneCleared seat0"]


@pytest.mark.parametrize("seed", [3, 7])
def test_a_hand_resting_on_a_settled_pile_and_taken_away_leaves_it_unasked(seed: int) -> None:
    """A player rests a hand on the Makao pile, still for three seconds, and takes it away: nothing is said. The view
    with the hand lying still on the pile was the one "before" the hand left, and the pile uncovered looked changed
    from it: its cards read where they lay were taken for a card put down and asked about (seeds 3, 7, 8, 10 and 11
    of 0-11)."""
    renderer = TableRenderer(
        layout_for("makao"), seed=seed, face_loader=placeholder_face, boxes_loader=placeholder_boxes
    )
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    recogniser = TruthRecogniser(seed=seed)
    cards = [C(c) for c in ("9S", "4H", "JD", "2C", "KS", "7H")]
    events: list[VisionEvent] = []
    for k, card in enumerate(cards):
        for rendered in renderer.apply(Place(card, "pile", k % 3)):
            events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    assert [e.card for e in events if isinstance(e, CardPlaced)] == cards
    said: list[VisionEvent] = []
    for into in (0.3, 0.5, 0.7):
        for rendered in renderer.apply(Rest(seat=1, zone="pile", frames=30, into=into)):
            said += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    assert said == []


@pytest.mark.parametrize("game", ["358", "makao"])
def test_a_zone_under_a_player_leaning_over_the_mat_is_no_picture_of_the_empty_mat(game: str) -> None:
    """A player leaning over the table under the lamp while ``cardtable calibrate`` takes its picture: the zone in
    their shadow is named, as a card lying there is, and the picture is not kept (the felt lit again in play would
    differ from it there as a card does: three asks about an empty zone in a 3-5-8 game before). The lamp's own
    unevenness, however steep, and a faint shadow name none."""
    zone = "pile" if game == "makao" else "seat1"
    for vignette in (0.25, 1.0):
        renderer = TableRenderer(
            layout_for(game),
            RenderSettings(vignette=vignette),
            seed=2,
            face_loader=placeholder_face,
            boxes_loader=placeholder_boxes,
        )
        tracker = CardTracker(renderer.layout, renderer.true_calibration())
        assert tracker.occupied_zones(renderer.still(1)[0].frame.image) == []
        faint = renderer.apply(Lean(seat=1, frames=12, depth=0.25, reach=0.7))[8].frame.image
        assert tracker.occupied_zones(faint) == []
        deep = renderer.apply(Lean(seat=1, frames=12, depth=0.6, reach=0.7))[8].frame.image
        assert zone in tracker.occupied_zones(deep)


@pytest.mark.parametrize("game", ["358", "makao"])
def test_an_empty_mat_pictured_under_other_light_gives_no_false_card(game: str) -> None:
    """``cardtable calibrate`` keeps its frame as the empty mat; the game may be played by other light. What
    differs from that picture only by the light is no card: every card played is reported once, nothing else."""
    if game == "358":
        actions: list[Action] = [Place(C(c), f"seat{i}", i) for i, c in enumerate(["QS", "10H", "2C"])]
        actions.append(Collect(("seat0", "seat1", "seat2"), 1))
    else:
        actions = [Place(C(c), "pile", i % 3) for i, c in enumerate(["5H", "5S", "6S", "6D"])]
    for seed in range(3):
        renderer, events = _play(game, actions, seed=seed, relit=True)
        score = score_events(renderer.events, events)
        assert score.ok and not score.false_events and not score.unreadable, (seed, score.as_dict(), events)


def test_card_slid_into_the_exchange_zone_is_moved_not_replayed():
    renderer, events = _play("358", [Place(C("KH"), "seat1", 1), Slide(C("KH"), "exchange", 1)], seed=2)
    score = score_events(renderer.events, events)
    assert score.ok, (score.as_dict(), events)
    assert [type(e).__name__ for e in events] == ["CardPlaced", "CardMoved", "ZoneCleared"]


def test_makao_pile_growth():
    plays = ["5H", "5S", "6S", "6D", "KD", "KC"]
    renderer, events = _play("makao", [Place(C(c), "pile", i % 3) for i, c in enumerate(plays)], seed=1)
    score = score_events(renderer.events, events)
    assert score.ok, (score.as_dict(), events)


def test_cards_squared_up_where_they_lie_are_not_played_again():
    # Players push the pile's top card or their trick card straight all the time: a hand comes and goes, a card
    # moves a few millimetres. Nothing was played, and nothing may be reported.
    plays = ["5H", "5S", "6S", "6D"]
    actions: list[Action] = []
    for i, c in enumerate(plays):
        actions += [Place(C(c), "pile", i % 3), Nudge(C(c), 5.0 - 2 * i, 4.0, 5.0 - 3 * i, (i + 1) % 3)]
    renderer, events = _play("makao", actions, seed=1)
    score = score_events(renderer.events, events)
    assert score.ok and not score.false_events, (score.as_dict(), events)
    actions = [Place(C("QS"), "seat0", 0), Nudge(C("QS"), -4.0, 6.0, -5.0, 0), Place(C("10H"), "seat1", 1)]
    renderer, events = _play("358", actions, seed=2)
    score = score_events(renderer.events, events)
    assert score.ok and not score.false_events, (score.as_dict(), events)


@pytest.mark.parametrize("nudge_mm", [15.0, 0.0])
def test_the_piles_top_card_squared_up_and_read_otherwise_in_a_second_box_is_no_card_played(nudge_mm: float) -> None:
    # The tracker bench's Makao pile with --nudge (the demo deck, seed 0): a QD on the pile, its index read QD and,
    # in a second box, 6D 0.63, as it always was; pushed 5 mm straight by a player, it changed a card-sized thing,
    # which was taken for a card put down, and the 6D was reported: a card nobody played. Its face, found again
    # where it was pushed to, says that nothing was put down (``CardTracker._nudged``; 0: as before).
    renderer = TableRenderer(layout_for("makao"), seed=0, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration(), TrackerSettings(nudge_mm=nudge_mm))
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    recogniser = TruthRecogniser(miss_rate=0.0, misread_rate=0.0, seed=0)
    events: list[VisionEvent] = []
    actions: list[Action] = [Place(C("6S"), "pile", 0), Place(C("QD"), "pile", 1), Nudge(C("QD"), 5.0, 1.0, 2.0, 2)]
    for rendered in renderer.render(actions):
        found = recogniser.detect_rendered(rendered)
        for corner in rendered.truth.corners:  # the QD's index boxed again, a little wider, and read 6D
            if corner.card == C("QD") and corner.visible:
                wider = np.asarray(corner.polygon) * 1.0
                wider += (wider - wider.mean(axis=0)) * 0.2
                poly = tuple((float(x), float(y)) for x, y in wider)
                found.append(Detection(C("6D"), 0.63, poly, ((C("6D"), 0.63), (C("QD"), 0.2))))
        events += tracker.update(rendered.frame, found)
    played = [e.card for e in events if isinstance(e, CardPlaced)]
    assert played == ([C("6S"), C("QD")] if nudge_mm else [C("6S"), C("QD"), C("6D")])
    if nudge_mm:
        assert not [e for e in events if isinstance(e, UnreadableCard)]


def _bumped(
    renderer: TableRenderer,
    tracker: CardTracker,
    calibrator: Calibrator,
    before: Sequence[Action],
    after: Sequence[Action],
    *,
    phantom_at: np.ndarray | None = None,
    drop_picture: bool = False,
) -> list[VisionEvent]:
    """``before`` tracked, the camera knocked, ``after`` tracked, each frame's recalibration (from the markers) handed
    to the tracker. ``phantom_at`` (table mm): the mat's printing there read as a 5S in every frame, wherever the
    camera now sees it; ``drop_picture``: the tracker's picture of the empty mat dropped at the recalibration."""
    recogniser = TruthRecogniser(seed=6)
    events: list[VisionEvent] = []
    for actions in (before, after):
        for rendered in renderer.render(actions):
            new = calibrator.update(rendered.frame.index, rendered.frame.image)
            if new is not None:
                tracker.set_calibration(new)
                if drop_picture:
                    tracker.set_empty_mat(None)
            found = recogniser.detect_rendered(rendered)
            if phantom_at is not None:
                ((px, py),) = renderer.true_calibration().to_image(phantom_at)
                poly = ((px - 8, py - 10), (px + 8, py - 10), (px + 8, py + 10), (px - 8, py + 10))
                found.append(Detection(C("5S"), 0.7, poly, ((C("5S"), 0.7),)))
            events += tracker.update(rendered.frame, found)
        if actions is before:
            renderer.bump(90, -40, rotate_deg=3)
    return events


def test_camera_bumped_mid_game_is_recalibrated_and_the_game_goes_on():
    renderer = TableRenderer(layout_for("358"), seed=6, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    first = renderer.still(1)[0]
    calibrator = Calibrator(renderer.layout, calibrate(first.frame.image, renderer.layout))  # a check every 30 frames
    tracker = CardTracker(renderer.layout, calibrator.calibration)  # type: ignore[arg-type]
    before = [Place(C("QS"), "seat0", 0), Place(C("10H"), "seat1", 1)]
    events = _bumped(renderer, tracker, calibrator, before, [Place(C("2C"), "seat2", 2), Collect(SEATS, 2)])
    assert calibrator.recalibrations == 1
    probe = np.array([[150.0, 120.0], [450.0, 300.0]])
    seen = renderer.true_calibration().to_image(probe)
    assert np.abs(tracker.calibration.to_table(seen) - probe).max() < 1.5, "the tracker maps with the new view"
    score = score_events(renderer.events, events)
    assert score.ok, (score.as_dict(), events)


@pytest.mark.parametrize("carried", [True, False])
def test_the_empty_mat_is_kept_through_a_bump_so_the_mats_printing_stays_no_card(carried: bool) -> None:
    """The camera knocked mid-game is calibrated again from the markers; the picture of the empty mat, taken in
    the old view, is carried into the new one (the mat is a plane: one homography maps it), so the mat's
    printing read as a card index is still ignored after the bump. Dropping it (the control) lets the players
    hear of a 5S that nobody played."""
    renderer = TableRenderer(layout_for("358"), seed=6, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    calibrator = Calibrator(renderer.layout, renderer.true_calibration())
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    cx, cy = renderer.layout.zone("seat1").center
    printing = np.array([[cx - 45, cy - 65]])  # a corner of seat 1's zone, where no card lands: its printed edge
    after: list[Action] = [Place(C("10H"), "seat1", 1), Place(C("2C"), "seat2", 2), Collect(SEATS, 2)]
    events = _bumped(
        renderer,
        tracker,
        calibrator,
        [Place(C("QS"), "seat0", 0)],
        after,
        phantom_at=printing,
        drop_picture=not carried,
    )
    assert calibrator.recalibrations == 1
    placed = [str(e.card) for e in events if isinstance(e, CardPlaced)]
    assert [card for card in placed if card != "5S"] == ["QS", "10H", "2C"], events
    assert ("5S" in placed) is not carried, events


@pytest.mark.parametrize("unseen", [0, 6])
def test_the_card_laid_just_after_a_knock_is_outlined_where_it_lies(unseen: int) -> None:
    """A zone's views of how it lay are carried through a knock, so the first card laid after it is outlined (its
    outline is what tells the card just put down from the cards beneath, and where the recogniser reads it when
    the detector misses it). Dropping them, as the tracker did, left that card with no outline: the held-out
    tango_nuevo deck's cards laid just after a knock were read wrong or asked about (`bench tracker --bump 3`).
    ``unseen``: frames after the knock in which the markers are not looked at (a hand over one): the tracker sees
    the pile settle in the new view while it still maps with the old, and that view must not be moved again."""
    renderer = TableRenderer(layout_for("makao"), seed=2, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    calibrator = Calibrator(renderer.layout, renderer.true_calibration())
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    for rendered in renderer.render([Place(C("5H"), "pile", 0), Place(C("9S"), "pile", 1), Wait(3)]):
        calibrator.update(rendered.frame.index, rendered.frame.image)
        tracker.update(rendered.frame, [])
    renderer.bump(45, 25, rotate_deg=-1.5)  # as the next player's hand comes
    for rendered in renderer.apply(Wait(unseen)) if unseen else []:
        tracker.update(rendered.frame, [])
    outlined = []
    for rendered in renderer.apply(Place(C("KD"), "pile", 2)):
        new = calibrator.update(rendered.frame.index, rendered.frame.image)
        if new is not None:
            tracker.set_calibration(new)
        tracker.regions_to_read(rendered.frame)
        found = tracker.new_card_outlines(rendered.frame)
        tracker.update(rendered.frame, [])
        if not rendered.truth.hand:
            outlined.append(found)
    assert calibrator.recalibrations == 1
    lying = renderer.scene.lying[-1]
    truth = renderer.true_calibration().to_image(TableRenderer._card_quad(lying.x, lying.y, lying.angle))
    assert outlined[0], "the KD put down just after the knock was not outlined in its first still frame"
    worst = max(float(np.min(np.linalg.norm(outlined[0][0] - t, axis=1))) for t in truth)
    assert worst < 6.0, (outlined[0][0], truth)  # within 3 mm at every corner, in the new view


@pytest.mark.parametrize("pictured", [True, False])
def test_the_first_card_laid_as_play_starts_is_outlined_from_the_picture_of_the_empty_mat(pictured: bool) -> None:
    """Play starts at once: the first hand comes before the tracker has seen the pile settled. With the picture of
    the empty mat (as `cardtable calibrate` saves it) that picture is how the pile lay, and the first card is
    outlined like any other; without one (the control) it is not, and it is read from its indices alone."""
    renderer = TableRenderer(layout_for("makao"), seed=2, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    if pictured:
        tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    outlined = []
    for rendered in renderer.apply(Place(C("KD"), "pile", 0)):
        tracker.regions_to_read(rendered.frame)
        found = tracker.new_card_outlines(rendered.frame)
        tracker.update(rendered.frame, [])
        if not rendered.truth.hand:
            outlined.append(found)
    assert bool(outlined[0]) is pictured, outlined[0]
    if pictured:
        lying = renderer.scene.lying[-1]
        truth = renderer.true_calibration().to_image(TableRenderer._card_quad(lying.x, lying.y, lying.angle))
        worst = max(float(np.min(np.linalg.norm(outlined[0][0] - t, axis=1))) for t in truth)
        assert worst < 6.0, (outlined[0][0], truth)


@pytest.mark.parametrize("pictured", [True, False])
def test_a_pile_nothing_is_read_on_is_not_gone_while_its_cards_lie_there(pictured: bool) -> None:
    """The pile is gone when nothing is read there for ``gone_frames`` still frames, and nothing lies there: cards
    the models stop reading (a deck they cannot read, a glare) are still a pile, and its going is said once, when it
    is taken away. Reading alone, the players heard the pile cleared under their eyes."""
    renderer = TableRenderer(layout_for("makao"), seed=4, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    if pictured:  # else what lies there is told by the felt's colour
        tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    recogniser = TruthRecogniser(miss_rate=0.0, misread_rate=0.0, seed=4)
    events: list[VisionEvent] = []
    for rendered in renderer.render([Place(C("5H"), "pile", 0), Place(C("9S"), "pile", 1), Wait(3)]):
        events += tracker.update(rendered.frame, recogniser.detect_rendered(rendered))
    assert [str(e.card) for e in events if isinstance(e, CardPlaced)] == ["5H", "9S"]
    for rendered in renderer.apply(Wait(3 * tracker.settings.gone_frames)):
        events += tracker.update(rendered.frame, [])  # nothing read
    assert not [e for e in events if isinstance(e, ZoneCleared)], events
    for rendered in renderer.render([Collect(("pile",), 2), Wait(3 * tracker.settings.gone_frames)]):
        events += tracker.update(rendered.frame, [])
    assert [type(e).__name__ for e in events if not isinstance(e, CardPlaced)] == ["ZoneCleared"], events


def test_the_card_just_put_down_is_outlined_through_a_dim_rooms_sensor_noise():
    # The outline of the card just put down is what keeps a covered card's corner, read otherwise beside it,
    # from being reported as a card played. At 16 grey levels of sensor noise (a dim room, the gain up) each
    # frame's noise crossed the change threshold all over the zone and no card was outlined: the trained
    # models then reported 4 cards nobody played in three 40-card piles (`bench tracker --noise 16`).
    renderer = TableRenderer(layout_for("makao"), RenderSettings(noise_sigma=16.0), seed=1)  # the demo deck
    calibration = renderer.true_calibration()
    tracker = CardTracker(renderer.layout, calibration)
    tracker.set_empty_mat(renderer.still(1)[0].frame.image)
    for rendered in renderer.apply(Wait(3)):  # the pile at rest before the first card: the view to compare with
        tracker.update(rendered.frame, [])
    for k, card in enumerate(["5H", "5S", "6S", "KD"]):
        outlined = []
        for rendered in renderer.apply(Place(C(card), "pile", k % 3)):
            tracker.regions_to_read(rendered.frame)
            found = tracker.new_card_outlines(rendered.frame)
            tracker.update(rendered.frame, [])
            if not rendered.truth.hand:
                outlined.append(found)
        lying = renderer.scene.lying[-1]
        truth = calibration.to_image(TableRenderer._card_quad(lying.x, lying.y, lying.angle))
        assert outlined[0], f"the {card} put down on the pile was not outlined in its first still frame"
        assert len(outlined[0]) == 1
        # within 3 mm at every corner (the table is filmed at about 2 px per mm)
        worst = max(float(np.min(np.linalg.norm(outlined[0][0] - t, axis=1))) for t in truth)
        assert worst < 6.0, (card, outlined[0][0], truth)


@pytest.mark.parametrize("blur", [1.5, 2.0])
def test_a_picture_of_the_bare_mat_through_a_lens_a_little_out_of_focus_names_no_zone(blur: float) -> None:
    """SEAT 3's outline and the exchange's lie 16 mm apart; a soft lens spread them into one thing of a fifth of a
    card's area, and ``cardtable calibrate`` kept asking the players to clear a bare zone. The mat's own printing is
    not something lying there; a card in the same soft picture still is."""
    settings = RenderSettings(blur_sigma=blur, tilt_deg=0.0)
    renderer = TableRenderer(
        layout_for("358"), settings=settings, seed=0, face_loader=placeholder_face, boxes_loader=placeholder_boxes
    )
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    assert tracker.occupied_zones(renderer.still(1)[0].frame.image) == []
    played = list(renderer.render([Place(C("QS"), "seat2", 2)]))[-1].frame.image
    assert tracker.occupied_zones(played) == ["seat2"]


def test_a_frame_with_a_card_or_a_hand_in_a_zone_is_no_picture_of_the_empty_mat():
    """What ``cardtable calibrate`` checks before it keeps its frame as the empty mat: the zone a card lies in, or
    a hand reaches into, is named; the bare mat, its printing and markers included, names none."""
    from vision.render.table import _Hand

    renderer = TableRenderer(layout_for("358"), seed=3, face_loader=placeholder_face, boxes_loader=placeholder_boxes)
    tracker = CardTracker(renderer.layout, renderer.true_calibration())
    empty = renderer.still(1)[0].frame.image
    assert tracker.occupied_zones(empty) == []
    cx, cy = renderer.layout.zone("seat2").center
    renderer.scene.hand = _Hand(2, cx, cy)  # a player's hand over the zone, nothing in it
    assert tracker.occupied_zones(renderer.still(1)[0].frame.image) == ["seat2"]
    renderer.scene.hand = None
    played = list(renderer.render([Place(C("QS"), "seat1", 1)]))[-1].frame.image
    assert tracker.occupied_zones(played) == ["seat1"]
    with pytest.raises(ValueError, match="a 640x360 frame for a calibration made at"):
        tracker.occupied_zones(cv2.resize(empty, (640, 360)))
