"""Recall by the size of a card's printed index (``cardtable vision eval --by-size``).

A single recall figure hides where a recogniser fails. On the synthetic held-out designs nearly all
the cards missed have small indices: with the models of 30 November, cards whose largest labelled
index is 32 px or more (longer side, in a 640 image) were read 0.87-0.95 of the time in three of the
four designs, those under 18 px about a third of the time (docs/vision.md). Whether a target is out of
reach because of the model or because of what the images show is then a question one command answers.

A card's size is the longer side of the largest of its labelled corner boxes in the image's own
pixels (as saved, whatever pixel aspect the recogniser read it at). Cards named in ``distinct_cards``
without any box are counted apart as ``"unlabelled"``. Only recall is split: a false card has no
labelled index to be sized by. With ``--labelled-boxes`` the classifier's reading of each box is split
by that box's own size instead (:func:`vision.evaluation.crops.classify_labelled_boxes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from engine.cards import Card
from vision.evaluation.dataset import Sample
from vision.evaluation.run import Report

SIZE_EDGES: tuple[int, ...] = (12, 16, 24, 32, 48)
"""Bin edges in pixels: under 12, 12-16, 16-24, 24-32, 32-48 and 48 or more. At 12 px an index is
about 5 px at the detector's 320 scale of a 640 image; 48 px is a card filling a quarter of one."""


def index_sizes(sample: Sample) -> dict[Card, float]:
    """Each labelled card's largest corner box, by its longer side in pixels."""
    sizes: dict[Card, float] = {}
    for corner in sample.corners:
        sizes[corner.card] = max(sizes.get(corner.card, 0.0), box_side(corner.box))
    return sizes


def bin_names(edges: Sequence[int]) -> list[str]:
    """The bins' names in size order, e.g. ``<12``, ``12-16`` and ``>=48``; ``edges`` must rise strictly."""
    if not edges or any(b <= a for a, b in pairwise(edges)):
        raise ValueError(f"size edges must be a rising list of pixel sizes, not {list(edges)}")
    names = [f"<{edges[0]}"]
    names += [f"{lo}-{hi}" for lo, hi in pairwise(edges)]
    return [*names, f">={edges[-1]}"]


def bin_of(side: float, edges: Sequence[int], names: Sequence[str]) -> str:
    """The name of the bin (of :func:`bin_names`) a ``side`` of that many pixels falls in."""
    return names[sum(side >= edge for edge in edges)]


def box_side(box: Sequence[float]) -> float:
    """A labelled box's longer side in pixels, the size every split here goes by."""
    x1, y1, x2, y2 = box
    return max(abs(x2 - x1), abs(y2 - y1))


def recall_by_index_size(report: Report, edges: Sequence[int] = SIZE_EDGES) -> dict[str, dict[str, float | int]]:
    """``{bin: {"cards", "found", "recall"}}`` over the report's images, in size order, under its vote;
    bins with no card are left out. ``edges`` must rise strictly."""
    names = bin_names(edges)
    counts: dict[str, list[int]] = {}
    for result in report.results:
        found = report.vote.cards(result.detections)
        sizes = index_sizes(result.sample)
        for card in result.sample.cards:
            name = bin_of(sizes[card], edges, names) if card in sizes else "unlabelled"
            tally = counts.setdefault(name, [0, 0])
            tally[0] += 1
            tally[1] += card in found
    order = [*names, "unlabelled"]
    return {
        name: {"cards": cards, "found": found, "recall": round(found / cards, 4)}
        for name in order
        if name in counts
        for cards, found in [counts[name]]
    }


def recall_by_subset_and_size(
    report: Report, edges: Sequence[int] = SIZE_EDGES
) -> dict[str, dict[str, dict[str, float | int]]]:
    """:func:`recall_by_index_size` for each subset of the report (a design, a camera)."""
    subsets = sorted({r.sample.subset for r in report.results})
    out = {}
    for subset in subsets:
        part = Report(
            results=[r for r in report.results if r.sample.subset == subset],
            vote=report.vote,
            threads=report.threads,
            root=report.root,
        )
        out[subset] = recall_by_index_size(part, edges)
    return out
