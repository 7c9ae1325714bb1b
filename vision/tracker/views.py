"""Looking at a zone's pictures, before anything is read in them: :class:`_ZoneViews`, the lowest layer of
:class:`~vision.tracker.CardTracker`, and the fixed thresholds it looks with."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import cv2
import numpy as np

from vision.calibration import Calibration, CalibratorSettings, detect_markers, marker_drift
from vision.detections import Detection
from vision.mat import FELT_BGR, render_mat
from vision.proposals import INDEX_CORE_MM, changed_card, changed_pixels, lit_only, misfit, unchanged_at
from vision.shading import DARKEST, SHADE_WINDOW_MM, shading_only, shadowed
from vision.sources.base import Frame
from vision.tracker.base import _Base
from vision.tracker.geometry import _carried, _corresponding, _grown
from vision.tracker.pictures import _most_differing, _moved_card, _off_felt, _vacated_change
from vision.tracker.state import _Track, _ZoneState
from vision.zones import CARD_SIZE_MM

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
PRINT_SPREAD_MM = 4
"""How far round the mat's own printing (zone outlines, labels) a picture of the empty mat may show it spread, table
mm (:meth:`_ZoneViews._printing`): a lens a little out of focus (blur 1.5 px, 1 mm at 1.5 px a mm), a calibration a
millimetre off, paper that stretched in the printer."""
OCCUPIED_SHARE = 0.2
"""Something off the felt this share of a card's area or larger makes a zone occupied
(:meth:`CardTracker.occupied_zones`): a card's corner peeking in, a fingertip's length of a hand; the mat's
printing, thin lines and letters, stays under it (the synthetic mat's zone labels and outlines)."""


class _ZoneViews(_Base):
    """Motion between frames, the picture of the empty mat, shadows, what lies on the felt (something card-shaped, an
    arm reaching in), the outline of the card a hand put down, the top card pushed where it lay, and what changed in a
    zone since a view of it kept from before (the zones' kept views carried through a bump too).

    Apart because none of it reads a card: it compares images, the frames and the views each
    :class:`~vision.tracker.state._ZoneState` keeps, and the layers above ask it about them."""

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
        empty mat. The mat's own printing (lines, letters), where the mat drawn says it lies, is left out
        (:meth:`_printing`), however a soft lens spreads it. A zone in a deep shadow (a player
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
            and (
                in_shadow(state)
                or self._occupied(state, image, by_felt=True, shade_is_felt=False, printing=self._printing(state))
            )
        ]

    def _printing(self, state: _ZoneState) -> np.ndarray:
        """Where the mat's own printing (:func:`vision.mat.render_mat`: zone outlines, labels) lies in ``state``'s
        zone as :meth:`_top_down` sees it (1 px per mm), grown by :data:`PRINT_SPREAD_MM`: 1 there, as uint8. Why:
        two zones' outlines side by side (3-5-8's SEAT 3 and EXCHANGE, 16 mm apart) seen through a lens a little out
        of focus spread and closed into one thing of a fifth of a card's area, and ``cardtable calibrate`` named the
        bare zone occupied and kept no picture of the empty mat."""
        x1, y1, x2, y2 = state.zone.bounds
        m = self.settings.zone_margin_mm
        mat = render_mat(self.layout, 1.0)
        printed = (np.abs(mat.astype(np.int16) - np.array(FELT_BGR, np.int16)).max(axis=2) > 0).astype(np.uint8)
        shift = np.array([[1.0, 0.0, m - x1], [0.0, 1.0, m - y1]])
        size = (round(x2 - x1 + 2 * m), round(y2 - y1 + 2 * m))
        view = cv2.warpAffine(printed, shift, size, flags=cv2.INTER_NEAREST)
        grow = 2 * PRINT_SPREAD_MM + 1
        return np.asarray(cv2.dilate(view, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))))

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
        self,
        state: _ZoneState,
        image: np.ndarray,
        *,
        by_felt: bool = False,
        shade_is_felt: bool = True,
        printing: np.ndarray | None = None,
    ) -> bool:
        """Whether something of :data:`OCCUPIED_SHARE` of a card's area or more, of any shape, lies in ``state``'s
        zone (:meth:`_lying`), leaving out what lies where ``printing`` is 1 (:meth:`_printing`)."""
        least = OCCUPIED_SHARE * CARD_SIZE_MM[0] * CARD_SIZE_MM[1]
        contours = self._lying(state, image, by_felt=by_felt, shade_is_felt=shade_is_felt, printing=printing)
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
        self,
        state: _ZoneState,
        image: np.ndarray,
        *,
        by_felt: bool = False,
        shade_is_felt: bool = True,
        printing: np.ndarray | None = None,
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
        if printing is not None:
            mask[printing > 0] = 0
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return contours
