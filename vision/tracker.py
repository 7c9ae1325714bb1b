"""From per-frame detections to card events: the tracker.

The recogniser reads each frame on its own; players do not play one frame at a time. A hand carries
a card across other zones, covers it while letting go, and the recogniser now and then misreads a
corner. So the tracker reports a card only when the view of its zone is still (no motion there, by
frame differencing) and several frames agree on what it is, and it remembers every card it has
reported, so that the same physical card is never reported twice and a card slid to another zone is
a :class:`~vision.events.CardMoved`, not a new card.

Per zone (a polygon of the mat, in table mm, mapped into the image by the calibration):

* **motion**: the share of the zone's pixels (on a quarter-size, blurred grey frame) that changed
  since the previous frame. Any motion resets the zone's votes: a hand may have put something down.
* **still run**: consecutive frames without motion. Its first frame is the frame *before* the first
  still comparison (that frame already looked like the still view); it is the event's ``still_frame``.
* **pending cards**: during a still run, detections (corner indices, grouped into physical cards by
  label and distance) that are not a card already reported vote for a reading at their place on the
  mat. A reading is confirmed when ``confirm_frames`` still frames read it, it has ``agreement`` of the
  votes where it was read (within ``same_place_mm``; votes weighed by confidence and by the corners it
  was read at: a card read alike at both corners is two witnesses), and a mean confidence of at least
  ``min_confidence``. A reading on an index that is read as a reported card in the same frame (boxes
  overlapping by ``same_index``, centred within ``same_place_mm``) is that card misread and gets no vote;
  readings of one index as different cards in one frame share one witness.
* **outline**: what changed in the zone since the view before the hand came is the card just put down; its
  card-sized outline gives its corners, and where decks print their indices follows (:mod:`vision.proposals`).
  With a ``reader`` (the classifier alone) those places are read in each still frame until a card is
  confirmed there, so that a card the detector does not find is read all the same; readings under
  ``min_confidence`` are dropped, the others vote like any other. One card put down is one card: once it is
  reported, a reading wholly on it is it read otherwise, and one wholly off it lay there before the hand.
* **confirmed cards** (tracks) that are not seen for ``gone_frames`` still frames have left: a
  :class:`CardRemoved` for each, then a :class:`ZoneCleared` when the zone is empty. On a ``pile``
  zone (Makao) a card that stops being seen has been covered by the next one: no event until the
  whole pile goes, which is one ``ZoneCleared``.
* **unreadable**: something card-shaped (a bright quadrilateral on the felt, or detections too weak
  or too divided to confirm) stays still for ``unreadable_frames`` frames: one :class:`UnreadableCard`
  per still run, with the best guesses. The referee may take that card from a seat button, so when
  later nothing is read in the zone for ``gone_frames`` still frames and nothing card-shaped is left,
  the zone gets its :class:`ZoneCleared` like any other.

* **what the referee knows** and a camera cannot see: a tracker started mid-game (after a restart) is told
  which cards lie where already (:meth:`CardTracker.expect`), and takes each, read in its zone's first settled
  view, without an event, or reports the zone cleared when they are gone; at a new Makao stock it is told
  that the cards under the pile's top card are gone (:meth:`CardTracker.gathered`), so one of them played
  again is a new card.

Every threshold is a field of :class:`TrackerSettings`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

import cv2
import numpy as np

from engine.cards import Card
from vision.calibration import Calibration, CalibratorSettings, detect_markers, marker_drift
from vision.detections import BoxReader, Detection, Region, box_overlap, box_overlaps
from vision.events import CardMoved, CardPlaced, CardRemoved, UnreadableCard, VisionEvent, ZoneCleared
from vision.proposals import (
    INDEX_CORE_MM,
    changed_at,
    changed_card,
    changed_pixels,
    index_quads,
    lit_only,
    misfit,
    unchanged_at,
)
from vision.shading import DARKEST, SHADE_WINDOW_MM, shading_only, shadowed
from vision.sources.base import Frame
from vision.zones import CARD_SIZE_MM, Zone, ZoneLayout

REPORTED_VIEWS = 3
"""How many settled views after cards reported a pile keeps (:meth:`CardTracker._unchanged`): the last card's,
and those before it, which a player picking the top card up again (or two) brings back into view."""
CARRIED_SLACK_PX = 2
"""How far, in pixels, the picture of the empty mat carried through a bump (:meth:`CardTracker._carry_empty_mat`)
may lie off the new view where a detection is compared with it: the old and new homographies are each fitted to
markers (on the synthetic table 0.1 mm of error still put a zone's printed edge 0.7 px off, a mean difference of 16
grey levels against 2 in the old view)."""

_INDEX_AREA = np.pi * INDEX_CORE_MM**2
"""An index's worth of pixels in the zones' top-down views (1 px per mm): less change than this is none."""
SHADE_WINDOW = round(SHADE_WINDOW_MM) | 1
""":data:`vision.shading.SHADE_WINDOW_MM` in the zones' top-down views (1 px per mm)."""
_SHADOW_MM = 4.0
"""Table mm per pixel of the whole mat's view in which :meth:`CardTracker.occupied_zones` looks for shadows (a
shadow's edge blurs over centimetres; a card's fifth is 70 such pixels)."""
_REACH_MM = 35
"""How much of the edge of a zone's view (table mm, 1 px per mm) something must lie across to be an arm reaching in:
an arm or a wrist is 80-100 mm across (the renderer's resting hands: 98-122 mm); a card put down lies inside the
view, 20 mm of margin in from its edge."""
_ONE_CARD_SIDES = (0.75, 1.25)
"""How far the sides of one card's outline may lie from a card's (a share of them): a card's edge lost in the
felt's colour or the view's edge, a blurred one grown."""
_ONE_CARD_FILL = 0.88
"""The least share of the rectangle around it that one card's outline fills (a card's rounded corners take 1-3 %;
a bent or blurred card a little more)."""
OCCUPIED_SHARE = 0.2
"""Something off the felt this share of a card's area or larger makes a zone occupied
(:meth:`CardTracker.occupied_zones`): a card's corner peeking in, a fingertip's length of a hand; the mat's
printing, thin lines and letters, stays under it (the synthetic mat's zone labels and outlines)."""


