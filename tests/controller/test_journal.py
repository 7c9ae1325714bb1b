"""The journal must bring back exactly the inputs that were acted on, even after a torn write."""

import logging
from pathlib import Path

import pytest

from controller.journal import Journal, JournalError, decode, encode, read_journal
from engine.cards import Card
from hardware.events import Press, SeatButton
from vision.events import CardPlaced, UnreadableCard, ZoneCleared

QS = Card.from_text("QS")
INPUTS = [
    CardPlaced("seat1", QS, 0.91, candidates=((QS, 0.91), (Card.from_text("QC"), 0.05)), frame=12, still_t=1.5),
    SeatButton(0, Press.LONG, t=2.0),
    UnreadableCard("seat2", frame=20, best_guesses=((Card.from_text("9H"), 0.3),)),
    ZoneCleared("seat0", frame=30, t=3.0),
]


def test_inputs_round_trip_through_their_json_form() -> None:
    for item in INPUTS:
        assert decode(encode(item)) == item


def test_journal_replays_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        for item in INPUTS:
            journal.append(item)
    again = Journal(path)
    assert again.replay() == INPUTS
    assert again.count == len(INPUTS)


def test_a_torn_last_line_is_dropped_with_a_log_line_and_cut_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        for item in INPUTS[:2]:
            journal.append(item)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type":"card_placed","zone":"se')
    with caplog.at_level(logging.WARNING):
        assert read_journal(path) == INPUTS[:2]
    assert "torn last line" in caplog.text
    assert path.read_bytes() == whole
    with Journal(path) as journal:
        journal.replay()
        journal.append(INPUTS[2])
    assert read_journal(path) == INPUTS[:3]


def test_damage_in_the_middle_is_an_error_not_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"type":"button","seat":0,"press":"short","t":0}\nGARBAGE\n{"type":"zone_cleared","zone":"seat0"}\n'
    )
    with pytest.raises(JournalError, match="line 2"):
        read_journal(path)
