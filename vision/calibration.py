"""From camera pixels to table millimetres: ArUco markers, a homography, and a watch for bumps.

The camera is never exactly where it was last night, and a player's elbow moves it mid-game, so the
mapping is measured from the four corner markers of the mat (:func:`calibrate`) and re-measured by a
:class:`Calibrator` that looks at the markers every few frames and redoes the homography when they
have drifted. Zones are defined in mm (:mod:`vision.zones`), so nothing else changes when it does.

:func:`assess_image` warns about glare and bad exposure, the two things that most often spoil the
readings and that a person can fix by moving a lamp; :func:`edge_spread_mm` measures the focus on the markers'
edges, which a person fixes by turning the lens.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from vision.mat import aruco_dictionary
from vision.zones import MARKER_CORNER_NAMES, ZoneLayout

log = logging.getLogger(__name__)


class CalibrationError(RuntimeError):
    """Calibration could not be done; the message says why (which markers are missing, ...)."""


class MarkersMissing(CalibrationError):
    """Too few of the mat's markers are visible; ``missing`` lists their ids."""

    def __init__(self, missing: list[int], found: list[int], needed: int) -> None:
        self.missing = missing
        self.found = found
        names = ", ".join(f"{i} ({MARKER_CORNER_NAMES.get(i, '?')})" for i in missing)
        super().__init__(
            f"mat markers not found: {names}; found {len(found)} of {len(found) + len(missing)}, need {needed}. "
            "Check that the whole mat is in view, nothing covers the corners and the light is even."
        )


