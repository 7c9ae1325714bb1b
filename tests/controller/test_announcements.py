"""The announcer fans typed announcements out and never lets a broken output stop the referee."""

import io

from controller.announcements import (
    Announcer,
    CardAccepted,
    HandScored,
    ListOutput,
    PrinterOutput,
    TrickWon,
    payload,
)
from engine.cards import Card

NAMES = ["Ada", "Ben", "Cem"]


class Broken:
    def announce(self, announcement):
        raise RuntimeError("panel unplugged")

    def close(self):
        raise RuntimeError("still unplugged")


def test_a_failing_output_is_contained_and_the_others_still_hear() -> None:
    kept = ListOutput()
    announcer = Announcer([Broken(), kept], NAMES)
    announcer(CardAccepted(seat=1, card=Card.from_text("QS")))
    announcer.close()
    announcer.close()
    assert [a.card for a in kept.of(CardAccepted)] == [Card.from_text("QS")]
    assert announcer.failures == 1


def test_printer_says_who_won_the_trick_in_plain_english() -> None:
    out = io.StringIO()
    cards = ((1, Card.from_text("QS")), (2, Card.from_text("3S")), (0, Card.from_text("AS")))
    trick = TrickWon(trick=2, winner=0, cards=cards)
    PrinterOutput(NAMES, out).announce(trick)
    assert out.getvalue().strip() == "Trick 3 to Ada (Ben QS, Cem 3S, Ada AS)."


def test_payload_is_plain_json_data() -> None:
    scored = HandScored(hand=0, tricks=(9, 4, 3), targets=(8, 5, 3), scores=(1, -1, 0), totals=(1, -1, 0))
    assert payload(scored)["tricks"] == [9, 4, 3]
    assert payload(CardAccepted(seat=0, card=Card.from_text("10H")))["card"] == "10H"
