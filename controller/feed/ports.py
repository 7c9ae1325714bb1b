"""Small network helpers shared by the embedded broker, the mosquitto runner and the bench."""

from __future__ import annotations

import socket
import time


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_for_port(host: str, port: int, timeout: float = 10.0, alive: object = None) -> None:
    """Return once ``host:port`` accepts a TCP connection; raise ``TimeoutError`` after ``timeout`` s.

    ``alive``: an optional ``subprocess.Popen``; if it exits first the wait fails at once.
    """
    deadline = time.monotonic() + timeout
    while True:
        poll = getattr(alive, "poll", None)
        if poll is not None and poll() is not None:
            raise RuntimeError(f"the server exited (status {poll()}) before listening on {host}:{port}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout} s") from None
            time.sleep(0.02)  # poll interval of a condition wait, not a fixed delay
