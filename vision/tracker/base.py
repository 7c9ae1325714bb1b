"""The state the layers of :class:`~vision.tracker.CardTracker` share, declared with its types (:class:`_Base`)."""

from __future__ import annotations

import itertools

import numpy as np

from vision.calibration import Calibration
from vision.detections import BoxReader, Region
from vision.tracker.settings import TrackerSettings
from vision.tracker.state import _ZoneState
from vision.zones import ZoneLayout


class _Base:
    """The attributes that ``CardTracker.__init__`` and :meth:`~vision.tracker.CardTracker.set_calibration` set,
    declared with their types and nothing more (no value, no method: what each holds is said where it is set).

    Why: the tracker's methods are split by what they do over a chain of classes, each in its own module
    (:mod:`vision.tracker.views`, :mod:`vision.tracker.votes`, :mod:`vision.tracker.confirm`,
    :mod:`vision.tracker.tracker`), and the lower layers read state the top one sets; declared once here, each
    module is type-checked on its own."""

    layout: ZoneLayout
    settings: TrackerSettings
    decks: int
    pushes_followed: int
    reader: BoxReader | None
    zones: dict[str, _ZoneState]
    calibration: Calibration
    _ids: itertools.count[int]
    _prev_small: np.ndarray | None
    _prev_colour: np.ndarray | None
    _prev_frame: tuple[int, float]
    _empty: np.ndarray | None
    _empty_known: np.ndarray | None
    _empty_view: np.ndarray | None
    _seen: tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, bool], np.ndarray | None] | None
    _changes: tuple[np.ndarray | None, dict[tuple[str, int, int], tuple[np.ndarray, np.ndarray]]]
    _unread: tuple[np.ndarray, frozenset[str]] | None
    _rest_run: int
    _shade_window: int
    _regions: dict[str, Region]
