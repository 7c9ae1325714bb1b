"""What the tracker remembers, per zone: one frame's readings of a card (:class:`_Obs`), a card reported
(:class:`_Track`), the votes of a still run at one place (:class:`_Pending`) and the zone's state (:class:`_ZoneState`).

Dataclasses (with the few questions a place's votes answer, :class:`_Pending`), apart from the layers of
:class:`~vision.tracker.CardTracker` that change them: every layer reads them, and the tests build them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.cards import Card
from vision.tracker.geometry import _close
from vision.zones import Zone

REPORTED_VIEWS = 3
"""How many settled views after cards reported a pile keeps (:meth:`CardTracker._unchanged`): the last card's,
and those before it, which a player picking the top card up again (or two) brings back into view."""


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
    that index's readings when the index was also read as another card in the frame
    (:func:`~vision.tracker.votes._witness_weights`)."""
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
