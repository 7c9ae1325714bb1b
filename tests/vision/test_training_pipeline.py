"""The training command's classifier, trained in a second process beside the detector, sees the
scenes it would see trained in the first: every scene option reaches it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vision.synth.drawn import BLEEDING
from vision.synth.faces import TRAIN_DESIGNS
from vision.training import pipeline


def test_the_classifier_process_gets_the_scene_options_of_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **_kwargs: started.append(list(argv)))
    options = ["--out", str(tmp_path), "--seed", "5", "--jokers", "0.3", "--defocus", "0.5", "--cls-negatives", "3"]
    options += ["--marks", "0.25"]
    options += ["--upright", "--ink-spread", "0.3", "--crop-margin", "0.8:1.5", "--cls-arch", "residual"]
    options += ["--bleeding-courts", "--soften", "0.4", "--hide-pip", "0.2", "--cls-card-height", "45:400"]
    options += ["--npm-decks", "--cls-scene-size", "448", "--area-faces"]
    options += ["--area-finish-epochs", "12", "--area-finish-minutes", "25", "--area-finish-lr", "0.002"]
    options += ["--budget-minutes", "80", "--drawn-decks", "20", "--install", "--cls-init", str(tmp_path / "c.onnx")]
    here = pipeline._args(options)
    here.cls_minutes = 7.0
    here.deadline = 1_700_000_123.25  # main() sets it from the command's start
    pipeline._start_classifier_process(here, tmp_path, tmp_path / "detector-done")

    (argv,) = started
    assert argv[argv.index("--stages") + 1] == "classifier"
    assert argv[argv.index("--torch-threads") + 1] == "1"  # one core while the detector trains
    there = pipeline._args(argv[argv.index("-m") + 2 :])
    # every option but the process's own resolves there as here, also one added after this test was written
    assert {k: v for k, v in vars(there).items() if k not in pipeline._OWN_OPTIONS} == {
        k: v for k, v in vars(here).items() if k not in pipeline._OWN_OPTIONS
    }
    assert pipeline._cls_cfg(there) == pipeline._cls_cfg(here)
    assert pipeline._cls_cfg(there).joker_probability == 0.3 and pipeline._cls_cfg(there).defocus_probability == 0.5
    assert pipeline._crops_cache(there, tmp_path, 10, 2, 2) == pipeline._crops_cache(here, tmp_path, 10, 2, 2)
    # the options given above did take hold (so that the comparison is not of two sets of defaults)
    assert pipeline._cls_cfg(there).marks_probability == 0.25
    assert (there.seed, there.cls_minutes, there.ink_spread, there.crop_margin) == (5, 7.0, 0.3, (0.8, 1.5))
    assert there.cls_arch == "residual"
    assert (there.soften, there.hide_pip, there.cls_card_height) == (0.4, 0.2, (45.0, 400.0))
    assert pipeline._cls_cfg(there).size == 448 and pipeline._cls_cfg(there).area_faces
    assert (there.area_finish_epochs, there.area_finish_minutes, there.area_finish_lr) == (12, 25.0, 0.002)
    assert there.cls_init == tmp_path / "c.onnx"
    # its area-faced pass ends within the command's budget, not its own
    assert (there.deadline, there.budget_minutes) == (here.deadline, 80.0)
    assert there.widen_after == tmp_path / "detector-done" and here.widen_after is None  # it takes the core after
    assert (there.out, there.workers, there.install) == (tmp_path, 1, False)
    assert pipeline._train_designs(there) == pipeline._train_designs(here) != TRAIN_DESIGNS
    assert (
        there.upright
        and pipeline._manifest(there, tmp_path)["classifier"] == pipeline._manifest(here, tmp_path)["classifier"]
    )


def test_an_upright_only_classifier_is_described_to_the_runtime(tmp_path: Path) -> None:
    """The manifest of an ``--upright`` run names its "turned" class, so the runtime reads every turn."""
    from vision.recognise.manifest import ClassifierSpec

    spec = ClassifierSpec.model_validate(pipeline._manifest(pipeline._args(["--upright"]), tmp_path)["classifier"])
    assert spec.turned_class == "turned" and spec.classes[-2:] == ["turned", "none"] and len(spec.cards()) == 52
    plain = ClassifierSpec.model_validate(pipeline._manifest(pipeline._args([]), tmp_path)["classifier"])
    assert plain.turned_class is None and plain.classes[-1] == "none" and len(plain.cards()) == 52


def test_the_shipped_models_settings_are_the_default() -> None:
    """`cardtable vision train` with no options reproduces the shipped models: no jokers, no defocus,
    no spread ink."""
    cfg = pipeline._cls_cfg(pipeline._args([]))
    assert cfg.joker_probability == 0.0 and cfg.defocus_probability == 0.0 and cfg.stretch_probability == 0.5
    assert cfg.marks_probability == 0.0
    assert pipeline._args([]).ink_spread == 0.0 and pipeline._args([]).hide_pip == 0.0
    assert pipeline._args([]).crop_margin == (1.0, 1.35)
    assert (cfg.size, cfg.card_height, cfg.area_faces) == (288, (70.0, 240.0), False)
    assert pipeline._train_designs(pipeline._args([])) == TRAIN_DESIGNS  # no court art behind an index
    assert (pipeline._args([]).det_device, pipeline._args([]).det_batch) == ("cpu", 16)  # the 2-core recipe


def test_a_trained_manifest_reads_photos_as_the_shipped_one_does(tmp_path: Path) -> None:
    """Retraining keeps the runtime's reading of photos: a whole frame of small indices is read again
    closer, as the shipped manifest says, and each crop the same way."""
    from vision.recognise import DEFAULT_MODEL_DIR
    from vision.recognise.manifest import ClassifierSpec, DetectorSpec, Manifest

    trained = pipeline._manifest(pipeline._args([]), tmp_path)
    shipped = Manifest.load(DEFAULT_MODEL_DIR)
    closer = DetectorSpec.model_validate(trained["detector"]).closer
    assert closer is not None and closer == shipped.detector.closer
    spec = ClassifierSpec.model_validate(trained["classifier"])
    assert (spec.crop_scale, spec.thin_ink) == (shipped.classifier.crop_scale, shipped.classifier.thin_ink)


def test_bleeding_courts_swap_four_drawn_decks_for_their_twins(tmp_path: Path) -> None:
    """``--bleeding-courts`` trains on the same number of designs, four drawn decks swapped for their
    ``-bleed`` twins, records them in the manifest, and caches its crops apart."""
    a = pipeline._args(["--bleeding-courts"])
    designs = pipeline._train_designs(a)
    swapped = [name for name in designs if name not in TRAIN_DESIGNS]
    assert len(designs) == len(TRAIN_DESIGNS) and swapped == [f"{n}-bleed" for n in BLEEDING]
    assert pipeline._manifest(a, tmp_path)["train_designs"] == list(designs)
    assert pipeline._crops_cache(a, tmp_path, 10, 2, 2) != pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2)


def test_marks_on_the_table_cache_their_crops_apart(tmp_path: Path) -> None:
    a = pipeline._args(["--marks", "0.3"])
    assert pipeline._crops_cache(a, tmp_path, 10, 2, 2) != pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2)


def test_npm_decks_train_beside_the_others_and_cache_their_crops_apart(tmp_path: Path) -> None:
    a = pipeline._args(["--npm-decks"])
    designs = pipeline._train_designs(a)
    assert designs[: len(TRAIN_DESIGNS)] == TRAIN_DESIGNS
    assert designs[len(TRAIN_DESIGNS) :] == ("kennard", "kennard-large-index", "responsive")
    assert pipeline._crops_cache(a, tmp_path, 10, 2, 2) != pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2)


def test_more_drawn_decks_train_beside_the_shipped_twelve_and_cache_their_crops_apart(tmp_path: Path) -> None:
    a = pipeline._args(["--drawn-decks", "24"])
    designs = pipeline._train_designs(a)
    assert designs[: len(TRAIN_DESIGNS)] == TRAIN_DESIGNS
    assert designs[len(TRAIN_DESIGNS) :] == tuple(f"drawn-{i}" for i in range(12, 24))
    assert pipeline._train_designs(pipeline._args(["--drawn-decks", "12"])) == TRAIN_DESIGNS
    assert pipeline._crops_cache(a, tmp_path, 10, 2, 2) != pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2)


def test_crops_of_another_margin_are_cached_apart(tmp_path: Path) -> None:
    """A run with other crop margins never reads the crops of the shipped margins from the cache."""
    shipped = pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2)
    wide = pipeline._crops_cache(pipeline._args(["--crop-margin", "0.8:1.5"]), tmp_path, 10, 2, 2)
    assert shipped != wide and "0.8:1.5" in wide.name


def test_smaller_cards_for_the_classifier_are_cut_and_cached_apart(tmp_path: Path) -> None:
    """``--cls-card-height`` sets the classifier scenes' card heights; its crops never mix with the shipped ones."""
    a = pipeline._args(["--cls-card-height", "45:240"])
    assert pipeline._cls_cfg(a).card_height == (45.0, 240.0)
    assert pipeline._cls_cfg(pipeline._args([])).card_height == (70.0, 240.0)
    small = pipeline._crops_cache(a, tmp_path, 10, 2, 2)
    assert small != pipeline._crops_cache(pipeline._args([]), tmp_path, 10, 2, 2) and "45:240" in small.name


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--crop-margin", "1.5:0.8"),
        ("--crop-margin", "0.2:1.0"),
        ("--crop-margin", "wide"),
        ("--crop-margin", "1:2:3"),
        ("--cls-card-height", "240:45"),
        ("--cls-card-height", "10:200"),
        ("--cls-card-height", "small"),
    ],
)
def test_a_bad_range_is_refused_by_name(option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        pipeline._args([option, value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert option in err and repr(value) in err and "Traceback" not in err


@pytest.mark.parametrize("option", ["--jokers", "--marks", "--defocus", "--ink-spread", "--hide-pip"])
@pytest.mark.parametrize("value", ["1.5", "-0.1", "half"])
def test_a_scene_chance_outside_0_to_1_is_refused_by_name(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        pipeline._args([option, value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "probability in 0..1" in err and "Traceback" not in err


def test_larger_classifier_scenes_cache_their_crops_apart_and_must_hold_their_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--cls-scene-size`` cuts crops from larger scenes, kept apart from the shipped ones' cache; a
    card taller than the scene, or a scene size out of range, is refused naming the option."""
    big = pipeline._args(["--cls-scene-size", "448", "--cls-card-height", "100:420"])
    assert pipeline._cls_cfg(big).size == 448 and pipeline._cls_cfg(big).card_height == (100.0, 420.0)
    shipped = pipeline._args([])
    assert pipeline._crops_cache(big, tmp_path, 10, 2, 2) != pipeline._crops_cache(shipped, tmp_path, 10, 2, 2)
    for argv, named in (
        (["--cls-card-height", "100:420"], "--cls-scene-size"),
        (["--cls-scene-size", "1000"], "160-640"),
        (["--cls-scene-size", "big"], "160-640 whole pixels, not 'big'"),
    ):
        with pytest.raises(SystemExit):
            pipeline._args(argv)
        assert named in capsys.readouterr().err


def test_area_faced_crops_are_cached_apart(tmp_path: Path) -> None:
    """Crops cut from area-averaged faces are other crops: a run with ``--area-faces`` never reuses the
    point-sampled ones, nor the reverse."""
    area, shipped = pipeline._args(["--area-faces"]), pipeline._args([])
    assert pipeline._cls_cfg(area).area_faces and not pipeline._cls_cfg(shipped).area_faces
    assert pipeline._crops_cache(area, tmp_path, 10, 2, 2) != pipeline._crops_cache(shipped, tmp_path, 10, 2, 2)


def test_the_detector_epochs_a_time_capped_run_reached_are_counted(tmp_path: Path) -> None:
    """The time cap decides how many epochs the detector trains; ``metrics.json`` records how many it did,
    read from ultralytics' one row an epoch (a run that never wrote one trained none)."""
    header = "epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,lr/pg0,lr/pg1,lr/pg2"
    rows = [f"{i},{240.5 * i:.2f},2.1,1.2,1.0,0.001,0.001,0.001" for i in range(1, 17)]
    (tmp_path / "results.csv").write_text("\n".join([header, *rows]) + "\n")
    assert pipeline.detector_epochs(tmp_path) == 16
    assert pipeline.detector_epochs(tmp_path / "never-ran") == 0


def test_the_area_faced_pass_gets_what_is_left_of_the_budget() -> None:
    """On a slow machine the area-faced pass starts late: it is cut to end within the command's budget,
    less the minutes kept for the 8-bit classifier and the manifest, and skipped when none are left."""
    a = pipeline._args(["--area-finish-epochs", "12", "--area-finish-minutes", "30", "--budget-minutes", "88"])
    start = 1_700_000_000.0
    a.deadline = start + 88 * 60
    reserve = pipeline.AREA_FINISH_RESERVE_MIN
    assert pipeline.area_finish_minutes(a, start + 40 * 60) == 30.0  # a fast machine: its own cap
    assert pipeline.area_finish_minutes(a, start + 70 * 60) == pytest.approx(18.0 - reserve)
    assert pipeline.area_finish_minutes(a, start + 87 * 60) == 0.0
    a.deadline = None  # not set: main() sets it from the command's start
    assert pipeline.area_finish_minutes(a, start + 87 * 60) == 30.0


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [("--det-batch", value, "a batch of 1-1024 scenes") for value in ("0", "2000", "many")]
    + [("--drawn-decks", value, "12-39 decks") for value in ("11", "40", "many")]
    + [("--pip-occlude", value, "a share of the crops in 0..1") for value in ("-0.1", "1.5", "half")]
    + [("--pip-drawn", value, "a count of pips in 0..200000") for value in ("-1", "many")],
)
def test_a_count_out_of_range_is_refused_by_name(
    option: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        pipeline._args([option, value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert option in err and says in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["gpu", "cuda:0", "0,"])
def test_a_detector_device_that_is_not_cpu_or_cuda_numbers_is_refused_by_name(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        pipeline._args(["--det-device", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--det-device" in err and repr(value) in err and "Traceback" not in err


def test_a_cuda_detector_without_a_gpu_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    out = tmp_path / "run"
    assert pipeline.main(["--stages", "detector-data,detector", "--det-device", "0", "--out", str(out)]) == 2
    assert "--det-device 0: torch sees no CUDA device" in capsys.readouterr().err
    assert not (out / "det").exists()  # no scenes were written
