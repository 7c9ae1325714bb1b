"""Network addresses given on the command line: a port, and a broker's ``HOST:PORT``.

Why one place: ``cardtable demo``, ``cardtable serve`` and ``cardtable bench feed`` each read one, and a bad
value (``--port 99999``, ``--broker :x``) must be refused by argparse with a message that names it, not
end in a socket's traceback or a validation dump from deep inside the feed.
"""

from __future__ import annotations

import argparse

from vision.argtypes import in_range

__all__ = ["host_port", "tcp_port"]

tcp_port = in_range(int, 0, 65535, "a TCP port in 0..65535")
"""A TCP port to listen on or connect to; 0 lets the system choose one where listening."""


def host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (an IPv6 host in brackets, ``[::1]:1883``) as ``(host, port)``, the port in 1..65535."""
    host, sep, port_text = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, not {text!r}")
    try:
        number = int(port_text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT with a port number, not {text!r}") from None
    if not 1 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in 1..65535 in HOST:PORT, not {number} ({text!r})")
    return host, number


host_port.__name__ = "HOST:PORT"  # argparse names the type by it in its own messages
