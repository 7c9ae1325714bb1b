"""Synthetic overhead-table scenes with corner-index labels, deterministic from a seed.

A scene is what the table camera sees: a felt, cloth or wood surface, cards lying at any angle (alone,
overlapping, in piles and fans, some face down), hands and sleeves over parts of them, a camera tilted
by up to ~25 degrees, and the faults of cheap cameras (uneven light, shadows, glare, blur, noise, JPEG,
colour casts, grayscale). Each visible printed corner index is labelled with its quadrilateral and
axis-aligned box; a corner mostly covered by another card or a hand is dropped, as a person labelling
the photo would.

Everything random comes from one ``numpy.random.Generator`` seeded by the caller, so a seed is a scene.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card

from .faces import corner_boxes, load_back, load_face, load_jokers
from .marks import draw_marks

__all__ = ["CornerLabel", "Scene", "SceneConfig", "render_scene", "texture"]


@dataclass(frozen=True, slots=True)
class CornerLabel:
    """One visible printed corner index: the card, its quad in image pixels and its bounding box."""

    card: Card
    quad: tuple[tuple[float, float], ...]
    box: tuple[float, float, float, float]
    visible: float  # fraction of the index not covered by other cards or hands
    turns: int = 0
    """Quarter turns (``np.rot90``, counter-clockwise) that bring the printed index upright in the image:
    an index in the face's lower half is printed upside down. For a classifier that reads indices
    upright only (``cardtable vision train -- --upright``)."""


@dataclass(frozen=True, slots=True)
class Scene:
    image: np.ndarray  # BGR uint8
    labels: tuple[CornerLabel, ...]
    seed: int
    design: str
    decoys: tuple[tuple[float, float, float, float], ...] = ()
    """Boxes where a joker prints its corner mark, or a keyboard or score sheet its legends, visible:
    things an index detector must pass over."""


@dataclass(frozen=True, slots=True)
class SceneConfig:
    """Ranges of the scene generator. Card heights are in output pixels."""

    size: int = 416
    card_height: tuple[float, float] = (38.0, 210.0)
    max_cards: int = 9
    max_tilt_deg: float = 25.0
    min_visible: float = 0.6
    hand_probability: float = 0.35
    back_probability: float = 0.15
    stretch_probability: float = 0.0
    """Chance that the whole picture is stretched along one image axis, as when a 16:9 or 4:3 photo is
    saved as a square (the real-card photos we measure on were; a table camera's frames are not)."""
    max_stretch: float = 1.8
    """Largest ratio of horizontal to vertical scale (or its inverse) of a stretched picture."""
    defocus_probability: float = 0.0
    """Chance that the picture is out of focus, blurred in proportion to the cards' size (``defocus``)
    on top of the generator's own light blur: a webcam above a table is rarely sharp, and blur
    makes a club's lobes run together into a spade (held-out designs blurred by 1.5 px read clubs
    as spades 71 times against 29 sharp). Off for the shipped models (``--defocus``, vision/models/HISTORY.md)."""
    defocus: tuple[float, float] = (0.003, 0.010)
    """Range of the defocus blur's sigma as a fraction of the card height."""
    area_faces: bool = False
    """Shrink each face by area averaging to about the size it is drawn at before the perspective warp,
    as a camera's pixels average the light of a small card; the warp alone point-samples a 360-px face,
    so a small card's strokes alias into stair steps that no camera shows. Draws no random numbers, so a
    seed lays the same cards in the same places either way (a corner right at ``min_visible`` may be
    labelled in one and not the other: the card's edge is drawn a little differently). Off for the
    shipped models (``--area-faces``, vision/models/HISTORY.md)."""
    joker_probability: float = 0.0
    """Chance that one of a scene's cards is a joker of its deck (when the deck has jokers): it has no
    index to label, and its corner lettering ("JOKER", a star) is where the real phone photos' false
    cards came from (read as a Q or a 3). Its corner marks are the scene's ``decoys``."""
    marks_probability: float = 0.0
    """Chance that a keyboard or a score sheet lies on the table under the cards
    (:func:`vision.synth.marks.draw_marks`): the real webcam photos' keys were read as cards. Its
    legends left in view are the scene's ``decoys``. Off for the shipped models (``--marks``)."""


def _smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    small = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


def texture(rng: np.random.Generator, size: int) -> np.ndarray:
    """A procedural table surface (felt, cloth weave or wood) of a random colour, BGR uint8."""
    kind = rng.choice(["felt", "cloth", "wood", "plain"], p=[0.4, 0.2, 0.3, 0.1])
    if kind == "wood":
        base = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)], np.float32)
    else:
        hsv = np.array([[[rng.integers(0, 180), rng.integers(40, 255), rng.integers(40, 220)]]], dtype=np.uint8)
        base = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    img = np.ones((size, size, 3), np.float32) * base
    shade = 1 + 0.25 * (_smooth_noise(rng, size, int(rng.integers(2, 8))) - 0.5)
    if kind == "felt":
        grain = rng.normal(0, rng.uniform(3, 12), (size, size)).astype(np.float32)
        grain = np.asarray(cv2.GaussianBlur(grain, (0, 0), rng.uniform(0.5, 1.5)), np.float32)
        img += grain[..., None]
    elif kind == "cloth":
        period = rng.uniform(3, 9)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        weave = np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        img *= (1 + rng.uniform(0.05, 0.2) * weave)[..., None]
    elif kind == "wood":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        angle = rng.uniform(0, np.pi)
        coord = xx * np.cos(angle) + yy * np.sin(angle)
        warp = _smooth_noise(rng, size, 6) * rng.uniform(10, 60)
        rings = np.sin((coord + warp) * 2 * np.pi / rng.uniform(6, 25))
        img *= (1 + rng.uniform(0.05, 0.25) * rings)[..., None]
    img *= shade[..., None]
    out: np.ndarray = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _camera(rng: np.random.Generator, size: int, max_tilt_deg: float) -> np.ndarray:
    """A homography from the table plane to the image: a random tilt seen as a perspective squeeze."""
    tilt = np.deg2rad(rng.uniform(0, max_tilt_deg))
    k = float(np.tan(tilt)) * 0.5  # fractional shrink of the far edge
    s = float(size)
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]], dtype=np.float32)
    dst = src.copy()
    # shrink one side (the far edge), then rotate the squeeze to a random direction
    dst[0] = [s * k / 2, 0]
    dst[1] = [s - s * k / 2, 0]
    h = cv2.getPerspectiveTransform(src, dst)
    angle = rng.uniform(0, 360)
    rot = np.vstack([cv2.getRotationMatrix2D((s / 2, s / 2), angle, 1.0), [0, 0, 1]])
    return np.asarray(np.linalg.inv(rot) @ h @ rot)


