"""The scoreboard: legible at every panel size, refreshed the way e-ink wants, on every backend."""

from __future__ import annotations

import io
import itertools
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine.cards import Card, Suit
from hardware.display import (
    MakaoLine,
    PanelError,
    PanelTiming,
    Refresh,
    RefreshPolicy,
    Scoreboard,
    ScoreboardView,
    SeatLine,
    panel_from_config,
    render,
    scoreboard_from_config,
)
from hardware.display.panels import PngPanel, TerminalPanel
from hardware.display.render import PANEL_SIZES, layout, min_font_size

LONG_NAMES = ("Bartholomew", "Małgorzata", "Christopher", "Przemysław", "Maximiliane")


def three_five_eight(**changes: Any) -> ScoreboardView:
    seats = (
        SeatLine(LONG_NAMES[0], role="dealer", target=8, tricks=3, score=-12),
        SeatLine(LONG_NAMES[1], target=5, tricks=5, score=104),
        SeatLine(LONG_NAMES[2], target=3, tricks=1, score=-7),
    )
    base: dict[str, Any] = dict(
        game="3-5-8",
        preset="tournament",
        hand=11,
        hands_total=12,
        contract="dealer's choice",
        trump=Suit.HEARTS,
        seats=seats,
        turn=1,
        last_trick_winner=0,
        message="Revoke by Przemysław",
    )
    return ScoreboardView(**{**base, **changes})


def makao(**changes: Any) -> ScoreboardView:
    seats = tuple(
        SeatLine(name, cards_left=left, score=score, out=left == 0, place=1 if left == 0 else None)
        for name, left, score in zip(LONG_NAMES, (12, 0, 1, 7, 23), (-3, 10, 0, 4, 99), strict=True)
    )
    base: dict[str, Any] = dict(
        game="Makao",
        preset="house",
        hand=3,
        seats=seats,
        turn=3,
        makao=MakaoLine(top_card=Card.from_text("JH"), demand="9"),
        message="Jack demands 9",
    )
    return ScoreboardView(**{**base, **changes})


VIEWS = {
    "3-5-8": three_five_eight(),
    "makao-demand": makao(),
    "makao-penalty": makao(makao=MakaoLine(top_card=Card.from_text("2S"), penalty=12), message="Draw 12 or play a 2"),
    "makao-ace": makao(makao=MakaoLine(top_card=Card.from_text("AD"), suit=Suit.CLUBS), message=""),
}


def overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", PANEL_SIZES, ids=[f"{w}x{h}" for w, h in PANEL_SIZES])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_every_text_fits_the_panel_and_no_two_overlap(name: str, size: tuple[int, int]) -> None:
    view = VIEWS[name]
    plan = layout(view, size)
    w, h = size
    assert plan.font_size >= min_font_size(size)
    assert plan.dropped == (), f"{plan.dropped} did not fit"
    for text in plan.texts:
        x0, y0, x1, y1 = text.box
        assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, f"{text.text!r} at {text.box} leaves {size}"
    for a, b in itertools.combinations(plan.texts, 2):
        assert not overlaps(a.box, b.box), f"{a.text!r} {a.box} overlaps {b.text!r} {b.box}"
    shown = {t.text for t in plan.texts}
    for seat in view.seats:  # realistic long names are never cut
        assert any(t.startswith(seat.name) for t in shown), f"{seat.name} is cut on {size}"


@pytest.mark.parametrize("size", PANEL_SIZES, ids=[f"{w}x{h}" for w, h in PANEL_SIZES])
def test_the_image_is_1_bit_and_ink_only_where_the_layout_says(size: tuple[int, int]) -> None:
    view = makao()
    image = render(view, size)
    assert image.mode == "1" and image.size == size
    plan = layout(view, size)
    mask = Image.new("1", size, 0)
    for x0, y0, x1, y1 in [t.box for t in plan.texts] + list(plan.bars):
        mask.paste(1, (x0, y0, x1, y1))
    ink = image.point(lambda v: 255 if v == 0 else 0).convert("1")
    stray = Image.composite(ink, Image.new("1", size, 0), mask.point(lambda v: 0 if v else 255).convert("1"))
    assert stray.getbbox() is None, f"ink outside the laid-out text at {stray.getbbox()}"


def test_the_player_to_move_is_white_on_black() -> None:
    view = three_five_eight(turn=2)
    plan = layout(view, (296, 128))
    [name] = [t for t in plan.texts if t.text.startswith(LONG_NAMES[2])]
    assert name.inverted and not any(t.inverted for t in plan.texts if t.text.startswith(LONG_NAMES[0]))
    image = render(view, (296, 128))
    _, y0, _, y1 = name.box
    row = image.crop((0, y0, 296, y1))
    assert row.histogram()[0] > 0.6 * row.width * row.height  # mostly black


