"""The table's configuration: one TOML file, validated strictly.

Every section is a pydantic model with ``extra="forbid"`` (Frigate's ``FrigateBaseModel``): a
mistyped key is an error, not a setting silently ignored at 11 pm on club night. Errors name the key
path (``hardware.display.backend: ...``) so that the person at the table can fix the file;
``cardtable config validate FILE`` prints them and exits 2.

One load path: :func:`load_config` reads the file (``tomllib``), then :func:`parse_config` validates
the data; tests build configs from small dicts with :func:`parse_config`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.feed.config import FeedConfig

if TYPE_CHECKING:
    from vision.tracker import TrackerSettings

__all__ = [
    "ButtonsConfig",
    "CameraConfig",
    "ConfigError",
    "DisplayConfig",
    "GameConfig",
    "HardwareConfig",
    "JournalConfig",
    "MatConfig",
    "RecordsConfig",
    "RingConfig",
    "SpeechConfig",
    "TableConfig",
    "load_config",
    "parse_config",
]

PRESETS_358 = ("sergeant-major", "ucbessekiz", "online-18", "pagat")
PRESETS_MAKAO = ("makao", "makao-polish")


class ConfigError(ValueError):
    """A config file that cannot be used. ``errors`` lists ``(key path, message)`` pairs."""

    def __init__(self, source: str, errors: list[tuple[str, str]]) -> None:
        self.source = source
        self.errors = errors
        lines = [f"{source}: {len(errors)} error{'s' if len(errors) != 1 else ''}"]
        lines += [f"  {path or '(top level)'}: {message}" for path, message in errors]
        super().__init__("\n".join(lines))


class Strict(BaseModel):
    """Base of every section: unknown keys are errors, values are immutable once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(Strict):
    id: str = Field(default="table1", pattern=r"^[A-Za-z0-9_-]{1,64}$", description="MQTT topic id of the table.")
    players: list[str] = Field(default=["Ada", "Ben", "Cem"], min_length=2, max_length=6)
    after_game: Literal["wait", "stop"] = Field(
        default="wait",
        description="At game over: keep the final score on show and wait for the operator to start the next game "
        "(operator button, console `new`, feed `new_game`), or stop `cardtable run`.",
    )

    @field_validator("players")
    @classmethod
    def _distinct(cls, players: list[str]) -> list[str]:
        if any(not p.strip() for p in players):
            raise ValueError("player names must not be empty")
        if len(set(players)) != len(players):
            raise ValueError(f"player names must be distinct, got {players!r}")
        return players


class GameConfig(Strict):
    name: Literal["358", "makao"] = "358"
    preset: str = ""
    hands: int | None = Field(default=None, ge=1, le=100, description="Game length override (3-5-8).")

    @model_validator(mode="after")
    def _preset_matches_game(self) -> GameConfig:
        allowed = PRESETS_358 if self.name == "358" else PRESETS_MAKAO
        if self.preset and self.preset not in allowed:
            raise ValueError(f"preset {self.preset!r} is not a {self.name} preset (one of {', '.join(allowed)})")
        return self

    @property
    def preset_name(self) -> str:
        return self.preset or ("sergeant-major" if self.name == "358" else "makao")


_SOURCE_KINDS = (
    "usb",
    "file",
    "folder",
    "picamera2",
    "picamera",
    "csi",
    "synthetic",
    "rtsp",
    "rtmp",
    "http",
    "https",
    "tcp",
    "udp",
)


class CameraConfig(Strict):
    source: str = Field(
        default="usb:0",
        description="usb:N, file:PATH, folder:PATH, picamera2[:N], synthetic[:GAME] or a stream URL.",
    )
    width: int = Field(default=1280, ge=160, le=4096)
    height: int = Field(default=720, ge=120, le=4096)
    fps: float = Field(default=10.0, gt=0, le=60)
    models: Path | None = Field(default=None, description="Folder of the ONNX models; empty: the shipped ones.")

    @field_validator("source")
    @classmethod
    def _known_source(cls, value: str) -> str:
        if value.partition(":")[0].lower() not in _SOURCE_KINDS:
            raise ValueError(
                f"unknown camera source {value!r} (usb:N, file:PATH, folder:PATH, picamera2, synthetic or a stream URL)"
            )
        return value


class MatConfig(Strict):
    calibration: Path | None = Field(default=None, description="Saved homography (from `cardtable calibrate`).")
    paper: str = Field(
        default="A2",
        description="Paper the mat was printed on (`cardtable mat --paper`): A3, A2, A1 or WxH in mm. The zones and "
        "markers are placed by it, so a mat printed on A3 read as A2 would look for the cards in the wrong places.",
    )

    @field_validator("paper")
    @classmethod
    def _known_paper(cls, value: str) -> str:
        from vision.zones import LayoutError, parse_paper

        try:
            parse_paper(value)
        except LayoutError as exc:
            raise ValueError(str(exc)) from None
        return value


