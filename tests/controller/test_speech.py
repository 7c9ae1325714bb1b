"""Speech: cards said as words a listener can follow, and a voice that never holds up the referee."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from controller.announcements import CardAccepted, Demand, HandScored, Prompt, TrickWon, TurnTo
from controller.speech import SpeechOutput, spoken
from engine.cards import Card
from tests.hardware.waiting import wait_until

NAMES = ["Ada", "Ben", "Cem"]


def _trick() -> TrickWon:
    cards = ((1, Card.from_text("QS")), (2, Card.from_text("10H")), (0, Card.from_text("AS")))
    return TrickWon(trick=2, winner=0, cards=cards)


def test_cards_scores_and_demands_are_said_in_words() -> None:
    assert spoken(_trick(), NAMES) == "Trick 3 to Ada (Ben queen of spades, Cem ten of hearts, Ada ace of spades)."
    question = Prompt(1, "is it K♠? long press to accept")
    assert spoken(question, NAMES) == "Ben: is it king of spades? long press to accept"
    scored = HandScored(hand=0, tricks=(9, 4, 3), targets=(8, 5, 3), scores=(1, -1, 0), totals=(1, -1, 0))
    assert spoken(scored, NAMES).startswith("Hand 1 scored: Ada 9 of 8 (+1), Ben 4 of 5 (-1), Cem 3 of 3 (+0).")
    assert spoken(Demand(seat=2, demand="H"), NAMES) == "Cem demands hearts."
    assert spoken(Demand(seat=2, demand="6"), NAMES) == "Cem demands sixes."


def test_players_names_are_never_read_as_cards() -> None:
    said = spoken(_trick(), ["JC", "AS", "Cem"])
    assert said == "Trick 3 to JC (AS queen of spades, Cem ten of hearts, JC ace of spades)."


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_ng_pronounces_the_cards_not_letters() -> None:
    """What the player hears: espeak-ng's own phonemes (-x) for the sentence the table speaks, against
    its phonemes for the plain words, so that the test holds whatever espeak-ng version spells them."""

    def phonemes(text: str) -> list[str]:
        out = subprocess.run(["espeak-ng", "-q", "-x", text], capture_output=True, text=True, check=True).stdout
        return out.replace("'", "").replace(",", "").split()  # words, without the stress marks

    def within(words: list[str], sentence: list[str]) -> bool:
        return any(sentence[i : i + len(words)] == words for i in range(len(sentence)))

    printed = phonemes(_trick().text(NAMES))
    said = phonemes(spoken(_trick(), NAMES))
    word_as = phonemes("as")
    assert within(word_as, printed)  # the printed "AS" is read as the word "as"
    assert within(phonemes("ace of spades"), said) and not within(word_as, said)
    assert within(phonemes("queen of spades"), said)  # where "QS" is spelt out letter by letter


def _fake_espeak(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A stand-in for espeak-ng that notes each sentence, then keeps "speaking" until ``go`` exists."""
    said, go, fake = tmp_path / "said.txt", tmp_path / "go", tmp_path / "espeak-ng"
    script = f'for last; do :; done\necho "$last" >> {said}\nwhile [ ! -e {go} ]; do sleep 0.01; done\n'
    fake.write_text("#!/bin/sh\n" + script)
    fake.chmod(0o755)
    return said, go, fake


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_the_referee_never_waits_for_the_voice_and_stale_turns_are_not_said(tmp_path: Path) -> None:
    said, go, fake = _fake_espeak(tmp_path)
    speech = SpeechOutput(NAMES, program=str(fake))
    speech.announce(_trick())
    wait_until(lambda: len(_lines(said)) == 1, what="the trick to be spoken")
    # the voice is still busy with the trick: each of these returns at once, queued
    speech.announce(CardAccepted(seat=1, card=Card.from_text("QS")))  # not said: the player just laid it
    speech.announce(TurnTo(seat=1, zone="seat1"))
    speech.announce(Prompt(1, "press your button when your play is done", reminder=True))  # said every turn: not
    speech.announce(TurnTo(seat=2, zone="seat2"))  # replaces Ben's turn, still waiting
    assert _lines(said) == [spoken(_trick(), NAMES)]
    go.touch()
    speech.close()
    assert _lines(said) == [spoken(_trick(), NAMES), "Cem to play."]
    assert speech.dropped == 1


def test_close_cuts_a_voice_that_does_not_finish(tmp_path: Path) -> None:
    said, _go, fake = _fake_espeak(tmp_path)  # never released
    speech = SpeechOutput(NAMES, program=str(fake))
    speech.announce(_trick())
    speech.announce(TurnTo(seat=1, zone="seat1"))
    wait_until(lambda: len(_lines(said)) == 1, what="the trick to be spoken")
    speech.close(timeout=0.2)
    assert _lines(said) == [spoken(_trick(), NAMES)]
    assert speech.dropped == 1


def test_without_espeak_ng_the_table_stays_silent() -> None:
    silent = SpeechOutput(NAMES, program="no-such-espeak")
    silent.announce(_trick())
    silent.close()
    assert silent.program is None and silent.dropped == 0
