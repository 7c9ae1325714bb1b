"""Scoring recognition on labelled images (``cardtable vision eval``).

The measure is the issue's: per image, the set of distinct cards found against the set shown,
micro-averaged over images and reported per subset, with the recogniser's latency per image.
The same code scores the real development photos and synthetic held-out sets, which share one
folder format (:mod:`vision.evaluation.dataset`).
"""

from __future__ import annotations

from vision.evaluation.dataset import Dataset, DatasetError, LabelledCorner, Sample
from vision.evaluation.run import ImageResult, Report, compare_keeping_rules, evaluate, sweep
from vision.evaluation.scoring import Tally

__all__ = [
    "Dataset",
    "DatasetError",
    "ImageResult",
    "LabelledCorner",
    "Report",
    "Sample",
    "Tally",
    "compare_keeping_rules",
    "evaluate",
    "sweep",
]