def _stretch(rng: np.random.Generator, size: int, max_ratio: float) -> np.ndarray:
    """An image-axis stretch about the centre with x/y scale ratio log-uniform in [1/max, max] and
    unit area, so card sizes keep their distribution while their shape changes."""
    ratio = float(np.exp(rng.uniform(-np.log(max_ratio), np.log(max_ratio))))
    sx, sy = np.sqrt(ratio), 1 / np.sqrt(ratio)
    c = size / 2
    return np.array([[sx, 0, c * (1 - sx)], [0, sy, c * (1 - sy)], [0, 0, 1]], dtype=np.float64)


def _placements(rng: np.random.Generator, cfg: SceneConfig, n: int, card_h: float) -> list[tuple[float, float, float]]:
    """(x, y, angle) of each card's centre on the table plane, for a random layout."""
    s = cfg.size
    layout = rng.choice(["scatter", "fan", "pile", "row"], p=[0.4, 0.2, 0.2, 0.2])
    out: list[tuple[float, float, float]] = []
    if layout == "scatter":
        for _ in range(n):
            out.append((rng.uniform(0.0, 1.0) * s, rng.uniform(0.0, 1.0) * s, rng.uniform(0, 360)))
    elif layout == "fan":
        px, py = rng.uniform(0.2, 0.8) * s, rng.uniform(0.2, 0.8) * s
        base, step = rng.uniform(0, 360), rng.uniform(6, 18)
        for i in range(n):
            a = base + i * step
            r = card_h * 0.35
            out.append((px - r * np.sin(np.deg2rad(a)), py - r * np.cos(np.deg2rad(a)), a))
    elif layout == "pile":
        px, py = rng.uniform(0.25, 0.75) * s, rng.uniform(0.25, 0.75) * s
        for _ in range(n):
            jitter = card_h * 0.25
            out.append((px + rng.normal(0, jitter), py + rng.normal(0, jitter), rng.uniform(0, 360)))
    else:  # an overlapping row, like a hand laid down
        px, py, a = rng.uniform(0.15, 0.5) * s, rng.uniform(0.2, 0.8) * s, rng.uniform(0, 360)
        dx = card_h * rng.uniform(0.15, 0.45)
        ca, sa = np.cos(np.deg2rad(a)), np.sin(np.deg2rad(a))
        for i in range(n):
            out.append((px + i * dx * ca, py - i * dx * sa, a + rng.normal(0, 3)))
    return out


