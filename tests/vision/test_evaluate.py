"""`cardtable vision eval`: the exact JSON, the set scoring, failure pictures and clear dataset errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from engine.cards import Card
from tests.vision.recognise_models import GREEN, RED, write_models
from vision.evaluation import Dataset, DatasetError, Tally

ROOT = Path(__file__).resolve().parents[2]
BGR_RED, BGR_GREEN = (0, 0, 255), (0, 255, 0)


def _image(path: Path, colour: tuple[int, int, int]) -> None:
    image = np.full((64, 64, 3), 80, np.uint8)
    image[24:40, 24:40] = colour
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), image)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Three images; the stand-in models read a red square as RED and a green one as GREEN."""
    root = tmp_path / "set"
    entries = [
        ("a.png", BGR_RED, "s1", [RED]),  # right
        ("b.png", BGR_GREEN, "s1", [RED]),  # wrong: one false card, one missed
        ("c.png", BGR_RED, "s2", [RED, "5H"]),  # one of two
    ]
    index = []
    for name, colour, subset, cards in entries:
        _image(root / "images" / name, colour)
        index.append(
            {
                "image": f"images/{name}",
                "width": 64,
                "height": 64,
                "cards": [{"card": c, "box": [24, 24, 40, 40]} for c in cards],
                "subset": subset,
                "distinct_cards": cards,
            }
        )
    (root / "index.json").write_text(json.dumps(index))
    return root


@pytest.fixture
def models(tmp_path: Path) -> Path:
    return write_models(tmp_path / "models", imgsz=64, boxes=[(32, 32, 16, 16, 0.9)])


