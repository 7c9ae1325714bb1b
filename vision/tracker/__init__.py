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
  :class:`~vision.events.CardRemoved` for each, then a :class:`~vision.events.ZoneCleared` when the zone is empty. On a
  ``pile`` zone (Makao) a card that stops being seen has been covered by the next one: no event until the
  whole pile goes, which is one ``ZoneCleared``.
* **unreadable**: something card-shaped (a bright quadrilateral on the felt, or detections too weak
  or too divided to confirm) stays still for ``unreadable_frames`` frames: one :class:`~vision.events.UnreadableCard`
  per still run, with the best guesses. The referee may take that card from a seat button, so when
  later nothing is read in the zone for ``gone_frames`` still frames and nothing card-shaped is left,
  the zone gets its :class:`~vision.events.ZoneCleared` like any other.

* **what the referee knows** and a camera cannot see: a tracker started mid-game (after a restart) is told
  which cards lie where already (:meth:`CardTracker.expect`), and takes each, read in its zone's first settled
  view, without an event, or reports the zone cleared when they are gone; at a new Makao stock it is told
  that the cards under the pile's top card are gone (:meth:`CardTracker.gathered`), so one of them played
  again is a new card.

Every threshold is a field of :class:`TrackerSettings`.

The package holds it by what each part does: :mod:`~vision.tracker.settings` (the thresholds),
:mod:`~vision.tracker.state` (what is remembered per zone), :mod:`~vision.tracker.geometry` and
:mod:`~vision.tracker.pictures` (plain functions of points and of images), and :class:`CardTracker` as a chain of
classes, each in its own module: :mod:`~vision.tracker.views` (looking at a zone's pictures),
:mod:`~vision.tracker.votes` (readings into votes), :mod:`~vision.tracker.confirm` (votes into events) and
:mod:`~vision.tracker.tracker` (the update, the calibration, the referee's word).
"""

from __future__ import annotations

from vision.tracker.settings import TrackerSettings
from vision.tracker.state import REPORTED_VIEWS
from vision.tracker.tracker import CardTracker
from vision.tracker.views import CARRIED_SLACK_PX, OCCUPIED_SHARE, SHADE_WINDOW

__all__ = [
    "CARRIED_SLACK_PX",
    "OCCUPIED_SHARE",
    "REPORTED_VIEWS",
    "SHADE_WINDOW",
    "CardTracker",
    "TrackerSettings",
]