class ButtonsConfig(Strict):
    backend: Literal["gpio", "simulated"] = "simulated"
    pins: list[int] = Field(default=[], description="BCM pin per seat, in seat order.")
    operator_pin: int | None = None
    long_press_s: float = Field(default=1.0, gt=0.1, le=10)

    @field_validator("pins")
    @classmethod
    def _pins_in_range(cls, pins: list[int]) -> list[int]:
        bad = [p for p in pins if not 0 <= p <= 27]
        if bad:
            raise ValueError(f"BCM pins are 0..27, not {bad}")
        if len(set(pins)) != len(pins):
            raise ValueError(f"each seat needs its own pin, got {pins}")
        return pins

    @model_validator(mode="after")
    def _gpio_needs_pins(self) -> ButtonsConfig:
        if self.backend == "gpio" and not self.pins:
            raise ValueError("backend 'gpio' needs 'pins' (one BCM pin per seat)")
        return self


class DisplayConfig(Strict):
    backend: str = Field(default="terminal", description="inky | waveshare:MODEL | png:DIR | terminal | none")
    width: int = Field(default=400, ge=100, le=2000)
    height: int = Field(default=300, ge=100, le=2000)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        if value in ("inky", "terminal", "none"):
            return value
        if value.startswith(("png:", "waveshare:")) and value.partition(":")[2]:
            return value
        raise ValueError(f"unknown display backend {value!r} (inky, waveshare:MODEL, png:DIR, terminal or none)")


class RingConfig(Strict):
    backend: Literal["serial", "simulated", "none"] = "simulated"
    port: str = Field(default="", description="Serial port; empty: find the Pico by its USB id.")
    leds: int = Field(default=24, ge=3, le=300)
    brightness: float = Field(default=0.3, ge=0, le=1)


class HardwareConfig(Strict):
    buttons: ButtonsConfig = ButtonsConfig()
    display: DisplayConfig = DisplayConfig()
    ring: RingConfig = RingConfig()


class JournalConfig(Strict):
    path: Path = Path("/var/lib/cardtable/journal.jsonl")
    fsync: bool = True


class RecordsConfig(Strict):
    dir: Path = Path("/var/lib/cardtable/records")


class SpeechConfig(Strict):
    enabled: bool = False
    voice: str = "en"
    speed: int = Field(default=170, ge=80, le=450)


class TableConfig(Strict):
    """The whole file."""

    table: TableSection = TableSection()
    game: GameConfig = GameConfig()
    camera: CameraConfig = CameraConfig()
    mat: MatConfig = MatConfig()
    hardware: HardwareConfig = HardwareConfig()
    mqtt: FeedConfig = FeedConfig()
    """The feed's own model (controller.feed.config); ``host`` unset starts an embedded broker."""
    journal: JournalConfig = JournalConfig()
    records: RecordsConfig = RecordsConfig()
    speech: SpeechConfig = SpeechConfig()
    tracker: dict[str, Any] = Field(
        default_factory=dict,
        description="The card tracker's thresholds (vision.tracker.TrackerSettings, docs/mat-and-calibration.md); "
        "a key left out keeps its default.",
    )

    @field_validator("tracker")
    @classmethod
    def _tracker_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        from vision.tracker import TrackerSettings

        try:
            TrackerSettings.from_dict(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc).removeprefix("tracker.")) from None
        return value

    def tracker_settings(self) -> TrackerSettings:
        """The tracker's settings: the defaults with the ``[tracker]`` section's keys over them."""
        from vision.tracker import TrackerSettings

        return TrackerSettings.from_dict(self.tracker)

    def feed_config(self) -> FeedConfig:
        """The feed settings, with the table's id as the topic level unless ``mqtt.table_id`` is set."""
        if "table_id" in self.mqtt.model_fields_set:
            return self.mqtt
        return self.mqtt.model_copy(update={"table_id": self.table.id})

    @model_validator(mode="after")
    def _players_fit_game(self) -> TableConfig:
        n = len(self.table.players)
        if self.game.name == "358" and n != 3:
            raise ValueError(f"3-5-8 is for 3 players; table.players has {n}")
        if self.hardware.buttons.pins and len(self.hardware.buttons.pins) != n:
            raise ValueError(f"hardware.buttons.pins has {len(self.hardware.buttons.pins)} pins for {n} players")
        return self


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def parse_config(data: dict[str, Any], source: str = "config") -> TableConfig:
    """Validate already-parsed data; raises :class:`ConfigError` naming every bad key path."""
    try:
        return TableConfig.model_validate(data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            msg = str(err["msg"])
            if err["type"] == "extra_forbidden":
                msg = "unknown key"
            msg = msg.removeprefix("Value error, ")
            path = _path(tuple(err["loc"]))
            key, _, rest = msg.partition(": ")
            if path == "tracker" and rest and key.isidentifier():  # the tracker names the key it refused
                path, msg = f"tracker.{key}", rest
            errors.append((path, msg))
        raise ConfigError(source, errors) from None


def load_config(path: str | Path) -> TableConfig:
    """Read and validate a TOML config file; relative paths inside stay relative to the working dir."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(p), [("", f"cannot read: {exc.strerror or exc}")]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), [("", f"not valid TOML: {exc}")]) from None
    return parse_config(data, str(p))
