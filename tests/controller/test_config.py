"""A table config with a typo must fail loudly, naming the key, not run with a silent default."""

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[2]


def errors_of(data: dict[str, object]) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    return dict(info.value.errors)


def test_the_shipped_example_is_valid() -> None:
    cfg = load_config(ROOT / "examples" / "table.toml")
    assert cfg.game.preset_name == "sergeant-major"
    assert cfg.hardware.buttons.pins == [17, 27, 22]
    assert cfg.tracker_settings().rest_frames == 6


def test_an_empty_file_gives_a_simulated_three_seat_table() -> None:
    cfg = parse_config({})
    assert cfg.table.players == ["Ada", "Ben", "Cem"]
    assert cfg.hardware.buttons.backend == "simulated"


def test_unknown_keys_are_named_with_their_path() -> None:
    errs = errors_of({"hardware": {"ring": {"brightnes": 0.5}}, "tabel": {}})
    assert errs == {"hardware.ring.brightnes": "unknown key", "tabel": "unknown key"}


def test_bad_values_name_their_path() -> None:
    errs = errors_of({"hardware": {"display": {"backend": "lcd"}, "buttons": {"pins": [17, 99, 22]}}})
    assert "unknown display backend 'lcd'" in errs["hardware.display.backend"]
    assert "0..27" in errs["hardware.buttons.pins"]


def test_preset_must_belong_to_the_game_and_players_fit() -> None:
    assert "not a makao preset" in errors_of({"game": {"name": "makao", "preset": "pagat"}})["game"]
    assert "3 players" in errors_of({"table": {"players": ["A", "B"]}})[""]


def test_mqtt_section_is_the_feeds_model_and_takes_the_table_id() -> None:
    assert errors_of({"mqtt": {"user": "cardtable"}}) == {"mqtt.user": "unknown key"}
    assert "needs a username" in errors_of({"mqtt": {"password_file": "/etc/pw"}})["mqtt"]
    cfg = parse_config({"table": {"id": "club-2"}, "mqtt": {"host": "localhost"}})
    assert cfg.feed_config().table_id == "club-2"


def test_tracker_section_sets_the_trackers_thresholds_and_names_a_bad_one() -> None:
    cfg = parse_config({"tracker": {"confirm_frames": 4, "rest_frames": 0}})
    settings = cfg.tracker_settings()
    assert (settings.confirm_frames, settings.rest_frames, settings.gone_frames) == (4, 0, 5)
    assert parse_config({}).tracker_settings().rest_frames == 6
    errs = errors_of({"tracker": {"confirm_frame": 4}})
    assert list(errs) == ["tracker.confirm_frame"] and errs["tracker.confirm_frame"].startswith("unknown setting")
    assert errors_of({"tracker": {"gone_frames": "5"}}) == {"tracker.gone_frames": "must be a whole number, not '5'"}
    assert errors_of({"tracker": {"downscale": 0}}) == {"tracker.downscale": "must be at least 1, not 0"}


def test_mat_paper_is_the_paper_the_mat_was_printed_on() -> None:
    assert parse_config({}).mat.paper == "A2"
    assert parse_config({"mat": {"paper": "a3"}}).mat.paper == "a3"
    assert parse_config({"mat": {"paper": "600x400mm"}}).mat.paper == "600x400mm"
    assert "not a paper size: 'B7'" in errors_of({"mat": {"paper": "B7"}})["mat.paper"]
    assert errors_of({"mat": {"layout": "358"}}) == {"mat.layout": "unknown key"}


def test_validate_command_prints_ok_or_errors_and_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\nid = "t1"\nplayerz = []\n')
    cmd = [sys.executable, "-m", "controller.cli", "config", "validate"]
    ok = subprocess.run([*cmd, str(ROOT / "examples" / "table.toml")], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("OK")
    res = subprocess.run([*cmd, str(bad)], capture_output=True, text=True)
    assert res.returncode == 2
    assert "table.playerz: unknown key" in res.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[table\n")
    res = subprocess.run([*cmd, str(broken)], capture_output=True, text=True)
    assert res.returncode == 2 and "not valid TOML" in res.stderr and "Traceback" not in res.stderr
