"""``cardtable serve``: the spectator page over HTTP on this machine (the demo; on the Pi mosquitto
serves it from its websockets port). Prints the address to open, with the broker in the query string.

Other commands reuse :func:`start_spectator_server` to serve the page from a background thread.
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from controller.cli.addresses import tcp_port

NAME = "serve"
HELP = "serve the spectator phone page locally (give it the broker's websockets URL)"

_IN_CHECKOUT = Path(__file__).resolve().parents[2] / "spectator"
#: The page: from the checkout (editable install, demo), else where systemd/install.sh puts it.
PAGE_DIR = _IN_CHECKOUT if _IN_CHECKOUT.is_dir() else Path("/usr/share/cardtable/spectator")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for phones on the LAN)")
    parser.add_argument("--port", type=tcp_port, default=8000, help="HTTP port (default 8000)")
    parser.add_argument("--broker", default="ws://127.0.0.1:9001", help="broker websockets URL for the page")
    parser.add_argument("--table", default=None, help="table id to follow (default: the first one seen)")


def page_url(host: str, port: int, broker: str, table: str | None) -> str:
    query = {"broker": broker} | ({"table": table} if table else {})
    return f"http://{host}:{port}/index.html?{urlencode(query)}"


def start_spectator_server(host: str, port: int) -> Any:
    """Serve ``spectator/`` from a daemon thread; returns the server (``.shutdown()`` to stop it)."""
    import functools
    import http.server

    if not (PAGE_DIR / "vendor" / "mqtt.min.js").exists():
        raise FileNotFoundError(f"{PAGE_DIR / 'vendor' / 'mqtt.min.js'} is missing (cd spectator && npm run build)")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

    handler = functools.partial(Quiet, directory=str(PAGE_DIR))
    server = http.server.ThreadingHTTPServer((host, port), handler)
    threading.Thread(target=server.serve_forever, name="spectator-http", daemon=True).start()
    return server


def run(args: argparse.Namespace) -> int:
    import sys

    try:
        server = start_spectator_server(args.host, args.port)
    except (FileNotFoundError, OSError) as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print(f"spectator page: {page_url(str(host), int(port), args.broker, args.table)}  (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    finally:
        server.shutdown()
    return 0
