"""The feed's settings, validated strictly (unknown keys are errors that name their path).

The controller's table config embeds this model under ``mqtt:``; the feed can also be opened on its
own (tests, ``cardtable bench feed``). ``host: null`` means "no broker on this machine": the feed then
starts an embedded broker in process, which is what the demo wants and the Pi does not.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

_TOPIC_WORD = re.compile(r"^[A-Za-z0-9_-]+$")


class FeedConfig(BaseModel):
    """Where the feed publishes and how it keeps events until the broker has them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(default=True, description="False gives a NullFeed: nothing is published.")
    table_id: str = Field(default="table1", description="The <table-id> topic level; unique per broker.")
    topic_prefix: str = Field(default="cardtable", description="First topic level.")
    host: str | None = Field(default=None, description="Broker host; null starts an embedded broker (demo).")
    port: int = Field(default=1883, ge=1, le=65535)
    transport: Literal["tcp", "websockets"] = "tcp"
    username: str | None = None
    password: str | None = None
    password_file: Path | None = Field(
        default=None, description="File holding the password (e.g. from systemd LoadCredential=)."
    )
    client_id: str | None = Field(default=None, description="Defaults to cardtable-<table_id>.")
    keepalive: int = Field(default=15, ge=2, le=3600, description="Seconds; the last will fires after ~1.5x.")
    outbox: Path | None = Field(
        default=None, description="SQLite file that keeps events until PUBACK; null keeps them in memory only."
    )
    control_token: str | None = Field(
        default=None, description="When set, control commands must carry this token (besides the broker ACL)."
    )
    embedded_tcp_port: int = Field(default=0, ge=0, le=65535, description="Embedded broker TCP port; 0 picks one.")
    embedded_ws_port: int = Field(default=0, ge=0, le=65535, description="Embedded broker websockets port.")
    embedded_bind: str = Field(default="127.0.0.1", description="Address the embedded broker listens on.")

    @model_validator(mode="after")
    def _check(self) -> Self:
        for name in ("table_id", "topic_prefix"):
            value = getattr(self, name)
            if not _TOPIC_WORD.match(value):
                raise ValueError(f"{name} {value!r} must be one topic level of letters, digits, '_' or '-'")
        if self.password is not None and self.password_file is not None:
            raise ValueError("give password or password_file, not both")
        if (self.password is not None or self.password_file is not None) and self.username is None:
            raise ValueError("a password needs a username")
        return self

    def resolved_password(self) -> str | None:
        """The password, read from ``password_file`` when that is how it was given."""
        if self.password_file is not None:
            try:
                return self.password_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(f"mqtt.password_file {str(self.password_file)!r} cannot be read: {exc}") from exc
        return self.password

    @property
    def resolved_client_id(self) -> str:
        return self.client_id or f"cardtable-{self.table_id}"