@dataclass(frozen=True)
class Calibration:
    """A homography from image pixels to table mm, with how well it fits.

    ``error_mm`` is the RMS distance, in table mm, between the marker corners as printed and as seen
    through the homography; ``markers_px`` keeps the detected corners for drift checks.
    """

    homography: np.ndarray
    image_size: tuple[int, int]
    error_mm: float
    markers_px: dict[int, np.ndarray] = field(default_factory=dict)
    game: str = ""
    mat_mm: tuple[float, float] | None = None
    """The printed mat's width and height (the layout the markers were placed by); ``None`` in files saved
    before 3 December. A mat printed on other paper puts its markers and zones elsewhere in mm, so
    :meth:`check_mat` refuses a calibration made for another size."""

    @property
    def inverse(self) -> np.ndarray:
        return np.linalg.inv(self.homography)

    def to_table(self, points: np.ndarray | list[tuple[float, float]]) -> np.ndarray:
        """Image pixels (N x 2) to table mm (N x 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_image(self, points: np.ndarray | list[tuple[float, float]]) -> np.ndarray:
        """Table mm (N x 2) to image pixels (N x 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.inverse).reshape(-1, 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "homography": self.homography.tolist(),
            "image_size": list(self.image_size),
            "error_mm": self.error_mm,
            "markers_px": {str(k): v.tolist() for k, v in self.markers_px.items()},
            "game": self.game,
            **({"mat_mm": list(self.mat_mm)} if self.mat_mm is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        try:
            h = np.asarray(data["homography"], dtype=np.float64)
            if h.shape != (3, 3):
                raise ValueError(f"homography must be 3x3, not {h.shape}")
            size = data["image_size"]
            return cls(
                homography=h,
                image_size=(int(size[0]), int(size[1])),
                error_mm=float(data.get("error_mm", 0.0)),
                markers_px={int(k): np.asarray(v, dtype=np.float64) for k, v in data.get("markers_px", {}).items()},
                game=str(data.get("game", "")),
                mat_mm=(float(data["mat_mm"][0]), float(data["mat_mm"][1])) if "mat_mm" in data else None,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(f"not a calibration file: {exc}") from None

    def check_mat(self, layout: ZoneLayout) -> None:
        """Raise :class:`CalibrationError` when this calibration was made for a mat of another size than
        ``layout``'s (printed on other paper): its zones would be looked for in the wrong places."""
        if self.mat_mm is None:
            return
        w, h = self.mat_mm
        if abs(w - layout.width) > 1.0 or abs(h - layout.height) > 1.0:
            raise CalibrationError(
                f"this calibration was made for a {w:.0f} x {h:.0f} mm mat, but the table is set for "
                f"{layout.width:.0f} x {layout.height:.0f} mm: set mat.paper to the paper the mat was printed "
                "on, or calibrate again (cardtable calibrate --paper ...)"
            )

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read a file written by :meth:`save` (``cardtable calibrate --out``)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CalibrationError(f"calibration file not found: {path}") from None
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"calibration file {path} is not JSON: {exc}") from None
        return cls.from_dict(data)


def empty_mat_path(calibration_path: Path) -> Path:
    """Where ``cardtable calibrate`` keeps the frame it calibrated from, the mat with nothing on it: beside the
    calibration file (``calib.json`` -> ``calib.empty.png``), so that the two are saved, replaced and found
    together."""
    path = Path(calibration_path)
    return path.with_name(f"{path.stem}.empty.png")


def load_empty_mat(calibration: Calibration, calibration_path: Path) -> np.ndarray | None:
    """The picture of the empty mat saved beside ``calibration_path`` (:func:`empty_mat_path`), or None when
    there is none (a calibration made with cards on the mat, or before 7 December). Raises
    :class:`CalibrationError` when the file is there but is no picture of this calibration's frame size.

    Why: given it, the tracker ignores what looks as it did on the empty mat (the printing read as a card
    index) and tells any card, either side up, by what differs from it
    (:meth:`vision.tracker.CardTracker.set_empty_mat`)."""
    path = empty_mat_path(calibration_path)
    if not path.exists():
        return None
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CalibrationError(f"{path} is not a picture (calibrate again to replace it)")
    width, height = calibration.image_size
    if image.shape[:2] != (height, width):
        raise CalibrationError(
            f"{path} is {image.shape[1]}x{image.shape[0]}, but the calibration was made at {width}x{height}"
            " (calibrate again to replace both)"
        )
    return image


_DETECTOR_CACHE: dict[str, cv2.aruco.ArucoDetector] = {}


def _detector() -> cv2.aruco.ArucoDetector:
    det = _DETECTOR_CACHE.get("default")
    if det is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        det = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
        _DETECTOR_CACHE["default"] = det
    return det


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The ArUco markers in a BGR or grey image: id -> 4 x 2 corner pixels (OpenCV order)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        found[int(i)] = np.asarray(c, dtype=np.float64).reshape(4, 2)
    return found


def calibrate(image: np.ndarray, layout: ZoneLayout, min_markers: int = 4) -> Calibration:
    """Measure the image-to-table homography from the mat's markers.

    Raises :class:`MarkersMissing` naming the markers not seen when fewer than ``min_markers`` are.
    """
    return calibrate_from_markers(detect_markers(image), layout, (image.shape[1], image.shape[0]), min_markers)


def calibrate_from_markers(
    found: dict[int, np.ndarray], layout: ZoneLayout, image_size: tuple[int, int], min_markers: int = 4
) -> Calibration:
    expected = [m.id for m in layout.markers]
    seen = [i for i in expected if i in found]
    missing = [i for i in expected if i not in found]
    if len(seen) < max(2, min_markers):
        raise MarkersMissing(missing, seen, max(2, min_markers))
    src = np.concatenate([found[i] for i in seen])
    dst = np.concatenate([layout.marker(i).corners for i in seen])
    h, _mask = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
    if h is None:
        raise CalibrationError("the markers were found but no homography fits them (is the mat folded?)")
    projected = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    error = float(np.sqrt(np.mean(np.sum((projected - dst) ** 2, axis=1))))
    return Calibration(h, image_size, error, {i: found[i] for i in seen}, layout.game, (layout.width, layout.height))


FOCUS_LIMIT_MM = 2.0
"""The widest edge spread (:func:`edge_spread_mm`) a calibration picture may show without a warning to focus.
Measured on the synthetic table (about 2 px per mm) with the trained models: a lens blurring by a Gaussian of
1 px spreads the markers' edges over 1.8 mm and every card was read (Makao and 3-5-8, six seeds each); 1.5 px,
2.4 mm, and the first cards were asked about; 2 px, 3.1 mm, and most of a pile was asked about and 3-5-8 cards
were misread (``cardtable bench tracker --recogniser onnx --blur S``)."""


@dataclass(frozen=True)
class CameraFault:
    """What keeps the camera from seeing the mat well enough to referee, for the players: a ``headline`` short
    enough for the scoreboard's message line ("knocked off the mat") and what to do about it (``advice``)."""

    headline: str
    advice: str

    def __str__(self) -> str:
        return f"{self.headline}: {self.advice}"


@dataclass(frozen=True)
class CalibratorSettings:
    """When the :class:`Calibrator` looks again and what counts as a bump."""

    check_every: int = 30
    """Frames between marker checks (markers are cheap to find, but not free)."""
    drift_px: float = 4.0
    """Median marker-corner movement, in pixels, that counts as a bump."""
    confirm_checks: int = 2
    """Consecutive drifted checks before recalibrating (a hand over a marker is not a bump)."""
    min_markers: int = 3
    """Markers needed to redo the homography mid-game (players' arms hide one now and then)."""
    moved_match: float = 0.8
    """Between checks, a marker's patch that matches the one seen at the last check less than this (normalised
    cross-correlation: the light may change, the pattern may not) has moved or is covered; ``min_markers`` such
    patches in one frame make a check at once. Why: a bump waited up to ``check_every`` x ``confirm_checks``
    frames for its recalibration, and a card put down meanwhile was placed with the old view (on the synthetic
    table a 10H laid just after a 90 px knock was reported in the exchange zone, then again in its seat)."""
    focus_limit_mm: float = FOCUS_LIMIT_MM
    """Edge spread (:func:`edge_spread_mm`) over which the camera is out of focus, on ``confirm_checks`` checks in
    a row: logged once, and said again when it is back in focus."""
    warn_frames: int = 20
    """Frames a fault in the camera's view of the mat must last, found by a check at each end, before it is
    :attr:`Calibrator.trouble` (told to the players): two seconds at the default 10 fps, longer than arms stay over
    the mat's corners, shorter than a game waits unrefereed."""


class Calibrator:
    """Keeps the calibration current: call :meth:`update` with every frame; it looks every N frames.

    Returns the new :class:`Calibration` when it recalibrated (the tracker then takes it), else ``None``.
    """

    def __init__(
        self, layout: ZoneLayout, calibration: Calibration | None = None, settings: CalibratorSettings | None = None
    ) -> None:
        self.layout = layout
        self.calibration = calibration
        self.settings = settings or CalibratorSettings()
        self._drifted = 0
        self._drifted_at: dict[int, np.ndarray] | None = None
        """The markers as the last check that found them drifted saw them: the next check must find them there
        again (the camera has come to rest) before the homography is redone."""
        self._patches: dict[int, tuple[tuple[int, int, int, int], np.ndarray]] | None = None
        """Each marker's surroundings as the last check in place saw them (box in pixels, grey patch):
        compared every frame (:meth:`_moved`). None until a first check (a calibration handed in is checked on the
        first frame, which keeps them)."""
        self.followed = False
        """The calibration is a move followed from too few markers (:func:`follow_markers`): every frame is a check
        until enough are seen again to calibrate the whole mat."""
        self.recalibrations = 0
        self.checks = 0
        """Times the markers were looked for (each costs a marker search over the whole frame)."""
        self.last_drift_px: float | None = None
        self.last_edge_spread_mm: float | None = None
        self._blurred = 0
        self.out_of_focus = False
        """The markers' edges spread over ``focus_limit_mm`` on ``confirm_checks`` checks in a row. Why watched in
        play and not only at ``cardtable calibrate``: a lens knocked or left loose drifts out of focus, and the
        table then asks about most cards and misreads some (docs/mat-and-calibration.md, Focus)."""
        self._focus_advice: str | None = None
        self._problem: tuple[str, str] | None = None
        """What the last check found wrong with the view of the mat (:meth:`_assess`): a :class:`CameraFault`'s
        headline (which says what kind of fault it is) and what to do."""
        self._problem_since = 0
        """The frame of the first check in a row that found :attr:`_problem`'s kind."""
        self._problem_seen = 0
        """The frame of the last check that found it."""
        self._warned: str | None = None
        """The kind of fault last logged: a fault that stays is logged once, not on every frame's check."""

    @property
    def trouble(self) -> CameraFault | None:
        """What a person at the table must put right for the camera to see the mat (it cannot find the mat, was
        knocked off it, shows only part of it, or is out of focus), in words for the players; None while it sees
        the mat well. A fault is trouble only once checks have found it for ``warn_frames`` frames (an arm over the
        corners is gone by then); its words stay as first told, so the board is not redrawn for each new count.

        Why: until 7 December the calibrator's faults went to the log only, and the table went on: a camera
        knocked off the mat, or one that never found it, left the players laying cards that nobody read, with
        nothing on the board to say why."""
        if self._problem is None or self._problem_seen - self._problem_since < self.settings.warn_frames:
            return None
        return CameraFault(*self._problem)

    @property
    def sure(self) -> bool:
        """Whether the calibration is known to describe the frame just seen: not while there is none, while a move
        of the markers waits to be confirmed or cannot be redone, nor while no marker of the mat is in view (the
        camera turned off the mat, or pushed onto the floor). A frame it is not sure of is not the tracker's to read.

        Why: the tracker compares each zone with how it last saw it lie; turned onto the floor for four seconds
        and put back, the synthetic table's camera made the tracker report both cards of a trick taken away (their
        zones cleared) and then laid again, false events a referee cannot tell from play."""
        if self.calibration is None or self._drifted > 0:
            return False
        return self._problem is None or self._problem[0] not in ("knocked off the mat", "mat out of view", "too dark")

    def _assess(self, index: int, found: dict[int, np.ndarray], image: np.ndarray) -> None:
        """After a check: what is wrong with the view of the mat now, worst first (:attr:`trouble`)."""
        total = len(self.layout.markers)
        seen = sum(marker.id in found for marker in self.layout.markers)
        hidden = [MARKER_CORNER_NAMES.get(m.id, str(m.id)) for m in self.layout.markers if m.id not in found]
        level = float(image.mean()) if seen == 0 else 255.0
        problem: tuple[str, str] | None
        if level < DARK_LEVEL:  # the markers are found down to a mean level of about 6 (docs: the room's lamp off)
            problem = ("too dark", f"turn on the light over the mat (the picture's mean level is {level:.0f} of 255)")
        elif self.calibration is None:
            problem = (
                "mat not found",
                f"aim the camera at the whole mat ({seen} of its {total} corner markers in view)",
            )
        elif self._drifted >= self.settings.confirm_checks:
            problem = ("knocked off the mat", f"aim it at the whole mat ({seen} of its {total} corner markers in view)")
        elif seen == 0:
            problem = (
                "mat out of view",
                f"aim the camera at the mat or clear its corners (0 of {total} markers in view)",
            )
        elif self.followed:
            corners = f"{' and '.join(hidden)} corner{'s' if len(hidden) > 1 else ''}"
            problem = ("mat cut off", f"bring the whole mat into view (its {corners} out of view)")
        elif self.out_of_focus and self._focus_advice is not None:
            problem = ("out of focus", self._focus_advice)
        else:
            problem = None
        if problem is None:
            self._problem, self._warned = None, None
            return
        if self._problem is None or self._problem[0] != problem[0]:
            # out of focus is confirmed over checks already; the others wait ``warn_frames``
            self._problem_since = index - self.settings.warn_frames if problem[0] == "out of focus" else index
        elif self._problem_seen - self._problem_since >= self.settings.warn_frames:
            problem = self._problem  # told already: the same words while it lasts
        self._problem, self._problem_seen = problem, index

    def _warn(self, kind: str, message: str, *args: object) -> None:
        """Log a fault the first time a check finds it (each later frame's check finds it again while it lasts)."""
        if self._warned != kind:
            self._warned = kind
            log.warning(message, *args)

    def update(self, index: int, image: np.ndarray) -> Calibration | None:
        """Look at the markers when a check is due: on the first frame, every ``check_every`` frames, on every
        frame while a drift waits to be confirmed or the camera cannot see the whole mat (:attr:`trouble`), and at
        once when the markers' surroundings changed (:meth:`_moved`)."""
        due = (
            index % self.settings.check_every == 0
            or self._drifted > 0
            or self.followed
            or self._patches is None
            or (self._problem is not None and self._problem[0] != "out of focus")  # told as soon as it is put right
            or self._moved(image)
        )
        if self.calibration is not None and not due:
            return None
        found = detect_markers(image)
        self.checks += 1
        new = self._check(image, found)
        self._assess(index, found, image)
        return new

    def _check(self, image: np.ndarray, found: dict[int, np.ndarray]) -> Calibration | None:
        size = (image.shape[1], image.shape[0])
        if self.calibration is None:
            try:
                self.calibration = calibrate_from_markers(found, self.layout, size, self.settings.min_markers)
            except CalibrationError as exc:
                self._warn("mat not found", "calibration: %s", exc)
                return None
            self.recalibrations += 1
            self._keep_patches(image)
            return self.calibration
        self._watch_focus(found, image)
        if self.followed and len(found) >= self.settings.min_markers:
            return self._whole_mat(found, image)
        drift = self.drift(found)
        self.last_drift_px = drift
        if drift is None or drift <= self.settings.drift_px:
            self._drifted, self._drifted_at = 0, None
            self._keep_patches(image)  # the view as it is now (new light, a hand gone) is the one to compare with
            return None
        at_rest = self._drifted_at is not None and _median_move(self._drifted_at, found) <= self.settings.drift_px
        self._drifted = self._drifted + 1 if at_rest else 1  # still moving: count again from here
        self._drifted_at = found
        if self._drifted < self.settings.confirm_checks:
            return None
        try:
            new = calibrate_from_markers(found, self.layout, size, self.settings.min_markers)
        except MarkersMissing as exc:
            followed = follow_markers(found, self.calibration, self.layout)
            if followed is None:
                self._warn("knocked off the mat", "camera moved by %.1f px but recalibration failed: %s", drift, exc)
                return None
            new, self.followed = followed, True
            log.warning(
                "camera moved by %.1f px and only %d of the mat's markers are in view: followed the move as a shift "
                "and turn (error %.2f mm at the markers seen); bring the whole mat back into view",
                drift,
                len(new.markers_px),
                new.error_mm,
            )
        except CalibrationError as exc:
            self._warn("knocked off the mat", "camera moved by %.1f px but recalibration failed: %s", drift, exc)
            return None
        else:
            log.info("camera moved (markers drifted %.1f px): recalibrated, error %.2f mm", drift, new.error_mm)
        self.calibration = new
        self._drifted, self._drifted_at = 0, None
        self.recalibrations += 1
        self._keep_patches(image)
        return new

    def _whole_mat(self, found: dict[int, np.ndarray], image: np.ndarray) -> Calibration | None:
        """After a followed move, the homography redone from the markers as soon as enough are in view (a knock
        tilts the camera a little too, which a shift and a turn leave out); handed on only where it puts the mat
        more than ``drift_px`` from where the followed one does, since a new calibration makes the tracker look at
        every zone afresh."""
        assert self.calibration is not None
        size = (image.shape[1], image.shape[0])
        try:
            new = calibrate_from_markers(found, self.layout, size, self.settings.min_markers)
        except CalibrationError:
            return None
        self.followed = False
        self._drifted, self._drifted_at = 0, None
        mat = [(0.0, 0.0), (self.layout.width, 0.0), (self.layout.width, self.layout.height), (0.0, self.layout.height)]
        apart = float(np.linalg.norm(new.to_image(mat) - self.calibration.to_image(mat), axis=1).max())
        adopted = apart > self.settings.drift_px
        if adopted:
            log.info(
                "the mat's markers are in view again: calibrated from %d, error %.2f mm",
                len(new.markers_px),
                new.error_mm,
            )
            self.calibration = new
            self.recalibrations += 1
        self._keep_patches(image)
        return new if adopted else None

    def _marker_boxes(self, size: tuple[int, int]) -> dict[int, tuple[int, int, int, int]]:
        """Each marker's box in the image by the calibration, grown by half its size (its white quiet zone)."""
        assert self.calibration is not None
        w, h = size
        boxes = {}
        for marker in self.layout.markers:
            corners = self.calibration.to_image((marker.corners - marker.center) * 1.5 + marker.center)
            x1, y1 = np.floor(corners.min(axis=0)).astype(int)
            x2, y2 = np.ceil(corners.max(axis=0)).astype(int)
            x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
            if x2 - x1 >= 8 and y2 - y1 >= 8:
                boxes[marker.id] = (int(x1), int(y1), int(x2), int(y2))
        return boxes

    def _keep_patches(self, image: np.ndarray) -> None:
        size = (image.shape[1], image.shape[0])
        self._patches = {i: (box, _patch(image, box)) for i, box in self._marker_boxes(size).items()}

    def _moved(self, image: np.ndarray) -> bool:
        """Whether ``min_markers`` markers' surroundings (as many as were kept, if fewer) no longer match the last
        check's (``moved_match``): the camera was knocked. A hand over one marker changes one; a lamp changes
        each patch's brightness, which the match ignores."""
        if (
            not self._patches
            or self.calibration is None
            or self.calibration.image_size != (image.shape[1], image.shape[0])
        ):
            return False
        changed = sum(
            _match(_patch(image, box), kept) < self.settings.moved_match for box, kept in self._patches.values()
        )
        return changed >= min(self.settings.min_markers, len(self._patches))

    def _watch_focus(self, found: dict[int, np.ndarray], image: np.ndarray) -> None:
        spread = edge_spread_mm(image, found, self.layout)
        self.last_edge_spread_mm = spread
        if spread is None:
            return  # no marker in view (arms over them): nothing measured, nothing changed
        if spread <= self.settings.focus_limit_mm:
            if self.out_of_focus:
                log.info("camera back in focus: edges sharp to %.1f mm", spread)
            self._blurred, self.out_of_focus = 0, False
            return
        self._blurred += 1
        if self._blurred >= self.settings.confirm_checks and not self.out_of_focus:
            self.out_of_focus = True
            self._focus_advice = (
                f"focus the lens on the mat (a sharp edge spreads over {spread:.1f} mm of it, at most "
                f"{self.settings.focus_limit_mm:.1f} for the indices to read)"
            )
            log.warning("camera %s", focus_warning(spread, self.settings.focus_limit_mm))

    def drift(self, found: dict[int, np.ndarray]) -> float | None:
        """Median distance in pixels between the markers seen now and where the calibration puts them."""
        assert self.calibration is not None
        return marker_drift(found, self.calibration, self.layout)


DARK_LEVEL: Final = 15.0
"""A picture darker than this on average (0-255), with no marker found in it, is the room's light gone: the players
are told to turn it on rather than to aim the camera. The markers of a synthetic mat are still found at a mean
level of about 6 (the picture scaled down, noise over it), so this is never said of a dim room the table reads."""


FOLLOW_ERROR_MM: Final = 2.0
"""The most a move followed from too few markers (:func:`follow_markers`) may miss the markers it was fitted to,
RMS in table mm: more, and the camera did more than shift and turn (it tilted), which two markers cannot say."""


def follow_markers(found: dict[int, np.ndarray], calibration: Calibration, layout: ZoneLayout) -> Calibration | None:
    """``calibration`` moved as the markers in ``found`` moved since it was made, when they are too few for a
    homography of their own: the camera's move taken as a shift, a turn and a change of scale in the image
    (``cv2.estimateAffinePartial2D``, four numbers, which two markers' eight corners fix). ``None`` with fewer than
    two of the layout's markers, or when the move fits them worse than :data:`FOLLOW_ERROR_MM`.

    Why: a knock that pushes an edge of the mat out of the view leaves two markers to see; waiting for three kept
    the old homography, so every card laid until the camera was put back was placed where the old view put it (the
    synthetic table, Makao seed 11, knocked 44 px up and left: 95 frames on the old view, and a 2H reported that
    nobody had played). A knock mostly shifts and turns a camera on its arm; the tilt it leaves is small."""
    seen = [marker for marker in layout.markers if marker.id in found]
    if len(seen) < 2:
        return None
    was = np.concatenate([calibration.to_image(marker.corners) for marker in seen])
    now = np.concatenate([found[marker.id] for marker in seen])
    move, _inliers = cv2.estimateAffinePartial2D(was, now, method=cv2.RANSAC, ransacReprojThreshold=3.0)
    if move is None:
        return None
    homography = calibration.homography @ np.linalg.inv(np.vstack([move, [0.0, 0.0, 1.0]]))
    homography /= homography[2, 2]
    printed = np.concatenate([marker.corners for marker in seen])
    mapped = cv2.perspectiveTransform(now.reshape(-1, 1, 2), homography).reshape(-1, 2)
    error = float(np.sqrt(np.mean(np.sum((mapped - printed) ** 2, axis=1))))
    if error > FOLLOW_ERROR_MM:
        return None
    return Calibration(
        homography,
        calibration.image_size,
        error,
        {marker.id: found[marker.id] for marker in seen},
        calibration.game,
        calibration.mat_mm,
    )


def marker_drift(found: dict[int, np.ndarray], calibration: Calibration, layout: ZoneLayout) -> float | None:
    """Median distance in pixels between markers found in a frame and where ``calibration`` puts them (``None``:
    none of the layout's markers found): whether the frame was seen from the view the calibration describes."""
    dists: list[float] = []
    for i, corners in found.items():
        try:
            marker = layout.marker(i)
        except ValueError:
            continue
        expected = calibration.to_image(marker.corners)
        dists.extend(np.linalg.norm(expected - corners, axis=1).tolist())
    return float(np.median(dists)) if dists else None


def _patch(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    x1, y1, x2, y2 = box
    part = image[y1:y2, x1:x2]
    return (part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)).astype(np.float32)


def _match(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two same-size grey patches: 1 alike, whatever the brightness and contrast.
    Two blank patches are alike; a blank one and a marker are not (a camera knocked onto plain felt)."""
    a, b = a - a.mean(), b - b.mean()
    aa, bb = float((a * a).sum()), float((b * b).sum())
    flat = 1e-6 * a.size
    if aa <= flat or bb <= flat:
        return 1.0 if aa <= flat and bb <= flat else 0.0
    return float((a * b).sum() / np.sqrt(aa * bb))


def _median_move(before: dict[int, np.ndarray], now: dict[int, np.ndarray]) -> float:
    """Median distance, in pixels, the corners of the markers seen both times moved (inf: none seen both times)."""
    moves = [np.linalg.norm(now[i] - before[i], axis=1) for i in before if i in now]
    return float(np.median(np.concatenate(moves))) if moves else float("inf")


@dataclass(frozen=True)
class ImageQuality:
    """Exposure figures of a frame and the warnings a person should act on."""

    glare_fraction: float
    dark_fraction: float
    mean_level: float
    warnings: tuple[str, ...]


def assess_image(
    image: np.ndarray,
    region: np.ndarray | None = None,
    glare_limit: float = 0.01,
    dark_limit: float = 0.25,
) -> ImageQuality:
    """Glare (saturated pixels) and exposure (histogram) over ``region`` (a boolean mask) or the whole frame."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    values = gray[region] if region is not None else gray.ravel()
    if values.size == 0:
        values = gray.ravel()
    glare = float(np.mean(values >= 250))
    dark = float(np.mean(values <= 20))
    mean = float(values.mean())
    warnings: list[str] = []
    if glare > glare_limit:
        warnings.append(f"glare: {glare:.1%} of the mat is saturated white (move or diffuse the lamp)")
    if dark > dark_limit:
        warnings.append(f"underexposed: {dark:.0%} of the mat is nearly black (more light or longer exposure)")
    if mean < 50:
        warnings.append(f"too dark: mean level {mean:.0f} of 255")
    elif mean > 200:
        warnings.append(f"too bright: mean level {mean:.0f} of 255")
    return ImageQuality(glare, dark, mean, tuple(warnings))


def edge_spread_mm(image: np.ndarray, found: dict[int, np.ndarray], layout: ZoneLayout) -> float | None:
    """How far the camera spreads a sharp edge, in table mm: the median distance over which the outer edges of
    the mat's markers (their black border against the white square round them) rise from 10 % to 90 % of the way
    from black to white, over the local scale (each marker's side in pixels over its printed size). None when
    no marker gives a clean edge. A lens in focus spreads an edge over a pixel or two; what matters for reading
    a card is how much of a printed index that is, hence millimetres.

    Why: a card's corner index is a few millimetres of ink, and a lens out of focus by a Gaussian of 2 pixels
    at the table's scale (about 2 px per mm) left most cards of a Makao pile unreadable (:data:`FOCUS_LIMIT_MM`).
    The markers are the one thing of known sharpness in every calibration picture."""
    sizes = {m.id: m.size for m in layout.markers}
    steps = np.arange(-1.0, 1.0 + 1e-9, 0.05)  # across the edge, in units of each marker's reach below
    widths: list[float] = []
    for marker_id, corners in found.items():
        if marker_id not in sizes:
            continue
        side_px = float(np.mean([np.linalg.norm(corners[(k + 1) % 4] - corners[k]) for k in range(4)]))
        reach = side_px / 7  # the black border is a sixth of the side; the white square round it as wide
        if reach < 2:
            continue
        lines = []
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
            outward = np.array([along[1], -along[0]])  # OpenCV's corners go clockwise in the image
            lines += [a + t * (b - a) + np.outer(steps * reach, outward) for t in np.linspace(0.2, 0.8, 7)]
        points = np.asarray(lines, np.float32)  # profiles x samples x 2, read from the marker's part of the image
        x0, y0 = (max(0, int(v) - 2) for v in points.reshape(-1, 2).min(axis=0))
        x1, y1 = (int(v) + 3 for v in points.reshape(-1, 2).max(axis=0))
        part = image[y0:y1, x0:x1]
        if part.size == 0:
            continue
        gray = (part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)).astype(np.float32)
        profiles = cv2.remap(
            gray, points[..., 0] - x0, points[..., 1] - y0, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )  # (a marker at the frame's edge: no black made up beyond it)
        step_mm = float(steps[1] - steps[0]) * reach * sizes[marker_id] / side_px
        widths += [w for w in (_rise_width(p, step_mm) for p in profiles) if w is not None]
    return float(np.median(widths)) if widths else None


def focus_warning(spread_mm: float | None, limit_mm: float = FOCUS_LIMIT_MM) -> str | None:
    """The warning a person should act on when the camera spreads a sharp edge over more than ``limit_mm``."""
    if spread_mm is None or spread_mm <= limit_mm:
        return None
    return (
        f"out of focus: a sharp edge spreads over {spread_mm:.1f} mm of the mat (at most {limit_mm:.1f} for the "
        "card indices to read); focus the lens on the mat"
    )


def _rise_width(profile: np.ndarray, step: float) -> float | None:
    """The distance (in the units of ``step``, the spacing of ``profile``'s samples) over which ``profile``, dark
    at its start and bright at its end, rises from 10 % to 90 % of the way; None without a clear rise."""
    n = max(2, len(profile) // 5)
    low, high = float(np.mean(profile[:n])), float(np.mean(profile[-n:]))
    if high - low < 40:
        return None
    share = (profile - low) / (high - low)
    crossings = []
    for level in (0.1, 0.9):
        above = np.flatnonzero(share >= level)
        if not len(above) or above[0] == 0:
            return None
        i = int(above[0])
        crossings.append(i - 1 + (level - share[i - 1]) / max(float(share[i] - share[i - 1]), 1e-9))
    return float(crossings[1] - crossings[0]) * step


def felt_mask(calibration: Calibration, layout: ZoneLayout) -> np.ndarray:
    """A boolean mask of the image pixels on the felt: the mat less the white squares around its markers.

    Glare and exposure are judged there, on an empty mat, because the marker squares are meant to be white.
    """
    w, h = calibration.image_size
    corners = np.array([[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]], float)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(calibration.to_image(corners)).astype(np.int32)], 1)
    for marker in layout.markers:
        quiet = (marker.corners - marker.center) * 1.45 + marker.center
        cv2.fillPoly(mask, [np.round(calibration.to_image(quiet)).astype(np.int32)], 0)
    return mask.astype(bool)


def draw_overlay(
    image: np.ndarray,
    layout: ZoneLayout,
    calibration: Calibration | None,
    found: dict[int, np.ndarray] | None = None,
    warnings: tuple[str, ...] = (),
) -> np.ndarray:
    """What the camera sees, with markers, zones and warnings drawn on: the ``calibrate --picture``."""
    out = image.copy()
    for i, c in (found or {}).items():
        pts = np.round(c).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 0, 255), 2)
        cv2.putText(out, str(i), tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
    if calibration is not None:
        for zone in layout.zones:
            pts = np.round(calibration.to_image(np.asarray(zone.polygon))).astype(np.int32)
            cv2.polylines(out, [pts], True, (0, 255, 255), 2, cv2.LINE_AA)
            cx, cy = calibration.to_image([zone.center])[0]
            label = zone.label or zone.name  # as the mat prints it, as the players know it
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.7, 2)
            at = (int(cx) - tw // 2, int(cy) + th // 2)
            cv2.putText(out, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 255), 2)
        lines = [f"calibrated: error {calibration.error_mm:.2f} mm", *warnings]
    else:
        lines = ["NOT calibrated", *warnings]
    y = 28
    for line in lines:
        colour = (0, 255, 0) if line.startswith("calibrated") else (0, 0, 255)
        for part in _wrapped(line, out.shape[1] - 20):
            cv2.putText(out, part, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4)
            cv2.putText(out, part, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2)
            y += 28
    return out


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` broken between words into lines no wider than ``width`` pixels as :func:`draw_overlay` draws them
    (a word wider than that stands alone): a long warning stays in the picture."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and cv2.getTextSize(trial, cv2.FONT_HERSHEY_SIMPLEX, 0.7, 4)[0][0] > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines
