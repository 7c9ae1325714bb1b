"""The feed's topic names: one place, so the page, the ACL and the docs agree (docs/mqtt-topics.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Topics:
    """``<prefix>/<table>/{status,state,events,control}``."""

    prefix: str
    table: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table}"

    @property
    def status(self) -> str:
        """Retained ``online`` / ``stopped``; ``offline`` is the last will."""
        return f"{self.base}/status"

    @property
    def state(self) -> str:
        """Retained public snapshot, with the ``seq`` of the last event it includes."""
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        """QoS 1 events, ``seq`` increasing by one."""
        return f"{self.base}/events"

    @property
    def control(self) -> str:
        """Operator commands (authenticated publishers only, by broker ACL)."""
        return f"{self.base}/control"


STATUS_ONLINE = "online"
STATUS_STOPPED = "stopped"
STATUS_OFFLINE = "offline"