def _card_matrix(face_shape: tuple[int, ...], x: float, y: float, angle: float, height: float) -> np.ndarray:
    fh, fw = face_shape[:2]
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, height / fh)
    m[0, 2] += x - fw / 2
    m[1, 2] += y - fh / 2
    return np.vstack([m, [0, 0, 1]])


def _upright_turns(m: np.ndarray, box: tuple[int, int, int, int] | list[int], face_h: int) -> int:
    """Quarter turns (counter-clockwise, as ``np.rot90``) that stand the index in ``box`` of a face
    upright in the image, the face drawn with the 3x3 homography ``m``."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    step = 1.0 if cy > face_h / 2 else -1.0  # the glyph's up: the face's up, or down where printed inverted
    pts = np.array([[[cx, cy]], [[cx, cy + step]]], np.float32)
    (x0, y0), (x1, y1) = cv2.perspectiveTransform(pts, m).reshape(2, 2)
    angle = np.degrees(np.arctan2(-(y1 - y0), x1 - x0))  # image y points down
    return int(np.rint((90.0 - angle) / 90.0)) % 4


def _hand(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A skin-coloured hand (palm and fingers) on a sleeve reaching in from an edge: colour image + mask."""
    mask = np.zeros((size, size), np.uint8)
    edge = rng.integers(0, 4)
    reach = rng.uniform(0.25, 0.65) * size
    along = rng.uniform(0.1, 0.9) * size
    width = rng.uniform(0.12, 0.3) * size
    ends = {
        0: ((along, -10.0), (along + rng.normal(0, 40), reach)),
        1: ((size + 10.0, along), (size - reach, along + rng.normal(0, 40))),
        2: ((along, size + 10.0), (along + rng.normal(0, 40), size - reach)),
        3: ((-10.0, along), (reach, along + rng.normal(0, 40))),
    }
    (x0, y0), (x1, y1) = ends[int(edge)]
    sleeve = np.zeros_like(mask)
    cv2.line(sleeve, (int(x0), int(y0)), (int(x1), int(y1)), 255, int(width))
    palm = np.zeros_like(mask)
    axes = (int(width * 0.6), int(width * 0.45))
    ang = float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))
    cv2.ellipse(palm, (int(x1), int(y1)), axes, ang, 0, 360, 255, -1)
    for _ in range(int(rng.integers(2, 6))):
        fa = np.deg2rad(ang + rng.uniform(-60, 60))
        flen = width * rng.uniform(0.5, 1.1)
        fx, fy = x1 + np.cos(fa) * flen, y1 + np.sin(fa) * flen
        cv2.line(palm, (int(x1), int(y1)), (int(fx), int(fy)), 255, max(3, int(width * 0.16)))
    skin_hsv = np.array([[[rng.integers(5, 25), rng.integers(40, 170), rng.integers(70, 240)]]], dtype=np.uint8)
    skin = cv2.cvtColor(skin_hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    cloth = rng.uniform(0, 255, 3).astype(np.float32)
    img = np.zeros((size, size, 3), np.float32)
    sleeve_only = (sleeve > 0) & (palm == 0)
    yy, xx = np.mgrid[0:size, 0:size]
    sleeve_cut = sleeve_only & (np.hypot(xx - x1, yy - y1) > width * 0.5)  # the cuff stops at the wrist
    img[palm > 0] = skin
    img[sleeve_cut] = cloth
    mask = ((palm > 0) | sleeve_cut).astype(np.uint8) * 255
    shade = 0.75 + 0.5 * _smooth_noise(rng, size, 4)
    img *= shade[..., None]
    return img, mask


def _photometric(rng: np.random.Generator, img: np.ndarray, cfg: SceneConfig, card_h: float) -> np.ndarray:
    size = img.shape[0]
    f = img.astype(np.float32)
    # uneven light: a smooth gain field plus a soft shadow
    f *= (rng.uniform(0.55, 1.0) + rng.uniform(0.0, 0.6) * _smooth_noise(rng, size, int(rng.integers(2, 5))))[..., None]
    if rng.random() < 0.4:
        shadow = np.zeros((size, size), np.float32)
        pts = (rng.random((int(rng.integers(3, 7)), 2)) * size).astype(np.int32)
        cv2.fillPoly(shadow, [cv2.convexHull(pts)], 1.0)
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), rng.uniform(5, 25)), np.float32)
        f *= (1 - rng.uniform(0.2, 0.6) * shadow)[..., None]
    if rng.random() < 0.35:  # glare: a blown-out soft spot
        glare = np.zeros((size, size), np.float32)
        c = (int(rng.uniform(0, size)), int(rng.uniform(0, size)))
        axes = (int(rng.uniform(10, size / 3)), int(rng.uniform(5, size / 5)))
        cv2.ellipse(glare, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = np.asarray(cv2.GaussianBlur(glare, (0, 0), rng.uniform(4, 20)), np.float32)
        f += rng.uniform(80, 255) * glare[..., None]
    # white balance and contrast
    f *= rng.uniform(0.8, 1.2, 3).astype(np.float32)
    mean = f.mean()
    f = (f - mean) * rng.uniform(0.55, 1.25) + mean + rng.uniform(-30, 30)
    img = np.clip(f, 0, 255).astype(np.uint8)
    r = rng.random()
    # (draws nothing when defocus is off, so scenes without it stay exactly as they were)
    if cfg.defocus_probability > 0 and rng.random() < cfg.defocus_probability:
        img = cv2.GaussianBlur(img, (0, 0), card_h * rng.uniform(*cfg.defocus))
    elif r < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    elif r < 0.35:  # motion blur
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        img = cv2.filter2D(img, -1, cv2.warpAffine(kernel, rot, (k, k)))
    if rng.random() < 0.5:
        noise = rng.normal(0, rng.uniform(2, 12), img.shape).astype(np.float32)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.05:  # salt and pepper
        sp = rng.random(img.shape[:2])
        img[sp < 0.003] = 0
        img[sp > 0.997] = 255
    if rng.random() < 0.12:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return img


def _warp_face(face: np.ndarray, m: np.ndarray, size: int, drawn_height: float | None) -> np.ndarray:
    """``face`` (BGRA) warped by ``m`` onto a ``size`` square canvas. With ``drawn_height`` (the card's
    height in canvas pixels) a larger face is first shrunk by area averaging to that height, the warp then
    resampling at about one to one, instead of point-sampling the full face."""
    if drawn_height is not None and drawn_height < face.shape[0]:
        k = drawn_height / face.shape[0]
        small = cv2.resize(
            face, (max(1, round(face.shape[1] * k)), max(1, round(face.shape[0] * k))), interpolation=cv2.INTER_AREA
        )
        # the small face's pixel (x, y) is the full face's (x / kx, y / ky)
        kx, ky = small.shape[1] / face.shape[1], small.shape[0] / face.shape[0]
        m = m @ np.diag([1 / kx, 1 / ky, 1.0])
        face = small
    return cv2.warpPerspective(face, m, (size, size), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))


