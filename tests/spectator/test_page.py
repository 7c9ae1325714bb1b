"""The phone page in real headless Chromium against a real mosquitto serving it (http_dir)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.feed import Feed, FeedConfig
from controller.feed.mosquitto import Mosquitto, mosquitto_binary

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "spectator"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}

NAMES = ["Ada", "Ben", "Cyd"]


def snapshot(
    trick: list[tuple[int, str]], turn: int | None, tricks: list[int], winner: int | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "v": 1,
        "game": "358",
        "preset": "classic",
        "phase": "play",
        "hand": {"number": 2, "total": 18},
        "turn": turn,
        "players": [
            {"seat": 0, "name": "Ada", "role": "dealer", "target": 8, "tricks": tricks[0]},
            {"seat": 1, "name": "Ben", "role": "left of dealer", "target": 5, "tricks": tricks[1]},
            {"seat": 2, "name": "Cyd", "role": "right of dealer", "target": 3, "tricks": tricks[2]},
        ],
        "contract": {"declarer": 0, "trump": "H", "label": "hearts are trumps"},
        "trick": {"number": 1, "winner": winner, "cards": [{"seat": s, "card": c} for s, c in trick]},
        "scores": {"columns": NAMES, "rows": [{"hand": 1, "values": [1, -2, 1]}], "totals": [1, -2, 1]},
        "violations": [],
        **extra,
    }


@pytest.fixture
def page_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    if mosquitto_binary() is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto; make system-deps)")
    if not (PAGE / "vendor" / "mqtt.min.js").exists():
        pytest.fail("spectator/vendor/mqtt.min.js is missing: run `cd spectator && npm install && npm run build`")
    broker = Mosquitto.plain(tmp_path / "broker", http_dir=PAGE)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def browser_page(page_broker: Mosquitto) -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium; make system-deps)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e .[dev])")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert errors == [], f"JavaScript errors on the page: {errors}"


def _feed(broker: Mosquitto, tmp_path: Path) -> Feed:
    feed = Feed(FeedConfig(host="127.0.0.1", port=broker.tcp_port, table_id="t1", outbox=tmp_path / "o.sqlite"))
    assert feed.wait_connected(10)
    return feed


def test_late_joiner_sees_the_table_and_each_card_within_a_second(
    page_broker: Mosquitto, browser_page: Any, tmp_path: Path
) -> None:
    feed = _feed(page_broker, tmp_path)
    feed.publish_event("hand_started", {"hand": 2, "dealer": 0})
    # the table's camera off the mat as the spectator arrives: the retained snapshot says so (FeedOutput adds it)
    feed.publish_state({**snapshot([], turn=1, tricks=[0, 0, 0]), "camera": "mat out of view"})
    assert feed.wait_delivered(10)

    page = browser_page
    page.goto(f"http://127.0.0.1:{page_broker.ws_port}/index.html?table=t1")
    page.wait_for_selector("#conn[data-state=online]", timeout=10_000)
    page.wait_for_selector(".seat[data-seat='2'] >> text=Cyd", timeout=5_000)  # from the retained snapshot
    assert "hearts are trumps" in page.inner_text("#contract")
    assert "to play" in page.inner_text(".seat[data-seat='1']")
    assert page.inner_text("#camera").startswith("Table camera: mat out of view.")

    plays = [(1, "QH"), (2, "10H"), (0, "AH")]
    on_table: list[tuple[int, str]] = []
    latencies = []
    for i, (seat, card) in enumerate(plays):
        start = time.monotonic()
        feed.publish_event("card_played", {"seat": seat, "card": card, "trick": 1, "position": i})
        on_table.append((seat, card))
        page.wait_for_selector(f"#trick .card[data-card='{card}']", timeout=1_000)
        latencies.append(time.monotonic() - start)
        feed.publish_state(snapshot(on_table, turn=(seat + 1) % 3, tricks=[0, 0, 0]))
    feed.publish_event("trick_won", {"seat": 0, "trick": 1, "cards": [c for _, c in plays]})
    feed.publish_state(snapshot(on_table, turn=0, tricks=[1, 0, 0], winner=0, message="Ada takes the trick"))
    page.wait_for_selector("#trick .won >> text=Ada takes it", timeout=1_000)
    page.wait_for_selector(".seat[data-seat='0'] >> text=tricks 1/8", timeout=1_000)
    assert max(latencies) < 1.0
    assert not page.is_visible("#camera"), "the next snapshot, the camera back, takes the banner down"
    assert "Ada plays A♥" in page.inner_text("#log")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "spectator-phone.png"), full_page=True)
    feed.close()
    page.wait_for_selector("#conn[data-state=stopped]", timeout=5_000)


def test_page_catches_up_after_the_broker_restarts(page_broker: Mosquitto, browser_page: Any, tmp_path: Path) -> None:
    feed = _feed(page_broker, tmp_path)
    feed.publish_state(snapshot([], turn=0, tricks=[0, 0, 0]))
    page = browser_page
    page.goto(f"http://127.0.0.1:{page_broker.ws_port}/index.html?table=t1")
    page.wait_for_selector("#conn[data-state=online]", timeout=10_000)

    page_broker.stop()
    page.wait_for_selector("#conn:not([data-state=online])", timeout=10_000)
    feed.publish_event("card_played", {"seat": 0, "card": "7S"})  # held by the feed during the outage
    feed.publish_state(snapshot([(0, "7S")], turn=1, tricks=[0, 0, 0]))
    page_broker.start()
    page.wait_for_selector("#conn[data-state=online]", timeout=15_000)
    page.wait_for_selector("#trick .card[data-card='7S']", timeout=5_000)
    feed.publish_event("card_played", {"seat": 1, "card": "8S"})
    page.wait_for_selector("#trick .card[data-card='8S']", timeout=1_000)
    assert page.evaluate("window.cardtable.seq") == 2
    feed.close()


def test_makao_view_shows_pile_top_and_what_is_pending(
    page_broker: Mosquitto, browser_page: Any, tmp_path: Path
) -> None:
    feed = _feed(page_broker, tmp_path)
    feed.publish_state(
        {
            "game": "makao",
            "preset": "polish",
            "turn": 1,
            "players": [
                {"seat": 0, "name": "Ada", "cards_left": 3},
                {"seat": 1, "name": "Ben", "cards_left": 5},
                {"seat": 2, "name": "Cyd", "cards_left": 0, "out": True},
                {"seat": 3, "name": "Dot", "cards_left": 6},
            ],
            "makao": {"pile_top": "2S", "pending_draw": 4, "demand": None},
        }
    )
    page = browser_page
    page.goto(f"http://127.0.0.1:{page_broker.ws_port}/index.html?table=t1")
    page.wait_for_selector("#pile-top .card[data-card='2S']", timeout=10_000)
    assert "draw 4" in page.inner_text("#makao-pending")
    assert "3 cards" in page.inner_text(".seat[data-seat='0']")
    feed.publish_event("card_played", {"seat": 1, "card": "JD"})
    page.wait_for_selector("#pile-top .card[data-card='JD']", timeout=1_000)
    assert "4 cards" in page.inner_text(".seat[data-seat='1']")
    feed.publish_event("demand", {"seat": 1, "demand": "7"})  # a jack's demand: a rank
    page.wait_for_selector("#log >> text=Ben demands 7s", timeout=1_000)
    feed.publish_event("demand", {"seat": 0, "demand": "H"})  # an ace's: a suit letter, shown as its sign
    page.wait_for_selector("#log >> text=Ada demands ♥", timeout=1_000)
    from controller.announcements import CameraTrouble, StockRenewed, payload
    from engine.cards import Card

    # the stock ran out: the referee's own payload, as the feed publishes it
    feed.publish_event("stock_renewed", payload(StockRenewed(seat=3, cards=30, top=Card.from_text("JD"))))
    page.wait_for_selector("#log >> text=Dot shuffles the pile under the J♦ into a new stock (30 cards)", timeout=1_000)
    # the table's camera knocked off the mat and put back: spectators see why the game waits
    knocked = CameraTrouble("knocked off the mat", "aim it at the whole mat (1 of its 4 corner markers in view)")
    feed.publish_event("camera", payload(knocked))
    page.wait_for_selector("#log >> text=Table camera: knocked off the mat", timeout=1_000)
    page.wait_for_selector("#camera >> text=Table camera: knocked off the mat.", timeout=1_000)  # a banner
    feed.publish_event("camera", payload(CameraTrouble(None)))
    page.wait_for_selector("#log >> text=Table camera sees the mat again", timeout=1_000)
    page.wait_for_selector("#camera", state="hidden", timeout=1_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "spectator-phone-makao.png"), full_page=True)
    feed.close()


def test_page_renders_the_controllers_own_state_and_announcements(
    page_broker: Mosquitto, browser_page: Any, tmp_path: Path
) -> None:
    """The wire format the referee really publishes: TableState.to_dict() and announcement payloads."""
    from controller.announcements import CardAccepted, HandScored, HandStarted, TrickWon, payload
    from controller.state import TableState
    from engine.cards import Card

    def table(played: list[tuple[int, str]], **extra: Any) -> dict[str, Any]:
        return TableState(
            "358",
            "pagat",
            ("Ada", "Ben", "Cem"),
            phase="play",
            hand=0,
            hands_total=18,
            dealer=2,
            declarer=0,
            targets=(8, 5, 3),
            contract="S",
            turn=(played[-1][0] + 1) % 3 if played else 1,
            trick=0,
            current_trick=tuple((s, Card.from_text(c)) for s, c in played),
            tricks_taken=(0, 0, 0),
            totals=(0, 0, 0),
            **extra,
        ).to_dict()

    feed = _feed(page_broker, tmp_path)
    feed.publish_event("hand_started", payload(HandStarted(hand=0, dealer=2, targets=(8, 5, 3))))
    feed.publish_state(table([]))
    page = browser_page
    page.goto(f"http://127.0.0.1:{page_broker.ws_port}/index.html?table=t1")
    page.wait_for_selector(".seat[data-seat='0'] >> text=tricks 0/8", timeout=10_000)
    assert "spades are trumps" in page.inner_text("#contract")
    assert "hand 1/18" in page.inner_text("#game-line")
    played: list[tuple[int, str]] = []
    for seat, card in [(1, "9S"), (2, "KS"), (0, "AS")]:
        feed.publish_event("card_played", payload(CardAccepted(seat=seat, card=Card.from_text(card), trick=0)))
        page.wait_for_selector(f"#trick .card[data-card='{card}']", timeout=1_000)
        played.append((seat, card))
        feed.publish_state(table(played))
    cards = tuple((s, Card.from_text(c)) for s, c in played)
    feed.publish_event("trick_won", payload(TrickWon(trick=0, winner=0, cards=cards, tricks_taken=(1, 0, 0))))
    page.wait_for_selector("#trick .won >> text=Ada takes it", timeout=1_000)
    assert "tricks 1/8" in page.inner_text(".seat[data-seat='0']")
    assert "Ada wins trick 1" in page.inner_text("#log")
    feed.publish_event(
        "hand_scored",
        payload(HandScored(hand=0, tricks=(9, 4, 3), targets=(8, 5, 3), scores=(1, -1, 0), totals=(1, -1, 0))),
    )
    page.wait_for_selector("#scores tbody >> text=+1", timeout=1_000)
    page.screenshot(path=str(ARTIFACTS / "spectator-phone-controller-state.png"), full_page=True)
    feed.close()
