import pytest

from controller.commands import parse_console
from controller.feed.control import CommandError, CorrectCard, NewGame, NextHand, Undo, parse_command
from engine.cards import Card


def test_commands_parse_into_typed_values() -> None:
    assert parse_command(b'{"command": "undo"}') == Undo()
    assert parse_command('{"command": "next_hand", "id": 7}') == NextHand(id="7")
    cmd = parse_command('{"command": "correct_card", "seat": 2, "card": "10h", "trick": 3}')
    assert cmd == CorrectCard(seat=2, card=Card.from_text("10H"), trick=3)
    assert parse_command('{"command": "new_game"}') == NewGame() == parse_console("new")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"not json", "not JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"command": "shuffle"}', "unknown command 'shuffle'"),
        (b'{"command": "correct_card", "seat": 1}', "needs field(s): card"),
        (b'{"command": "correct_card", "seat": 1, "card": "11Z"}', "'card': not a card: '11Z'"),
        (b'{"command": "correct_card", "seat": -1, "card": "QS"}', "'seat' must be a seat number"),
        (b'{"command": "undo", "extra": 1}', "unknown field(s): extra"),
        (b"{" + b" " * 5000 + b"}", "the limit is 4096"),
    ],
)
def test_bad_commands_are_refused_with_a_reason(payload: bytes, message: str) -> None:
    with pytest.raises(CommandError, match=None) as info:
        parse_command(payload)
    assert message in str(info.value)


def test_token_is_checked_when_configured() -> None:
    assert parse_command('{"command": "undo", "token": "s3"}', token="s3") == Undo()
    with pytest.raises(CommandError, match="wrong token"):
        parse_command('{"command": "undo", "token": "nope"}', token="s3")
