"""An MQTT broker inside the process, for the demo when no broker is configured.

amqtt (pure Python, MQTT 3.1.1) runs on its own asyncio loop in a background thread, with a TCP
listener for the feed and a websockets listener for the phone page, both on loopback by default. It
allows anonymous clients: it is a demo convenience on one machine, not the table's broker. On the Pi,
mosquitto with systemd/mosquitto/cardtable.conf does the job (password for the controller, read-only
ACL for spectators).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from controller.feed.ports import free_port

log = logging.getLogger("cardtable.feed.broker")


class EmbeddedBroker:
    """Start with :meth:`start`, stop with :meth:`stop` (idempotent). Ports 0 pick free ones."""

    def __init__(self, bind: str = "127.0.0.1", tcp_port: int = 0, ws_port: int = 0) -> None:
        self.bind = bind
        self.tcp_port = tcp_port or free_port(bind)
        self.ws_port = ws_port or free_port(bind)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def ws_url(self) -> str:
        """The websockets URL spectators' pages connect to."""
        return f"ws://{self.bind}:{self.ws_port}"

    def _config(self) -> dict[str, Any]:
        return {
            "listeners": {
                "default": {"type": "tcp", "bind": f"{self.bind}:{self.tcp_port}"},
                "ws": {"type": "ws", "bind": f"{self.bind}:{self.ws_port}"},
            },
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }

    def start(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="embedded-mqtt-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the embedded MQTT broker did not start")
        if self._error is not None:
            raise RuntimeError(f"the embedded MQTT broker failed to start: {self._error}") from self._error
        # Broker.start() returns once its listeners are bound; no probe connection (amqtt logs and leaks one).
        log.info("embedded broker on %s:%d (tcp) and %s", self.bind, self.tcp_port, self.ws_url)

    def _run(self) -> None:
        from amqtt.broker import Broker

        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            self._broker = Broker(self._config(), loop=loop)
            loop.run_until_complete(self._broker.start())
        except BaseException as exc:  # reported to start()'s caller
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._broker.shutdown())
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    def stop(self, timeout: float = 10.0) -> None:
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        self._thread = None
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