def render_scene(seed: int, designs: Sequence[str], cfg: SceneConfig | None = None) -> Scene:
    """Render one scene from ``seed`` using faces of ``designs`` (one design per scene, like a real deck)."""
    cfg = cfg or SceneConfig()
    rng = np.random.default_rng(seed)
    size = cfg.size
    design = designs[int(rng.integers(len(designs)))]
    canvas = texture(rng, size).astype(np.float32)
    top = np.full((size, size), -1, np.int16)  # which card (or -2: hand) shows at each pixel
    cam = _camera(rng, size, cfg.max_tilt_deg)
    if cfg.stretch_probability > 0 and rng.random() < cfg.stretch_probability:
        cam = _stretch(rng, size, cfg.max_stretch) @ cam
    n = int(rng.integers(2, cfg.max_cards + 1))
    lo, hi = np.log(cfg.card_height[0]), np.log(cfg.card_height[1])
    card_h = float(np.exp(rng.uniform(lo, hi)))
    cards = [Card.from_index(int(i)) for i in rng.choice(52, size=n, replace=False)]
    joker, joker_at = _joker(rng, cfg, design, n)  # (draws nothing when jokers are off)
    marks = None  # (and nothing for marks when they are off: the shipped scenes stay as they were)
    if cfg.marks_probability > 0 and rng.random() < cfg.marks_probability:
        marks = draw_marks(rng, size, cam, card_h)
        canvas = canvas * (1 - marks.alpha[..., None]) + marks.image * marks.alpha[..., None]
    decoy_card = -1  # which card turned out a joker, face up
    places = _placements(rng, cfg, n, card_h)
    quads: list[list[np.ndarray]] = []
    turns: list[list[int]] = []
    for i, (card, (x, y, a)) in enumerate(zip(cards, places, strict=True)):
        face_down = rng.random() < cfg.back_probability
        face = load_back(design) if face_down else load_face(design, card)
        is_joker = i == joker_at and not face_down and joker is not None
        if is_joker:
            face, decoy_card = joker, i  # type: ignore[assignment]
        h_i = card_h * rng.uniform(0.95, 1.05)
        m = cam @ _card_matrix(face.shape, x, y, a, h_i)
        warped = _warp_face(face, m, size, h_i if cfg.area_faces else None)
        alpha = warped[..., 3:4].astype(np.float32) / 255.0
        if rng.random() < 0.5:  # a soft drop shadow under the card
            sh = cv2.GaussianBlur(alpha[..., 0], (0, 0), max(1.0, card_h * 0.02))
            sh = np.roll(sh, (int(rng.integers(-3, 4)), int(rng.integers(-3, 4))), axis=(0, 1))
            canvas *= (1 - 0.35 * sh)[..., None]
        canvas = canvas * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
        top[alpha[..., 0] > 0.5] = i
        card_quads: list[np.ndarray] = []
        card_turns: list[int] = []
        if not face_down:
            # a joker's marks sit where the deck prints its indices (its ace's boxes stand in for them)
            for b in corner_boxes(design, Card.from_text("AS") if is_joker else card):
                corners = [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]
                pts = np.array(corners, dtype=np.float32).reshape(-1, 1, 2)
                card_quads.append(cv2.perspectiveTransform(pts, m).reshape(-1, 2))
                card_turns.append(_upright_turns(m, b, face.shape[0]))
        quads.append(card_quads)
        turns.append(card_turns)
    if rng.random() < cfg.hand_probability:
        for _ in range(int(rng.integers(1, 3))):
            hand, mask = _hand(rng, size)
            hand_alpha = np.asarray(cv2.GaussianBlur(mask, (0, 0), 1.0), np.float32)[..., None] / 255.0
            canvas = np.asarray(canvas * (1 - hand_alpha) + hand * hand_alpha, np.float32)
            top[mask > 127] = -2
    labels: list[CornerLabel] = []
    decoys: list[tuple[float, float, float, float]] = []
    for i, card_quads in enumerate(quads):
        for q, turn in zip(card_quads, turns[i], strict=True):
            x1, y1 = q.min(axis=0)
            x2, y2 = q.max(axis=0)
            if x2 - x1 < 3 or y2 - y1 < 3:
                continue
            poly = np.zeros((size, size), np.uint8)
            cv2.fillPoly(poly, [np.round(q).astype(np.int32)], 1)
            area = float(cv2.contourArea(q.astype(np.float32)))
            inside = poly > 0
            if area <= 1 or inside.sum() == 0:
                continue
            visible = float((top[inside] == i).sum()) / max(area, float(inside.sum()))
            if visible < cfg.min_visible:
                continue
            cx1, cy1, cx2, cy2 = max(x1, 0.0), max(y1, 0.0), min(x2, size - 1.0), min(y2, size - 1.0)
            if (cx2 - cx1) * (cy2 - cy1) < 0.6 * (x2 - x1) * (y2 - y1):  # mostly outside the frame
                continue
            if i == decoy_card:
                decoys.append((float(cx1), float(cy1), float(cx2), float(cy2)))
                continue
            labels.append(
                CornerLabel(
                    card=cards[i],
                    quad=tuple((float(px), float(py)) for px, py in q),
                    box=(float(cx1), float(cy1), float(cx2), float(cy2)),
                    visible=visible,
                    turns=turn,
                )
            )
    for box in marks.boxes if marks is not None else ():
        x1, y1, x2, y2 = (round(v) for v in box)
        under = top[y1 : y2 + 1, x1 : x2 + 1]
        if under.size and float((under == -1).mean()) >= cfg.min_visible:  # not under a card or a hand
            decoys.append(box)
    image = _photometric(rng, np.clip(canvas, 0, 255).astype(np.uint8), cfg, card_h)
    return Scene(image=image, labels=tuple(labels), seed=seed, design=design, decoys=tuple(decoys))


def _joker(rng: np.random.Generator, cfg: SceneConfig, design: str, n: int) -> tuple[np.ndarray | None, int]:
    """Which of the ``n`` cards is a joker, and its face: ``(None, -1)`` for most scenes.

    Draws from ``rng`` only when jokers are on, so scenes without them stay exactly as they were.
    """
    if cfg.joker_probability <= 0:
        return None, -1
    jokers = load_jokers(design)
    if not jokers or rng.random() >= cfg.joker_probability:
        return None, -1
    return jokers[int(rng.integers(len(jokers)))], int(rng.integers(n))
