"""Is one model really better than another on a set of photos? A paired bootstrap.

The real development set is small (25 webcam photos with 239 cards, 118 phone photos with 134), so
two models' recall can differ by three points through the luck of which photos happen to be hard.
Both models read the same photos, so the right question is about their difference photo by photo:
resampling the photos with replacement (the photo is the unit the set was drawn in) and recomputing
each model's micro-averaged recall and precision on every resample gives an interval for the
difference. When it holds zero, the set cannot tell the two models apart.

``cardtable vision eval --per-image FILE`` writes the per-photo records this reads (one JSON object
per line: image, subset, the cards shown, the cards found); ``cardtable vision compare A B`` prints
the intervals.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.evaluation.dataset import DatasetError


@dataclass(frozen=True, slots=True)
class ImageRecord:
    """One photo's outcome: which subset, the cards it shows, the cards the recogniser claimed."""

    image: str
    subset: str
    cards: frozenset[str]
    found: frozenset[str]

    def as_json(self) -> str:
        return json.dumps(
            {"image": self.image, "subset": self.subset, "cards": sorted(self.cards), "found": sorted(self.found)}
        )


def write_records(path: Path, records: Iterable[ImageRecord]) -> None:
    """Write ``records`` as JSON lines (overwriting ``path``)."""
    path.write_text("".join(r.as_json() + "\n" for r in records), encoding="utf-8")


def read_records(path: Path) -> list[ImageRecord]:
    """The records of a ``--per-image`` file; a malformed line raises DatasetError naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read per-image records: {exc.strerror or exc}") from exc
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row["cards"], list) or not isinstance(row["found"], list):
                raise TypeError("cards and found must be lists of card names")
            record = ImageRecord(
                str(row["image"]),
                str(row["subset"]),
                frozenset(map(str, row["cards"])),
                frozenset(map(str, row["found"])),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise DatasetError(
                f"{path}:{number}: not a per-image record (want image, subset, cards, found): {exc}"
            ) from exc
        records.append(record)
    if not records:
        raise DatasetError(f"{path}: no per-image records")
    return records


def _counts(records: Sequence[ImageRecord]) -> np.ndarray:
    """Per photo: cards shown, cards claimed, cards right."""
    return np.array([(len(r.cards), len(r.found), len(r.found & r.cards)) for r in records], np.float64).reshape(-1, 3)


def _scores(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Micro-averaged recall and precision of each resample ``counts`` (..., photos, 3), by
    :class:`~vision.evaluation.scoring.Tally`'s rules (no claims: precision 1 only if nothing was there)."""
    shown, claimed, right = counts[..., 0].sum(-1), counts[..., 1].sum(-1), counts[..., 2].sum(-1)
    recall = np.where(shown > 0, right / np.maximum(shown, 1), 1.0)
    precision = np.where(claimed > 0, right / np.maximum(claimed, 1), np.where(shown == 0, 1.0, 0.0))
    return recall, precision


def paired_difference(
    a: Sequence[ImageRecord], b: Sequence[ImageRecord], rounds: int = 2000, seed: int = 0, level: float = 0.95
) -> dict[str, object]:
    """B minus A in recall and precision over the photos both read, with a bootstrap interval.

    Photos are matched by name; a photo only one side read is an error (the runs read different sets).
    """
    by_name = {r.image: r for r in a}
    if len(by_name) != len(a) or {r.image for r in b} != set(by_name) or len(b) != len(a):
        raise DatasetError("the two runs did not read the same photos: compare runs of one dataset")
    pairs = [(by_name[r.image], r) for r in b]
    subsets: dict[str, list[tuple[ImageRecord, ImageRecord]]] = {}
    for pa, pb in pairs:
        subsets.setdefault(pb.subset, []).append((pa, pb))
    lo, hi = 100 * (1 - level) / 2, 100 * (1 + level) / 2

    def compare(group: list[tuple[ImageRecord, ImageRecord]]) -> dict[str, object]:
        ca, cb = _counts([p[0] for p in group]), _counts([p[1] for p in group])
        # each group resamples from the seed afresh, so its interval does not depend on the others
        picks = np.random.default_rng(seed).integers(0, len(group), size=(rounds, len(group)))
        ra, pa_ = _scores(ca[picks])
        rb, pb_ = _scores(cb[picks])
        ra0, pa0 = (float(x) for x in _scores(ca))
        rb0, pb0 = (float(x) for x in _scores(cb))
        result: dict[str, object] = {"images": len(group), "cards": int(ca[:, 0].sum())}
        for key, da, db, d in (("recall", ra0, rb0, rb - ra), ("precision", pa0, pb0, pb_ - pa_)):
            low, high = (round(float(v), 4) for v in np.percentile(d, [lo, hi]))
            result[key] = {
                "a": round(da, 4),
                "b": round(db, 4),
                "difference": round(db - da, 4),
                "interval": [low, high],
                "tells_apart": bool(low > 0 or high < 0),
            }
        return result

    return {
        "rounds": rounds,
        "level": level,
        "overall": compare(pairs),
        "subsets": {name: compare(subsets[name]) for name in sorted(subsets)},
    }
