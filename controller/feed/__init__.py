"""The MQTT feed: what spectators' phones and operator tools see of the table.

``Feed.open(config)`` gives a :class:`Feed` (or a :class:`NullFeed` when MQTT is disabled); the
controller calls ``publish_event(type, data) -> seq`` for each public event, ``publish_state(snapshot)``
after it, sets ``on_command`` to receive operator commands, and ``close()`` at the end. Topics and
payloads are specified in docs/mqtt-topics.md.
"""

from controller.feed.config import FeedConfig
from controller.feed.control import (
    Command,
    CommandError,
    CorrectCard,
    EndGame,
    NewGame,
    NextHand,
    Pause,
    Resume,
    Resync,
    Undo,
    parse_command,
)
from controller.feed.guard import LeakError, check_payload
from controller.feed.mqtt import Feed, NullFeed
from controller.feed.topics import Topics

__all__ = [
    "Command",
    "CommandError",
    "CorrectCard",
    "EndGame",
    "Feed",
    "FeedConfig",
    "LeakError",
    "NewGame",
    "NextHand",
    "NullFeed",
    "Pause",
    "Resume",
    "Resync",
    "Topics",
    "Undo",
    "check_payload",
    "parse_command",
]