def test_absurd_names_are_cut_with_an_ellipsis_and_still_fit() -> None:
    seats = tuple(SeatLine("Hubert Blaine Wolfeschlegelsteinhausenbergerdorff", target=5, tricks=0) for _ in range(3))
    plan = layout(three_five_eight(seats=seats, last_trick_winner=None), (250, 122))
    names = [t for t in plan.texts if t.role == "name"]
    assert all(t.text.endswith("…") and t.box[2] <= 250 for t in names)


def test_bad_views_and_sizes_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="turn=3"):
        three_five_eight(turn=3)
    with pytest.raises(ValueError, match="too small"):
        render(three_five_eight(), (80, 40))


# -- refresh policy, on fake time -------------------------------------------------------------
PANEL = PanelTiming(partial=True, min_partial_interval_s=1.0, min_full_interval_s=5.0, full_every=3)


def test_first_frame_is_full_then_partials_then_a_full_after_full_every() -> None:
    policy = RefreshPolicy(PANEL)
    kinds = []
    now = 0.0
    for i in range(6):
        decision = policy.plan(bytes([i]), False, now)
        assert decision is not None and decision.at == now
        policy.done(bytes([i]), decision.kind, now)
        kinds.append(decision.kind)
        now += 10
    assert kinds == [Refresh.FULL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.FULL, Refresh.PARTIAL]


def test_no_refresh_when_the_image_did_not_change() -> None:
    policy = RefreshPolicy(PANEL)
    policy.done(b"same", Refresh.FULL, 0.0)
    assert policy.plan(b"same", False, 100.0) is None


def test_refreshes_wait_for_the_panels_minimum_interval() -> None:
    policy = RefreshPolicy(PANEL)
    policy.done(b"a", Refresh.FULL, 100.0)
    decision = policy.plan(b"b", False, 100.2)
    assert decision is not None and decision.kind is Refresh.PARTIAL and decision.at == pytest.approx(101.0)
    policy.done(b"b", Refresh.PARTIAL, 101.0)
    decision = policy.plan(b"c", True, 101.5)  # hand end: full, and fulls need 5 s
    assert decision is not None and decision.kind is Refresh.FULL and decision.at == pytest.approx(106.0)


def test_a_hand_end_full_refresh_survives_a_newer_frame_arriving_while_waiting() -> None:
    policy = RefreshPolicy(PANEL)
    policy.done(b"a", Refresh.FULL, 0.0)
    policy.done(b"b", Refresh.PARTIAL, 10.0)
    assert policy.plan(b"hand over", True, 10.5) is not None
    later = policy.plan(b"next deal", False, 11.0)  # replaced before it was shown
    assert later is not None and later.kind is Refresh.FULL


def test_panels_without_partial_refresh_always_get_full() -> None:
    policy = RefreshPolicy(PanelTiming(partial=False, min_partial_interval_s=20, min_full_interval_s=20))
    policy.done(b"a", Refresh.FULL, 0.0)
    decision = policy.plan(b"b", False, 1.0)
    assert decision is not None and decision.kind is Refresh.FULL and decision.at == 20.0


# -- the board and its backends -----------------------------------------------------------------
def test_png_board_writes_numbered_frames_and_skips_unchanged_views(tmp_path: Path) -> None:
    with scoreboard_from_config(f"png:{tmp_path}", size=(250, 122)) as board:
        board.show(three_five_eight())
        assert board.flush(10)
        board.show(three_five_eight())  # same picture: nothing to do
        assert board.flush(10)
        board.show(three_five_eight(turn=2))
        assert board.flush(10)
        board.show(three_five_eight(turn=0, hand_over=True))
        assert board.flush(10)
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert names == ["00001-full.png", "00002-partial.png", "00003-full.png"]
    with Image.open(tmp_path / names[0]) as first:
        assert first.size == (250, 122)


def test_a_slow_panel_gets_only_the_newest_view_after_its_interval(tmp_path: Path) -> None:
    panel = PngPanel(tmp_path, timing=PanelTiming(partial=True, min_partial_interval_s=0.3, min_full_interval_s=0.3))
    with Scoreboard(panel) as board:
        board.show(three_five_eight(turn=0))
        assert board.flush(10)
        for seat in (1, 2, 0, 1):  # four changes inside the panel's interval
            board.show(three_five_eight(turn=seat, message=f"move {seat}"))
        assert board.flush(10)
    assert board.refreshes == [Refresh.FULL, Refresh.PARTIAL]
    assert len(panel.frames) == 2


