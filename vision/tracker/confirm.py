"""Confirming, placing, retiring and asking: :class:`_Confirms`, the layer of :class:`~vision.tracker.CardTracker`
that turns a still zone's votes and views into events."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import cv2
import numpy as np

from engine.cards import Card
from vision.events import CardMoved, CardPlaced, CardRemoved, UnreadableCard, VisionEvent, ZoneCleared
from vision.proposals import changed_at, changed_pixels, index_quads, unchanged_at
from vision.sources.base import Frame
from vision.tracker.geometry import _SAME_PLACE_MM, _close, _depths
from vision.tracker.state import _Pending, _Track, _ZoneState
from vision.tracker.votes import _Votes
from vision.zones import CARD_SIZE_MM


class _Confirms(_Votes):
    """A reading confirmed and reported (a card placed or moved, laid again, taken as one the referee said lay
    there), a reported card gone, and something card-shaped that cannot be read asked about.

    Apart because these are the tracker's verdicts, each an event or the reason for none; what they weigh comes
    from the layers beneath (:class:`~vision.tracker.votes._Votes`, :class:`~vision.tracker.views._ZoneViews`)."""

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
        referee has it (:meth:`~vision.tracker.CardTracker.expect`). It becomes a track where it was read, with no
        event, and its reading leaves the place, whose other readings go on voting: a restarted camera sees the card
        just put down beside the one it covers, at one place (a Makao pile's new top card and the corner of the one
        beneath)."""
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
        ``--retake``: a 4S and a 10S, each named with the button when first played (which
        :meth:`~vision.tracker.CardTracker.named` now tells the tracker), were laid again and read 4S (10S) first but
        weakly; they were asked about, and the player's next press, meant to end his play, answered the ask. A card read
        first as another is asked about as before (it may be another card)."""
        pending = max(state.pending, key=lambda p: p.weight_of(track.card), default=None)
        if pending is None or pending.weight_of(track.card) <= 0.0:
            return False
        card = next(c for c in pending.candidates if c.same_face(track.card))
        state.pending.remove(pending)
        self._lay_again(state, track, pending, card)
        return True
