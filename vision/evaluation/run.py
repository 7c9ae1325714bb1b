"""Run a recogniser over a dataset and report recall, precision and latency.

Latency is the recogniser's own time per image (``detect``), not file reading or scoring, measured
with ``time.perf_counter`` on whatever threads the recogniser was built with. Readings are kept per
image so that the card vote can be re-tuned without running the models again (:func:`sweep`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detection, Recogniser
from vision.evaluation.compare import ImageRecord
from vision.evaluation.dataset import Dataset, DatasetError, Sample
from vision.evaluation.failures import FailureWriter
from vision.evaluation.scoring import Tally
from vision.recognise.aspect import AspectSearch, KeepRule, keep
from vision.recognise.cards import DEFAULT_VOTE, CardVote


@dataclass(frozen=True, slots=True)
class ImageResult:
    """What the recogniser read in one image, and how long it took."""

    sample: Sample
    detections: tuple[Detection, ...]
    seconds: float


@dataclass(slots=True)
class Report:
    """The outcome of one evaluation run."""

    results: list[ImageResult] = field(default_factory=list)
    vote: CardVote = DEFAULT_VOTE
    threads: int = 1
    root: Path | None = None
    """The dataset folder, which per-image records name their photos relative to."""

    def tallies(self, vote: CardVote | None = None) -> tuple[Tally, dict[str, Tally]]:
        """The overall tally and one per subset, under ``vote`` (the report's own by default)."""
        vote = vote or self.vote
        total = Tally()
        subsets: dict[str, Tally] = {}
        for result in self.results:
            found = vote.cards(result.detections)
            total.add(found, result.sample.cards)
            subsets.setdefault(result.sample.subset, Tally()).add(found, result.sample.cards)
        return total, subsets

    def records(self) -> list[ImageRecord]:
        """Per image, the cards shown and the cards found under the report's vote (``--per-image``), so two
        runs can be compared photo by photo (:mod:`vision.evaluation.compare`)."""
        return [
            ImageRecord(
                str(r.sample.path.relative_to(self.root))
                if self.root and r.sample.path.is_relative_to(self.root)
                else str(r.sample.path),
                r.sample.subset,
                frozenset(str(c) for c in r.sample.cards),
                frozenset(str(c) for c in self.vote.cards(r.detections)),
            )
            for r in self.results
        ]

    def summary(self) -> dict[str, object]:
        """The one JSON object ``cardtable vision eval`` prints."""
        total, subsets = self.tallies()
        millis = np.array([r.seconds * 1000 for r in self.results]) if self.results else np.zeros(1)
        return {
            **total.summary(),
            "subsets": {name: subsets[name].summary() for name in sorted(subsets)},
            "latency_ms": {
                "p50": round(float(np.percentile(millis, 50)), 1),
                "p95": round(float(np.percentile(millis, 95)), 1),
            },
            "threads": self.threads,
        }


def read_image(sample: Sample) -> np.ndarray:
    image = cv2.imread(str(sample.path), cv2.IMREAD_COLOR)
    if image is None:
        raise DatasetError(f"{sample.path}: not an image OpenCV can read")
    return image


def evaluate(
    recogniser: Recogniser,
    dataset: Dataset,
    *,
    vote: CardVote = DEFAULT_VOTE,
    limit: int | None = None,
    errors: Path | None = None,
    threads: int = 1,
) -> Report:
    """Read every image of ``dataset`` (the first ``limit``) and score it; draw failures into ``errors``."""
    report = Report(vote=vote, threads=threads, root=dataset.root)
    writer = FailureWriter(errors) if errors is not None else None
    samples = dataset.samples[:limit] if limit is not None else dataset.samples
    try:
        for sample in samples:
            image = read_image(sample)
            start = time.perf_counter()
            detections = tuple(recogniser.detect(image))
            seconds = time.perf_counter() - start
            report.results.append(ImageResult(sample, detections, seconds))
            if writer is not None:
                writer.add(image, sample, detections, vote.cards(detections))
    finally:
        if writer is not None:
            writer.close()
    return report


def sweep(report: Report, votes: Iterable[CardVote]) -> list[dict[str, object]]:
    """Recall and precision of each vote over the report's readings: for tuning on synthetic sets."""
    rows: list[dict[str, object]] = []
    for vote in votes:
        total, subsets = report.tallies(vote)
        rows.append(
            {
                "threshold": vote.threshold,
                "top_only": vote.top_only,
                "same_place": vote.same_place,
                "decks": vote.decks,
                **total.summary(),
                "subsets": {name: subsets[name].summary() for name in sorted(subsets)},
            }
        )
    return rows


def compare_keeping_rules(
    search: AspectSearch, dataset: Dataset, rules: Mapping[str, KeepRule], *, limit: int | None = None
) -> dict[str, dict[str, object]]:
    """Recall and precision of the aspect search under each of ``rules``, every photo read once at each
    aspect and each rule keeping its own reading of it, with how many photos each rule read at each
    aspect: the rules are judged on the same readings, at the cost of one search."""
    reports = {name: Report(root=dataset.root) for name in rules}
    aspects: dict[str, dict[str, int]] = {name: {} for name in rules}
    samples = dataset.samples[:limit] if limit is not None else dataset.samples
    for sample in samples:
        readings = search.readings(read_image(sample))
        for name, rule in rules.items():
            aspect, found = keep(readings, rule)
            reports[name].results.append(ImageResult(sample, tuple(found), 0.0))
            key = f"{aspect:.3g}"
            aspects[name][key] = aspects[name].get(key, 0) + 1
    out: dict[str, dict[str, object]] = {}
    for name, report in reports.items():
        total, subsets = report.tallies()
        out[name] = {
            **total.summary(),
            "subsets": {sub: subsets[sub].summary() for sub in sorted(subsets)},
            "aspects": dict(sorted(aspects[name].items())),
        }
    return out
