"""The synthetic table: overhead camera frames of the mat while a script of actions is played.

The demo has no camera, and the tracker's tests need frames whose truth is known, so this draws what
a camera above a real table would see: the printed mat (the same drawing as ``cardtable mat``) under
a modest tilt and roll, cards carried in by hands from the player's side and let go into a zone with
a little rotation and offset, hands covering the cards while they place them, tricks swept off the
table, the Makao pile growing, uneven light, flicker and sensor noise. It is deterministic from a
seed and exposes the truth of every frame: which cards lie still in which zone, where each printed
corner index is and whether it can be seen, and in which frame each card became still.

It draws only a few frames per action (hand in, let go, hand out, a few still frames) so that the
demo renders a whole hand in seconds on a small CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engine.cards import Card
from vision.calibration import Calibration
from vision.mat import render_mat
from vision.render.script import Action, Collect, Gather, Lean, Nudge, PickUp, Place, Rest, Slide, Wait
from vision.sources.base import Frame
from vision.zones import CARD_SIZE_MM, LayoutError, ZoneLayout

FaceLoader = Callable[[Card], np.ndarray]
"""Returns the face of a card as a BGRA image (alpha 0 outside the card)."""
BoxesLoader = Callable[[Card], list[tuple[int, int, int, int]]]
"""Returns the printed corner-index boxes ``(x1, y1, x2, y2)`` in the face image's pixels."""

MAT_PX_PER_MM = 2.0
TABLE_BGR = (40, 72, 110)


@dataclass(frozen=True)
class RenderSettings:
    """How the synthetic camera and players behave; every field is a knob the tests may turn."""

    size: tuple[int, int] = (1280, 720)
    fps: float = 10.0
    tilt_deg: float = 8.0
    roll_deg: float = 2.0
    noise_sigma: float = 3.0
    blur_sigma: float = 0.0
    """A lens out of focus (or a camera mounted higher than it was focused for): a Gaussian blur of this sigma
    in pixels, on the light before the sensor adds its noise. 0: in focus."""
    jpeg_quality: int | None = None
    """Each frame compressed as JPEG at this quality and decoded again, as a USB webcam's MJPEG stream
    delivers 1280x720 at ten frames a second; None: raw frames (a Pi camera's)."""
    flicker: float = 0.02
    vignette: float = 0.25
    hand_shadow: float = 0.0
    """The share of the lamp's light a player's arm and hand take from the mat beneath, in a soft shadow thrown
    ``shadow_offset_mm`` from them (0: none, every figure measured before it; 0.4: a lamp a metre over the table).
    A real table's hands come with their shadows, which move over zones the hand does not reach."""
    shadow_offset_mm: tuple[float, float] = (60.0, 40.0)
    hand_frames: int = 2
    settle_frames: int = 5
    place_jitter_mm: float = 8.0
    place_angle_deg: float = 8.0
    pile_jitter_mm: float = 15.0
    pile_angle_deg: float = 30.0
    seats: int = 3


@dataclass(frozen=True, slots=True)
class CornerTruth:
    """One printed corner index in a frame: its quad in image pixels and whether the camera sees it."""

    card: Card
    polygon: tuple[tuple[float, float], ...]
    visible: bool
    zone: str | None
    """The zone of the card lying on the table, ``None`` while a hand carries it."""


@dataclass(frozen=True)
class FrameTruth:
    """What is really on the table in one frame."""

    zones: dict[str, tuple[Card, ...]]
    """Cards lying in each zone (bottom first); carried cards are in none."""
    hand: bool
    corners: tuple[CornerTruth, ...]


@dataclass(frozen=True, slots=True)
class TruthEvent:
    """What the tracker should report, and from which frame on: ``kind`` is placed, moved, removed or cleared."""

    kind: str
    zone: str
    card: Card | None
    still_frame: int
    still_t: float
    from_zone: str | None = None


@dataclass(frozen=True)
class RenderedFrame:
    frame: Frame
    truth: FrameTruth


@dataclass(eq=False)
class _Card:
    card: Card
    zone: str | None
    x: float
    y: float
    angle: float  # degrees


@dataclass
class _Hand:
    seat: int
    x: float
    y: float


@dataclass
class _Shade:
    """A player leaning over the table: their seat, how much light their shadow takes, and how far it reaches in
    (a share of the way from their edge of the mat to its middle)."""

    seat: int
    depth: float
    reach: float


@dataclass
class _Scene:
    lying: list[_Card] = field(default_factory=list)
    carried: list[_Card] = field(default_factory=list)
    hand: _Hand | None = None
    shade: _Shade | None = None


