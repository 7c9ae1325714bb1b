"""Where a rendered scoreboard goes: a real e-ink panel, PNG files, or the terminal.

Every panel has a ``size`` (what to render), a ``timing`` (what the glass can take, for the refresh
policy) and ``show(image, view, kind)``. The Pimoroni and Waveshare drivers are imported only when
such a panel is asked for: they bind to SPI and GPIO at import time and exist only on a Pi (the
``pi`` extra installs ``inky``; Waveshare's ``waveshare_epd`` comes from its GitHub repository, see
docs/hardware.md).
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hardware.display.refresh import INKY, INSTANT, WAVESHARE_FULL_ONLY, WAVESHARE_PARTIAL, PanelTiming, Refresh
from hardware.display.render import text_lines
from hardware.display.view import ScoreboardView

if TYPE_CHECKING:
    from PIL.Image import Image


class PanelError(RuntimeError):
    """A panel could not be found or driven; the message says which and why."""


class Panel(abc.ABC):
    """A display. Subclasses *must* set ``size`` and ``timing`` and implement ``show``; *may* ``close``."""

    size: tuple[int, int]
    timing: PanelTiming

    @abc.abstractmethod
    def show(self, image: Image, view: ScoreboardView, kind: Refresh) -> None:
        """Put ``image`` (1-bit, ``size``) on the panel with a ``kind`` refresh. May block for seconds."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the panel (idempotent)."""


class PngPanel(Panel):
    """Numbered PNG frames in a folder: ``00001-full.png``, ``00002-partial.png``..."""

    def __init__(self, folder: str | Path, size: tuple[int, int] = (296, 128), timing: PanelTiming = INSTANT) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.size = size
        self.timing = timing
        self.frames: list[Path] = []

    def show(self, image: Image, view: ScoreboardView, kind: Refresh) -> None:
        path = self.folder / f"{len(self.frames) + 1:05d}-{kind.value}.png"
        image.save(path)
        self.frames.append(path)


class TerminalPanel(Panel):
    """The board as text lines on a stream (stdout by default): the demo without a panel."""

    def __init__(self, stream: TextIO | None = None, size: tuple[int, int] = (296, 128)) -> None:
        self.stream = stream
        self.size = size
        self.timing = INSTANT
        self.shown = 0

    def show(self, image: Image, view: ScoreboardView, kind: Refresh) -> None:
        stream = self.stream or sys.stdout
        self.shown += 1
        stream.write(f"┌─ scoreboard #{self.shown} ({kind.value} refresh)\n")
        for line in text_lines(view):
            stream.write(f"│ {line}\n")
        stream.write("└─\n")
        stream.flush()


class InkyPanel(Panel):
    """A Pimoroni Inky pHAT/wHAT/Impression, found through its EEPROM (``inky.auto``). No partial refresh."""

    def __init__(self) -> None:
        try:
            from inky.auto import auto
        except ImportError as exc:
            raise PanelError(f"the inky package is missing ({exc}); install the pi extra: pip install '.[pi]'") from exc
        try:
            self._display: Any = auto()
        except Exception as exc:  # RuntimeError from a missing/unknown EEPROM, OSError from SPI
            raise PanelError(f"no Inky display detected: {exc}") from exc
        width, height = self._display.resolution
        self.size = (int(width), int(height))
        self.timing = INKY

    def show(self, image: Image, view: ScoreboardView, kind: Refresh) -> None:
        from PIL import Image as PILImage

        display = self._display
        black, white = int(display.BLACK), int(display.WHITE)
        # Inky takes palette indices: our 1-bit white (1) -> its WHITE, black (0) -> its BLACK.
        indices = image.convert("L").point(lambda v: white if v else black)
        display.set_image(PILImage.frombytes("P", image.size, indices.tobytes()))
        display.show()


class WaveshareEpdPanel(Panel):
    """A Waveshare e-Paper HAT through its ``waveshare_epd.<model>`` driver (e.g. ``epd2in13_V4``).

    Uses ``displayPartBaseImage``/``displayPartial`` where the model has them (the 2.13" V4 and the
    2.9" V2 do), else full refreshes only. The panel is drawn landscape: ``size`` is
    ``(epd.height, epd.width)`` as in Waveshare's own examples.
    """

    def __init__(self, model: str) -> None:
        if not model.isidentifier():
            raise PanelError(f"waveshare model {model!r} is not a driver name such as 'epd2in13_V4'")
        try:
            module = importlib.import_module(f"waveshare_epd.{model}")
        except Exception as exc:  # ImportError, or the driver's own import-time GPIO/SPI failures
            raise PanelError(f"cannot load waveshare_epd.{model}: {exc}") from exc
        self._epd: Any = module.EPD()
        self._epd.init()
        self._epd.Clear(0xFF)
        self.size = (int(self._epd.height), int(self._epd.width))
        self._partial = hasattr(self._epd, "displayPartial") and hasattr(self._epd, "displayPartBaseImage")
        self.timing = WAVESHARE_PARTIAL if self._partial else WAVESHARE_FULL_ONLY
        self._base_set = False
        self._asleep = False

    def show(self, image: Image, view: ScoreboardView, kind: Refresh) -> None:
        epd = self._epd
        if self._asleep:
            epd.init()
            self._asleep = False
        buffer = epd.getbuffer(image)
        if kind is Refresh.FULL or not self._partial:
            if self._partial:
                epd.displayPartBaseImage(buffer)  # a full refresh that also sets the partial base
                self._base_set = True
            else:
                epd.display(buffer)
        else:
            if not self._base_set:
                epd.displayPartBaseImage(buffer)
                self._base_set = True
            else:
                epd.displayPartial(buffer)

    def close(self) -> None:
        if not self._asleep:
            self._asleep = True
            with contextlib.suppress(Exception):  # shutting down anyway
                self._epd.sleep()


def panel_from_config(spec: str, size: tuple[int, int] | None = None, stream: TextIO | None = None) -> Panel:
    """``inky``, ``waveshare:<model>``, ``png:<dir>`` or ``terminal``; ``size`` for the last two.

    Raises ``ValueError`` for a spec of none of those forms and ``PanelError`` when the panel named
    is not there.
    """
    kind, _, rest = spec.partition(":")
    if kind == "inky" and not rest:
        return InkyPanel()
    if kind == "waveshare" and rest:
        return WaveshareEpdPanel(rest)
    if kind == "png" and rest:
        return PngPanel(rest, size or (296, 128))
    if kind == "terminal" and not rest:
        return TerminalPanel(stream, size or (296, 128))
    raise ValueError(f"display backend {spec!r} is not one of 'inky', 'waveshare:<model>', 'png:<dir>', 'terminal'")
