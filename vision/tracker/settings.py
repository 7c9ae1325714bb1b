"""The card tracker's thresholds, :class:`TrackerSettings`, and how a settings section of the config is read.

Apart from the tracker's code so that the config (``[tracker]``, :mod:`controller.config`) and the benchmark can
name and check them without the rest, and so that the thresholds and the figures that chose them lie together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar


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
    may differ where they differ most (over 4 mm square, :func:`~vision.tracker.pictures._most_differing`) to be that
    card nudged. With ``--nudge 0.3``, Makao seeds 0-5 (the demo deck, tango_nuevo, two decks): 1.6-9.7 for each of 240
    pushes followed (1.3-9.4 for 706 in whole games, ``cardtable demo --nudge 0.3``); for a card put down onto one of a
    like face that ECC found at least ``nudge_alike`` alike, 107 there and 41-129 for 32 such cards of tango_nuevo's
    whole Makao games, seeds 0-47 (41: a QD, 47 a JS, 49 a QC: court cards share a picture)."""
    nudge_vacated: float = 8.0
    """With two decks, a card's twin laid almost onto it differs from it nowhere (``nudge_differs``); then the card
    beneath still lies where it lay, while a card pushed leaves its place. So the place it left (its view before the
    hand, outside where it was found by 2 mm, :func:`~vision.tracker.pictures._vacated_change`) must have changed by at
    least this mean, in grey levels, for a nudge. The demo deck, ``--decks 2 --nudge 0.3``, seeds 0-5: 23.3-114.9 for 71
    cards pushed (the others left less than 10 mm square to say), 14.9-122.0 for 284 in whole games for five and six;
    Makao for six, seeds 1 and 2 (a 5S onto the 5S, a QC onto the QC): 0.9 and 2.0."""
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