def _default_boxes(face: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Where most designs print the index: the top-left corner, and the bottom-right turned over."""
    h, w = face.shape[:2]
    a = (round(0.03 * w), round(0.02 * h), round(0.19 * w), round(0.25 * h))
    return [a, (w - a[2], h - a[3], w - a[0], h - a[1])]


class TableRenderer:
    """Draw frames of the table as a script of actions plays; see the module doc.

    ``face_loader`` defaults to the committed demo deck (:func:`vision.synth.faces.load_face`).
    Call :meth:`apply` for one action at a time (the demo) or :meth:`render` for a whole script.
    ``events`` collects the truth the tracker should report.
    """

    def __init__(
        self,
        layout: ZoneLayout,
        settings: RenderSettings | None = None,
        seed: int = 0,
        face_loader: FaceLoader | None = None,
        boxes_loader: BoxesLoader | None = None,
        design: str | None = None,
    ) -> None:
        self.layout = layout
        self.settings = settings or RenderSettings()
        self.rng = np.random.default_rng(seed)
        if face_loader is None:
            face_loader, boxes_loader = _deck_loaders(design)
        self._load_face = face_loader
        self._load_boxes = boxes_loader
        self._faces: dict[Card, tuple[np.ndarray, list[np.ndarray]]] = {}
        self.index = 0
        self.scene = _Scene()
        self.events: list[TruthEvent] = []
        self._layer_cache: tuple[tuple[object, ...], np.ndarray, list[Any]] | None = None
        w, h = self.settings.size
        self.table_to_image = self._camera()
        self._px_per_mm = self._local_scale()
        self._base = self._draw_base()
        self._gain = self._lighting()
        sigma = self.settings.noise_sigma
        noise = self.rng.normal(0.0, sigma, size=(h + 32, w + 32, 3)) if sigma > 0 else np.zeros((h + 32, w + 32, 3))
        self._noise_pos = np.clip(noise, 0, 255).astype(np.uint8)
        self._noise_neg = np.clip(-noise, 0, 255).astype(np.uint8)
        self._skin = [tuple(int(v) for v in self.rng.integers([90, 120, 170], [140, 170, 225])) for _ in range(8)]
        self._sleeve = [tuple(int(v) for v in self.rng.integers(20, 200, size=3)) for _ in range(8)]

    # ----- geometry -------------------------------------------------------------------------
    def _camera(self) -> np.ndarray:
        s = self.settings
        w, h = s.size
        lw, lh = self.layout.width, self.layout.height
        scale = min(w * 0.9 / lw, h * 0.9 / lh)
        cx, cy = w / 2 + self.rng.uniform(-10, 10), h / 2 + self.rng.uniform(-8, 8)
        hw, hh = lw * scale / 2, lh * scale / 2
        shrink = 0.6 * math.tan(math.radians(s.tilt_deg)) * hw
        pts = np.array([[-hw + shrink, -hh], [hw - shrink, -hh], [hw, hh], [-hw, hh]], dtype=np.float64)
        roll = math.radians(self.rng.uniform(-s.roll_deg, s.roll_deg))
        rot = np.array([[math.cos(roll), -math.sin(roll)], [math.sin(roll), math.cos(roll)]])
        pts = pts @ rot.T + [cx, cy]
        src = np.array([[0, 0], [lw, 0], [lw, lh], [0, lh]], dtype=np.float32)
        return cv2.getPerspectiveTransform(src, pts.astype(np.float32))

    def _local_scale(self) -> float:
        mx, my = self.layout.width / 2, self.layout.height / 2
        c = np.array([[mx, my], [mx + 100, my]])
        p = self._project(c)
        return float(np.linalg.norm(p[1] - p[0]) / 100)

    def _project(self, pts_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.table_to_image).reshape(-1, 2)

    def relight(self) -> None:
        """The light changes from here on (a lamp moved, the daylight gone): a new uneven light over the table,
        drawn from the renderer's generator as the first one was. Why: ``cardtable calibrate`` keeps its frame
        as the tracker's picture of the empty mat, and play may come hours later under another light."""
        self._gain = self._lighting()

    def true_calibration(self) -> Calibration:
        """The exact image-to-table homography the frames were drawn with (what calibration should find)."""
        return Calibration(np.linalg.inv(self.table_to_image), self.settings.size, 0.0, {}, self.layout.game)

    def bump(self, dx: float, dy: float, rotate_deg: float = 0.0) -> None:
        """Knock the camera: from the next frame the table appears shifted by (dx, dy) px and turned
        ``rotate_deg`` about the image centre (for testing recalibration mid-game)."""
        w, h = self.settings.size
        a = np.radians(rotate_deg)
        cx, cy = w / 2, h / 2
        move = np.array(
            [
                [np.cos(a), -np.sin(a), cx - cx * np.cos(a) + cy * np.sin(a) + dx],
                [np.sin(a), np.cos(a), cy - cx * np.sin(a) - cy * np.cos(a) + dy],
                [0, 0, 1],
            ]
        )
        self.table_to_image = move @ self.table_to_image
        self._base = self._draw_base()
        self._layer_cache = None

    def _seat_dir(self, seat: int) -> tuple[float, float]:
        """Unit vector, in table mm, from the table's middle towards the seat: seat 0 sits at the bottom edge."""
        n = max(1, self.settings.seats)
        a = math.radians(90 + (seat % n) * 360 / n)
        return (math.cos(a), math.sin(a))

    def _edge_point(self, x: float, y: float, seat: int) -> tuple[float, float]:
        """Where a hand coming from ``seat`` towards (x, y) enters the view: just off the mat."""
        dx, dy = self._seat_dir(seat)
        return (x + dx * 420, y + dy * 420)

    # ----- drawing --------------------------------------------------------------------------
    def _draw_base(self) -> np.ndarray:
        w, h = self.settings.size
        mat = render_mat(self.layout, MAT_PX_PER_MM)
        grain = self.rng.normal(0, 6, size=(mat.shape[0] // 4 + 1, mat.shape[1] // 4 + 1)).astype(np.float32)
        texture = cv2.resize(cv2.GaussianBlur(grain, (0, 0), 1.2), (mat.shape[1], mat.shape[0]))
        mat = np.clip(mat.astype(np.float32) + texture[:, :, None], 0, 255).astype(np.uint8)
        k = 1 / MAT_PX_PER_MM
        mat_to_table = np.array([[k, 0, 0.5 * k], [0, k, 0.5 * k], [0, 0, 1]])
        base: np.ndarray = cv2.warpPerspective(
            mat,
            self.table_to_image @ mat_to_table,
            (w, h),
            flags=cv2.INTER_LINEAR,  # OpenCV's warps have no area average (INTER_AREA is taken as this)
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=TABLE_BGR,
        )
        stock = [z for z in self.layout.zones if z.kind == "stock"]
        for zone in stock:
            cx, cy = zone.center
            for layer in range(4):
                self._draw_back(base, cx - layer * 0.6, cy - layer * 0.8, 2.0)
        return base

    def _draw_back(self, img: np.ndarray, x: float, y: float, angle: float) -> None:
        quad = self._project(self._card_quad(x, y, angle)).astype(np.int32)
        cv2.fillPoly(img, [quad], (235, 235, 235), cv2.LINE_AA)
        inner = self._project(self._card_quad(x, y, angle, inset=4)).astype(np.int32)
        cv2.fillPoly(img, [inner], (40, 40, 150), cv2.LINE_AA)

    def _lighting(self) -> np.ndarray:
        w, h = self.settings.size
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        a = self.rng.uniform(0, 2 * math.pi)
        grad = ((xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a)) * 0.2
        gain = np.clip(1.0 - self.settings.vignette * r2 * 0.5 - grad - 0.1, 0.3, 1.0) * 255
        return np.repeat(gain[:, :, None], 3, axis=2).astype(np.uint8)

    @staticmethod
    def _card_quad(x: float, y: float, angle: float, inset: float = 0.0) -> np.ndarray:
        w, h = CARD_SIZE_MM
        hw, hh = w / 2 - inset, h / 2 - inset
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(local @ rot.T + [x, y], dtype=np.float64)

    def _face(self, card: Card) -> tuple[np.ndarray, list[np.ndarray]]:
        cached = self._faces.get(card)
        if cached is None:
            face = np.asarray(self._load_face(card.face))
            if face.ndim != 3 or face.shape[2] != 4:
                raise LayoutError(f"face of {card} must be a BGRA image, got shape {face.shape}")
            boxes = self._load_boxes(card.face) if self._load_boxes is not None else _default_boxes(face)
            target_h = max(32, round(CARD_SIZE_MM[1] * self._px_per_mm * 1.5))
            k = target_h / face.shape[0]
            small = cv2.resize(face, (max(8, round(face.shape[1] * k)), target_h), interpolation=cv2.INTER_AREA)
            quads = [np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64) * k for x1, y1, x2, y2 in boxes]
            cached = (small, quads)
            self._faces[card] = cached
        return cached

    def _card_transform(self, c: _Card, face: np.ndarray) -> np.ndarray:
        fh, fw = face.shape[:2]
        src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        dst = self._project(self._card_quad(c.x, c.y, c.angle)).astype(np.float32)
        return cv2.getPerspectiveTransform(src, dst)

    def _paste(self, img: np.ndarray, c: _Card) -> None:
        face, _ = self._face(c.card)
        m = self._card_transform(c, face)
        fh, fw = face.shape[:2]
        corners = cv2.perspectiveTransform(np.array([[[0, 0]], [[fw, 0]], [[fw, fh]], [[0, fh]]], np.float64), m)
        x0, y0 = np.floor(corners.reshape(-1, 2).min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.reshape(-1, 2).max(axis=0)).astype(int) + 1
        h, w = img.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        patch = cv2.warpPerspective(
            face,
            shift @ m,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        alpha = patch[:, :, 3:4].astype(np.float32) / 255.0
        roi = img[y0:y1, x0:x1]
        roi[:] = (roi * (1 - alpha) + patch[:, :, :3] * alpha).astype(np.uint8)

    def _hand_polygons(self, hand: _Hand) -> list[np.ndarray]:
        """The hand as polygons in table mm: arm, palm, fingers (drawn and used for occlusion truth)."""
        dx, dy = self._seat_dir(hand.seat)
        px, py = -dy, dx
        x, y = hand.x, hand.y
        arm_w, length = 42.0, 700.0
        arm = np.array(
            [
                [x + px * arm_w, y + py * arm_w],
                [x - px * arm_w, y - py * arm_w],
                [x - px * arm_w + dx * length, y - py * arm_w + dy * length],
                [x + px * arm_w + dx * length, y + py * arm_w + dy * length],
            ]
        )
        t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        palm = np.stack([x + 46 * np.cos(t), y + 40 * np.sin(t)], axis=1)
        fingers = []
        for k in (-1.5, -0.5, 0.5, 1.5):
            bx, by = x + px * k * 17 - dx * 30, y + py * k * 17 - dy * 30
            tx, ty = bx - dx * 45, by - dy * 45
            fingers.append(
                np.array(
                    [
                        [bx + px * 7, by + py * 7],
                        [bx - px * 7, by - py * 7],
                        [tx - px * 6, ty - py * 6],
                        [tx + px * 6, ty + py * 6],
                    ]
                )
            )
        return [arm, palm, *fingers]

    def _draw_hand(self, img: np.ndarray, hand: _Hand) -> None:
        polys = self._hand_polygons(hand)
        skin = self._skin[hand.seat % len(self._skin)]
        sleeve = self._sleeve[hand.seat % len(self._sleeve)]
        for k, poly in enumerate(polys):
            pts = self._project(poly).astype(np.int32)
            cv2.fillPoly(img, [pts], sleeve if k == 0 else skin, cv2.LINE_AA)

    def _shadow(self, img: np.ndarray) -> None:
        """Darken ``img`` (the table and what lies on it, before the hand is drawn over) where the hand's and a
        leaning player's shadows fall: their shapes in table mm, filled at a quarter of the frame's size and
        blurred into a penumbra, which is what a lamp above the table throws."""
        shapes: list[tuple[list[np.ndarray], float, float]] = []  # (polygons in mm, depth, penumbra in mm)
        hand = self.scene.hand
        if hand is not None and self.settings.hand_shadow > 0:
            ox, oy = self.settings.shadow_offset_mm
            offset = np.array([ox, oy])
            shapes.append(([p + offset for p in self._hand_polygons(hand)], self.settings.hand_shadow, 12.0))
        if self.scene.shade is not None:
            shapes.append((self._lean_polygons(self.scene.shade), self.scene.shade.depth, 40.0))
        if not shapes:
            return
        h, w = img.shape[:2]
        light = np.ones((h // 4 + 1, w // 4 + 1), np.float32)
        for polys, depth, penumbra in shapes:
            mask = np.zeros_like(light)
            cv2.fillPoly(mask, [np.round(self._project(p) / 4).astype(np.int32) for p in polys], 1.0, cv2.LINE_AA)
            mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, penumbra * self._px_per_mm / 4))
            light *= 1.0 - depth * mask
        shade = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
        img[:] = np.clip(img * shade[:, :, None], 0, 255).astype(np.uint8)

    def _lean_polygons(self, shade: _Shade) -> list[np.ndarray]:
        """The shadow of a leaning player's head and shoulders, in table mm: the head ``reach`` of the way in from
        their edge of the mat towards its middle, the shoulders behind it, out over the edge."""
        dx, dy = self._seat_dir(shade.seat)
        mx, my = self.layout.width / 2, self.layout.height / 2
        edge = min(mx / max(abs(dx), 1e-6), my / max(abs(dy), 1e-6))  # the middle to their edge of the mat
        along = edge * (1.0 - shade.reach)
        t = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        px, py = -dy, dx

        def ellipse(dist: float, across: float, deep: float) -> np.ndarray:
            cx, cy = mx + dx * dist, my + dy * dist
            u, v = np.cos(t) * across, np.sin(t) * deep
            return np.stack([cx + px * u + dx * v, cy + py * u + dy * v], axis=1)

        return [ellipse(along + 40, 85.0, 110.0), ellipse(along + 230, 240.0, 150.0)]

    def _lying_layer(self) -> tuple[np.ndarray, list[tuple[Card, str | None, np.ndarray, np.ndarray, np.ndarray]]]:
        """The table with the cards lying on it, and their corners (card, zone, mm probes, px quad, hidden
        probes), redrawn only when a card has been put down or taken: a Makao pile is drawn once, not per frame."""
        key = tuple((id(c), c.x, c.y, c.angle) for c in self.scene.lying)
        if self._layer_cache is not None and self._layer_cache[0] == key:
            return self._layer_cache[1], self._layer_cache[2]
        img = self._base.copy()
        for c in self.scene.lying:
            self._paste(img, c)
        corners = self._corners(self.scene.lying, [])
        self._layer_cache = (key, img, corners)
        return img, corners

    def _corners(
        self, cards: list[_Card], covers_above: list[np.ndarray]
    ) -> list[tuple[Card, str | None, np.ndarray, np.ndarray, np.ndarray]]:
        quads = [self._card_quad(c.x, c.y, c.angle) for c in cards]
        out = []
        inv = np.linalg.inv(self.table_to_image)
        for i, c in enumerate(cards):
            face, boxes = self._face(c.card)
            to_table = inv @ self._card_transform(c, face)
            covers = quads[i + 1 :] + covers_above
            for box in boxes:
                mm = cv2.perspectiveTransform(box.reshape(-1, 1, 2), to_table).reshape(-1, 2)
                probes = np.vstack([mm, mm.mean(axis=0)])
                hidden = np.array([any(_inside(poly, p) for poly in covers) for p in probes])
                out.append((c.card, c.zone, probes, self._project(mm), hidden))
        return out

    def _frame(self) -> RenderedFrame:
        s = self.settings
        layer, lying_corners = self._lying_layer()
        img = layer.copy()
        for c in self.scene.carried:
            self._paste(img, c)
        self._shadow(img)
        if self.scene.hand is not None:
            self._draw_hand(img, self.scene.hand)
        flick = 1.0 + float(self.rng.uniform(-s.flicker, s.flicker))
        img = cv2.multiply(img, self._gain, scale=flick / 255.0)
        if s.blur_sigma > 0:
            img = cv2.GaussianBlur(img, (0, 0), s.blur_sigma)
        if s.noise_sigma > 0:
            w, h = s.size
            dx, dy = (int(v) for v in self.rng.integers(0, 32, size=2))
            img = cv2.add(img, self._noise_pos[dy : dy + h, dx : dx + w])
            img = cv2.subtract(img, self._noise_neg[dy : dy + h, dx : dx + w])
        if s.jpeg_quality is not None:
            _, encoded = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, s.jpeg_quality])
            img = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)
        truth = self._truth(lying_corners)
        frame = Frame(self.index, self.index / s.fps, img)
        self.index += 1
        return RenderedFrame(frame, truth)

    def _truth(self, lying_corners: list[tuple[Card, str | None, np.ndarray, np.ndarray, np.ndarray]]) -> FrameTruth:
        zones: dict[str, list[Card]] = {z.name: [] for z in self.layout.zones}
        for c in self.scene.lying:
            if c.zone is not None:
                zones[c.zone].append(c.card)
        hand_polys = self._hand_polygons(self.scene.hand) if self.scene.hand is not None else []
        above = [self._card_quad(c.x, c.y, c.angle) for c in self.scene.carried] + hand_polys
        corners: list[CornerTruth] = []
        for card, zone, probes, px, hidden in lying_corners:
            if above and hidden.sum() <= 1:
                hidden = hidden | np.array([any(_inside(poly, p) for poly in above) for p in probes])
            corners.append(CornerTruth(card, tuple((float(x), float(y)) for x, y in px), int(hidden.sum()) <= 1, zone))
        for card, _zone, _probes, px, hidden in self._corners(self.scene.carried, hand_polys):
            corners.append(CornerTruth(card, tuple((float(x), float(y)) for x, y in px), int(hidden.sum()) <= 1, None))
        return FrameTruth({k: tuple(v) for k, v in zones.items()}, self.scene.hand is not None, tuple(corners))

    # ----- actions --------------------------------------------------------------------------
    def render(self, actions: Iterable[Action]) -> Iterator[RenderedFrame]:
        for action in actions:
            yield from self.apply(action)

    def apply(self, action: Action) -> list[RenderedFrame]:
        """Draw the frames of one action; the truth events it causes are appended to ``events``."""
        if isinstance(action, Place):
            return self._place(action)
        if isinstance(action, Collect):
            return self._collect(action)
        if isinstance(action, Gather):
            return self._gather(action)
        if isinstance(action, Slide):
            return self._slide(action)
        if isinstance(action, PickUp):
            return self._pick_up(action)
        if isinstance(action, Nudge):
            return self._nudge(action)
        if isinstance(action, Lean):
            return self._lean(action)
        if isinstance(action, Rest):
            return self._rest(action)
        if isinstance(action, Wait):
            return [self._frame() for _ in range(action.frames)]
        raise TypeError(f"not a renderer action: {action!r}")

    def still(self, frames: int | None = None) -> list[RenderedFrame]:
        return [self._frame() for _ in range(self.settings.settle_frames if frames is None else frames)]

    def _hand_path(
        self,
        seat: int,
        start: tuple[float, float],
        end: tuple[float, float],
        n: int,
        carry: _Card | None = None,
        carry_offset: tuple[float, float] = (0.0, 0.0),
    ) -> list[RenderedFrame]:
        frames = []
        for k in range(1, n + 1):
            a = k / n
            x = start[0] + (end[0] - start[0]) * a
            y = start[1] + (end[1] - start[1]) * a
            self.scene.hand = _Hand(seat, x, y)
            if carry is not None:
                carry.x, carry.y = x + carry_offset[0], y + carry_offset[1]
            frames.append(self._frame())
        return frames

    def _grip(self, seat: int) -> tuple[float, float]:
        """Where the palm sits relative to the card it holds: over the card's edge nearest the player."""
        dx, dy = self._seat_dir(seat)
        return (dx * 40, dy * 40)

    def _place(self, action: Place) -> list[RenderedFrame]:
        s = self.settings
        zone = self.layout.zone(action.zone)
        cx, cy = zone.center
        pile = zone.kind == "pile"
        jit = s.pile_jitter_mm if pile else s.place_jitter_mm
        ang = s.pile_angle_deg if pile else s.place_angle_deg
        x = cx + float(self.rng.uniform(-jit, jit))
        y = cy + float(self.rng.uniform(-jit, jit))
        angle = float(self.rng.uniform(-ang, ang)) + (180.0 if self.rng.random() < 0.5 else 0.0)
        gx, gy = self._grip(action.seat)
        card = _Card(action.card, None, x, y, angle)
        self.scene.carried.append(card)
        start = self._edge_point(x + gx, y + gy, action.seat)
        frames = self._hand_path(action.seat, start, (x + gx * 1.3, y + gy * 1.3), s.hand_frames + 1, card, (-gx, -gy))
        self.scene.carried.remove(card)
        card.x, card.y, card.zone = x, y, action.zone
        self.scene.lying.append(card)
        frames.append(self._frame())  # let go: the hand still over the card's edge
        frames += self._hand_path(action.seat, (x + gx * 1.3, y + gy * 1.3), start, s.hand_frames)
        self.scene.hand = None
        still_index = self.index
        self.events.append(TruthEvent("placed", action.zone, action.card, still_index, still_index / s.fps))
        return frames + self.still()

    def _find(self, card: Card) -> _Card:
        for c in self.scene.lying:
            if c.card == card:
                return c
        raise LayoutError(f"card {card} is not on the table")

    def _slide(self, action: Slide) -> list[RenderedFrame]:
        s = self.settings
        c = self._find(action.card)
        src_zone = c.zone
        target = self.layout.zone(action.to_zone).center
        gx, gy = self._grip(action.seat)
        start = self._edge_point(c.x, c.y, action.seat)
        frames = self._hand_path(action.seat, start, (c.x + gx, c.y + gy), s.hand_frames)
        self.scene.lying.remove(c)
        self.scene.carried.append(c)
        c.zone = None
        tx = target[0] + float(self.rng.uniform(-s.place_jitter_mm, s.place_jitter_mm))
        ty = target[1] + float(self.rng.uniform(-s.place_jitter_mm, s.place_jitter_mm))
        frames += self._hand_path(action.seat, (c.x + gx, c.y + gy), (tx + gx, ty + gy), 3, c, (-gx, -gy))
        self.scene.carried.remove(c)
        c.zone = action.to_zone
        self.scene.lying.append(c)
        frames += self._hand_path(action.seat, (tx + gx, ty + gy), self._edge_point(tx, ty, action.seat), s.hand_frames)
        self.scene.hand = None
        still_index = self.index
        self.events.append(
            TruthEvent("moved", action.to_zone, action.card, still_index, still_index / s.fps, from_zone=src_zone)
        )
        if src_zone is not None and not any(x.zone == src_zone for x in self.scene.lying):
            self.events.append(TruthEvent("cleared", src_zone, None, still_index, still_index / s.fps))
        return frames + self.still()

    def _pick_up(self, action: PickUp) -> list[RenderedFrame]:
        s = self.settings
        c = self._find(action.card)
        zone = c.zone
        gx, gy = self._grip(action.seat)
        start = self._edge_point(c.x, c.y, action.seat)
        frames = self._hand_path(action.seat, start, (c.x + gx, c.y + gy), s.hand_frames)
        self.scene.lying.remove(c)
        self.scene.carried.append(c)
        c.zone = None
        frames += self._hand_path(action.seat, (c.x + gx, c.y + gy), start, s.hand_frames, c, (-gx, -gy))
        self.scene.carried.remove(c)
        self.scene.hand = None
        still_index = self.index
        if zone is not None:
            self.events.append(TruthEvent("removed", zone, action.card, still_index, still_index / s.fps))
            if not any(x.zone == zone for x in self.scene.lying):
                self.events.append(TruthEvent("cleared", zone, None, still_index, still_index / s.fps))
        return frames + self.still()

    def _nudge(self, action: Nudge) -> list[RenderedFrame]:
        """The hand comes to the card's near edge, pushes it (two frames), and leaves; it stays where it lay in the
        pile's order and in its zone, so no truth event: whatever the table reports of it is false."""
        s = self.settings
        c = self._find(action.card)
        gx, gy = self._grip(action.seat)
        start = self._edge_point(c.x, c.y, action.seat)
        frames = self._hand_path(action.seat, start, (c.x + gx, c.y + gy), s.hand_frames)
        x0, y0, a0 = c.x, c.y, c.angle
        for k in (1, 2):
            c.x, c.y, c.angle = x0 + action.dx * k / 2, y0 + action.dy * k / 2, a0 + action.turn * k / 2
            self.scene.hand = _Hand(action.seat, c.x + gx, c.y + gy)
            frames.append(self._frame())
        frames += self._hand_path(
            action.seat, (c.x + gx, c.y + gy), self._edge_point(c.x, c.y, action.seat), s.hand_frames
        )
        self.scene.hand = None
        return frames + self.still()

    def _collect(self, action: Collect) -> list[RenderedFrame]:
        s = self.settings
        taken = [c for c in self.scene.lying if c.zone in action.zones]
        if not taken:
            return self.still()
        zones_hit = sorted({c.zone for c in taken if c.zone is not None})
        first = taken[0]
        gx, gy = self._grip(action.seat)
        start = self._edge_point(first.x, first.y, action.seat)
        frames = self._hand_path(action.seat, start, (first.x + gx, first.y + gy), s.hand_frames)
        for c in taken:  # the hand gathers every card onto the first one, then sweeps them off
            self.scene.lying.remove(c)
            self.scene.carried.append(c)
            c.zone = None
        origins = [(c.x, c.y) for c in taken]
        for k in (1, 2):
            a = k / 2
            for c, (ox, oy) in zip(taken, origins, strict=True):
                c.x, c.y = ox + (first.x - ox) * a, oy + (first.y - oy) * a
            self.scene.hand = _Hand(action.seat, first.x + gx, first.y + gy)
            frames.append(self._frame())
        end = self._edge_point(first.x, first.y, action.seat)
        hx, hy = first.x + gx, first.y + gy
        n = s.hand_frames + 1
        for k in range(1, n + 1):
            a = k / n
            x, y = hx + (end[0] - hx) * a, hy + (end[1] - hy) * a
            self.scene.hand = _Hand(action.seat, x, y)
            for c in taken:
                c.x, c.y = x - gx, y - gy
            frames.append(self._frame())
        for c in taken:
            self.scene.carried.remove(c)
        self.scene.hand = None
        still_index = self.index
        for zone in zones_hit:
            self.events.append(TruthEvent("cleared", zone, None, still_index, still_index / s.fps))
        return frames + self.still()

    def _lean(self, action: Lean) -> list[RenderedFrame]:
        """The shadow comes in over three frames, stays, and goes over three; nothing on the table moves, so the
        tracker should report nothing."""
        ramp = [0.3, 0.6, 0.85]
        reaches = [action.reach * a for a in ramp] + [action.reach] * max(0, action.frames - 6) + ramp[::-1]
        frames = []
        for reach in reaches:
            self.scene.shade = _Shade(action.seat, action.depth, reach)
            frames.append(self._frame())
        self.scene.shade = None
        return frames + self.still()

    def _rest(self, action: Rest) -> list[RenderedFrame]:
        """The hand comes in from the player's side to ``into`` of the way into the zone, lies there still, and goes
        back; nothing on the table moves, so the tracker should report nothing."""
        s = self.settings
        zone = self.layout.zone(action.zone)
        cx, cy = zone.center
        x1, y1, x2, y2 = zone.bounds
        dx, dy = self._seat_dir(action.seat)
        half = abs(dx) * (x2 - x1) / 2 + abs(dy) * (y2 - y1) / 2  # the middle to the zone's edge nearest them
        palm = (cx + dx * half * (1.0 - 2.0 * action.into), cy + dy * half * (1.0 - 2.0 * action.into))
        start = self._edge_point(*palm, action.seat)
        frames = self._hand_path(action.seat, start, palm, s.hand_frames + 1)
        # The wander is drawn from the frame's index, not from the scene's generator, so that a game with rests
        # that wander lays every card as the same game with still ones.
        wander = np.random.default_rng(self.index)
        periods, phases = wander.uniform(15.0, 40.0, 2), wander.uniform(0.0, 2.0 * np.pi, 2)
        at = palm
        for k in range(1, action.frames + 1):
            ox, oy = action.drift * np.sin(2.0 * np.pi * k / periods + phases) - action.drift * np.sin(phases)
            at = (palm[0] + float(ox) / 2.0, palm[1] + float(oy) / 2.0)
            self.scene.hand = _Hand(action.seat, *at)
            frames.append(self._frame())
        frames += self._hand_path(action.seat, at, start, s.hand_frames)
        self.scene.hand = None
        return frames + self.still()

    def _gather(self, action: Gather) -> list[RenderedFrame]:
        """The hand slides every card but the top one out from under it and takes them away; the top card
        stays where it lay. Each card taken is a truth "removed" (the zone is never empty)."""
        s = self.settings
        here = [c for c in self.scene.lying if c.zone == action.zone]
        if len(here) < 2:
            return self.still()
        top, taken = here[-1], here[:-1]
        gx, gy = self._grip(action.seat)
        start = self._edge_point(top.x, top.y, action.seat)
        frames = self._hand_path(action.seat, start, (top.x + gx, top.y + gy), s.hand_frames)
        for c in taken:
            self.scene.lying.remove(c)
            self.scene.carried.append(c)
            c.zone = None
        hx, hy = top.x + gx, top.y + gy
        n = s.hand_frames + 1
        origins = [(c.x, c.y) for c in taken]
        for k in range(1, n + 1):  # out towards the player, from under the top card
            a = k / n
            x, y = hx + (start[0] - hx) * a, hy + (start[1] - hy) * a
            self.scene.hand = _Hand(action.seat, x, y)
            for c, (ox, oy) in zip(taken, origins, strict=True):
                c.x, c.y = ox + (x - hx), oy + (y - hy)
            frames.append(self._frame())
        for c in taken:
            self.scene.carried.remove(c)
        self.scene.hand = None
        still_index = self.index
        for c in taken:
            self.events.append(TruthEvent("removed", action.zone, c.card, still_index, still_index / s.fps))
        return frames + self.still()


def _inside(poly: np.ndarray, p: np.ndarray) -> bool:
    return cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) >= 0


def _deck_loaders(design: str | None) -> tuple[FaceLoader, BoxesLoader | None]:
    """Faces and corner boxes from the committed demo deck (``vision/assets/deck/<design>/``)."""
    from vision.synth import faces

    names = faces.available_designs()
    if design is None:
        committed = sorted(p.name for p in faces.ASSET_DIR.iterdir() if p.is_dir()) if faces.ASSET_DIR.is_dir() else []
        if not committed:
            raise LayoutError(f"no demo deck committed under {faces.ASSET_DIR}; pass face_loader= or render a design")
        design = committed[0]
    elif design not in names:
        raise LayoutError(f"card design {design!r} is not available (available: {', '.join(names) or 'none'})")
    chosen = design

    def face(card: Card) -> np.ndarray:
        return np.asarray(faces.load_face(chosen, card))

    def boxes(card: Card) -> list[tuple[int, int, int, int]]:
        try:
            return faces.corner_boxes(chosen, card)
        except faces.FaceError:
            return _default_boxes(face(card))

    return face, boxes
