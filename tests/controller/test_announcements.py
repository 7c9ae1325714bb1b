"""The announcer fans typed announcements out and never lets a broken output stop the referee."""

import io
from pathlib import Path

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


def test_speech_speaks_through_espeak_ng_and_stays_silent_without_it(tmp_path: Path) -> None:
    from controller.announcements import SpeechOutput

    said = tmp_path / "said.txt"
    fake = tmp_path / "espeak-ng"
    fake.write_text(f'#!/bin/sh\nfor last; do :; done\necho "$last" >> {said}\n')
    fake.chmod(0o755)
    speech = SpeechOutput(NAMES, program=str(fake))
    speech.announce(CardAccepted(seat=1, card=Card.from_text("QS")))  # not spoken: too chatty
    speech.announce(TrickWon(trick=0, winner=2, cards=((2, Card.from_text("AS")),)))
    speech.close()
    assert said.read_text().strip() == "Trick 1 to Cem (Cem AS)."
    silent = SpeechOutput(NAMES, program="no-such-espeak")
    silent.announce(TrickWon(trick=0, winner=2, cards=()))
    silent.close()