@dataclass(frozen=True)
class TrackerSettings:
    """The tracker's thresholds (all in one place, so the config and the benchmark can turn them)."""

    downscale: int = 4
    """Motion is measured on a frame this many times smaller (averaging removes sensor noise)."""
    motion_threshold: int = 16
    """Grey-level change of a small-frame pixel that counts as changed."""
    motion_fraction: float = 0.004
    """Share of a zone's pixels that must change for the zone to be in motion."""
    confirm_frames: int = 3
    """Still frames that must agree on a reading before the card is reported."""
    agreement: float = 0.6
    """Share of the votes at one place that the winning reading needs (votes weighed by their confidence, so a
    weak misread does not outweigh a confident reading, and by the corners read alike in that frame)."""
    min_confidence: float = 0.5
    """Recogniser confidence the winning reading needs: the mean, over the frames that read it, of its best
    confidence in each frame."""
    pile_min_confidence: float = 0.6
    """The same on a pile, where the corners of the cards beneath show cut in part by the cards on top and
    a corner cut that way may be read as another card several frames running."""
    suit_doubt: float = 0.45
    """A reading is not confirmed while the other suit of its colour, same rank (a diamond for a heart, a club
    for a spade), has at least this share of its confidence: the suit is then in doubt and the player is asked
    (``UnreadableCard`` with both as guesses) rather than told a card that may be wrong. Why: the suit pip is
    the smallest mark of an index; a deck that prints it away from the rank (tango_nuevo) or small and blurred
    (the real webcam's clubs) gives readings that stay the same frame after frame and are the other suit. On
    the committed demo deck the rival's share of a confirmed card stayed under 0.36 (3-5-8 seed 0, 96 cards);
    on tango_nuevo (seeds 0 and 1) it leaves 7 of the 20 wrong confirmations, asking about the others
    (docs/vision.md). 0: never."""
    min_detection_confidence: float = 0.05
    """Detections below this are ignored entirely."""
    match_radius_mm: float = 30.0
    """A reading this close to a place already voted on is the same card."""
    same_index: float = 0.2
    """Two boxes overlapping by this share of the smaller, and centred within ``same_place_mm`` on the mat, are one
    corner index boxed twice: when one of them is read as a reported card, the other reading is that index misread
    (a covered card's corner peeking out beside it lies next to it, not on it)."""
    same_place_mm: float = 15.0
    """Readings this close (table mm) read the same ink, an index being about 10 x 22 mm: the agreement share of a
    reading is taken over those of its rivals read this close to it."""
    pile_match_radius_mm: float = 50.0
    """On a pile, a reported card's corner must be this close to count as that card seen again."""
    pair_distance_mm: float = 125.0
    """Two corners with the same reading this close together are one card."""
    other_corner_near: float = 0.55
    other_corner_far: float = 1.05
    """On a pile, a card known by one corner is read again at its other corner if the reading lies this far
    from the known one, as shares of a card's diagonal (index boxes sit a little inside the corners)."""
    gone_frames: int = 5
    """Still frames without seeing a reported card before it is declared gone."""
    max_gone_frames: int = 40
    """While a hand is busy elsewhere on the table a missing card may be on its way to another zone (a slide is
    a move, not a removal and a new card), so removal waits for the table to be still, up to this many frames."""
    unreadable_frames: int = 8
    """Still frames with an unconfirmed card-like thing before UnreadableCard."""
    zone_margin_mm: float = 20.0
    """Detections this far outside a zone still count for it (cards overhang the drawn line)."""
    read_margin_mm: float = 30.0
    """The recogniser is asked to read each zone grown by this much (:meth:`CardTracker.regions`): past
    ``zone_margin_mm`` by half a corner index, so an index that still counts for the zone is read whole."""
    empty_mat_diff: float = 12.0
    """Mean grey-level difference from the empty mat below which a detection is the printed mat, not a card."""
    change_threshold: float = 40.0
    """Change of a top-down pixel (grey levels, any colour channel) that counts when finding the outline of a
    card just put down, from the view before the hand came (:mod:`vision.proposals`)."""
    card_fit: float = 0.12
    """How far (a share) that outline's sides may differ from a card's for its corners to be read."""
    off_outline_mm: float = 0.0
    """A reading this far outside the one card put down in a still run (0: anywhere outside it) lies off it; such
    a reading lay there before the hand came and is no card played. A card's own indices sit 6 mm and more inside
    its edge; over Makao seeds 0-11, 468 cards, the reading places of a card reported on its outline lay 2.6 mm
    inside it at the least, while covered cards' corners read as new cards (seeds 34, 35) lay 1-3 mm outside."""
    covered_inside_mm: float = 3.0
    """On a pile, a reading of a card reported before that lies this far inside the card put down since (its
    outline) does not silence the other readings of its index (``same_index``): that card lies on top, so what
    is read there is the new card, read otherwise. The new card's own indices sit 6 mm and more inside its edge;
    covered cards' corners peeking out beside it lie outside it (``off_outline_mm``)."""
    nudge_mm: float = 15.0
    """When a card-sized thing appeared on a pile and the top card's face, as it lay before the hand, is found again
    (``nudge_alike``) with no corner moved more than this, that card was pushed straight where it lay
    (:meth:`CardTracker._nudged`), and nothing was put down. Players square up the pile all the time, a few
    millimetres and degrees. 0: never."""
    nudge_alike: float = 0.985
    """How alike the top card's face before the hand and what lies there now, aligned, must be to be that card nudged
    (``nudge_mm``): the correlation coefficient of OpenCV's ECC alignment of the two grey views (1: the same). With
    ``--nudge 0.3``, Makao seeds 0-5 (the demo deck, tango_nuevo, two decks): 0.996-1.000 for each of 240 pushes
    followed (0.992-1.000 for 706 in whole games), at most 0.984 for every other card checked; but tango_nuevo's white
    cards printed with little ink come closer (a 2C put down 8 mm from the AC, with ``--retake`` seed 4: 0.971), and in
    whole games as close as a card pushed (a 4H put down 4 mm from the 3H 0.985, an 8S on the 9S 0.993):
    ``nudge_differs`` tells those."""
    nudge_differs: float = 25.0
    """How much, in grey levels, the top card's face before the hand and what lies where it was found (``nudge_alike``)
    may differ where they differ most (over 4 mm square, :func:`_most_differing`) to be that card nudged. With
    ``--nudge 0.3``, Makao seeds 0-5 (the demo deck, tango_nuevo, two decks): 1.6-9.7 for each of 240 pushes followed
    (1.3-9.4 for 706 in whole games, ``cardtable demo --nudge 0.3``); for a card put down onto one of a like face that
    ECC found at least ``nudge_alike`` alike, 107 there and 41-129 for 32 such cards of tango_nuevo's whole Makao
    games, seeds 0-47 (41: a QD, 47 a JS, 49 a QC: court cards share a picture)."""
    nudge_vacated: float = 8.0
    """With two decks, a card's twin laid almost onto it differs from it nowhere (``nudge_differs``); then the card
    beneath still lies where it lay, while a card pushed leaves its place. So the place it left (its view before the
    hand, outside where it was found by 2 mm, :func:`_vacated_change`) must have changed by at least this mean, in grey
    levels, for a nudge. The demo deck, ``--decks 2 --nudge 0.3``, seeds 0-5: 23.3-114.9 for 71 cards pushed (the others
    left less than 10 mm square to say), 14.9-122.0 for 284 in whole games for five and six; Makao for six, seeds 1 and
    2 (a 5S onto the 5S, a QC onto the QC): 0.9 and 2.0."""
    unchanged_share: float = 0.1
    """On a pile, a reading at places where less than this share of the pixels changed since the zone's view before
    the hand (within 6 mm of each, :func:`vision.proposals.unchanged_at`) lay there before: a covered card's
    corner, read otherwise now that the card put down beside it changed what its crop shows. It is no card
    played, also when no outline of the new card was found to say so (``off_outline_mm``): a card put down white
    on white, almost onto the one beneath, changes too little of the view to be outlined. A card's index put
    down at a place changes a third or more of it (0.31 at the least over 433 pile cards of the demo deck and
    tango_nuevo, median 0.70); a covered corner, none. The same share, against the zone's settled view from after
    the last card reported there, holds back a corner that a card picked up again uncovers, and the reported card
    read otherwise (``CardTracker._unchanged``; 0.24 at the least over 175 cards of tango_nuevo, median 0.71)."""
    card_blob_min: float = 0.45
    card_blob_max: float = 1.8
    """Area range, as a multiple of a card's area, of a bright blob that counts as a card."""
    rest_frames: int = 6
    """Still frames after which a zone whose last reading brought nothing new is at rest: until something moves
    there it is not read again (:meth:`CardTracker.regions_to_read`) and its last reading stands. Most of a
    game is players thinking over a still table, or playing into one zone while the others lie still, and
    reading is most of the Pi's work per frame. 0 reads every zone in every frame."""
    rest_check_frames: int = 10
    """While zones rest, every this-many-th frame reads them all the same, in case something changed that the
    motion test did not see (0: never)."""

    def __post_init__(self) -> None:
        # shares of a whole: at 0 every reading beside a reported index would be dropped (same_index) or any
        # minority reading confirmed (agreement); above 1 nothing would ever be
        for name in ("agreement", "same_index", "unchanged_share", "nudge_alike"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"tracker.{name}: must be a share in (0, 1], not {value!r}")
        if not 0.0 <= self.suit_doubt <= 1.0:
            raise ValueError(f"tracker.suit_doubt: must be a share in [0, 1] (0: never), not {self.suit_doubt!r}")
        if self.nudge_mm < 0:
            raise ValueError(f"tracker.nudge_mm: must be at least 0 (0: never), not {self.nudge_mm!r}")
        for name in ("nudge_differs", "nudge_vacated"):
            if getattr(self, name) < 0:
                raise ValueError(f"tracker.{name}: must be at least 0 grey levels, not {getattr(self, name)!r}")
        # a frame cannot be shrunk 0 times, and a card confirmed by no frame would be a guess
        for name in ("downscale", "confirm_frames"):
            if getattr(self, name) < 1:
                raise ValueError(f"tracker.{name}: must be at least 1, not {getattr(self, name)!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrackerSettings:
        """Settings from config; an unknown key or a bad value raises ValueError naming it."""
        return _settings_from_dict(cls, data, "tracker")


@dataclass(eq=False)
class _Obs:
    """One physical card as seen in one frame: a reading, its corner positions (mm) and confidence."""

    card: Card
    points: list[np.ndarray]
    confidence: float
    candidates: dict[Card, float]
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    """The detections' boxes in image pixels: which index a reading is, where two lie close on the mat."""
    weights: list[float] = field(default_factory=list)
    """Per corner (as ``points``), what this reading of it weighs in the vote: its confidence, times its share of
    that index's readings when the index was also read as another card in the frame (:func:`_witness_weights`)."""
    box_confidences: list[float] = field(default_factory=list)
    """Per box (as ``boxes``), the confidence it was read with."""


@dataclass(eq=False)
class _Track:
    """A reported card."""

    id: int
    card: Card
    zone: str
    points: list[np.ndarray]
    confidence: float
    missing: int = 0
    seen_still: bool = True
    """Seen since its zone's last motion (a card not verified after a hand passed may have been moved)."""
    seen_peak: float = 1.0
    """The surest reading that saw it since its zone's last motion (0: none)."""
    taken_back: bool = False
    """The referee's word that it is no longer played (:meth:`CardTracker.taken_back`): picked up and laid again,
    it is a card played again."""
    still_points: list[np.ndarray] = field(default_factory=list)
    """Where it was read since its zone's last motion. On a pile, a corner not among these may have been
    covered by the card just played: a different reading there is that card, not a misread of this one."""
    outline: np.ndarray | None = None
    """The outline of the card put down when it was reported (table mm), when its reading lay on it."""
    index_places: list[np.ndarray] = field(default_factory=list)
    """Where its indices lie by the outline of the card put down when it was reported (table mm quads, at the
    corners it was read at): the reader reads there in still frames in which the detector does not see it,
    so that a card only the outline could read is not taken for gone while it lies there."""
    looks: list[tuple[Card, np.ndarray]] = field(default_factory=list)
    """Other cards it was read as, and where (table mm), while it lay on top just put down: its places' rival
    readings as sure as a card confirmed, and readings on it after it was reported, dropped as it read otherwise
    (:meth:`CardTracker._on_reported_outline`). The same
    ink at the same place reads the same way again when it comes back into view, with no card put down to
    say what it is (:meth:`CardTracker._match_track`)."""


@dataclass(eq=False)
class _Pending:
    """Votes, during one still run, for what lies at one place of a zone."""

    points: list[np.ndarray]
    votes: dict[Card, list[float]] = field(default_factory=dict)
    candidates: dict[Card, float] = field(default_factory=dict)
    frames: int = 0
    conflicts: int = 0
    """Frames in which a reported card was seen at the same place (the reading is then a misread of it)."""
    peaks: dict[Card, list[float]] = field(default_factory=dict)
    """Per reading, its best confidence in each frame that read it: what the confidence floor is held to, so
    that a weak second box of the same card (a corner boxed twice) does not drag a sure reading under it."""
    places: dict[Card, list[np.ndarray]] = field(default_factory=dict)
    """Per reading, where on the mat it was read (table mm). A pile's corners lie close together, so one place
    may hold the new card's index and a covered card's corner beside it: whether the reading lies on the card
    put down is asked of where that reading was seen, not of where the place was first read."""
    place_peaks: dict[Card, list[float]] = field(default_factory=dict)
    """Per reading, the most it weighed at each of its ``places`` (in their order) in any frame: the corner's
    confidence, times its share where that index was also read as another card (``_Obs.weights``)."""
    place_confidences: dict[Card, list[float]] = field(default_factory=dict)
    """Per reading, the surest it was read at each of its ``places`` (in their order) in any frame: the confidence
    alone, not shared with another reading of the same index as ``place_peaks`` is (:meth:`read_at`)."""
    read_in: dict[Card, set[int]] = field(default_factory=dict)
    """Per reading, the still frames that read it (by their place in the still run): what ``confirm_frames`` is
    held to. A frame may read one card twice, by the detector at one corner and by the reader at the other, and
    that is still one frame's word."""
    support: dict[Card, float] = field(default_factory=dict)
    """Per reading, the weight the agreement share is taken over: each vote's confidence times the corners it
    was read at that frame. A card read alike at both its corners is two witnesses, where a second box on one
    corner or a covered card's corner peeking out beside it is one."""
    beneath: set[Card] = field(default_factory=set)
    """Cards beneath the card put down in this still run that this place was read as, inside that card's outline
    (:meth:`CardTracker._read_beneath`): the new card misread. Such a frame counts in ``frames`` (the place was
    read, so a card too weakly read is asked about) but gives no vote: it would stand against the new card's own
    readings at that place. Nor is that card a guess to offer when the player is asked."""

    def best(self) -> tuple[Card, int, float] | None:
        """The reading with the most support, the still frames that read it and its mean peak confidence.

        Ranked by support, the weight the agreement share is taken over, so that the reading that can pass
        the agreement test is the one tested: a weak misread of one corner in every frame must not shadow a
        sure reading of both corners that began a frame later (a card read where its outline puts its
        indices, whose first still frame the outline was not yet known in)."""
        if not self.votes:
            return None
        card = max(self.votes, key=lambda c: (self.support.get(c, 0.0), len(self.votes[c])))
        confs = self.peaks.get(card) or self.votes[card]
        return card, len(self.read_in.get(card, ())), float(np.mean(confs))

    def weight_of(self, card: Card) -> float:
        """What this place's readings gave ``card``'s face in all (``candidates``, summed over its frames): how
        much a place too weakly read to confirm looks like a card the tracker knows lies there."""
        return max((p for c, p in self.candidates.items() if c.same_face(card)), default=0.0)

    def suit_rival(self, card: Card) -> float:
        """The mean confidence, over this place's frames, of ``card``'s rank in the other suit of its colour."""
        return max(
            (
                p / max(1, self.frames)
                for c, p in self.candidates.items()
                if c.rank == card.rank and c.suit != card.suit and c.suit.is_red == card.suit.is_red
            ),
            default=0.0,
        )

    def where(self, card: Card, floor: float = 0.0) -> list[np.ndarray]:
        """Where ``card`` was read here (the place's own points for a reading that has none recorded); with
        ``floor``, only where it was read that sure at least, if anywhere.

        Why the floor: two places a card's diagonal apart that share a reading are taken for one card's two
        corners (:meth:`CardTracker._merge_pending`), and on a pile a covered card's corner peeking out beside
        the new card, read surely, can share its reading with a weak second guess at the new card's own index.
        Where that reading lies is where it was read surely: off the new card, so it lay there before."""
        places = self.places.get(card)
        if not places:
            return self.points
        sure = [p for p, peak in zip(places, self.place_peaks.get(card, []), strict=False) if peak >= floor]
        return sure or places

    def read_at(self, card: Card, floor: float) -> list[np.ndarray]:
        """Where ``card`` was read at least ``floor`` sure in some frame, however another box on the same index
        read it (``place_confidences``; ``where`` weighs each place by that share)."""
        places = self.places.get(card, [])
        return [p for p, conf in zip(places, self.place_confidences.get(card, []), strict=False) if conf >= floor]

    def share(self, card: Card, radius: float) -> float:
        """``card``'s share of the support of the readings seen within ``radius`` of where it was read: its
        rivals for the same ink. A place gathers readings a match radius apart, and on a pile that may be the
        new card's index and, beside it, a covered card's corner (which is no rival: it is another index)."""
        where = self.where(card)
        rivals = sum(
            weight
            for other, weight in self.support.items()
            if other != card and _close(self.where(other), where, radius)
        )
        mine = self.support.get(card, 0.0)
        return mine / max(1e-9, mine + rivals)

    def near(self, points: list[np.ndarray], radius: float) -> bool:
        return any(float(np.linalg.norm(p - q)) <= radius for p in points for q in self.points)


@dataclass(eq=False)
class _ZoneState:
    zone: Zone
    mask: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    bbox: tuple[int, int, int, int] = (0, 0, 0, 0)
    still_run: int = 0
    still_frame: int = 0
    still_t: float = 0.0
    pending: list[_Pending] = field(default_factory=list)
    tracks: list[_Track] = field(default_factory=list)
    unreadable_reported: bool = False
    prev_obs: list[_Obs] = field(default_factory=list)
    empty_frames: int = 0
    had_cards: bool = False
    unread: bool = False
    """An UnreadableCard was reported here and no card confirmed since: the referee may have taken it
    from a seat button, so its leaving must be reported too."""
    last_still: np.ndarray | None = None
    """The latest frame in which this zone was still."""
    before: np.ndarray | None = None
    """The frame that last showed this zone settled (still for ``confirm_frames``) before a hand came: what
    changed since is what the hand did."""
    stayed: np.ndarray | None = None
    """When the still run that made ``before`` was short and found nothing (a hand's stay, :meth:`CardTracker._stay`)
    and no card had been taken off: the ``before`` it replaced, the zone as it lay before that hand came, for the push
    to be looked for from (:meth:`CardTracker._nudged`)."""
    reported_views: list[np.ndarray] = field(default_factory=list)
    """The frames that last showed this zone settled after a card was reported here, before the next hand (the
    latest :data:`REPORTED_VIEWS`, oldest first): what lay in view in one of them lay there before any card put
    down since (:meth:`CardTracker._unchanged`)."""
    last_reported: Card | None = None
    """The card last reported here (``CardPlaced`` or ``CardMoved``)."""
    withdrawn: bool = False
    """The card reported since the last motion was taken back (:meth:`CardTracker.taken_back`): the view its
    hand leaves is not kept in ``reported_views``."""
    lifted: _Track | None = None
    """On a pile, the card on top taken off by a hand that put nothing down (a player picking a card up to lay it
    again, or to straighten it), until a card is reported here: read again on the pile, it is that card laid
    again, not one played (:meth:`CardTracker._lay_again`)."""
    outline: np.ndarray | None = None
    """The card that appeared in this still run (four corners, table mm), found once per still run."""
    outline_sought: bool = False
    placed_still: bool = False
    """A card was reported here since the last motion. On a pile that is the card just played, and what
    else is read there weakly is the covered cards' peeking corners, not a card to ask the player about."""
    nudged: bool = False
    """The hand before this still run pushed the top card straight where it lay (:meth:`CardTracker._nudged`):
    nothing was put down, so nothing read here until the next hand is a card played."""
    set_aside: dict[Card, _Pending] = field(default_factory=dict)
    """Cards read surely in this still run and left as lying off the card put down (:meth:`CardTracker._off_outline`),
    each with the place that read it: offered last among an ask's guesses, and laid where they were read when the
    player picks one. Why: the outline is fitted to what changed, and a card laid over one much like it changes
    too little at its corner to be outlined there (tango_nuevo, Makao for four, seed 23: a 5C laid onto the 5S's
    index, its big club over the 5S's big spade, was outlined by its right half only; its "5", read 5C 0.87, lay
    13 mm off that outline, the card was asked about with four guesses, none of them it, and its player laid it
    again). Not a reason to ask: a covered card's corner read otherwise lies off the outline every time a card is
    put down."""
    top_before: tuple[_Track, list[np.ndarray]] | None = None
    """On a pile, the top card as the view ``before`` read it: that card and where it was read in that still run
    (:meth:`CardTracker._put_down_as_known`)."""
    known_guesses: dict[Card, list[np.ndarray]] = field(default_factory=dict)
    """The guesses of an ask made because a card was put down and read only as cards the tracker has
    (:meth:`CardTracker._put_down_as_known`), each with where it was read: where the card lies when its player picks it
    (:meth:`CardTracker.named`)."""
    asked: bool = False
    """An UnreadableCard was reported about the card on top here and no card was put down since (no new
    outline): the next card confirmed here is that card read at last (``CardPlaced.answers_ask``)."""
    expected: list[Card] = field(default_factory=list)
    """Cards the referee knows lie here already (:meth:`CardTracker.expect`), until the zone's first settled
    view ends: each, read here, becomes a track with no event."""
    at_rest: bool = False
    """The zone's last reading left nothing to settle (:meth:`CardTracker._settled`): not read again while
    nothing moves here."""


class CardTracker:
    """Turns each frame's detections into :mod:`vision.events`; call :meth:`update` for every frame.

    ``calibration`` maps image pixels to table mm; give a new one with :meth:`set_calibration` when the
    :class:`~vision.calibration.Calibrator` redoes it. ``reader``, when given, reads a card the detector
    missed at the places its outline gives (see the module's docstring). ``decks``: copies of each card in the
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

    def _carry_views(self, old: Calibration, new: Calibration) -> None:
        """Each zone's kept views (``before``, ``last_still``, ``stayed``, ``reported_views``) as ``new``'s view
        shows them; a view that cannot be placed in it is forgotten, as is every view of a zone the old view did
        not show whole.

        Why: they are what the tracker compares a zone with to find the card just put down (its outline, where its
        indices lie, what lay there before it), and a knocked camera used to drop them all, so the first card laid
        in each zone after a knock was read with no outline: a held-out deck's cards were read wrong or asked about
        just after a knock, where the same cards laid with no knock were read right (docs/vision.md). The views are
        only ever compared as seen from above (:meth:`_top_down`), and the mat is a plane: one homography (old
        image -> table mm -> new image) moves a frame to where the new view sees it; two fitted homographies put an
        edge about a pixel apart, which the comparison's opening of the changed pixels takes out. A frame's own
        markers say which view it was taken from: one taken after the knock but before the recalibration (the
        camera at rest while a hand hid a marker) is kept as it is, one whose markers cannot be seen is forgotten."""
        w, h = old.image_size
        move = new.inverse @ old.homography
        tolerance = CalibratorSettings().drift_px
        placed: dict[int, np.ndarray | None] = {}  # zones share their frames: each is looked at once

        def carry(view: np.ndarray) -> np.ndarray | None:
            if id(view) not in placed:
                found = detect_markers(view)
                d_old, d_new = marker_drift(found, old, self.layout), marker_drift(found, new, self.layout)
                if d_old is not None and d_old <= tolerance and (d_new is None or d_old < d_new):
                    placed[id(view)] = cv2.warpPerspective(view, move, (w, h), flags=cv2.INTER_LINEAR)
                elif d_new is not None and d_new <= tolerance:
                    placed[id(view)] = view
                else:
                    placed[id(view)] = None
            return placed[id(view)]

        margin = self.settings.zone_margin_mm
        for state in self.zones.values():
            corners = old.to_image(_grown(state.zone, margin))
            if old.image_size == new.image_size and bool(np.all((corners >= 0) & (corners <= (w - 1, h - 1)))):
                before, last_still, stayed = (
                    None if v is None else carry(v) for v in (state.before, state.last_still, state.stayed)
                )
                state.before, state.last_still = before, last_still
                state.stayed = stayed if before is not None else None  # the push is looked for from it and before
                state.reported_views = [v for v in map(carry, state.reported_views) if v is not None]
            else:  # some of the zone was out of the old view: its views would show a hole there, not the table
                state.before = state.last_still = state.stayed = None
                state.reported_views = []

    def _carry_empty_mat(self, old: Calibration, new: Calibration) -> None:
        """The picture of the empty mat, taken in ``old``'s view, as ``new``'s view shows the mat.

        Why: the mat is a plane, so one homography (old image -> table mm -> new image) moves its picture to
        where a bumped camera now sees it, printing and all; without it the table forgot the empty mat at the
        first bump and the mat's printing read as a card index was a card again for the rest of the game. What
        the old view did not show stays unknown (:attr:`_empty_known`): no detection is ignored there, nothing
        taken to lie there. A frame of another size drops the picture."""
        if self._empty is None or old.image_size != new.image_size:
            self._empty = self._empty_known = self._empty_view = None
            return
        size = new.image_size
        move = new.inverse @ old.homography
        known = self._empty_known if self._empty_known is not None else np.full(self._empty.shape, 255, np.uint8)
        self._empty = cv2.warpPerspective(self._empty, move, size, flags=cv2.INTER_LINEAR)
        if self._empty_view is not None:
            self._empty_view = cv2.warpPerspective(self._empty_view, move, size, flags=cv2.INTER_LINEAR)
        # nearest, and shrunk by a pixel: a border pixel blended with the outside is not the mat
        known = cv2.warpPerspective(known, move, size, flags=cv2.INTER_NEAREST)
        self._empty_known = cv2.erode(known, np.ones((3, 3), np.uint8))

    def _bare(self, state: _ZoneState) -> bool:
        """Whether nothing has lain in ``state``'s zone since the picture of the empty mat was taken, and that
        picture shows all of it: then the picture is the view before the first hand there.

        Why: a card is outlined from what changed since the zone's view before the hand that laid it, and that view
        is the zone seen settled; where play starts at once (the bench, `cardtable run` started as the
        first card comes) the first card in each zone had none, and was read with no outline (the held-out
        tango_nuevo deck's first cards were asked about or read wrong where the same cards laid later were read)."""
        if (
            self._empty_view is None
            or self._empty_view.shape[:2] != self.calibration.image_size[::-1]
            or state.tracks
            or state.expected
            or state.had_cards
            or state.unread
            or state.asked
            or state.lifted is not None
        ):
            return False
        if self._empty_known is None:
            return True
        x1, y1, x2, y2 = state.bbox
        ds = self.settings.downscale
        known = self._empty_known[y1 * ds : y2 * ds : ds, x1 * ds : x2 * ds : ds][
            : state.mask.shape[0], : state.mask.shape[1]
        ]
        return known.shape == state.mask.shape and bool(np.all(known[state.mask] > 250))

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

    def _still_outlines(self, motion: Mapping[str, bool]) -> list[np.ndarray]:
        """The outlines (image pixels) of the cards put down in the zones where nothing moves now."""
        return [
            self.calibration.to_image(state.outline)
            for name, state in self.zones.items()
            if state.outline is not None and not motion[name]
        ]

    def _look(self, frame: Frame) -> tuple[np.ndarray, np.ndarray, dict[str, bool]]:
        """``frame``'s grey and small grey images and its motion since the previous frame, worked out once."""
        if self._seen is None or self._seen[0] is not frame.image:
            gray = self._gray(frame.image)
            small = self._small(gray)
            colour = self._small(frame.image) if frame.image.ndim == 3 else None
            self._seen = (frame.image, gray, small, self._motion(small, colour), colour)
        return self._seen[1], self._seen[2], self._seen[3]

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

    def _small(self, gray: np.ndarray) -> np.ndarray:
        ds = self.settings.downscale
        small = cv2.resize(gray, (gray.shape[1] // ds, gray.shape[0] // ds), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def _motion(self, small: np.ndarray, colour: np.ndarray | None = None) -> dict[str, bool]:
        """Which zones moved since the previous frame: more than ``motion_fraction`` of their pixels changed by
        more than ``motion_threshold`` grey levels (the frames' overall brightness evened out), not counting, in
        colour frames, what only a shadow's coming or going changed (:func:`vision.shading.shading_only`). Why: a
        player leaning over the table put a still shadow over a zone that had lain settled; taken for a hand, it
        had the zone read again from nothing, in the shadow, where the trained models read the pile's covered
        corners otherwise (asked about, one reported as a card played: ``cardtable bench tracker --recogniser onnx
        --game makao --shadows 0.6``). A hand changes the felt's colour, and is motion as before."""
        if self._prev_small is None or self._prev_small.shape != small.shape:
            return {name: True for name in self.zones}
        # auto-exposure and lamps change the whole frame's brightness: compensate before comparing
        prev_level, level = float(np.median(self._prev_small[::2, ::2])), float(np.median(small[::2, ::2]))
        if level > 1 and abs(prev_level / level - 1) > 0.01:
            small = cv2.convertScaleAbs(small, alpha=prev_level / level)
        changed = cv2.absdiff(small, self._prev_small) > self.settings.motion_threshold
        before = self._prev_colour
        exposure = level / prev_level if prev_level > 1 else 1.0
        result: dict[str, bool] = {}
        for name, state in self.zones.items():
            x1, y1, x2, y2 = state.bbox
            if state.mask.size == 0:
                result[name] = False
                continue
            area = changed[y1:y2, x1:x2][state.mask]
            moved = bool(area.mean() > self.settings.motion_fraction) if area.size else False
            if moved and colour is not None and before is not None and before.shape == colour.shape:
                inside = changed[y1:y2, x1:x2] & state.mask
                lit = shading_only(
                    before[y1:y2, x1:x2],
                    colour[y1:y2, x1:x2],
                    window=self._shade_window,
                    exposure=exposure,
                    brightest=1.0 / DARKEST,
                    where=inside,
                )
                moved = bool((inside & ~lit).sum() > self.settings.motion_fraction * area.size)
            result[name] = moved
        return result

    # ----- observations ----------------------------------------------------------------------
    def set_empty_mat(self, image: np.ndarray | None) -> None:
        """Remember how the mat looks with no card on it: the frame ``cardtable calibrate`` saved beside the
        calibration (``cardtable run``), the frame the demo calibrated from, the bench's first frame. Without one
        the felt's colour stands in (:meth:`_card_shaped`). Check a picture with :meth:`occupied_zones` first.

        A detection where the view has not changed from the empty mat is the printing (a zone label, a
        marker) read as a card index, and is ignored. A new calibration (the camera bumped) carries the picture into
        its view (:meth:`_carry_empty_mat`).
        """
        self._empty = None if image is None else self._gray(image)
        self._empty_view = None if image is None else image.copy()
        self._empty_known = None

    def occupied_zones(self, image: np.ndarray) -> list[str]:
        """The zones of ``image`` (a frame of this calibration) where something of a fifth of a card's area or
        more lies, of any shape, by the felt's colour (:meth:`_lying`): a frame with any is no picture of the
        empty mat. The mat's own printing (lines, letters) is thinner and smaller. A zone in a deep shadow (a player
        leaning over the table under the lamp) is occupied too: lit again in play, its felt would differ from the
        picture as a card does.

        Why: the tracker ignores whatever looks as it did on the empty mat, and takes what differs from it for
        a card lying there. A card left lying when the picture was taken (a pile's last card, a calibration
        redone mid-game) would never be seen there again; a hand over a zone, once gone, would leave a
        card-shaped difference where nothing lies."""
        if image.shape[:2] != self.calibration.image_size[::-1]:
            raise ValueError(
                f"a {image.shape[1]}x{image.shape[0]} frame for a calibration made at"
                f" {self.calibration.image_size[0]}x{self.calibration.image_size[1]}"
            )
        in_shadow = self._shadowed(image)
        return [
            name
            for name, state in self.zones.items()
            if state.zone.reads_cards
            and (in_shadow(state) or self._occupied(state, image, by_felt=True, shade_is_felt=False))
        ]

    def _shadowed(self, image: np.ndarray) -> Callable[[_ZoneState], bool]:
        """Whether a shadow (:func:`vision.shading.shadowed`) of :data:`OCCUPIED_SHARE` of a card's area or more
        lies over a zone (grown by ``zone_margin_mm``, as the tracker looks at it) in ``image``, the whole mat seen
        from above at :data:`_SHADOW_MM` per pixel. A zone's own felt alone cannot tell: a shadow over most of it is
        its median colour."""
        mat = self.layout
        size = (max(1, round(mat.width / _SHADOW_MM)), max(1, round(mat.height / _SHADOW_MM)))
        scale = np.diag([1 / _SHADOW_MM, 1 / _SHADOW_MM, 1.0])
        top = cv2.warpPerspective(image, scale @ self.calibration.homography, size, flags=cv2.INTER_LINEAR)
        mask = shadowed(top)
        least = OCCUPIED_SHARE * CARD_SIZE_MM[0] * CARD_SIZE_MM[1] / _SHADOW_MM**2
        m = self.settings.zone_margin_mm

        def over(state: _ZoneState) -> bool:
            x1, y1, x2, y2 = state.zone.bounds
            cols = slice(max(0, round((x1 - m) / _SHADOW_MM)), max(0, round((x2 + m) / _SHADOW_MM)))
            rows = slice(max(0, round((y1 - m) / _SHADOW_MM)), max(0, round((y2 + m) / _SHADOW_MM)))
            return int(mask[rows, cols].sum()) >= least

        return over

    def _occupied(
        self, state: _ZoneState, image: np.ndarray, *, by_felt: bool = False, shade_is_felt: bool = True
    ) -> bool:
        """Whether something of :data:`OCCUPIED_SHARE` of a card's area or more, of any shape, lies in ``state``'s
        zone (:meth:`_lying`)."""
        least = OCCUPIED_SHARE * CARD_SIZE_MM[0] * CARD_SIZE_MM[1]
        contours = self._lying(state, image, by_felt=by_felt, shade_is_felt=shade_is_felt)
        return any(cv2.contourArea(c) >= least for c in contours)

    @staticmethod
    def _gray(image: np.ndarray) -> np.ndarray:
        return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)

    def _on_empty_mat(self, det: Detection, gray: np.ndarray, gain: float) -> bool:
        if self._empty is None or self._empty.shape != gray.shape:
            return False
        x1, y1, x2, y2 = (round(v) for v in det.box)
        h, w = gray.shape
        x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            return False
        if self._empty_known is not None and not self._empty_known[y1:y2, x1:x2].all():
            return False  # the picture does not show the mat all over the box (off the view before a bump)
        now = gray[y1:y2, x1:x2].astype(np.float32)
        now *= gain
        # a picture carried through a bump lies within a pixel or two of the view (two fitted homographies): the
        # printing's sharp edges are compared at the best of those shifts
        slack = CARRIED_SLACK_PX if self._empty_known is not None else 0
        best = np.inf
        for dy in range(-slack, slack + 1):
            for dx in range(-slack, slack + 1):
                if y1 + dy < 0 or x1 + dx < 0 or y2 + dy > h or x2 + dx > w:
                    continue
                then = self._empty[y1 + dy : y2 + dy, x1 + dx : x2 + dx].astype(np.float32)
                best = min(best, float(np.abs(now - then).mean()))
        return best < self.settings.empty_mat_diff

    def _observations(self, detections: Sequence[Detection], gray: np.ndarray) -> dict[str, list[_Obs]]:
        s = self.settings
        gain = 1.0
        if self._empty is not None and self._empty.shape == gray.shape:  # the whole view's exposure since then
            then, now = self._empty[::8, ::8], gray[::8, ::8]
            if self._empty_known is not None:  # where the picture shows the mat
                known = self._empty_known[::8, ::8] > 0
                then, now = then[known], now[known]
            if then.size:
                gain = max(1.0, float(np.median(then))) / max(1.0, float(np.median(now)))
        dets = [
            d
            for d in detections
            if d.confidence >= s.min_detection_confidence and not self._on_empty_mat(d, gray, gain)
        ]
        weights = _witness_weights(dets, s.same_index)
        by_zone: dict[str, list[_Obs]] = {name: [] for name in self.zones}
        if not dets:
            return by_zone
        centres = self.calibration.to_table(np.array([d.center for d in dets], np.float64))
        for det, mm, weight in zip(dets, centres, weights, strict=True):
            zone = self.layout.zone_at(float(mm[0]), float(mm[1]), s.zone_margin_mm)
            if zone is None or not self.zones[zone].zone.reads_cards:
                continue
            cands = dict(det.candidates) if det.candidates else {det.card: det.confidence}
            cands.setdefault(det.card, det.confidence)
            for obs in by_zone[zone]:
                if not obs.card.same_face(det.card) or len(obs.points) >= 2:
                    continue
                if self._across_new_card(self.zones[zone], obs.points, [mm]):
                    # One on the card put down and one well off it are two cards' readings, never one corner
                    # boxed twice nor a card's two corners (as :meth:`_merge_pending` keeps them apart). Taken for
                    # one corner, it lay where the surer box was: tango_nuevo (Makao for four, seed 41) laid an AH
                    # on the AD, whose bare "A" peeking out 23 mm from the AH's own index read AH 0.94 to the
                    # index's 0.93; the AH's one reading lay off its card, was set aside as a covered corner frame
                    # after frame, and the AH was met with silence. Taken for two corners, a covered 7C's corner
                    # read 7C 0.07 went with the 7C put down, read 0.62 at its index, and it was asked about.
                    continue
                gap = min(float(np.linalg.norm(mm - p)) for p in obs.points)
                if gap <= s.pair_distance_mm:
                    # the card's other corner; or, as close as a corner's own size, the same corner boxed twice
                    if gap > s.match_radius_mm:
                        obs.points.append(mm)
                        obs.weights.append(weight)
                    else:
                        near = int(np.argmin([float(np.linalg.norm(mm - p)) for p in obs.points]))
                        if weight > obs.weights[near]:
                            # The corner lies where it is read surest, not where the first box happened to be:
                            # a card put down over a like index (tango_nuevo's bare ranks) is read as itself at
                            # its own index and, more weakly, at the covered index beside it; placed there, off
                            # the card put down, it was taken for a covered corner and met with silence.
                            obs.points[near] = mm
                        obs.weights[near] = max(obs.weights[near], weight)
                    obs.confidence = max(obs.confidence, det.confidence)
                    obs.boxes.append(det.box)
                    obs.box_confidences.append(det.confidence)
                    for c, p in cands.items():
                        obs.candidates[c] = max(obs.candidates.get(c, 0.0), p)
                    break
            else:
                by_zone[zone].append(
                    _Obs(det.card.face, [mm], det.confidence, cands, [det.box], [weight], [det.confidence])
                )
        return by_zone

    def _seek_outlines(self, image: np.ndarray, motion: Mapping[str, bool]) -> None:
        """In each zone's first still frame after a hand, the outline of the card it put down, if one
        card-sized thing appeared (:mod:`vision.proposals`)."""
        for name, state in self.zones.items():
            if motion[name] or not state.zone.reads_cards or state.outline_sought or state.before is None:
                continue
            state.outline_sought = True
            state.outline = self._new_card(state, image)
            if self._nudged(state, image):
                continue  # the top card pushed straight: nothing was put down
            if state.outline is not None:
                state.asked = False  # a card was put down: what is read here now is that card

    def _read_outlines(
        self, image: np.ndarray, detections: Sequence[Detection], motion: Mapping[str, bool], unread: frozenset[str]
    ) -> list[Detection]:
        """The reader's detections at the indices of each still zone's new card, until a card is reported
        there, and of the cards reported that way that the detector does not see (see the module's
        docstring); none where no card-sized outline appeared."""
        assert self.reader is not None
        quads: list[np.ndarray] = []
        h, w = image.shape[:2]
        centres = np.zeros((0, 2))
        if detections:
            centres = self.calibration.to_table(np.array([d.center for d in detections], np.float64))
        for name, state in self.zones.items():
            if motion[name] or not state.zone.reads_cards or name in unread:
                continue
            # cards reported from an outline, where the detector does not see them now: look again (on a pile
            # only the top one; those beneath are covered, and a pile is not taken for gone card by card)
            verify = state.tracks[-1:] if state.zone.kind == "pile" else state.tracks
            for track in verify:
                if track.index_places and not any(
                    d.card.same_face(track.card) and _close([p], track.points, self.settings.pile_match_radius_mm)
                    for d, p in zip(detections, centres, strict=True)
                ):
                    quads += track.index_places
            if state.placed_still or state.outline is None:
                continue
            quads += index_quads(state.outline)
        boxes = [_bounds(self.calibration.to_image(q), w, h) for q in quads]
        boxes = [(x1, y1, x2, y2) for x1, y1, x2, y2 in boxes if x2 - x1 >= 2 and y2 - y1 >= 2]  # off the frame
        if not boxes:
            return []
        outlines = self._still_outlines(motion)
        # a crop at a guessed place that the classifier is not sure of is a misfit, not evidence: only sure
        # readings vote (the detector's weak ones still do, for an unreadable card's guesses)
        found = self.reader(image, boxes, outlines=outlines)
        return [d for d in found if d.confidence >= self.settings.min_confidence]

    def _nudged(self, state: _ZoneState, image: np.ndarray) -> bool:
        """Whether what a hand did on ``state``'s pile before this still run (``image`` its first still frame) was to
        push the top card straight where it lay: the top card's face, as it lay before the hand, found again in
        ``image`` (aligned by :func:`_moved_card`, at least ``nudge_alike`` alike) within ``nudge_mm`` of where it
        lay, and differing nowhere from it by a digit's or a pip's worth (``nudge_differs``; with two decks, the
        place it left changed too, ``nudge_vacated``). If so the top card lies where it was found (its outline and
        places moved with it, and that is the zone's outline now) and the still run is as one whose play is
        reported (``placed_still``), and more (``nudged``): nothing read in it is a card played, what is read on
        the card is it read otherwise, and nothing is asked.

        Why: a player squaring up the pile (``cardtable bench tracker --nudge``) changes a card-sized thing, which was
        taken for a card put down: another reading on the top card became a card played (the demo deck, Makao seed 0: a
        QD pushed 5 mm, its index read 6D 0.63 as it always was, was reported a 6D, then missed when the 6D was played),
        and weaker ones were asked about. The top card's own reading does not tell a nudge from a card laid onto it (a
        deck of bare ranks reads a 4H laid on the 4D as the 4D); its face does, compared as a whole and where it differs
        most (the figures at ``nudge_alike`` and ``nudge_differs``). When a card-sized change was outlined, it must lie
        where the card was found (within ``nudge_mm``): where the top card's outline is stale, a card put down elsewhere
        leaves that place as it was. A push too small or too large to outline is looked for all the same (seeds 1 and 5:
        a QH pushed 8 mm and turned 5 degrees uncovered a corner beneath it, read 3H and reported); then the card must
        have moved by a millimetre at least, or it was not touched and the hand put a card down beside it. An outline
        off a card's shape (:func:`vision.proposals.misfit`: a card laid white on white is outlined from the part of
        it that changed the view) holds beside the card what did not move with it: the faces are compared that much
        further in from its edge, and the change outlined may lie that much further from where the card was found
        (six players with two decks, seed 2: a 3C outlined 56.8 x 96.9 mm, pushed 5.3 mm, differed by 58 grey levels
        at 3 mm from the edge, 4.9 at 7 mm, and its outlined change lay 21 mm off; it was announced as played)."""
        if self.settings.nudge_mm <= 0 or state.zone.kind != "pile" or not state.tracks:
            return False
        if state.lifted is None and self._pushed(state, image, state.before):
            self.pushes_followed += 1
            return True
        if state.stayed is not None and self._pushed(state, image, state.stayed):
            state.before, state.lifted = state.stayed, None  # the hand's stay was the push: the card was not lifted
            state.stayed = None
            self.pushes_followed += 1
            return True
        return False  # (the top card taken off: what was put down is it laid again, or another: _lay_again)

    def _pushed(self, state: _ZoneState, image: np.ndarray, before: np.ndarray | None) -> bool:
        """:meth:`_nudged`'s look for the push, from the view ``before`` the hand."""
        s = self.settings
        top = state.tracks[-1]
        if top.taken_back or top.outline is None or before is None or before.shape != image.shape:
            return False  # (a card taken back is in its player's hand: laid again, it is a card played)
        then = self._card_view(before, top.outline)
        width, height = then.shape[1], then.shape[0]
        upright = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        to_mm = cv2.getPerspectiveTransform(upright, top.outline.astype(np.float32))
        to_view = np.linalg.inv(to_mm)
        pad = 2 * round(s.nudge_mm)  # (2 px per mm: the push looked for is within the view grown by this)
        grown = np.array([[-pad, -pad], [width + pad, -pad], [width + pad, height + pad], [-pad, height + pad]], float)
        around = self._card_view(image, _carried(to_mm, grown), (width + 2 * pad, height + 2 * pad))
        now = around[pad : pad + height, pad : pad + width]
        guess = None
        if state.outline is not None:  # where the outline found puts the card: a first guess of the push
            outlined = _carried(to_view, _corresponding(top.outline, state.outline)).astype(np.float32)
            guess, _ = cv2.estimateAffinePartial2D(upright, outlined)
        found = _moved_card(then, around, pad, s.nudge_alike, guess)
        if found is None and guess is not None:  # (an outline of more than the card pushed guesses wild turns)
            found = _moved_card(then, around, pad, s.nudge_alike)
        if found is None:
            return False
        moved = to_mm @ np.vstack([found, [0.0, 0.0, 1.0]]) @ to_view  # the push, in table mm
        outline = _carried(moved, top.outline)
        push = float(np.linalg.norm(outline - top.outline, axis=1).max())
        if push > s.nudge_mm or (state.outline is None and push < 1.0):
            return False  # (with no outline, a card found where it lay is one that was not touched)
        off = misfit(top.outline)  # (an outline off the card's shape holds beside it what did not move with it)
        differs = _most_differing(then, self._card_view(image, outline, (width, height)), margin=6 + round(2 * off))
        if differs > s.nudge_differs:
            return False  # a face of a like layout, put down close to it: somewhere its print differs
        if self.decks > 1:
            vacated = _vacated_change(then, now, _carried(to_view, outline))
            if vacated is not None and vacated < s.nudge_vacated:
                return False  # its twin of the other deck laid on it: the card itself still lies where it lay
        if state.outline is not None:
            fitted = _corresponding(outline, state.outline)
            if float(np.linalg.norm(fitted - outline, axis=1).max()) > s.nudge_mm + off:
                return False  # what changed is not where the card was found: another card, put down elsewhere
        top.index_places = [_carried(moved, q) for q in top.index_places]
        top.looks = [(card, _carried(moved, p[None])[0]) for card, p in top.looks]
        top.points = list(_carried(moved, np.array(top.points))) if top.points else top.points
        top.outline = outline
        state.outline = outline.copy()
        state.placed_still = state.nudged = True
        return True

    def _stay(self, state: _ZoneState) -> bool:
        """Whether the still run a hand just ended was a hand's stay: short (under ``rest_frames``), nothing outlined,
        reported or asked about in it. A player squaring up the pile holds the top card and pushes it 2-3 mm, too
        little for the motion test, so the push reads as a 3-frame still run with the hand on the card, and that run
        becomes the view before the next hand (``before``), the hand over the card: the card's face before the push
        is then not found once the hand has gone (the demo deck, Makao seed 1: a KD pushed 2.8 mm, a 9H 2.2 mm;
        ``cardtable bench tracker --nudge``), and the card under the hand, not read, is taken for lifted off. The
        stay's own view still serves every other purpose (taking it out of ``before`` met a card with silence in a
        five-player game with two decks, 3497323); only the push is also looked for from the view before the stay
        (``stayed``)."""
        return not (
            state.still_run >= self.settings.rest_frames
            or state.outline is not None
            or state.placed_still
            or state.unreadable_reported
        )

    def _card_view(self, image: np.ndarray, outline: np.ndarray, size: tuple[int, int] | None = None) -> np.ndarray:
        """The card with these corners (table mm) in ``image``, warped to a grey upright card at 2 px per mm (its
        first corner top left, its first side along the top), or to ``size`` (width, height: pixels)."""
        if size is None:
            a, b = (float(np.linalg.norm(outline[k] - outline[0])) for k in (1, 3))
            size = (round(2 * a), round(2 * b))
        upright = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
        warp = cv2.getPerspectiveTransform(self.calibration.to_image(outline).astype(np.float32), upright)
        view = cv2.warpPerspective(image, warp, size, flags=cv2.INTER_LINEAR)
        return np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view)

    def _new_card(self, state: _ZoneState, image: np.ndarray) -> np.ndarray | None:
        """The outline (table mm) of the card put down in ``state``'s zone since its view before the hand."""
        if state.before is None or state.before.shape != image.shape:
            return None
        s = self.settings
        top, origin = self._top_down(state, image)
        before, _ = self._top_down(state, state.before)
        quad = changed_card(before, top, threshold=s.change_threshold, tolerance=s.card_fit)
        return None if quad is None else quad + origin

    def _top_down(self, state: _ZoneState, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``state``'s zone (grown by ``zone_margin_mm``) seen from above at 1 px per mm, and the table mm
        of its top-left pixel."""
        x1, y1, x2, y2 = state.zone.bounds
        m = self.settings.zone_margin_mm
        x1, y1, x2, y2 = x1 - m, y1 - m, x2 + m, y2 + m
        shift = np.array([[1.0, 0, -x1], [0, 1.0, -y1], [0, 0, 1]])
        top = cv2.warpPerspective(
            image, shift @ self.calibration.homography, (round(x2 - x1), round(y2 - y1)), flags=cv2.INTER_LINEAR
        )  # (OpenCV's warps have no area average: INTER_AREA is taken as bilinear)
        return top, np.array([x1, y1])

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

    def _observe(self, state: _ZoneState, observations: list[_Obs]) -> None:
        s = self.settings
        pile = state.zone.kind == "pile"
        seen: set[int] = set()
        beneath: set[int] = set()
        matched: list[tuple[_Obs, _Track]] = []
        unmatched: list[_Obs] = []
        for obs in observations:
            track = self._match_track(state, obs, pile)
            if track is not None and pile and (track is state.lifted or self._second_copy(state, track, obs)):
                track = None  # the card taken off, read again: it votes, so that it is known laid again
            if track is not None and pile and self._read_beneath(state, track, obs):
                beneath.add(id(obs))
                track = None  # the card put down read as a card it covers: a frame that read that place, no vote
            if track is not None:
                matched.append((obs, track))
                seen.add(track.id)
            else:
                unmatched.append(obs)
        # a card seen by a look (read as another card where it read so before) is seen, but silences nothing: a
        # weak box read AC where an AS once read so would make a QS put down beside it a misread of the AS
        witnesses = [(obs, track) for obs, track in matched if track.card.same_face(obs.card)]
        witnessed = {track.id for _, track in witnesses}
        seen_points = [p for obs, _ in witnesses for p in obs.points]
        seen_boxes = [
            (b, c)
            for obs, track in witnesses
            for b, c, centre in zip(obs.boxes, obs.box_confidences, self._table_centres(obs.boxes), strict=True)
            if not (pile and self._covered_by_new_card(state, track, [centre]))
        ]
        for obs, track in matched:
            track.missing = 0
            track.seen_still = True
            track.seen_peak = max(track.seen_peak, obs.confidence)
            # A place inside the card put down since is none of a card beneath it: that card covers it, so what is
            # read there is the new card read as the old one. Taken for the old card's corner, it made the new
            # card's own readings there "misreads of a reported card" (tango_nuevo, Makao for four, seed 6: a QS
            # laid over a QC, its "Q" read QC in the first still frame, paired with the QC's own index as that
            # card's two corners; the QS was met with silence until its player laid it again).
            points = [p for p in obs.points if not (pile and self._covered_by_new_card(state, track, [p]))]
            if not points:
                continue
            if pile and not _close(points, track.points, s.pile_match_radius_mm):
                track.points = [*track.points, *(p.copy() for p in points)]  # its other corner, first read
            elif len(points) >= len(track.points):
                track.points = [p.copy() for p in points]
            for p in points:
                if not _close([p], track.still_points, s.match_radius_mm):
                    track.still_points.append(p.copy())
        if observations:
            state.empty_frames = 0
        else:
            state.empty_frames += 1
        this_frame: dict[int, tuple[_Pending, dict[Card, float]]] = {}
        for obs in unmatched:
            if state.zone.kind == "play" and self._other_corner_of_track(state, obs.points):
                continue
            # the card taken off the pile, read again, is no misread of the card beneath whose index it lies over (a
            # tango_nuevo QH laid again over the QS's corner, its reading silenced by the QS's weak box under it)
            if seen_boxes and not (state.lifted is not None and state.lifted.card.same_face(obs.card)):
                fresh = state.outline if pile and not state.placed_still else None
                unseen = self._less_reported_indices(obs, seen_boxes, fresh)
                if unseen is None:
                    continue  # an index read as a reported card this frame, boxed again and read otherwise: a misread
                obs = unseen
            same_card = [p for p in state.pending if not self._across_new_card(state, p.points, obs.points)]
            pending = next((p for p in same_card if p.near(obs.points, s.match_radius_mm)), None)
            if pending is None:  # the same reading at the card's other corner (only one corner read at a time)
                pending = next(
                    (p for p in same_card if obs.card in p.votes and p.near(obs.points, s.pair_distance_mm)), None
                )
            if pending is None:
                pending = _Pending([p.copy() for p in obs.points])
                state.pending.append(pending)
            else:
                for p in obs.points:
                    if all(float(np.linalg.norm(p - q)) > s.match_radius_mm for q in pending.points):
                        pending.points.append(p.copy())
            pending.frames += 1
            if id(obs) in beneath:  # a frame that read the new card, but not as what it is: it votes for nothing
                pending.beneath.add(obs.card)
                for c, pr in obs.candidates.items():
                    if not c.same_face(obs.card):
                        pending.candidates[c] = pending.candidates.get(c, 0.0) + pr
                continue
            pending.votes.setdefault(obs.card, []).append(obs.confidence)
            pending.read_in.setdefault(obs.card, set()).add(state.still_run)
            places = pending.places.setdefault(obs.card, [])
            place_peaks = pending.place_peaks.setdefault(obs.card, [])
            place_confs = pending.place_confidences.setdefault(obs.card, [])
            known = len(places)
            point_confs = self._point_confidences(obs)
            for p, weight, conf in zip(obs.points, obs.weights, point_confs, strict=True):  # a corner's own word
                at = next((k for k in range(known) if float(np.linalg.norm(p - places[k])) <= _SAME_PLACE_MM), None)
                if at is None:
                    places.append(p.copy())
                    place_peaks.append(weight)
                    place_confs.append(conf)
                else:
                    place_peaks[at] = max(place_peaks[at], weight)
                    place_confs[at] = max(place_confs[at], conf)
            pending.support[obs.card] = pending.support.get(obs.card, 0.0) + sum(obs.weights)
            peak = this_frame.setdefault(id(pending), (pending, {}))[1]
            peak[obs.card] = max(peak.get(obs.card, 0.0), obs.confidence)
            for c, pr in obs.candidates.items():
                pending.candidates[c] = pending.candidates.get(c, 0.0) + pr
            # a reported card's corner was here and is not read this frame: this reading took its place. On a
            # pile only while that card is still read as itself elsewhere (seen by a look it silences nothing: a
            # tango_nuevo KC put down was asked about, its sure readings taken for a covered 2C's, because a weak
            # 7C on the KC stood where the 2C had once read 7C) and was read at this very place since the last
            # hand passed (else the card just played has covered that corner), and that place is not read as it
            # this frame: a place of the card read now a few millimetres from where it was read before is still
            # read (tango_nuevo: an 8C put down 29 mm from a reported card's index, read now 3 mm off where it was
            # read first, was counted a misread of that card frame after frame, and never asked about). Nor where
            # the card put down since lies over it: it took that place by covering it (a JC laid over a JD, read at
            # its index 8 mm inside it, where the JD had been read 0.18 in the first still frame). Two corners with
            # the same reading are a whole card, never a misread of one corner.
            if (
                len(obs.points) == 1
                and any(
                    (
                        t.id in witnessed
                        and any(
                            _close([q], obs.points, s.match_radius_mm)
                            and not _close([q], seen_points, s.match_radius_mm)
                            for q in t.still_points
                        )
                        and not self._covered_by_new_card(state, t, obs.points)
                    )
                    if pile
                    else (
                        (t.id in witnessed or t.missing < s.gone_frames)
                        and _close(obs.points, t.points, s.match_radius_mm)
                    )
                    for t in state.tracks
                )
                and not _close(obs.points, seen_points, s.match_radius_mm)
            ):
                pending.conflicts += 1
        for pending, peak in this_frame.values():
            for card, conf in peak.items():
                pending.peaks.setdefault(card, []).append(conf)
        for track in state.tracks:
            if track.id not in seen:
                track.missing += 1
        self._merge_pending(state)

    def _less_reported_indices(
        self,
        obs: _Obs,
        seen_boxes: list[tuple[tuple[float, float, float, float], float]],
        new_card: np.ndarray | None = None,
    ) -> _Obs | None:
        """``obs`` less its corners boxed where, in the same frame, a box read as a reported card lies
        (overlapping it by ``same_index``, their centres on the mat within ``same_place_mm``; ``seen_boxes`` are
        those boxes and their confidences): that index boxed again and read otherwise, a misread of it. A reading
        of one corner goes whatever it was read with; of a card's two corners, a corner goes only where the
        reported card was read there at least as surely. None when that leaves no corner; ``obs`` itself when it
        takes none off.

        Why the centres: boxes overlap in the image where the inks they read do not lie together. A tango_nuevo
        9C laid again and reported, read 0.47 in a box twice an index's height, reached under the 4S put down
        beside it; the 4S's index, read 0.70 with its centre 27 mm from that box's, went as a misread of the 9C
        frame after frame, and the 4S was never reported nor asked about (bench tracker ``--retake`` seed 9).

        Why the corners of a reading of two: a reading of one index, boxed again, pairs with a weak box a card's
        length away into a reading of "two corners", and then it voted as a card. A penguins 9C put on the pile,
        read 0.96 at its upper index, was boxed there again and read QC 0.8, paired with a QC 0.1 at its lower
        end, and a QC was reported while the real one was still in a player's hand (Makao seed 7). Why only
        where the reported card was read as surely: on a pile the new card's index often lies over a covered
        card's peeking corner, their boxes overlapping, and a new card read 0.93 at both corners beside a
        covered KD read 0.8 is no misread of it.

        ``new_card``: the outline (table mm) of a card put down on a pile and not yet reported. A box of a reading of
        one corner that lies on it (``covered_inside_mm``) is no misread of a reported card: that card lies beneath,
        and its boxes on the card put down are left out of ``seen_boxes`` already (:meth:`_covered_by_new_card`), so
        what is left of them lies at its edge or off it, a corner peeking out, whose box may reach under the new
        card's index. A deck that prints one index a card is read at one corner: a tango_nuevo AD put down almost
        onto the AS, read 0.93, went as a misread of a box read AS 0.3 whose centre lay 2 mm inside the AD's edge,
        and a 6H read 0.6 as one of a 9H peeking out at its edge, read 0.87 in a box reaching under the 6H's index,
        until their players laid them again (Makao for four with ``--retake``, seed 0)."""
        s = self.settings
        one = len(obs.points) == 1
        on_new = (
            [d >= s.covered_inside_mm for d in _depths(new_card, list(self._table_centres(obs.boxes)))]
            if new_card is not None and one
            else [False] * len(obs.boxes)
        )
        overlapping = [
            [(seen, sure) for seen, sure in seen_boxes if box_overlap(b, seen) >= s.same_index] for b in obs.boxes
        ]
        if not any(overlapping):
            return obs
        centres = self._table_centres(obs.boxes)
        misread = [
            bool(over)
            and not on_card
            and any(
                (one or sure >= conf) and float(np.linalg.norm(centre - at)) <= s.same_place_mm
                for (_, sure), at in zip(over, self._table_centres([seen for seen, _ in over]), strict=True)
            )
            for centre, conf, over, on_card in zip(centres, obs.box_confidences, overlapping, on_new, strict=True)
        ]
        if not any(misread):
            return obs
        kept = [k for k, bad in enumerate(misread) if not bad]
        if one:
            if not any(on_new[k] for k in kept):
                return None
            gone: set[int] = set()  # its boxes on the card put down stay
        else:
            # which corner each box read (_nearest)
            gone = {k for k, bad in zip(_nearest(centres, obs.points), misread, strict=True) if bad}
            if len(gone) == len(obs.points):
                return None
        return replace(
            obs,
            points=[p for k, p in enumerate(obs.points) if k not in gone],
            weights=[w for k, w in enumerate(obs.weights) if k not in gone],
            boxes=[obs.boxes[k] for k in kept],
            box_confidences=[obs.box_confidences[k] for k in kept],
            confidence=max((obs.box_confidences[k] for k in kept), default=0.0),  # a misread's confidence goes with it
        )

    def _point_confidences(self, obs: _Obs) -> list[float]:
        """Per corner of ``obs`` (as ``points``), the surest of its boxes read there: each box counts for the corner
        its centre lies nearest to on the mat (:func:`_nearest`, as :meth:`_less_reported_indices` splits them)."""
        if len(obs.points) == 1 or not obs.boxes:
            return [obs.confidence] * len(obs.points)
        confs = [0.0] * len(obs.points)
        for k, conf in zip(_nearest(self._table_centres(obs.boxes), obs.points), obs.box_confidences, strict=True):
            confs[k] = max(confs[k], conf)
        return confs

    def _table_centres(self, boxes: Sequence[tuple[float, float, float, float]]) -> np.ndarray:
        """The centres of image ``boxes`` on the mat (table mm)."""
        return self.calibration.to_table(np.array([((x1 + x2) / 2, (y1 + y2) / 2) for x1, y1, x2, y2 in boxes]))

    def _merge_pending(self, state: _ZoneState) -> None:
        """Votes at two places a card's diagonal apart that share a reading are the two corners of one card."""
        radius = self.settings.pair_distance_mm
        across = functools.partial(self._across_new_card, state)
        merged = True
        while merged:
            merged = False
            for a, b in itertools.combinations(state.pending, 2):
                if set(a.votes) & set(b.votes) and a.near(b.points, radius) and not across(a.points, b.points):
                    for card, confs in b.votes.items():
                        a.votes.setdefault(card, []).extend(confs)
                    for card, confs in b.peaks.items():
                        a.peaks.setdefault(card, []).extend(confs)
                    for card, frames in b.read_in.items():
                        a.read_in.setdefault(card, set()).update(frames)
                    for card, where in b.places.items():
                        a.places.setdefault(card, []).extend(where)
                        a.place_peaks.setdefault(card, []).extend(b.place_peaks.get(card, []))
                        a.place_confidences.setdefault(card, []).extend(b.place_confidences.get(card, []))
                    for card, weight in b.support.items():
                        a.support[card] = a.support.get(card, 0.0) + weight
                    for card, p in b.candidates.items():
                        a.candidates[card] = a.candidates.get(card, 0.0) + p
                    a.beneath |= b.beneath
                    a.points += b.points
                    a.frames += b.frames
                    a.conflicts += b.conflicts
                    state.pending.remove(b)
                    merged = True
                    break

    def _across_new_card(self, state: _ZoneState, a: list[np.ndarray], b: list[np.ndarray]) -> bool:
        """Whether, on a pile, the places ``a`` lie inside the card put down since the hand (its outline, by
        ``covered_inside_mm``) and the places ``b`` well off it (below), or the other way round: readings
        of two cards, which never vote at one place, nor are one frame's boxes of them gathered as one corner or one
        card's two corners (:meth:`_observations`). Why: tango_nuevo (Makao for four, seed 4) laid a 9C beside the
        9S's peeking "9", which then read 9C 0.82 (off the 9C, dropped each time as a covered corner), while the
        9C's own "9", 21 mm away, read 6C 0.27; voting at one place, they went together, and the 9C was neither
        reported nor asked about until its player laid it again. Apart, the readings on it are asked about.

        Well off it means further out than ``off_outline_mm`` and than an index's middle reaches
        (:data:`~vision.proposals.INDEX_CORE_MM`): a box of the new card's own index is sometimes centred a few
        millimetres past its edge (a 7H first read 5 mm off its top edge, then at its index), and such readings
        stay together."""
        if state.zone.kind != "pile" or state.outline is None or not a or not b:
            return False
        outline = state.outline
        inside, off = self.settings.covered_inside_mm, -max(self.settings.off_outline_mm, INDEX_CORE_MM)

        def side(points: list[np.ndarray]) -> int:
            depths = _depths(outline, points)
            return 1 if min(depths) >= inside else -1 if max(depths) < off else 0

        return side(a) * side(b) < 0

    def _explained(self, state: _ZoneState, pending: _Pending) -> bool:
        """On a play zone (one card at a time), readings that all lie on the card already reported there
        (within a card's diagonal of its corners) are that card misread, not something unreadable."""
        if state.zone.kind != "play":
            return False
        reach = 1.05 * float(np.hypot(*CARD_SIZE_MM))
        return any(
            t.missing < self.settings.gone_frames and all(_close([p], t.points, reach) for p in pending.points)
            for t in state.tracks
        )

    def _other_corner_of_track(self, state: _ZoneState, points: list[np.ndarray]) -> bool:
        """On a play zone (one card at a time), readings that lie on the card reported there while it is
        in view are that card misread: on its one seen corner or a card's diagonal from it, or anywhere
        on it when both its corners are seen. They get no votes of their own."""
        if not points:
            return False
        diag = float(np.hypot(*CARD_SIZE_MM))
        radius = self.settings.match_radius_mm
        for track in state.tracks:
            if track.missing != 0:
                continue
            if len(track.points) == 1:
                # each reading on its one seen corner or a card's diagonal from it (two boxes of a reading may
                # stand apart there, as a misread corner boxed twice does)
                dists = [float(np.linalg.norm(p - track.points[0])) for p in points]
                if all(d <= radius or 0.55 * diag <= d <= 1.05 * diag for d in dists):
                    return True
            elif len(track.points) >= 2:
                # both corners already read as the card, which is still in view: other readings on it (a
                # second box on a corner, or a third index, as some decks print four) are it read wrongly
                gaps = [[float(np.linalg.norm(p - q)) for q in track.points] for p in points]
                if all(max(g) <= 1.05 * diag for g in gaps):
                    return True
        return False

    def _match_track(self, state: _ZoneState, obs: _Obs, pile: bool) -> _Track | None:
        """The reported card ``obs`` is. On a pile (where two decks may hold two of a face) it must be
        read near where that card was, or, for a card known by one corner only, where its other corner
        would be: a card's diagonal away (the next card covered the corner it was read by)."""
        s = self.settings
        diag = float(np.hypot(*CARD_SIZE_MM))
        near, far = s.other_corner_near * diag, s.other_corner_far * diag
        for track in reversed(state.tracks):  # the latest first: with two decks, the copy on top
            if not track.card.same_face(obs.card):
                continue
            if not pile:
                return track
            if _close(obs.points, track.points, s.pile_match_radius_mm):
                return track
            if len(track.points) == 1 and all(
                near <= float(np.linalg.norm(p - track.points[0])) <= far for p in obs.points
            ):
                return track
        return self._looked_like(state, obs)

    def _looked_like(self, state: _ZoneState, obs: _Obs) -> _Track | None:
        """The reported card ``obs`` is that card read at a place where it read so before (``_Track.looks``),
        unless a card put down since covers that place. Why: a deck that prints a bare rank in its corner has a
        6S read 9S at both corners, reported right only from the outline of the card just put down; when the
        card laid on it was taken back, the 6S lay on top again, still read 9S, and with no card put down to
        say otherwise the 9S was reported as a card played (tango_nuevo, Makao demo seed 4: a play taken back
        became "Cem cannot play 6H on 9S")."""
        radius = self.settings.same_place_mm
        for track in reversed(state.tracks):
            places = [p for card, p in track.looks if card.same_face(obs.card)]
            if places and _close(obs.points, places, radius):
                return None if self._covered_by_new_card(state, track, obs.points) else track
        return None

    def _confirm(self, state: _ZoneState, frame: Frame) -> list[VisionEvent]:
        s = self.settings
        events: list[VisionEvent] = []
        ranked = sorted(state.pending, key=lambda p: -sum(sum(v) for v in p.votes.values()))
        for pending in ranked:
            if state.expected and self._adopt_expected(state, pending) and not pending.votes:
                continue
            if state.lifted is not None and self._laid_again(state, state.lifted, pending):
                continue
            best = pending.best()
            if best is None:
                continue
            card, votes, conf = best
            share = pending.share(card, s.same_place_mm)
            floor = s.pile_min_confidence if state.zone.kind == "pile" else s.min_confidence
            if votes < s.confirm_frames or share < s.agreement or conf < floor:
                continue
            if s.suit_doubt > 0 and pending.suit_rival(card) >= s.suit_doubt * conf:
                continue  # heart or diamond, club or spade: left pending, so the player is asked
            known = next((c for c in state.expected if c.same_face(card)), None)
            if known is not None:
                self._adopt(state, pending, card, known, conf)
                continue
            state.pending.remove(pending)
            if state.lifted is not None and state.lifted.card.same_face(card):
                self._lay_again(state, state.lifted, pending, card)
                continue  # the card taken off the pile, laid again: reported already
            if pending.conflicts * 2 >= pending.frames:
                continue  # a reported card seen at the same place: this reading was a misread of it
            if state.zone.kind == "play" and self._other_corner_of_track(state, pending.points):
                continue  # the other corner of the card just reported, read differently
            if state.nudged or self._on_reported_outline(state, pending):
                # Pushed, the top card is read anew, at places a hair off its edge as well (tango_nuevo, Makao
                # seed 2 with --nudge: a 7S reported as a QS, squared up, then read 7S 0.67 at its very edge)
                self._looks_like(state, state.tracks[-1], pending, [card])
                continue  # one card was put down, and it is reported (or none, pushed): this is it read otherwise
            # Off it both where the reading weighed most and wherever it was read that sure: a covered 4D's corner
            # peeking out beside a 4H put down, read 4H 0.69, weighed most, while the 4H's own index, read 4H 0.61
            # and 4D 0.33 in two boxes, weighed 0.40; set aside frame after frame, the 4H was met with silence
            # (tango_nuevo, Makao for four, seed 33).
            if self._off_outline(state, pending.where(card, floor)) and self._off_outline(
                state, pending.read_at(card, floor)
            ):
                state.set_aside[card] = pending
                continue  # one card was put down, elsewhere: this lay here before, a covered card's corner
            if state.zone.kind == "pile" and self._unchanged(state, pending.where(card, floor), frame.image):
                continue  # nothing changed where it is read since before the hand: it lay here, a covered corner
            if self._reached_into(state, frame.image):
                continue  # a hand lies in the zone, still: a card is confirmed in a still view with no hand over it
            events += self._place(state, pending, card, conf, frame)
        return events

    def _adopt_expected(self, state: _ZoneState, pending: _Pending) -> bool:
        """Adopt (:meth:`_adopt`) each card the referee said lies here that ``pending`` has read in
        ``confirm_frames`` still frames at the confidence floor, whatever else is read at that place: it is known
        to be there, so it is no rival to the card put down beside it while the table was off (a restarted camera
        read a 9S, expected, and the 7S laid on it at one place, each in every frame, and asked about both)."""
        s = self.settings
        floor = s.pile_min_confidence if state.zone.kind == "pile" else s.min_confidence
        adopted = False
        for card in list(pending.votes):
            known = next((c for c in state.expected if c.same_face(card)), None)
            if known is None or len(pending.read_in.get(card, ())) < s.confirm_frames:
                continue
            conf = float(np.mean(pending.peaks.get(card) or pending.votes[card]))
            if conf >= floor:
                self._adopt(state, pending, card, known, conf)
                adopted = True
        return adopted

    def _adopt(self, state: _ZoneState, pending: _Pending, card: Card, known: Card, conf: float) -> None:
        """``card``, confirmed at ``pending``, is ``known``: it lay here before the tracker started, and the
        referee has it (:meth:`expect`). It becomes a track where it was read, with no event, and its reading
        leaves the place, whose other readings go on voting: a restarted camera sees the card just put down
        beside the one it covers, at one place (a Makao pile's new top card and the corner of the one beneath)."""
        state.expected.remove(known)
        where = [p.copy() for p in pending.where(card)]
        track = _Track(next(self._ids), card, state.zone.name, where, conf)
        track.still_points = [p.copy() for p in where]
        self._lies_on_outline(state, track, pending)
        state.tracks.append(track)
        state.had_cards = True
        for votes in (
            pending.votes,
            pending.peaks,
            pending.places,
            pending.place_peaks,
            pending.place_confidences,
            pending.read_in,
        ):
            votes.pop(card, None)
        pending.support.pop(card, None)
        pending.candidates.pop(card, None)
        if not pending.votes:
            state.pending.remove(pending)

    def _place(self, state: _ZoneState, pending: _Pending, card: Card, conf: float, frame: Frame) -> list[VisionEvent]:
        s = self.settings
        # the same card reported elsewhere and not seen there since a hand passed: it was slid here
        for other in self.zones.values():
            if other is state:
                continue
            for track in other.tracks:
                if track.card.same_face(card) and (track.missing > 0 or not track.seen_still):
                    other.tracks.remove(track)
                    track.zone = state.zone.name
                    track.points = pending.points
                    track.still_points = [p.copy() for p in pending.points]
                    self._lies_on_outline(state, track, pending)
                    track.missing = 0
                    track.seen_still = True
                    state.tracks.append(track)
                    state.had_cards = True
                    state.placed_still = True
                    state.last_reported = card
                    moved: list[VisionEvent] = [
                        CardMoved(other.zone.name, state.zone.name, card, frame.index, frame.t, track.id)
                    ]
                    if not other.tracks and other.had_cards:
                        other.had_cards = False
                        moved.append(ZoneCleared(other.zone.name, frame.index, frame.t))
                    return moved
        others = sorted(((c, p) for c, p in pending.candidates.items() if not c.same_face(card)), key=lambda kv: -kv[1])
        candidates = ((card, round(conf, 4)), *((c, round(p / max(1, pending.frames), 4)) for c, p in others[:4]))
        track = _Track(next(self._ids), card, state.zone.name, pending.points, conf)
        track.still_points = [p.copy() for p in pending.points]
        self._lies_on_outline(state, track, pending)
        floor = s.pile_min_confidence if state.zone.kind == "pile" else s.min_confidence
        rivals = [  # read as these too where it lies, as surely as a card is confirmed (not a weak guess)
            c
            for c, seen in pending.read_in.items()
            if not c.same_face(card) and len(seen) >= s.confirm_frames and np.mean(pending.peaks.get(c) or 0) >= floor
        ]
        self._looks_like(state, track, pending, rivals)
        if state.zone.kind == "pile":
            # a card the table named wrong and took back is in its player's hand once a card is played over it (most
            # often it is this one, laid again), and the name it was given is none of its own: read near where it
            # lay, a card of that name would be taken for it seen again and never reported (tango_nuevo, Makao for
            # four with --retake, seed 0: a 10H read 7H and taken back, then the real 7H asked about and entered)
            state.tracks = [t for t in state.tracks if not t.taken_back]
        state.tracks.append(track)
        state.had_cards = True
        state.unread = False
        state.placed_still = True
        state.last_reported = card
        state.lifted = None  # a card taken off and not laid again went back to its player's hand
        answers_ask, state.asked = state.asked, False
        return [
            CardPlaced(
                state.zone.name,
                card,
                round(conf, 4),
                candidates,
                frame.index,
                frame.t,
                state.still_frame,
                state.still_t,
                track.id,
                answers_ask,
            )
        ]

    def _top_taken(self, state: _ZoneState) -> bool:
        """Whether the still run that a hand now ends followed a hand that took the pile's top card off and put
        nothing down: no card's outline appeared, the top card, reported, was not read in it (but for a weak
        reading of what lay beneath taken for it), and the view changed at each place it was read since the view
        before that hand (a card covered by an unreadable one is not read either, but an unreadable card is asked
        about). Why: a player who picks a reported card up to lay it again (to
        straighten it, or to play it nearer the pile) lays a card the tracker has; read where it lay before, it
        was taken for that card seen again and another reading on it became a card played (the demo deck, a QC
        laid again read 4C 0.6 at one corner: a 4C reported, nobody's), and read elsewhere it was reported a
        second time, which the referee lays as its second guess."""
        if not state.tracks or state.placed_still or state.asked or state.outline is not None:
            return False  # a card put down leaves an outline; one taken away does not (vision.proposals.changed_card)
        if state.before is None or state.last_still is None:
            return False
        top = state.tracks[-1]
        if top.seen_peak >= self.settings.pile_min_confidence or top.taken_back or not top.points:
            return False
        if state.before.shape != state.last_still.shape:
            return False
        before, origin = self._top_down(state, state.before)
        now, _ = self._top_down(state, state.last_still)
        changed = changed_pixels(before, now, threshold=self.settings.change_threshold)
        share = self.settings.unchanged_share
        # where it was read on its own outline, when it had one: a reading paired with it when it was reported may
        # have been a covered card's corner peeking out beside it, which taking it away does not change (the demo
        # deck, four players, seed 1 with --retake: a 7D's track held the 7H's corner beneath, so the 7D picked up
        # was not taken for lifted, and laid again, read 2D 0.57 beside its index, it was asked about)
        on_it = [
            p
            for p in top.points
            if top.outline is None
            or cv2.pointPolygonTest(top.outline.astype(np.float32), (float(p[0]), float(p[1])), False) >= 0
        ]
        return all(not unchanged_at(changed, np.array([p - origin]), share=share) for p in on_it or top.points)

    def _laid_again(self, state: _ZoneState, track: _Track, pending: _Pending) -> bool:
        """Whether ``pending`` read ``track``, the card taken off the pile (``_ZoneState.lifted``), in
        ``confirm_frames`` still frames at the confidence floor, whatever else it read at that place: it is that
        card laid again (:meth:`_lay_again`), and the rest is its index read otherwise. Why whatever else: a
        tango_nuevo QH laid again was read QH 0.91 and JH 0.72 at one index, neither with the share a card needs
        to be confirmed, and the JH was reported. Why the floor of a play zone (``min_confidence``), not the
        pile's: the pile's higher floor keeps the weak echo of a covered card from being reported, and the card
        taken off lies in its player's hand, under nothing; the card in that hand is the one about to land there
        (a tango_nuevo 6D laid again, read 9D 0.60 and 6D 0.56 in four frames, was reported as a 9D)."""
        s = self.settings
        card = next((c for c in pending.votes if c.same_face(track.card)), None)
        if card is None or len(pending.read_in.get(card, ())) < s.confirm_frames:
            return False
        if float(np.mean(pending.peaks.get(card) or pending.votes[card])) < s.min_confidence:
            return False
        state.pending.remove(pending)
        self._lay_again(state, track, pending, card)
        return True

    def _lay_again(self, state: _ZoneState, track: _Track, pending: _Pending, card: Card) -> None:
        """``track``, the card taken off the pile (``_ZoneState.lifted``), confirmed at ``pending``: it lies on top
        again where it was read now, with no event (the referee has it). It counts as the card put down in this
        still run, so other readings on it are it read otherwise (:meth:`_on_reported_outline`)."""
        where = [p.copy() for p in pending.where(card)] or [p.copy() for p in pending.points]
        track.points = where
        track.still_points = [p.copy() for p in where]
        self._lies_on_outline(state, track, pending)
        track.missing = 0
        track.seen_still, track.seen_peak = True, 1.0
        if track in state.tracks:
            state.tracks.remove(track)
        state.tracks.append(track)
        state.had_cards = True
        state.lifted = None
        state.placed_still = True
        state.unread = False

    def _on_reported_outline(self, state: _ZoneState, pending: _Pending) -> bool:
        """Whether ``pending`` lies on the one card put down in this still run (its outline), that card
        reported, and each of its other places off that card (``off_outline_mm``). One card-sized thing
        appeared, so a second reading on it is that card read otherwise (a diamond taken for a heart at one
        corner), never a second card, and a place off it lay there before: a reading of two corners that pairs
        the new card's own corner with a covered card's corner peeking out beside it is no card either (two
        decks, a QC put down read KC at its lower corner, paired with a covered 5C's corner read alike, was
        reported as a KC after the QC). Cards played together change more than one card's outline, and have
        none."""
        if state.outline is None or not state.placed_still or not state.tracks:
            return False
        depths = functools.partial(_depths, state.outline)
        top = state.tracks[-1]
        reported_on_it = top.outline is not None and np.array_equal(top.outline, state.outline)
        if not reported_on_it and not any(d >= 0 for d in depths(top.points)):
            return False
        places = depths(pending.points)
        off = -self.settings.off_outline_mm
        return any(d >= 0 for d in places) and all(d >= 0 or d < off for d in places)

    def _looks_like(self, state: _ZoneState, track: _Track, pending: _Pending, cards: Iterable[Card]) -> None:
        """Remember that ``track``, the card just put down and reported, was read as each of ``cards`` at the
        places of ``pending`` that lie on it (``_Track.looks``). Only with its outline known: what lies on it is
        it."""
        if state.outline is None:
            return
        outline = state.outline.astype(np.float32)
        for card in cards:
            for p in pending.where(card):
                on_it = cv2.pointPolygonTest(outline, (float(p[0]), float(p[1])), False) >= 0
                if on_it and not _close([p], [q for c, q in track.looks if c == card], self.settings.same_place_mm):
                    track.looks.append((card, p.copy()))

    def _off_outline(self, state: _ZoneState, points: list[np.ndarray]) -> bool:
        """Whether a reading seen at ``points`` lies wholly off the one card put down in this still run (its
        outline grown by ``off_outline_mm``). Only that card changed, so what is read elsewhere lay there
        before the hand came: on a pile, a covered card's corner that the new card left peeking out beside its
        edge, read otherwise now that its other corner is hidden. It is not a card played."""
        if state.outline is None:
            return False
        reach = -self.settings.off_outline_mm
        return all(d < reach for d in _depths(state.outline, points))

    def _unchanged(self, state: _ZoneState, points: list[np.ndarray], image: np.ndarray) -> bool:
        """Whether a reading at ``points`` (table mm) lies where the zone's view has not changed since before the
        hand came, while the hand did change it elsewhere (``unchanged_share``, :func:`vision.proposals.unchanged_at`).
        Why: a Makao demo (four players, seed 4) laid an AS almost onto the AH, too little change to outline it,
        and a covered 9H's corner peeking out beside it, read 6H 0.25 before, read 6H 0.6 once the AS's edge lay
        beside it: it was reported as the next player's card, and every turn after it went to the wrong player
        (13 cards, six violations that nobody committed); later in that game a 3C laid so did the same with a
        covered QD's corner, never read before. Not for the card the player was asked about
        (``_ZoneState.asked``), read at last where it lay.

        Nor, asked or not, where the view has not changed since it lay settled after one of the last cards reported
        here (``_ZoneState.reported_views``; a card taken back since takes its own): every card lying there then had
        been reported, so what still looks as it did then is none played since, a covered corner or the reported
        card read otherwise. Why: tango_nuevo's Makao demo (four players, seed 0) laid an 8C over a covered 4S's corner,
        was not answered, and picked it up to lay it again; the 4S's "4", uncovered, was read 4S 0.61 and reported
        as the next player's card. The view before the hand that took the 8C away had the 4S's corner covered, so
        it said that place changed; since the AS was reported it had not. And (seed 2, with a first version that left
        alone readings at the last reported card's place) an 8D laid on the 8S was asked about and picked up, and
        the 8S on top again, read 8C 0.90, answered the ask. Why more than the last view: a player who picks the top
        card up again, reported, uncovers what lay in view before it was laid, which the view after it covers (the
        demo deck, a 9D picked up to be laid again: the JD beneath, read JH 0.75 at the corner the 9D had covered,
        was reported as a card played).

        Nor, not asked, anywhere when all that changed since before the hand is the light
        (:func:`vision.proposals.lit_only`): whatever is read lay there then. Why: a player leaning over the pile under
        the lamp, the trained models read its cards' indices weaker in the shadow, a covered card's corner was asked
        about and the top card's index, read otherwise, reported as a new card (``cardtable bench tracker --recogniser
        onnx --game makao --shadows 0.6``, seed 1: a JH read 3H). Nor where all that changed since the last card
        reported here lay settled is the light: the view before the hand may have been taken under the shadow already
        (the same, seed 5: a covered KH's corner read KD in the shadow and reported as a card played)."""
        if state.before is None or state.before.shape != image.shape or not points:
            return False
        now, origin = self._top_down(state, image)
        threshold, share = self.settings.change_threshold, self.settings.unchanged_share
        places = np.array(points) - origin
        before, hand = self._changed_since(state, state.before, image)
        if not state.asked and unchanged_at(hand, places, share=share):
            return True
        if not state.asked and lit_only(before, now, threshold=threshold, changed=hand):
            return True  # only the light changed (a player leaned over the table): nothing was put down
        settled_views = [view for view in reversed(state.reported_views) if view.shape == image.shape]
        for k, view in enumerate(settled_views):
            settled, changed = self._changed_since(state, view, image)
            if k == 0 and lit_only(settled, now, threshold=threshold, changed=changed):
                return True  # nor since the last card reported here lay settled (the view before was shaded already)
            if unchanged_at(changed, places, share=share, hand=hand):
                return True
        return False

    def _changed_since(self, state: _ZoneState, view: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``view``'s top-down picture of ``state``'s zone and what changed in it by ``image``
        (:func:`vision.proposals.changed_pixels`), worked out once a frame: the zone's readings each ask the same."""
        key = (state.zone.name, id(view), id(image))
        if self._changes[0] is not image:
            self._changes = (image, {})
        found = self._changes[1].get(key)
        if found is None:
            then, _ = self._top_down(state, view)
            now, _ = self._top_down(state, image)
            found = (then, changed_pixels(then, now, threshold=self.settings.change_threshold))
            self._changes[1][key] = found
        return found

    def _second_copy(self, state: _ZoneState, track: _Track, obs: _Obs) -> bool:
        """Whether ``obs``, read as ``track``'s face inside the card just put down, is that face's other copy
        (two decks: Makao with five or six players) rather than ``track`` seen again. It is while fewer copies
        than there are decks have been reported here: the card put down covers what lay there, so what is read
        on it is it. With one deck such a reading is the new card misread (:meth:`_covered_by_new_card`). Before,
        a copy landing near the other one on the pile was matched to it and never reported: a five-player
        Makao demo (seed 2, the labelled stand-in) read 40 of 60 cards right first time, the operator entering 20."""
        if self.decks < 2 or not self._covered_by_new_card(state, track, obs.points):
            return False
        return sum(1 for t in state.tracks if t.card.same_face(track.card)) < self.decks

    def _read_beneath(self, state: _ZoneState, track: _Track, obs: _Obs) -> bool:
        """Whether ``obs``, a reading of ``track``, is the card put down in this still run (not yet reported) read
        as ``track``, a card beneath the pile's top card: every corner of it lies inside the new card's outline
        (:meth:`_covered_by_new_card`), so the new card covers what it reads. Why: with one deck that card is the
        one beneath, not a second copy, so the reading is of the new card; taken for that card seen again, it was
        the only reading of the new card, which was met with silence until its player laid it again (tango_nuevo,
        Makao for four, seed 16: a 4C put down over the 4S, its "4" read 4S 0.29 in every still frame, twice in
        one game). The top card is left out: a top card nudged shows the same frames (an outline, that card read
        inside it), and asking there would ask after every nudge."""
        if state.placed_still or not state.tracks or track is state.tracks[-1] or self.decks > 1:
            return False
        return self._covered_by_new_card(state, track, obs.points)

    def _covered_by_new_card(self, state: _ZoneState, track: _Track, points: list[np.ndarray]) -> bool:
        """Whether ``points`` lie inside the card put down in this still run (its outline, by
        ``covered_inside_mm``) and ``track`` is a card reported before it, which that card now covers.

        Such a reading of the top card still counts as ``track`` seen, as before (dropping it instead left cards
        played a second time, once the pile had gone back into the stock, unread: the demo deck's Makao demo, seed 1,
        asked about 10 cards instead of 6; one of a card deeper in the pile is the new card misread,
        :meth:`_read_beneath`), but its boxes do not make the other readings of their index misreads of ``track``
        (:meth:`_less_reported_indices`). Why: on a pile the new card's index is often boxed twice, and the second
        box read as a card beneath it; the new card's own sure reading was then silenced frame after frame
        (tango_nuevo's QH read 0.94 was never confirmed: a box beside it read JH 0.57, the JH beneath). What lies
        on top is the new card. :meth:`_observe` asks it of each box on its own, not of a reading's corners together:
        a tango_nuevo 7S half covered by a 10S was read at its corner peeking out and, in a box on the 10S's index,
        at the 10S's ink, and as one reading of two corners, not all covered, it silenced the 10S until the operator
        entered it (Makao for four with ``--retake``, seed 0)."""
        if state.outline is None or (state.placed_still and state.tracks and track is state.tracks[-1]):
            return False
        return all(d >= self.settings.covered_inside_mm for d in _depths(state.outline, points))

    def _lies_on_outline(self, state: _ZoneState, track: _Track, pending: _Pending) -> None:
        """Give ``track``, confirmed at ``pending``, the zone's new-card outline and its index places when it lies
        on that outline (else none): ``_Track.outline``, ``_Track.index_places``. It lies on it when the place or
        any reading of its card there does: a tango_nuevo 7H put down was first read in a box just off its edge,
        the place's first point, then at its own index; known only off its outline, its index read 7D from then
        on was not taken for it read otherwise (:meth:`_on_reported_outline`) and was reported as a second card
        (Makao for four, seed 2)."""
        on_it = state.outline is not None and any(
            cv2.pointPolygonTest(state.outline.astype(np.float32), (float(p[0]), float(p[1])), False) >= 0
            for p in [*pending.points, *pending.where(track.card)]
        )
        track.outline = state.outline.copy() if on_it and state.outline is not None else None
        track.index_places = self._index_places(state, pending) if on_it else []

    def _index_places(self, state: _ZoneState, pending: _Pending) -> list[np.ndarray]:
        """The index places of the zone's new-card outline at the corners this card was read at (it lies on it)."""
        if state.outline is None:
            return []
        quads = index_quads(state.outline)
        per_corner = len(quads) // 4
        reach = 0.3 * CARD_SIZE_MM[1]
        read = [q for k, q in enumerate(quads) if _close([state.outline[k // per_corner]], pending.points, reach)]
        return read or quads

    def _retire(self, state: _ZoneState, frame: Frame, busy: bool) -> list[VisionEvent]:
        s = self.settings
        events: list[VisionEvent] = []
        if (
            state.expected
            and not state.tracks
            and state.empty_frames >= s.gone_frames
            and not self._card_shaped(state, frame.image)
        ):
            # what the referee knew lay here was taken while the camera was away (a trick collected during a
            # power cut): without this the referee would wait for ever for a collection that has happened
            state.expected.clear()
            events.append(ZoneCleared(state.zone.name, frame.index, frame.t))
            return events
        if state.zone.kind == "pile":
            # covered cards stop being seen one by one; the pile is gone when nothing at all is read there and
            # nothing lies there (a pile of cards the models cannot read is still a pile)
            if (
                state.tracks
                and state.empty_frames >= s.gone_frames
                and (state.empty_frames - s.gone_frames) % 4 == 0  # the look costs a warp
                and not self._occupied(state, frame.image)
            ):
                # one card alone is no pile taken away at a game's end (a game ends with the winner's last card on
                # the first one): it was picked up, and laid again it is that card (``_ZoneState.lifted``)
                alone = len(state.tracks) == 1 and not state.tracks[0].taken_back
                state.lifted = state.tracks[0] if alone else None
                state.tracks.clear()
                state.had_cards = False
                state.asked = False
                events.append(ZoneCleared(state.zone.name, frame.index, frame.t))
            return events
        covered: bool | None = None  # (looked at once a frame, when a card is missing)
        for track in list(state.tracks):
            if track.missing >= (s.max_gone_frames if busy else s.gone_frames):
                if covered is None:
                    covered = self._covered(state, track, frame.image)
                if covered:
                    continue
                state.tracks.remove(track)
                events.append(CardRemoved(state.zone.name, track.card, frame.index, frame.t, track.id))
        if state.had_cards and not state.tracks and events:
            events.append(ZoneCleared(state.zone.name, frame.index, frame.t))
            state.had_cards = False
            state.asked = False
        elif (
            state.unread
            and not state.tracks
            and not state.pending
            and state.empty_frames >= s.gone_frames
            and (state.empty_frames - s.gone_frames) % 4 == 0  # the shape test costs a warp
            and not self._card_shaped(state, frame.image)
        ):
            # the card nobody could read has gone (a trick collected): nothing was read there, nothing
            # card-shaped is left
            state.unread = False
            state.had_cards = False
            state.asked = False
            events.append(ZoneCleared(state.zone.name, frame.index, frame.t))
        return events

    def _reached_into(self, state: _ZoneState, image: np.ndarray) -> bool:
        """Whether something lies across the edge of the zone's view along :data:`_REACH_MM` or more: an arm
        reaching in from a player, its hand lying in the zone still. The edge is the zone's margin, bare felt on an
        empty table; what differs there from the empty mat (or, where that was not pictured, from the felt's
        colour, a shadow aside) lies there now. A card put down lies inside the view.

        Why: a player resting a hand on the pile is no motion; the models read the pile's cards weakly around it and
        the fingers as a jack, and the players were asked about a card nobody put down (``cardtable bench tracker
        --recogniser onnx --game makao --rest 0.3``, seed 0: four asks while a hand lay on the pile), or told of one
        (seed 1: a QS reported beside the hand). Nothing is asked about or confirmed in the zone until it has gone.
        Not what changed since the view kept before the hand: that view was kept as the hand came, its fingertip in
        the margin (seed 1: 36 mm of the edge changed with no hand there)."""
        top = self._top_down(state, image)[0]
        rim = np.ones(top.shape[:2], bool)
        rim[1:-1, 1:-1] = False
        known = None if self._empty_known is None else self._top_down(state, self._empty_known)[0] > 250
        if (
            self._empty_view is not None
            and self._empty_view.shape == image.shape
            and (known is None or known[rim].all())
        ):
            lying = self._changed_since(state, self._empty_view, image)[1]
        else:
            lying = _off_felt(top) > 0
        return int(lying[rim].sum()) >= _REACH_MM

    def _covered(self, state: _ZoneState, track: _Track, image: np.ndarray) -> bool:
        """Whether a card no longer seen may lie where it lay, under something that came to rest on it: nothing at
        all was read in the zone since it went (no other card put down in its place), and something lies there
        (:meth:`_occupied`: the card, a hand on it). Looked at every fourth frame; between, it may.

        Why: a player resting a hand on their card, still, hides its indices, and a view at rest in which a card
        is not read was taken for the card gone: the trick's card reported taken away, and reported played again
        when the hand lifted (``cardtable bench tracker --rest``: 3 false card events in a 3-5-8 game before). A
        card taken away leaves the zone as the empty mat was, and goes as before."""
        if state.empty_frames < min(track.missing, self.settings.gone_frames):
            return False  # something else was read here: another card, in its place
        if (track.missing - self.settings.gone_frames) % 4 != 0:
            return True
        return self._occupied(state, image)

    def _untouched(self, state: _ZoneState, image: np.ndarray) -> bool:
        """Whether a pile that lay reported and settled before the hand (its top card reported, nothing waiting to be
        read) looks now, the light aside, as it did then: the hand came and went, or a player leaned over it, and put
        nothing down. Why: its covered cards' corners, read weakly as ever, were asked about once the zone was read
        again (``cardtable demo --game makao --shadows 0.6``, seed 0: a 7D's corner 0.23 sure, after a lean).

        It is compared with the view kept when its last card was reported and settled, not with the view before
        this hand: a hand that rested on the pile, still, made that still view the one "before" the hand left, and
        the pile uncovered looked changed from it (``cardtable bench tracker --game makao --rest 0.3``: 35 asks over
        seeds 0-11). A view kept while the pile was still being read is never among the reported ones. What
        changed is counted inside the zone as drawn: the margin around it is where the next hand comes in from, and
        the view was kept as that hand came (seed 1: a fingertip in its corner, 134 pixels)."""
        if not state.tracks or not state.reported_views:
            return False
        then = state.reported_views[-1]
        if then.shape != image.shape:
            return False
        changed = self._changed_since(state, then, image)[1]
        m = round(self.settings.zone_margin_mm)
        return bool(changed[m : changed.shape[0] - m, m : changed.shape[1] - m].sum() < _INDEX_AREA)

    def _unreadable(self, state: _ZoneState, frame: Frame) -> list[VisionEvent]:
        s = self.settings
        if state.unreadable_reported or not state.zone.reads_cards or state.still_run < s.unreadable_frames:
            return []
        if state.zone.kind == "pile" and state.placed_still:
            return []  # the play since the hand left is reported; weak readings are of the cards under it
        if state.zone.kind == "pile" and not state.asked and self._untouched(state, frame.image):
            return []  # nothing was put down: what is read weakly here was read so before
        guesses: dict[Card, float] = {}
        weak = False
        pile = state.zone.kind == "pile"
        for pending in state.pending:
            if pending.conflicts * 2 >= pending.frames or self._explained(state, pending):
                continue
            if pile and state.outline is None and self._unchanged(state, pending.points, frame.image):
                # it lay there before a hand that put no card down (a card taken away leaves no outline): a covered
                # card's corner, read weakly as ever. A card put down over an index like its own (tango_nuevo: a 4C's
                # "4" laid on the 4D's) is asked about as before.
                continue
            if pending.frames >= max(s.confirm_frames, state.still_run // 2):
                weak = True
                for c, p in pending.candidates.items():
                    if c not in pending.beneath:
                        guesses[c] = guesses.get(c, 0.0) + p / pending.frames
        as_known = None if weak or not pile else self._put_down_as_known(state, frame.image)
        state.known_guesses = {}
        if as_known is not None:
            weak = True
            state.known_guesses = {c: points for c, (_, points) in as_known.items()}
            for c, (conf, _) in as_known.items():
                guesses[c] = max(guesses.get(c, 0.0), conf)
        if not weak:
            if state.tracks or state.pending:
                return []  # what is there is a reported card (perhaps unseen for a frame or two)
            if (state.still_run - s.unreadable_frames) % 4 != 0:
                return []  # the shape test costs a warp: once every few frames is soon enough
            if not self._card_shaped(state, frame.image, one=True):
                return []
        best = tuple(sorted(((c, round(p, 4)) for c, p in guesses.items()), key=lambda kv: -kv[1])[:5])
        if len(best) != 1:  # last and at no weight, so that they settle no suit in doubt with the guess before them
            best += tuple((c, 0.0) for c in state.set_aside if not any(c.same_face(g) for g, _ in best))
        lifted = state.lifted if pile else None
        if lifted is not None and best and best[0][0].same_face(lifted.card) and self._laid_again_weakly(state, lifted):
            return []
        if self._reached_into(state, frame.image):
            return []  # a hand lies in the zone, still: what it covers, and the hand itself, read weakly
        state.unreadable_reported = True
        state.unread = True
        state.asked = True
        return [UnreadableCard(state.zone.name, frame.index, frame.t, best)]

    def _put_down_as_known(
        self, state: _ZoneState, image: np.ndarray
    ) -> dict[Card, tuple[float, list[np.ndarray]]] | None:
        """The guesses to ask with, each with where it was read, when a card was put down on the pile and read only as
        cards the tracker has; else None. So it is when the top card, read in the view before the hand, is read surely
        again within a few millimetres of where it lay on its outline, where the view did not change (so the pile was
        not moved nor its top taken off), and a sure reading of another card lies wholly where the view changed since.
        What lay beneath the top card cannot have changed, so something was put down there; nothing reported in this
        still run and nothing read weakly enough to ask about, so it was read as a card the tracker has (matched to
        that card's track, it votes for nothing): the sure readings where the view changed are the guesses. Where the
        view changed at the top card too (a shadow, the light), it says nothing of what is new: None.

        Why: with two decks a card put down a few millimetres off its other copy is read where that copy lay, and
        changes the view too little at its sides (white on white) to be outlined, so it is neither told from that
        copy (:meth:`_second_copy` needs the outline) nor asked about (the demo deck, Makao for five, seed 6: a 2C
        laid over the 2C beneath the 2H was met with silence for twenty frames, its "2" read 2C 0.98 at 3 and 7 mm
        from the other's). What is read where the view did not change lay there before the hand and is no guess
        (:meth:`_unchanged`)."""
        if state.top_before is None or state.lifted is not None or state.before is None:
            return None
        top, places = state.top_before
        if not state.tracks or top is not state.tracks[-1] or top.taken_back:
            return None
        s = self.settings
        # read surely as itself where it was read on its own outline, when it had one: a covered card's corner near
        # it can be taken for it (the demo deck with --retake, seed 2: a 10C picked up, "seen" 29 mm off its outline)
        on_it = [p for p in places if top.outline is None or _depths(top.outline, [p])[0] >= 0.0]
        there = [
            p
            for obs in state.prev_obs
            if obs.card.same_face(top.card) and obs.confidence >= s.pile_min_confidence
            for p in obs.points
        ]
        kept = [p for p in on_it if _close([p], there, _SAME_PLACE_MM)]
        if state.before.shape != image.shape or not kept:
            return None
        now, origin = self._top_down(state, image)
        before, _ = self._top_down(state, state.before)
        hand = changed_pixels(before, now, threshold=s.change_threshold)
        if all(changed_at(hand, np.array([p - origin]), share=s.unchanged_share) for p in kept):
            return None  # the view changed where it lies too (a shadow, the light): it says nothing of what is new
        guesses: dict[Card, tuple[float, list[np.ndarray]]] = {}
        for obs in state.prev_obs:
            if obs.card.same_face(top.card) or obs.confidence < s.pile_min_confidence:
                continue
            if not changed_at(hand, np.array(obs.points) - origin, share=s.unchanged_share):
                continue  # (what lay there before the hand: a covered card's corner)
            if obs.confidence > guesses.get(obs.card, (0.0, []))[0]:
                guesses[obs.card] = (obs.confidence, [p.copy() for p in obs.points])
        return guesses or None

    def _laid_again_weakly(self, state: _ZoneState, track: _Track) -> bool:
        """``track``, the card taken off the pile (``_ZoneState.lifted``), read first of all where a card is about
        to be asked about: too weakly to be confirmed (:meth:`_laid_again`), yet it is that card laid again, and
        nothing is asked. Why: the card taken off lies in its player's hand, the one about to land there, and a
        card the models read poorly is read poorly again when it is laid again. tango_nuevo, Makao for four with
        ``--retake``: a 4S and a 10S, each named with the button when first played (which :meth:`named` now tells
        the tracker), were laid again and read 4S (10S) first but weakly; they were asked about, and the player's
        next press, meant to end his play, answered the ask. A card read first as another is asked about as before
        (it may be another card)."""
        pending = max(state.pending, key=lambda p: p.weight_of(track.card), default=None)
        if pending is None or pending.weight_of(track.card) <= 0.0:
            return False
        card = next(c for c in pending.candidates if c.same_face(track.card))
        state.pending.remove(pending)
        self._lay_again(state, track, pending, card)
        return True

    def _card_shaped(self, state: _ZoneState, image: np.ndarray, *, one: bool = False) -> bool:
        """A card-sized quadrilateral in the zone (:meth:`_lying`): any card, either side up, or cards lying
        together. ``one``: the outline of one card, its sides a card's (within :data:`_ONE_CARD_SIDES`) and filling
        the rectangle around it (:data:`_ONE_CARD_FILL`).

        Why ``one``: what is asked about in a zone where nothing was read is one card put down, and a hand resting
        on the mat there, still, is as large as one or two cards but of no card's outline: a palm and fingers fill
        0.7-0.8 of the rectangle around them, 84-88 mm across; a card 0.96-0.97, 63 mm (``cardtable bench tracker
        --rest``: 8 asks about an empty zone in a 3-5-8 game before)."""
        s = self.settings
        card_area = CARD_SIZE_MM[0] * CARD_SIZE_MM[1]
        low, high = _ONE_CARD_SIDES
        for contour in self._lying(state, image):
            area = cv2.contourArea(contour)
            if s.card_blob_min * card_area <= area <= s.card_blob_max * card_area:
                (_, (w, h), _) = cv2.minAreaRect(contour)
                if not (w > 0 and h > 0 and 0.5 <= min(w, h) / max(w, h) <= 0.95):
                    continue
                if not one:
                    return True
                short, long = min(w, h) / min(CARD_SIZE_MM), max(w, h) / max(CARD_SIZE_MM)
                if low <= short <= high and low <= long <= high and area >= _ONE_CARD_FILL * w * h:
                    return True
        return False

    def _lying(
        self, state: _ZoneState, image: np.ndarray, *, by_felt: bool = False, shade_is_felt: bool = True
    ) -> Sequence[np.ndarray]:
        """The outlines (top-down mm) of what lies in the zone: what differs from the empty mat when that is known
        and ``by_felt`` is not asked, else what differs from the felt's colour (the felt is most of a zone). The mat
        in a shadow is the mat (:mod:`vision.shading`), unless ``shade_is_felt`` is False: a picture to be kept as
        the empty mat's must have no deep shadow on it, or the mat lit again would differ from it."""
        top, _ = self._top_down(state, image)  # 1 px per mm
        if not by_felt and self._empty is not None and self._empty.shape == image.shape[:2]:
            now = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
            then = self._top_down(state, self._empty)[0].astype(np.float32)
            known = None if self._empty_known is None else self._top_down(state, self._empty_known)[0] > 250
            if known is not None and not known.any():
                return self._lying(state, image, by_felt=True, shade_is_felt=shade_is_felt)  # none of it pictured
            shown = (then, now) if known is None else (then[known], now[known])
            gain = max(1.0, float(np.median(shown[0]))) / max(1.0, float(np.median(shown[1])))
            now *= gain
            mask = (np.abs(now - then) > 30).astype(np.uint8)
            if shade_is_felt and self._empty_view is not None and self._empty_view.ndim == 3:  # a shadow: no card
                empty = self._top_down(state, self._empty_view)[0]
                mask[shading_only(empty, top, window=SHADE_WINDOW, exposure=1.0 / gain, where=mask > 0)] = 0
            if known is not None:  # off the view the picture was taken in (before a bump): by the felt's colour
                mask[~known] = _off_felt(top, shade_is_felt)[~known]
        else:  # the felt is most of the zone: whatever is far from its median colour
            mask = _off_felt(top, shade_is_felt)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return contours

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
        """The referee's word that the card the tracker asked about on the pile ``zone`` (:class:`UnreadableCard`)
        is ``card``: its player picked it from the guesses with his button, or the operator entered it. Where the
        ask still stands (nothing reported since) it becomes a track where it was read, with no event, as a card
        reported. Play zones are left as they are: a card there that is never read would be taken for gone.

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


_T = TypeVar("_T")


def _settings_from_dict(cls: type[_T], data: Mapping[str, Any], section: str) -> _T:
    """Build a settings dataclass, checking each key and each value's type and sign."""
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise ValueError(f"{section}.{key}: unknown setting (known: {', '.join(known)})")
        default = getattr(cls, key)
        if isinstance(default, int) and (not isinstance(value, int) or isinstance(value, bool)):
            raise ValueError(f"{section}.{key}: must be a whole number, not {value!r}")
        if isinstance(default, float) and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise ValueError(f"{section}.{key}: must be a number, not {value!r}")
        if value < 0:
            raise ValueError(f"{section}.{key}: must not be negative, not {value!r}")
        values[key] = value
    return cls(**values)


def _grown(zone: Zone, margin: float) -> np.ndarray:
    """The four corners (table mm, clockwise from top-left) of ``zone``'s bounds grown by ``margin``."""
    x1, y1, x2, y2 = zone.bounds
    return np.array(
        [[x1 - margin, y1 - margin], [x2 + margin, y1 - margin], [x2 + margin, y2 + margin], [x1 - margin, y2 + margin]]
    )


def _image_bounds(calibration: Calibration, zone: Zone, margin: float, width: int, height: int) -> Region:
    """The image-pixel bounding rectangle of ``zone`` grown by ``margin`` mm, clipped to the frame."""
    return _bounds(calibration.to_image(_grown(zone, margin)), width, height)


def _off_felt(top: np.ndarray, shade_is_felt: bool = True) -> np.ndarray:
    """Which pixels of a zone's top-down view (BGR) are far from its median colour, the felt's (most of a zone is
    felt), and not the felt in a shadow (:func:`vision.shading.shading_only`) unless ``shade_is_felt`` is False: 1
    where something lies, as uint8."""
    felt = np.median(top.reshape(-1, 3), axis=0)
    far: np.ndarray = np.linalg.norm(top.astype(np.float32) - felt, axis=2) > 60
    return (far & ~shading_only(felt, top, where=far) if shade_is_felt else far).astype(np.uint8)


def _bounds(pts: np.ndarray, width: int, height: int) -> Region:
    """The bounding rectangle of image points, clipped to a ``width`` x ``height`` frame."""
    left, top = float(np.clip(pts[:, 0].min(), 0, width)), float(np.clip(pts[:, 1].min(), 0, height))
    right, bottom = float(np.clip(pts[:, 0].max(), 0, width)), float(np.clip(pts[:, 1].max(), 0, height))
    return (left, top, right, bottom)


_SAME_PLACE_MM = 5.0
"""Readings of one card closer than this (table mm) were read at one place: kept once among its places."""


def _witness_weights(detections: Sequence[Detection], same_index: float) -> list[float]:
    """What each detection weighs in the vote: its confidence, times its share of its index's readings.

    One printed index is one witness. The detector now and then boxes an index twice, a tight and a loose box
    read differently, and the reader reads a new card's index at several places of different size: counted in
    full, a steady weak misread of the same ink held a sure reading under the agreement share, and the
    crops of one corner outvoted the card's other corner. So where boxes overlapping by ``same_index`` read
    other cards in the same frame, a reading weighs ``c * c / (c + the best confidence of each other card
    there)``: the index's readings share one witness by their confidence, and none of them is thrown away."""
    if not detections:
        return []
    conf = [d.confidence for d in detections]
    faces = [d.card.face for d in detections]
    same_ink = box_overlaps(np.array([d.box for d in detections])) >= same_index
    weights = []
    for i, det in enumerate(detections):
        rivals: dict[Card, float] = {}
        for j in np.flatnonzero(same_ink[i]):
            if faces[j] != faces[i]:
                rivals[faces[j]] = max(rivals.get(faces[j], 0.0), conf[j])
        total = det.confidence + sum(rivals.values())
        weights.append(det.confidence * det.confidence / total if total > 0 else 0.0)
    return weights


def _nearest(centres: np.ndarray, points: Sequence[np.ndarray]) -> list[int]:
    """For each box centre (table mm), which of a reading's ``points`` it lies nearest to: the corner that box read
    (a corner boxed twice has two boxes)."""
    return [int(np.argmin([float(np.linalg.norm(c - p)) for p in points])) for c in centres]


def _vacated_change(then: np.ndarray, now: np.ndarray, found: np.ndarray, away: int = 4) -> float | None:
    """How much the place a card left changed: the mean difference, in grey levels, between two grey upright views
    of where it lay (``then`` before the hand, ``now`` after; 2 px per mm) outside where it was found (``found``:
    its corners in view pixels) by ``away`` pixels and inside the view's edge by 2, both blurred a little against
    the camera's noise. None when less than 10 mm square was left (a push too small to say)."""
    height, width = then.shape
    there = np.zeros((height, width), np.uint8)
    cv2.fillPoly(there, [np.round(found).astype(np.int32)], 1)
    left = cv2.dilate(there, np.ones((2 * away + 1, 2 * away + 1), np.uint8)) == 0
    left[:2, :] = left[-2:, :] = False
    left[:, :2] = left[:, -2:] = False
    if int(left.sum()) < 40:
        return None
    a = cv2.GaussianBlur(then, (0, 0), 1.5).astype(np.float32)
    b = cv2.GaussianBlur(now, (0, 0), 1.5).astype(np.float32)
    return float(np.abs(a - b)[left].mean())


def _corresponding(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``new``'s four corners (table mm, turning the same way as ``old``'s) starting at the one that puts each
    nearest the same corner of ``old``."""
    return min((np.roll(new, k, axis=0) for k in range(4)), key=lambda o: float(np.linalg.norm(o - old, axis=1).sum()))


def _moved_card(
    then: np.ndarray, around: np.ndarray, pad: int, alike: float, guess: np.ndarray | None = None
) -> np.ndarray | None:
    """Where the card of the grey view ``then`` lies later, in ``around`` (the same place's view grown by ``pad``
    pixels on every side): the turn and shift (2 x 3, ``then``'s pixels; ``now``, the view of ``then``'s size and
    place, at it shows ``then``) that OpenCV's ECC alignment finds from ``guess`` (default: none), when the two are at
    least ``alike`` alike then (its correlation coefficient; 1: the same), else None. ``then``'s edges (5 %) are left
    out (the outline's own error, the rounded corners). Both are blurred a little first, so that the camera's noise
    does not count.

    Why the view grown: the card pushed 6-8 mm, aligned in a view of its old place only, is compared where it left
    that view with what lies beside it, and fell short of ``nudge_alike`` (the demo deck with two decks, Makao
    seed 1: a 3H pushed 7.9 mm, a 2S 7.3 mm, an AD 6.4 mm, each then reported again). Why three sizes, each from
    where the last one got even when it did not converge: from where the card lay, the half-size step alone did not
    converge for a 9C pushed 7.8 mm (seed 0 with two decks; the quarter-size one got within a pixel)."""
    height, width = then.shape
    my, mx = height // 20, width // 20
    template = then[my : height - my, mx : width - mx]
    edge = np.array([mx, my], np.float64)
    warp = np.eye(2, 3) if guess is None else np.asarray(guess, np.float64).copy()
    warp[:, 2] += warp[:, :2] @ edge + pad  # from the template's pixels to the grown view's
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-5)
    score = 0.0
    for scale in (0.25, 0.5, 1.0):  # coarse first, so that a push of a centimetre is within the alignment's reach
        a = cv2.GaussianBlur(cv2.resize(template, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0), 1.5)
        b = cv2.GaussianBlur(cv2.resize(around, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0), 1.5)
        scaled = warp.astype(np.float32)
        scaled[:, 2] *= scale
        everywhere = np.ones(b.shape, np.uint8)  # (the whole grown view may show the card)
        try:
            score, found = cv2.findTransformECC(
                a.astype(np.float32), b.astype(np.float32), scaled, cv2.MOTION_EUCLIDEAN, criteria, everywhere, 5
            )
        except cv2.error:  # this scale did not converge: the next, finer one starts from where this one did
            score = 0.0
            continue
        warp = np.asarray(found, np.float64)
        warp[:, 2] /= scale
    if score < alike:
        return None
    warp[:, 2] -= warp[:, :2] @ edge + pad
    return warp


def _most_differing(then: np.ndarray, now: np.ndarray, window: int = 8, margin: int = 6) -> float:
    """How much two grey upright views of a card (the same size, 2 px per mm) differ where they differ most: the
    largest mean difference, in grey levels, over any ``window`` pixels square (4 mm: a suit sign's or a digit's
    stroke) at least ``margin`` pixels (3 mm) inside the card's edge, once ``now`` is brought to ``then``'s
    brightness and contrast (a straight fit). Both are blurred a little first, so that the camera's noise and
    the warp's resampling do not count.

    Why the largest over a small square, not one figure for the whole face: a card of another rank or suit laid
    in line with one of a like layout differs in a digit, a suit sign or a pip, a few per cent of the face, which
    a correlation of the whole (OpenCV's ECC, ``nudge_alike``) averages away on white cards printed with little
    ink, while the same card pushed differs nowhere. Within 3 mm of the edge lie what a push uncovers beside the
    card and the rounded corners."""
    a = cv2.GaussianBlur(then, (0, 0), 1.5).astype(np.float32)
    b = cv2.GaussianBlur(now, (0, 0), 1.5).astype(np.float32)
    height, width = a.shape
    inner = (slice(margin, height - margin), slice(margin, width - margin))
    gain, offset = np.polyfit(b[inner].ravel(), a[inner].ravel(), 1)
    local = cv2.boxFilter(np.abs(a - (gain * b + offset))[inner], -1, (window, window), borderType=cv2.BORDER_REFLECT)
    return float(local.max()) if local.size else 0.0


def _carried(moved: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``points`` (``(n, 2)`` table mm) carried by the 3 x 3 map ``moved``."""
    return np.asarray(cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), moved)).reshape(-1, 2)


def _depths(outline: np.ndarray, points: Sequence[np.ndarray]) -> list[float]:
    """How far inside ``outline`` (a card's four corners, table mm) each of ``points`` lies, in mm: negative
    outside it. What every test of a reading against the card put down is made of."""
    quad = outline.astype(np.float32)
    return [cv2.pointPolygonTest(quad, (float(p[0]), float(p[1])), True) for p in points]


def _close(a: list[np.ndarray], b: list[np.ndarray], radius: float) -> bool:
    """Whether any point of ``a`` lies within ``radius`` mm of any point of ``b``."""
    return any(float(np.linalg.norm(p - q)) <= radius for p in a for q in b)
