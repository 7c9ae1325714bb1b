"""From detections to votes: :class:`_Votes`, the layer of :class:`~vision.tracker.CardTracker` that gathers each
frame's readings per zone and weighs them, and :func:`_witness_weights`."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from engine.cards import Card
from vision.detections import Detection, box_overlap, box_overlaps
from vision.proposals import INDEX_CORE_MM, index_quads
from vision.tracker.geometry import _SAME_PLACE_MM, _bounds, _close, _depths, _nearest
from vision.tracker.state import _Obs, _Pending, _Track, _ZoneState
from vision.tracker.views import _ZoneViews
from vision.zones import CARD_SIZE_MM


class _Votes(_ZoneViews):
    """Each frame's detections (the recogniser's, and the reader's at a new card's indices) grouped into physical
    cards per zone (:class:`~vision.tracker.state._Obs`), then matched to the cards reported there or gathered as
    votes at places of the mat (:class:`~vision.tracker.state._Pending`), with what is not a card played told apart:
    a reported card read otherwise, a covered card's corner, a card beneath the one just put down, the other copy
    of a face with two decks.

    Apart because it only gathers the evidence; the layer above decides on it (a card confirmed, gone or asked
    about: :class:`~vision.tracker.confirm._Confirms`)."""

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

    def _read_outlines(
        self, image: np.ndarray, detections: Sequence[Detection], motion: Mapping[str, bool], unread: frozenset[str]
    ) -> list[Detection]:
        """The reader's detections at the indices of each still zone's new card, until a card is reported
        there, and of the cards reported that way that the detector does not see (see
        :mod:`vision.tracker`); none where no card-sized outline appeared."""
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