def _eval(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["vision", "eval", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_eval_prints_one_json_object_with_exactly_the_agreed_keys(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _eval(capsys, str(dataset), "--models", str(models))

    assert status == 0
    report = json.loads(out)
    assert list(report) == ["images", "cards", "recall", "precision", "subsets", "latency_ms", "threads"]
    assert set(report["subsets"]) == {"s1", "s2"}
    for subset in report["subsets"].values():
        assert list(subset) == ["images", "cards", "recall", "precision"]
    assert list(report["latency_ms"]) == ["p50", "p95"]
    assert report["threads"] == 1
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0


def test_eval_scores_distinct_cards_per_image_micro_averaged(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _eval(capsys, str(dataset), "--models", str(models))
    report = json.loads(out)

    # found: {RED}, {GREEN}, {RED}; truth: {RED}, {RED}, {RED, 5H}
    assert (report["images"], report["cards"]) == (3, 4)
    assert report["recall"] == pytest.approx(2 / 4, abs=1e-4)
    assert report["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["subsets"]["s1"] == {"images": 2, "cards": 2, "recall": 0.5, "precision": 0.5}
    assert report["subsets"]["s2"] == {"images": 1, "cards": 2, "recall": 0.5, "precision": 1.0}


def test_labelled_boxes_read_by_the_classifier_alone_split_rank_and_suit(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _eval(capsys, str(dataset), "--models", str(models), "--labelled-boxes")
    report = json.loads(out)

    assert status == 0
    # boxes: a RED (red square), b RED (green square: read GREEN), c RED and 5H (red square: read RED twice)
    red, green = Card.from_text(RED), Card.from_text(GREEN)
    assert report["boxes"] == 4
    assert report["card"] == pytest.approx(2 / 4)
    rank_right = 2 + (green.rank == red.rank) + (red.rank == Card.from_text("5H").rank)
    suit_right = 2 + (green.suit == red.suit) + (red.suit == Card.from_text("5H").suit)
    assert report["rank"] == pytest.approx(rank_right / 4)
    assert report["suit"] == pytest.approx(suit_right / 4)
    assert report["subsets"]["s1"]["boxes"] == 2 and report["subsets"]["s2"]["boxes"] == 2
    assert sum(report["suit_confusions"].values()) == 4 - suit_right


def test_labelled_boxes_at_a_pixel_aspect_stretch_the_boxes_with_the_photo(
    tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A photo saved squashed is read stretched back, and its labelled boxes must follow the stretch: a
    box left where it was would land on the wrong card."""
    root = tmp_path / "squashed"
    image = np.full((64, 64, 3), 80, np.uint8)
    image[24:40, 8:20] = BGR_GREEN  # left of the labelled red box: what an unscaled box would read
    image[24:40, 24:40] = BGR_RED
    (root / "images").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "a.png"), image)
    entry = {"image": "images/a.png", "width": 64, "height": 64, "subset": "s", "distinct_cards": [RED]}
    _index(root, [{**entry, "cards": [{"card": RED, "box": [24, 24, 40, 40]}]}])

    status, out, _ = _eval(capsys, str(root), "--models", str(models), "--labelled-boxes", "--aspect", "2:1")
    report = json.loads(out)

    assert status == 0
    assert (report["boxes"], report["card"]) == (1, 1.0)
    assert report["aspects"] == {"2": 1}


def test_labelled_boxes_search_keeps_the_photo_as_saved_on_a_tie(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _eval(capsys, str(dataset), "--models", str(models), "--labelled-boxes")
    # the stand-in classifier reads a colour, the same at every stretch: no aspect reads more boxes surely
    assert json.loads(out)["aspects"] == {"1": 3}


def test_limit_reads_only_the_first_images(dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _eval(capsys, str(dataset), "--models", str(models), "--limit", "1", "--threads", "2")
    report = json.loads(out)
    assert (report["images"], report["recall"], report["precision"], report["threads"]) == (1, 1.0, 1.0, 2)


def test_errors_dir_gets_a_picture_and_a_record_of_each_failure(
    dataset: Path, models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    errors = tmp_path / "errors"
    status, _, _ = _eval(capsys, str(dataset), "--models", str(models), "--errors", str(errors))

    assert status == 0
    records = json.loads((errors / "failures.json").read_text())
    assert [(r["subset"], r["missed"], r["false"]) for r in records] == [("s1", [RED], [GREEN]), ("s2", ["5H"], [])]
    pictures = sorted(errors.glob("*.jpg"))
    assert len(pictures) == 2
    drawn = cv2.imread(str(pictures[0]))
    assert drawn is not None and drawn.shape == (64, 64, 3)


def _index(root: Path, entries: object) -> Path:
    return _text(root, json.dumps(entries))


def _text(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.json").write_text(text)
    return root


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "nowhere", "no such dataset folder"),
        (lambda p: p, "no index.json"),
        (lambda p: _text(p, "{not json"), "not readable JSON"),
        (lambda p: _index(p, {"image": "x"}), "expected a list"),
        (lambda p: _index(p, []), "lists no images"),
        (lambda p: _index(p, [{"image": "images/a.png", "distinct_cards": ["ZZ"]}]), r"entry 0 \(images/a.png\).*'ZZ'"),
        (lambda p: _index(p, [{"image": "images/gone.png"}]), "gone.png does not exist"),
        (lambda p: _index(p, [{"cards": []}]), r"entry 0: image: Field required"),
        (lambda p: _index(p, [{"image": "i.png", "cards": [{"card": "QS", "box": [1, 2]}]}]), r"cards\.0\.box"),
    ],
)
def test_malformed_datasets_exit_2_with_a_clear_message(
    tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], Path], message: str
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    _image(folder / "images" / "a.png", BGR_RED)
    _image(folder / "i.png", BGR_RED)
    target = make(folder)

    status, out, err = _eval(capsys, str(target), "--models", str(models))

    assert status == 2 and out == ""
    assert err.startswith("cardtable vision: ")
    assert re.search(message, err), err


def test_an_unreadable_image_is_named(tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _index(tmp_path / "set", [{"image": "broken.jpg", "distinct_cards": []}])
    (folder / "broken.jpg").write_bytes(b"not a jpeg")
    status, _, err = _eval(capsys, str(folder), "--models", str(models))
    assert status == 2 and "broken.jpg: not an image" in err


def test_missing_models_exit_2(dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _eval(capsys, str(dataset), "--models", str(tmp_path / "none"))
    assert status == 2 and "no model manifest" in err


def test_a_bad_dataset_from_the_shell_shows_no_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli", "vision", "eval", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert "no such dataset folder" in result.stderr and "Traceback" not in result.stderr


def test_tune_lists_recall_and_precision_per_threshold(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vision", "tune", str(dataset), "--models", str(models)]) == 0
    rows = json.loads(capsys.readouterr().out)["sweep"]
    assert {row["top_only"] for row in rows} == {False, True}
    assert {row["same_place"] for row in rows} == {0.5, None}
    assert {(row["same_place"], row["decks"]) for row in rows} == {(0.5, 1), (0.5, None), (None, None)}
    assert all(0.0 <= row["recall"] <= 1.0 and 0.0 <= row["precision"] <= 1.0 for row in rows)


def test_missing_distinct_cards_are_taken_from_the_corners(tmp_path: Path) -> None:
    folder = _index(tmp_path / "set", [{"image": "a.png", "cards": [{"card": "10C", "box": [0, 0, 5, 5]}]}])
    _image(folder / "a.png", BGR_RED)
    (sample,) = Dataset.load(folder).samples
    assert sample.cards == {Card.from_text("10C")} and sample.subset == "all"
    with pytest.raises(DatasetError):
        Dataset.load(tmp_path / "elsewhere")


def test_precision_with_no_claims_is_perfect_only_when_nothing_was_there() -> None:
    empty, missed = Tally(), Tally()
    empty.add(set(), set())
    missed.add(set(), {Card.from_text("AS")})
    assert (empty.recall, empty.precision) == (1.0, 1.0)
    assert (missed.recall, missed.precision) == (0.0, 0.0)


def test_train_forwards_its_options_to_the_training_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        seen.append(list(argv))
        return 0

    fake = types.ModuleType("vision.training.pipeline")
    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vision.training", types.ModuleType("vision.training"))
    monkeypatch.setitem(sys.modules, "vision.training.pipeline", fake)

    assert main(["vision", "train", "--", "--epochs", "3"]) == 0
    assert seen == [["--epochs", "3"]]


def test_train_without_its_pipeline_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "vision.training.pipeline", None)
    assert main(["vision", "train"]) == 2
    assert "cardtable vision train:" in capsys.readouterr().err


def test_synth_in_a_fresh_checkout_renders_the_faces_it_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``data/faces/`` is not committed: a fresh clone's ``cardtable vision synth`` used to stop at "no
    face 5H for design ...: render it first". It renders (and for a vector deck measures) what it draws."""
    from vision.synth import faces

    cache = tmp_path / "faces"
    monkeypatch.setattr(faces, "CACHE_DIR", cache)
    out = tmp_path / "set"
    assert main(["vision", "synth", str(out), "--count", "2", "--designs", "drawn-03", "--seed", "4"]) == 0
    capsys.readouterr()
    assert len(list((cache / "drawn-03").glob("*.png"))) >= 52
    samples = Dataset.load(out).samples
    assert len(samples) == 2 and all(s.subset == "drawn-03" for s in samples)
    assert any(s.corners for s in samples)  # (a scene may be an empty table)


def test_synth_without_the_debian_decks_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from vision.synth import faces

    monkeypatch.setattr(faces, "CACHE_DIR", tmp_path / "faces")
    monkeypatch.setattr(shutil, "which", lambda _name: None)  # no rsvg-convert
    assert main(["vision", "synth", str(tmp_path / "set"), "--count", "1", "--designs", "anglo_modern"]) == 2
    err = capsys.readouterr().err
    assert "anglo_modern" in err and "scripts/train-deps.sh" in err and "Traceback" not in err


def test_synth_writes_a_held_out_set_that_eval_reads(
    tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.synth.faces import HELD_OUT, available_designs

    designs = [d for d in HELD_OUT if d in available_designs()]
    if not designs:
        pytest.skip("no held-out design's faces are rendered or committed here")
    out = tmp_path / "held"
    assert main(["vision", "synth", str(out), "--count", "2", "--designs", designs[0]]) == 0
    capsys.readouterr()
    (first, _) = Dataset.load(out).samples
    assert first.subset == designs[0] and first.path.is_file()
    assert all(c.card in first.cards for c in first.corners)
    status, text, _ = _eval(capsys, str(out), "--models", str(models))
    assert status == 0 and json.loads(text)["images"] == 2


def test_per_image_records_hold_what_each_photo_showed_and_what_was_found(
    dataset: Path, models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "run.jsonl"
    status, out, _ = _eval(capsys, str(dataset), "--models", str(models), "--per-image", str(records))

    assert status == 0 and json.loads(out)["recall"] == 0.5
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    assert [(r["image"], r["subset"]) for r in rows] == [
        ("images/a.png", "s1"),
        ("images/b.png", "s1"),
        ("images/c.png", "s2"),
    ]
    assert [r["found"] for r in rows] == [[RED], [GREEN], [RED]]
    assert rows[2]["cards"] == sorted([RED, "5H"])


def _records(path: Path, found: list[list[str]], cards: list[list[str]]) -> Path:
    rows = [
        {"image": f"images/{i}.jpg", "subset": "s1" if i % 2 else "s2", "cards": c, "found": f}
        for i, (f, c) in enumerate(zip(found, cards, strict=True))
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _compare(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["vision", "compare", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_compare_tells_a_model_that_finds_every_card_from_one_that_misses_half(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = [["QS", "2H"]] * 40
    a = _records(tmp_path / "a.jsonl", [["QS"]] * 40, cards)  # half of every photo's cards
    b = _records(tmp_path / "b.jsonl", [["QS", "2H"]] * 40, cards)
    status, out, _ = _compare(capsys, str(a), str(b))

    assert status == 0
    result = json.loads(out)
    recall = result["overall"]["recall"]
    assert (recall["a"], recall["b"], recall["difference"]) == (0.5, 1.0, 0.5)
    assert recall["tells_apart"] and recall["interval"][0] > 0
    assert result["subsets"]["s1"]["images"] == result["subsets"]["s2"]["images"] == 20


def test_compare_does_not_tell_apart_two_runs_that_differ_on_one_photo_of_many(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(1)
    cards = [["QS", "2H", "KD"] for _ in range(30)]
    found = [[c for c in row if rng.random() < 0.8] for row in cards]
    a = _records(tmp_path / "a.jsonl", found, cards)
    b = _records(tmp_path / "b.jsonl", [row if i else [] for i, row in enumerate(found)], cards)  # one photo lost
    _, out, _ = _compare(capsys, str(a), str(b))

    recall = json.loads(out)["overall"]["recall"]
    assert recall["difference"] < 0
    assert recall["interval"][0] < 0 <= recall["interval"][1] and not recall["tells_apart"]


def test_compare_refuses_runs_of_different_photos_and_malformed_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _records(tmp_path / "a.jsonl", [["QS"]] * 3, [["QS"]] * 3)
    b = _records(tmp_path / "b.jsonl", [["QS"]] * 2, [["QS"]] * 2)
    status, out, err = _compare(capsys, str(a), str(b))
    assert status == 2 and out == "" and "did not read the same photos" in err

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"image": "x.jpg", "subset": "s1", "cards": ["QS"]}\n')
    status, _, err = _compare(capsys, str(a), str(bad))
    assert status == 2 and f"{bad}:1: not a per-image record" in err and "Traceback" not in err

    bad.write_text('{"image": "x.jpg", "subset": "s1", "cards": "QS", "found": []}\n')  # a string, not a list
    status, _, err = _compare(capsys, str(a), str(bad))
    assert status == 2 and f"{bad}:1: not a per-image record" in err


def test_per_image_with_labelled_boxes_is_refused(
    dataset: Path, models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "run.jsonl"
    status, out, err = _eval(
        capsys, str(dataset), "--models", str(models), "--labelled-boxes", "--per-image", str(records)
    )
    assert status == 2 and out == "" and "--per-image" in err and not records.exists()


def test_by_size_splits_recall_by_each_cards_largest_index(
    tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The card read lands in its index's size bin; the one missed in its own; a card with no box apart."""
    root = tmp_path / "sized"
    _image(root / "images" / "a.png", BGR_RED)
    _image(root / "images" / "b.png", BGR_RED)
    index = [
        {  # RED is read; its larger corner (40 px tall) decides its bin, not the 10 px one
            "image": "images/a.png",
            "cards": [{"card": RED, "box": [4, 4, 14, 44]}, {"card": RED, "box": [40, 40, 50, 50]}],
            "subset": "near",
        },
        {  # RED read again; 5H (a 10 px index) and 7C (no box at all) are missed
            "image": "images/b.png",
            "cards": [{"card": RED, "box": [24, 24, 40, 40]}, {"card": "5H", "box": [2, 2, 8, 12]}],
            "subset": "far",
            "distinct_cards": [RED, "5H", "7C"],
        },
    ]
    (root / "index.json").write_text(json.dumps(index))

    status, out, _ = _eval(capsys, str(root), "--models", str(models), "--by-size")

    assert status == 0
    by_size = json.loads(out)["by_index_size"]
    assert by_size["all"] == {
        "<12": {"cards": 1, "found": 0, "recall": 0.0},
        "16-24": {"cards": 1, "found": 1, "recall": 1.0},
        "32-48": {"cards": 1, "found": 1, "recall": 1.0},
        "unlabelled": {"cards": 1, "found": 0, "recall": 0.0},
    }
    assert by_size["subsets"]["near"] == {"32-48": {"cards": 1, "found": 1, "recall": 1.0}}
    assert set(by_size["subsets"]["far"]) == {"<12", "16-24", "unlabelled"}


def test_by_size_is_left_out_unless_asked(dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ((), ("--labelled-boxes",)):
        _, out, _ = _eval(capsys, str(dataset), "--models", str(models), *extra)
        report = json.loads(out)
        assert "by_index_size" not in report
        assert all("by_index_size" not in subset for subset in report["subsets"].values())


def test_labelled_boxes_by_size_split_what_the_classifier_read_by_each_boxs_size(
    tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each box counts in the bin of its own longer side: a 40 px RED read right, a 16 px RED read right,
    and a 10 px box labelled 5H that shows green, read GREEN: the misreading lands in the small bin only."""
    root = tmp_path / "sized"
    near = np.full((64, 64, 3), 80, np.uint8)
    near[4:44, 4:14] = BGR_RED
    far = np.full((64, 64, 3), 80, np.uint8)
    far[24:40, 24:40] = BGR_RED
    far[2:12, 2:8] = BGR_GREEN
    (root / "images").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "a.png"), near)
    cv2.imwrite(str(root / "images" / "b.png"), far)
    _index(
        root,
        [
            {"image": "images/a.png", "subset": "near", "cards": [{"card": RED, "box": [4, 4, 14, 44]}]},
            {
                "image": "images/b.png",
                "subset": "far",
                "cards": [{"card": RED, "box": [24, 24, 40, 40]}, {"card": "5H", "box": [2, 2, 8, 12]}],
            },
        ],
    )

    status, out, _ = _eval(capsys, str(root), "--models", str(models), "--labelled-boxes", "--by-size", "--aspect", "1")
    report = json.loads(out)

    assert status == 0
    assert Card.from_text(GREEN) != Card.from_text("5H")
    by_size = report["by_index_size"]
    assert list(by_size) == ["<12", "16-24", "32-48"]  # in size order; empty bins left out
    assert {name: (b["boxes"], b["card"]) for name, b in by_size.items()} == {
        "<12": (1, 0.0),
        "16-24": (1, 1.0),
        "32-48": (1, 1.0),
    }
    assert sum(b["boxes"] for b in by_size.values()) == report["boxes"] == 3
    assert list(report["subsets"]["far"]["by_index_size"]) == ["<12", "16-24"]
    assert list(report["subsets"]["near"]["by_index_size"]) == ["32-48"]


def test_size_edges_must_rise() -> None:
    from vision.evaluation.run import Report
    from vision.evaluation.sizes import recall_by_index_size

    with pytest.raises(ValueError, match="rising"):
        recall_by_index_size(Report(), edges=(16, 12))


def test_synth_area_faces_draws_the_same_scenes_as_a_camera_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--area-faces`` draws these scenes' cards in the same boxes, only their faces averaged down."""
    from vision.synth.faces import HELD_OUT, available_designs

    designs = [d for d in HELD_OUT if d in available_designs()]
    if not designs:
        pytest.skip("no held-out design's faces are rendered or committed here")
    sets = {}
    for name, extra in (("plain", []), ("area", ["--area-faces"])):
        out = tmp_path / name
        assert main(["vision", "synth", str(out), "--count", "2", "--designs", designs[0], *extra]) == 0
        sets[name] = json.loads((out / "index.json").read_text())
    capsys.readouterr()
    assert [e["cards"] for e in sets["plain"]] == [e["cards"] for e in sets["area"]]
    plain, area = (cv2.imread(str(tmp_path / name / sets[name][0]["image"])) for name in ("plain", "area"))
    assert plain is not None and area is not None
    assert plain.shape == area.shape and not np.array_equal(plain, area)


def test_decks_zero_reads_without_the_deck_rule_and_a_negative_count_is_refused(
    dataset: Path, models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _eval(capsys, str(dataset), "--models", str(models), "--decks", "0")
    assert status == 0 and json.loads(out)["cards"] == 4
    with pytest.raises(SystemExit) as exit_:
        main(["vision", "eval", str(dataset), "--models", str(models), "--decks", "-1"])
    assert exit_.value.code == 2
    assert "--decks: expected a number of decks, 0 to 8, not -1" in capsys.readouterr().err
