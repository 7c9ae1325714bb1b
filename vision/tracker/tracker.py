""":class:`CardTracker`, the top layer of the tracker: the frame-by-frame update, the calibration and the regions to
read, and the referee's word. What the tracker does is described in :mod:`vision.tracker`."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from engine.cards import Card
from vision.calibration import Calibration
from vision.detections import BoxReader, Detection, Region
from vision.events import CardMoved, VisionEvent
from vision.shading import SHADE_WINDOW_MM
from vision.sources.base import Frame
from vision.tracker.confirm import _Confirms
from vision.tracker.geometry import _grown, _image_bounds
from vision.tracker.settings import TrackerSettings
from vision.tracker.state import REPORTED_VIEWS, _Pending, _Track, _ZoneState
from vision.zones import ZoneLayout


class CardTracker(_Confirms):
    """Turns each frame's detections into :mod:`vision.events`; call :meth:`update` for every frame.

    ``calibration`` maps image pixels to table mm; give a new one with :meth:`set_calibration` when the
    :class:`~vision.calibration.Calibrator` redoes it. ``reader``, when given, reads a card the detector
    missed at the places its outline gives (see :mod:`vision.tracker`). ``decks``: copies of each card in the
    game (Makao with five or six players: 2), which the table sets from the referee's rules.
    """

    def __init__(
        self,
        layout: ZoneLayout,
        calibration: Calibration,
        settings: TrackerSettings | None = None,
        *,
        reader: BoxReader | None = None,
        decks: int = 1,
    ) -> None:
        if decks < 1:
            raise ValueError(f"decks must be at least 1, not {decks}")
        self.layout = layout
        self.settings = settings or TrackerSettings()
        self.decks = decks
        """Copies of each card in the game. With two, a card put down on the pile over the other copy of its
        face, where that one was read, is the second copy (:meth:`_second_copy`), not the first seen again."""
        self.pushes_followed = 0
        """Times the top card of a pile was found pushed straight where it lay (:meth:`_nudged`): nothing played,
        nothing to say. A push not followed is compared as a card put down, and what is read then may be reported
        or asked about (``cardtable bench tracker --nudge`` counts both)."""
        self.reader = reader
        """Reads given boxes without the detector (:meth:`vision.recognise.OnnxRecogniser.read`): with one, a
        card the detector missed is read at its outline's corners. ``None`` reads only the detections."""
        self.zones = {z.name: _ZoneState(z) for z in layout.zones}
        self._ids = itertools.count(1)
        self._prev_small: np.ndarray | None = None
        self._prev_frame: tuple[int, float] = (0, 0.0)
        self.calibration = calibration
        self._empty: np.ndarray | None = None
        self._empty_known: np.ndarray | None = None
        """Where :attr:`_empty` shows the mat (255) after a bump carried it into a new view, else None (all of it)."""
        self._empty_view: np.ndarray | None = None
        """The picture of the empty mat as the camera gave it (colour): how a zone nothing has lain in yet lay before
        the first hand, where the tracker has not seen it settled (:meth:`_bare`)."""
        self._seen: tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, bool], np.ndarray | None] | None = None
        self._prev_colour: np.ndarray | None = None
        self._changes: tuple[np.ndarray | None, dict[tuple[str, int, int], tuple[np.ndarray, np.ndarray]]] = (None, {})
        """:meth:`_changed_since`'s answers for the frame being read (its image, and by zone and views)."""
        """The frame being taken: its image, grey and small grey versions and motion (worked out by
        :meth:`regions_to_read`, then used by :meth:`update`)."""
        self._unread: tuple[np.ndarray, frozenset[str]] | None = None
        """The frame being taken and its zones at rest, left unread (:meth:`regions_to_read`)."""
        self._rest_run = 0
        """Frames running in which some zone was left unread (for ``rest_check_frames``)."""
        self.set_calibration(calibration)

    # ----- calibration and motion ------------------------------------------------------------
    def set_calibration(self, calibration: Calibration) -> None:
        """Use a new image-to-table mapping (after a bump): zone masks are redrawn, motion starts afresh, and the
        picture of the empty mat and the zones' kept views are carried into the new view (:meth:`_carry_empty_mat`,
        :meth:`_carry_views`)."""
        old: Calibration | None = getattr(self, "calibration", None)
        if old is not None and calibration is not old:
            self._carry_empty_mat(old, calibration)
            self._carry_views(old, calibration)
        self.calibration = calibration
        ds = self.settings.downscale
        w, h = calibration.image_size
        mx, my = self.layout.width / 2, self.layout.height / 2
        across = calibration.to_image(np.array([[mx, my], [mx + 100.0, my]]))
        self._shade_window = round(SHADE_WINDOW_MM * float(np.linalg.norm(across[1] - across[0])) / 100 / ds) | 1
        """:data:`vision.shading.SHADE_WINDOW_MM` in the small frames :meth:`_motion` compares."""
        sw, sh = max(1, w // ds), max(1, h // ds)
        margin = self.settings.zone_margin_mm
        self._regions = {
            name: _image_bounds(calibration, state.zone, self.settings.read_margin_mm, w, h)
            for name, state in self.zones.items()
            if state.zone.reads_cards
        }
        for state in self.zones.values():
            poly = calibration.to_image(_grown(state.zone, margin)) / ds
            full = np.zeros((sh, sw), np.uint8)
            cv2.fillPoly(full, [np.round(poly).astype(np.int32)], 1)
            ys, xs = np.nonzero(full)
            if len(xs) == 0:
                state.bbox = (0, 0, 0, 0)
                state.mask = np.zeros((0, 0), bool)
                continue
            bx1, by1, bx2, by2 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
            state.bbox = (bx1, by1, bx2, by2)
            state.mask = full[by1:by2, bx1:bx2].astype(bool)
            state.at_rest = False  # the view moved: read it again
        self._prev_small = self._prev_colour = None
        self._seen = self._unread = None

    def regions(self) -> list[Region]:
        """The parts of the frame the recogniser should read: each zone whose cards are read, grown by
        ``read_margin_mm``, as its bounding rectangle in image pixels (clipped to the frame).

        Why: read on their own, fitted to the detector's input, the zones' corner indices reach it at
        about twice the size they have in the whole frame, and far more are found and read sure
        (docs/vision.md). Zones outside the frame give empty rectangles, which the recogniser skips.
        """
        return list(self._regions.values())

    def regions_to_read(self, frame: Frame) -> list[Region]:
        """The parts of ``frame`` to read before :meth:`update`: :meth:`regions`, less the zones at rest.

        A zone is at rest when nothing moved there since its last reading and that reading left nothing to
        settle (:meth:`_settled`: still for ``rest_frames``, no reading that could yet be confirmed, every
        reported card there seen, no event). Its last reading stands for it: a still zone reads the same,
        so reading it again changes nothing but the Pi's load. Every ``rest_check_frames``-th frame while
        zones rest reads them all the same. Pass what the recogniser found in these regions to
        :meth:`update`, or ``None`` when there are none (the whole table at rest)."""
        _gray, _small, motion = self._look(frame)
        check = self.settings.rest_check_frames
        due = bool(check) and (self._rest_run + 1) % check == 0
        resting = frozenset(name for name in self._regions if not due and self.zones[name].at_rest and not motion[name])
        self._unread = (frame.image, resting)
        return [region for name, region in self._regions.items() if name not in resting]

    def new_card_outlines(self, frame: Frame) -> list[np.ndarray]:
        """The outline (image pixels, 4 x 2) of the card put down in each still zone of ``frame`` since the last
        hand there, for the recogniser (:meth:`vision.detections.Recogniser.detect` ``outlines``): an index on
        that card is that card's, and so are the pips round it, not the neighbours' that peek out beside it.
        Call it before reading the frame, after :meth:`regions_to_read`; the outline is found in a zone's first
        still frame (the same search :meth:`update` makes, made once)."""
        _gray, _small, motion = self._look(frame)
        self._seek_outlines(frame.image, motion)
        return self._still_outlines(motion)

    def _settled(self, state: _ZoneState) -> bool:
        """Whether the zone's last reading left nothing to settle: still for ``rest_frames``, no unconfirmed
        reading that could yet be confirmed (:meth:`_settled_reading`), no card put down and not yet read,
        and every reported card seen (on a pile the top one: those beneath are covered)."""
        if state.still_run < self.settings.rest_frames:
            return False
        if not all(self._settled_reading(state, p) for p in state.pending):
            return False
        if state.outline is not None and not state.placed_still and not state.unreadable_reported:
            return False
        return not any(t.missing for t in (state.tracks[-1:] if state.zone.kind == "pile" else state.tracks))

    def _settled_reading(self, state: _ZoneState, pending: _Pending) -> bool:
        """Whether an unconfirmed reading can come to nothing but being dropped: on a pile whose one card put
        down since the hand is reported, a reading wholly on that card (it read otherwise) or wholly off it (a
        covered card's corner peeking out) is never a card played (:meth:`_confirm`). Such weak readings of the
        covered corners stay on a pile for the whole still run; reading them again changes nothing."""
        if state.zone.kind != "pile" or not state.placed_still or state.outline is None:
            return False
        floor = self.settings.pile_min_confidence
        return self._on_reported_outline(state, pending) or all(
            self._off_outline(state, pending.where(card, floor)) for card in pending.votes
        )

    # ----- the update ------------------------------------------------------------------------
    def update(self, frame: Frame, detections: Sequence[Detection] | None) -> list[VisionEvent]:
        """Take one frame and its detections; return the events it confirms (usually none).

        ``detections`` are what the recogniser found in :meth:`regions_to_read` (or in :meth:`regions`, or
        the whole frame, when that was not asked: then every zone counts as read). A zone left unread keeps its
        last reading. ``None`` when nothing was read; a ValueError if some zone had to be."""
        if frame.size != self.calibration.image_size:
            raise ValueError(
                f"frame {frame.index} is {frame.size[0]}x{frame.size[1]} but the calibration was made at "
                f"{self.calibration.image_size[0]}x{self.calibration.image_size[1]}: recalibrate at this size"
            )
        unread = self._unread[1] if self._unread is not None and self._unread[0] is frame.image else frozenset()
        if detections is None:
            if unread != set(self._regions):
                raise ValueError(f"frame {frame.index} was not read, but the table is not at rest: read it")
            detections = []
        gray, small, motion = self._look(frame)
        self._seek_outlines(frame.image, motion)
        if self.reader is not None:
            detections = [*detections, *self._read_outlines(frame.image, detections, motion, unread)]
        observations = self._observations(detections, gray)
        for name in unread:  # not read: its last reading stands
            observations[name] = self.zones[name].prev_obs
        events: list[VisionEvent] = []
        still_zones: list[_ZoneState] = []
        for name, state in self.zones.items():
            obs = observations[name]
            if motion[name]:
                if state.still_run >= self.settings.confirm_frames and state.last_still is not None:
                    if not self._stay(state):
                        state.stayed = None
                    elif state.stayed is None and state.lifted is None:
                        state.stayed = state.before
                    if state.zone.kind == "pile" and self._top_taken(state):
                        state.lifted = state.tracks[-1]
                    state.before = state.last_still  # the zone as it lay before this hand
                    top = state.tracks[-1] if state.zone.kind == "pile" and state.tracks else None
                    state.top_before = None if top is None else (top, [p.copy() for p in top.still_points])
                    state.expected.clear()  # what lay here at the start has been read: the rest is play
                    if state.placed_still and not state.withdrawn:
                        state.reported_views = [*state.reported_views[1 - REPORTED_VIEWS :], state.last_still]
                elif state.before is None and self._bare(state):
                    state.before = self._empty_view  # nothing has lain here: the empty mat is how it lay
                state.withdrawn = False
                state.outline, state.outline_sought = None, False
                state.still_run = 0
                state.pending.clear()
                state.set_aside.clear()
                state.unreadable_reported = False
                state.placed_still = state.nudged = False
                state.empty_frames = 0
                for track in state.tracks:
                    track.seen_still = False
                    track.seen_peak = 0.0
                    track.still_points = []
                state.prev_obs = obs
                continue
            if state.still_run == 0:
                state.still_frame, state.still_t = self._prev_frame
                state.still_run = 1
                self._observe(state, state.prev_obs)
            state.still_run += 1
            state.last_still = frame.image
            self._observe(state, obs)
            state.prev_obs = obs
            still_zones.append(state)
        for state in still_zones:
            events += self._confirm(state, frame)
        busy = any(motion.values()) or any(not self._explained(st, p) for st in self.zones.values() for p in st.pending)
        for state in still_zones:
            events += self._retire(state, frame, busy)
        for state in still_zones:
            events += self._unreadable(state, frame)
        self._prev_small = small
        self._prev_colour = self._seen[4] if self._seen is not None else None
        self._prev_frame = (frame.index, frame.t)
        self._seen = self._unread = None  # the next frame's motion is measured against this one
        self._rest_run = self._rest_run + 1 if unread else 0
        touched = {z for e in events for z in ((e.from_zone, e.to_zone) if isinstance(e, CardMoved) else (e.zone,))}
        for name, state in self.zones.items():
            state.at_rest = self.settings.rest_frames > 0 and name not in touched and self._settled(state)
        return events

    # ----- state for the controller and tests ------------------------------------------------
    def expect(self, lying: Mapping[str, Sequence[Card]]) -> None:
        """Cards the referee knows lie face up in each zone now: each, read there before the zone's first settled
        view ends (a hand comes), becomes a track with no event. A card not among them is reported as ever.

        Why: a tracker starts knowing nothing, so when the controller comes back mid-game (after a power cut the
        referee resumes from its journal) or is given a camera it must calibrate afresh, it would report every
        card on the mat as played again: a Makao pile's top card refused as "already on the pile" and its player
        asked to place it again (and, read with a second candidate, laid as a card nobody played), a covered card
        peeking out beside it the same, a 3-5-8 trick's cards as second cards of their seats. And the other way
        round: a zone whose expected cards are not there (nothing read, nothing card-shaped, for ``gone_frames``
        still frames) is reported cleared, as a trick collected while the table was off must be: the referee
        waits for that collection before it takes the next trick's cards."""
        for name, cards in lying.items():
            state = self.zones.get(name)
            if state is None:
                raise ValueError(f"no zone {name!r} on this mat (zones: {', '.join(self.zones)})")
            state.expected = list(cards)
            state.lifted = None

    def gathered(self, zone: str, top: Card | None = None) -> None:
        """Forget the cards under ``zone``'s top card: the referee's word that they were taken away (Makao:
        the stock ran out, and a player shuffled the pile from under its top card into a new one).

        Why the camera has to be told: a pile's covered cards are kept until the whole pile goes (they are out
        of sight most of the time anyway), so a card played again after such a reshuffle, landing near where it
        lay before, was matched to its old track and taken for that card seen again. The demo deck's Makao
        seed 1 (79 cards, the pile reshuffled after the 50th) had 27 of the 28 cards played since entered by
        the operator. The track kept is the latest of ``top``'s face, else the latest reported (a top card the
        referee took as another candidate than the one reported)."""
        state = self.zones.get(zone)
        if state is None:
            raise ValueError(f"no zone {zone!r} on this mat (zones: {', '.join(self.zones)})")
        state.expected = [c for c in state.expected[-1:] if top is not None and c.same_face(top)]
        state.reported_views = []  # the pile beneath goes: its views are no longer what lies there
        state.lifted = None
        same = [t for t in state.tracks if top is not None and t.card.same_face(top)]
        if state.tracks:
            state.tracks = [same[-1] if same else state.tracks[-1]]

    def taken_back(self, card: Card | None) -> None:
        """The referee's word that ``card`` was taken back (a player's long press: the table named it wrong;
        ``None``: some card). Where it is the card last reported, the view kept after it was reported held a card
        no longer played, which its player may lay again just where it lay: read right then at the corner it was
        not reported from, it would look like something that lay there before (:meth:`_unchanged`) and never be
        reported. A card the camera did not report (the referee named it from an unreadable card's guesses, or
        the operator entered it) leaves that view as it is: it was laid after it. The tracks stay: the physical
        card is still there until its player picks it up; picked up and laid again, it is a card played again, not
        the card taken off the pile laid again (``_ZoneState.lifted``). On a pile it goes once a card is reported
        over it (:meth:`_place`)."""
        for state in self.zones.values():
            if state.last_reported is None or (card is not None and not state.last_reported.same_face(card)):
                continue
            if state.placed_still:
                state.withdrawn = True  # reported in this still run, whose view is not kept yet
            elif state.reported_views:
                state.reported_views.pop()
        for state in self.zones.values():  # taken back, it is played again if it is laid again
            if state.lifted is not None and (card is None or state.lifted.card.same_face(card)):
                state.lifted = None
            for track in state.tracks[-1:]:
                if card is None or track.card.same_face(card):
                    track.taken_back = True

    def named(self, zone: str, card: Card) -> None:
        """The referee's word that the card the tracker asked about on the pile ``zone``
        (:class:`~vision.events.UnreadableCard`) is ``card``: its player picked it from the guesses with his button, or
        the operator entered it. Where the ask still stands (nothing reported since) it becomes a track where it was
        read, with no event, as a card reported. Play zones are left as they are: a card there that is never read would
        be taken for gone.

        Why: a card never reported is one the tracker does not have. Picked up to be straightened, it was not
        known as the card taken off the pile (``_ZoneState.lifted`` took the card beneath it, or nothing), so laid
        again it was asked about again (tango_nuevo, Makao for four with ``--retake``: a 4S and a 10S, each named
        with the button, then laid again)."""
        state = self.zones.get(zone)
        if state is None:
            raise ValueError(f"no zone {zone!r} on this mat (zones: {', '.join(self.zones)})")
        if state.zone.kind != "pile" or not state.asked:
            return
        aside = next((p for c, p in state.set_aside.items() if c.same_face(card)), None)
        under = next((points for c, points in state.known_guesses.items() if c.same_face(card)), None)
        state.known_guesses = {}
        if aside is not None:
            pending = aside  # a guess read surely off the outline: it lies where it was read
            state.set_aside = {c: p for c, p in state.set_aside.items() if p is not aside}
        elif under is not None:  # a card put down read only as one the tracker has: it lies where it was read
            pending = _Pending([p.copy() for p in under])
        elif state.pending:
            pending = max(state.pending, key=lambda p: (p.weight_of(card) / max(1, p.frames), p.frames))
            state.pending.remove(pending)
        else:
            return
        face = next((c for c in pending.candidates if c.same_face(card)), card)
        # it lies where that place read it, the card put down in this still run, as the card taken off laid again
        self._lay_again(state, _Track(next(self._ids), card, state.zone.name, [], 0.0), pending, face)
        state.asked = False
        state.last_reported = card

    def cards_in(self, zone: str) -> list[Card]:
        """The reported cards the tracker believes lie in ``zone`` (covered pile cards included)."""
        return [t.card for t in self.zones[zone].tracks]