def test_terminal_board_prints_the_board_as_text() -> None:
    out = io.StringIO()
    with scoreboard_from_config("terminal", stream=out) as board:
        board.show(makao())
        assert board.flush(10)
    text = out.getvalue()
    assert "full refresh" in text and "▶ Przemysław" in text and "Top J♥ · wants 9" in text


def test_a_failing_panel_is_logged_and_the_board_carries_on(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(TerminalPanel):
        def show(self, *args: Any) -> None:
            raise OSError("SPI bus gone")

    with Scoreboard(Broken(io.StringIO())) as board:
        board.show(three_five_eight())
        assert board.flush(10)
    assert "SPI bus gone" in caplog.text


@pytest.fixture
def fake_waveshare() -> Iterator[list[str]]:
    calls: list[str] = []

    class EPD:
        width, height = 122, 250

        def init(self) -> None:
            calls.append("init")

        def Clear(self, colour: int) -> None:
            calls.append("clear")

        def getbuffer(self, image: Image.Image) -> bytes:
            assert image.size == (250, 122)
            return image.tobytes()

        def display(self, buf: bytes) -> None:
            calls.append("display")

        def displayPartBaseImage(self, buf: bytes) -> None:
            calls.append("base")

        def displayPartial(self, buf: bytes) -> None:
            calls.append("partial")

        def sleep(self) -> None:
            calls.append("sleep")

    package, module = types.ModuleType("waveshare_epd"), types.ModuleType("waveshare_epd.epd2in13_V4")
    module.EPD = EPD  # type: ignore[attr-defined]
    saved = {k: sys.modules.get(k) for k in ("waveshare_epd", "waveshare_epd.epd2in13_V4")}
    sys.modules["waveshare_epd"], sys.modules["waveshare_epd.epd2in13_V4"] = package, module
    try:
        yield calls
    finally:
        for key, value in saved.items():
            if value is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = value


def test_waveshare_uses_partial_refresh_and_a_full_one_at_hand_end(fake_waveshare: list[str]) -> None:
    panel = panel_from_config("waveshare:epd2in13_V4")
    assert panel.size == (250, 122)
    panel.timing = PanelTiming(partial=True, min_partial_interval_s=0, min_full_interval_s=0, full_every=5)
    with Scoreboard(panel) as board:
        for view in (three_five_eight(turn=0), three_five_eight(turn=1), three_five_eight(turn=2, hand_over=True)):
            board.show(view)
            assert board.flush(10)
    assert fake_waveshare == ["init", "clear", "base", "partial", "base", "sleep"]


def test_missing_panels_and_bad_specs_say_what_is_wrong() -> None:
    with pytest.raises(PanelError, match="epd9in99"):
        panel_from_config("waveshare:epd9in99")
    with pytest.raises(ValueError, match="'lcd'"):
        panel_from_config("lcd")
    if "inky" not in sys.modules:
        try:
            import inky  # noqa: F401
        except ImportError:
            with pytest.raises(PanelError, match="pi extra"):
                panel_from_config("inky")


def test_a_contract_that_only_names_the_trump_is_not_said_twice() -> None:
    plan = layout(three_five_eight(contract="H", preset=""), (400, 300))
    [header] = [t.text for t in plan.texts if t.role == "header"]
    assert "♥" in header and " H " not in f" {header} "


def test_inky_is_auto_detected_and_gets_palette_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[Image.Image] = []

    class FakeInky:
        resolution = (250, 122)
        WHITE, BLACK = 0, 1

        def set_image(self, image: Image.Image) -> None:
            shown.append(image)

        def show(self) -> None:
            pass

    package, auto = types.ModuleType("inky"), types.ModuleType("inky.auto")
    auto.auto = FakeInky  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "inky", package)
    monkeypatch.setitem(sys.modules, "inky.auto", auto)
    panel = panel_from_config("inky")
    assert panel.size == (250, 122) and not panel.timing.partial
    view = three_five_eight()
    image = render(view, panel.size)
    panel.show(image, view, Refresh.FULL)
    [sent] = shown
    assert sent.mode == "P" and sent.size == (250, 122)
    assert sent.getpixel((0, 0)) == FakeInky.WHITE  # the margin is white
    x0, y0, _, _ = layout(view, panel.size).bars[-1]  # the row of the player to move is black
    assert sent.getpixel((x0 + 1, y0 + 1)) == FakeInky.BLACK
