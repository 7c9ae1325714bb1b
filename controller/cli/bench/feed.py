"""``cardtable bench feed``: how fast and how completely the feed reaches many phones at once.

The real :class:`~controller.feed.Feed` publishes events at ``--rate`` per second for ``--seconds`` to a
mosquitto on loopback (one is started in a temporary folder unless ``--broker`` is given) while
``--spectators`` MQTT clients, spread over ``--processes`` processes that each drive all their
clients from one ``selectors`` loop (no thread per client), subscribe to the events topic like phones.
Each event carries its send time; each client records the delay to its arrival and which ``seq`` it
got. Reported: p50/p95/p99/max publish→receive latency over all deliveries, lost and duplicate
deliveries. The target (issue 6): p99 < 250 ms with 1000 spectators at 10 events/s, none lost.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.addresses import host_port

NAME = "feed"
HELP = "MQTT feed fan-out: p99 latency and losses with many spectators on loopback"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spectators", type=int, default=1000, help="subscriber clients (default 1000)")
    parser.add_argument("--rate", type=float, default=10.0, help="events per second (default 10)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to publish (default 30)")
    parser.add_argument("--processes", type=int, default=2, help="subscriber processes (default 2)")
    parser.add_argument(
        "--broker", type=host_port, metavar="HOST:PORT", help="use this broker instead of starting mosquitto"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")


def _raise_fd_limit() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _encode_length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _utf8(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(2, "big") + raw


def _packet(kind: int, body: bytes) -> bytes:
    return bytes([kind]) + _encode_length(len(body)) + body


class _Spectator:
    """One phone, as a minimal MQTT 3.1.1 subscriber (CONNECT, SUBSCRIBE QoS 1, PUBLISH→PUBACK, PING).

    paho costs ~100 µs of Python per delivered message; 1000 phones at 10 events/s would then measure
    the load generator, not the broker and the feed. This speaks the same protocol with one buffered
    ``recv`` per wake-up and one ``send`` of all the PUBACKs it owes.
    """

    __slots__ = ("buf", "client_id", "received", "sock", "subscribed")

    def __init__(self, host: str, port: int, client_id: str, topic: str) -> None:
        import socket

        self.client_id = client_id
        self.sock = socket.create_connection((host, port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connect = _utf8("MQTT") + bytes([4, 0x02]) + (60).to_bytes(2, "big") + _utf8(client_id)
        subscribe = (1).to_bytes(2, "big") + _utf8(topic) + bytes([1])
        self.sock.sendall(_packet(0x10, connect) + _packet(0x82, subscribe))
        self.sock.setblocking(False)
        self.buf = bytearray()
        self.received: set[int] = set()
        self.subscribed = False

    def on_readable(self, latencies: list[float], now: float) -> int:
        """Read what is there, answer PUBLISHes with PUBACKs; returns the number of duplicates seen."""
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return 0
        if not data:
            raise ConnectionError(f"{self.client_id}: the broker closed the connection")
        buf = self.buf
        buf += data
        acks = bytearray()
        dups = 0
        pos = 0
        while True:
            if len(buf) - pos < 2:
                break
            length, mult, i = 0, 1, pos + 1
            while True:
                if i >= len(buf):
                    length = -1
                    break
                byte = buf[i]
                length += (byte & 0x7F) * mult
                mult *= 128
                i += 1
                if not byte & 0x80:
                    break
            if length < 0 or len(buf) < i + length:
                break
            kind, qos = buf[pos] & 0xF0, (buf[pos] >> 1) & 0x03
            body = bytes(buf[i : i + length])
            pos = i + length
            if kind == 0x30:
                off = 2 + int.from_bytes(body[:2], "big")
                if qos:
                    acks += b"\x40\x02" + body[off : off + 2]
                    off += 2
                event = json.loads(body[off:])
                seq = int(event["seq"])
                if seq in self.received:
                    dups += 1
                else:
                    self.received.add(seq)
                    latencies.append(now - float(event["data"]["t"]))
            elif kind == 0x90:
                self.subscribed = True
        del buf[:pos]
        if acks:
            self.sock.sendall(acks)
        return dups

    def ping(self) -> None:
        self.sock.sendall(b"\xc0\x00")

    def close(self) -> None:
        try:
            self.sock.sendall(b"\xe0\x00")
        finally:
            self.sock.close()


def _subscriber_process(
    host: str, port: int, topic: str, count: int, index: int, conn: Any, stop_after_seq: Any
) -> None:
    """Drive ``count`` spectators from one selector loop; report latencies and seqs through ``conn``."""
    import selectors
    import time

    _raise_fd_limit()
    sel = selectors.DefaultSelector()
    latencies: list[float] = []
    duplicates = 0
    spectators = []
    for i in range(count):
        spectator = _Spectator(host, port, f"bench-{index}-{i}", topic)
        spectators.append(spectator)
        sel.register(spectator.sock, selectors.EVENT_READ, spectator)
    reported_ready = False
    deadline: float | None = None
    last_ping = time.monotonic()
    while True:
        ready = sel.select(0.05)
        now = time.time()
        for key, _ in ready:
            duplicates += key.data.on_readable(latencies, now)
        if time.monotonic() - last_ping > 20:
            for spectator in spectators:
                spectator.ping()
            last_ping = time.monotonic()
        if not reported_ready and all(s.subscribed for s in spectators):
            conn.send(("ready", index))
            reported_ready = True
        last = stop_after_seq.value
        if last > 0:
            deadline = deadline or time.monotonic() + 15
            if all(last in s.received for s in spectators) or time.monotonic() > deadline:
                break
    last = stop_after_seq.value
    lost = sum(len(set(range(1, last + 1)) - s.received) for s in spectators)
    for spectator in spectators:
        spectator.close()
    conn.send(("done", index, latencies, lost, duplicates))


def run(args: argparse.Namespace) -> int:
    import multiprocessing as mp
    import tempfile
    import time
    from pathlib import Path

    import numpy as np

    from controller.feed import Feed, FeedConfig
    from controller.feed.mosquitto import Mosquitto

    if args.spectators < 1 or args.rate <= 0 or args.seconds <= 0 or args.processes < 1:
        print("bench feed: --spectators, --rate, --seconds and --processes must be positive", file=sys.stderr)
        return 2
    _raise_fd_limit()
    tmp = tempfile.TemporaryDirectory(prefix="cardtable-bench-feed-")
    broker: Mosquitto | None = None
    if args.broker:
        host, port = args.broker
    else:
        try:
            broker = Mosquitto.plain(Path(tmp.name) / "broker", max_queued=100000)
        except FileNotFoundError as exc:
            print(f"bench feed: {exc}", file=sys.stderr)
            return 2
        # 1000 spectators need more than the default 1024 file descriptors in mosquitto too.
        broker.conf_path.write_text(broker.conf_path.read_text() + "max_connections -1\n")
        broker.start()
        host, port = "127.0.0.1", broker.tcp_port
    table = "bench"
    topic = f"cardtable/{table}/events"
    ctx = mp.get_context("spawn")
    stop_after = ctx.Value("i", 0)
    pipes = []
    procs = []
    per = [
        args.spectators // args.processes + (1 if i < args.spectators % args.processes else 0)
        for i in range(args.processes)
    ]
    try:
        for i, count in enumerate(per):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_subscriber_process, args=(host, port, topic, count, i, child, stop_after))
            proc.start()
            procs.append(proc)
            pipes.append(parent)
        t0 = time.monotonic()
        ready = 0
        while ready < len(procs):
            for pipe in pipes:
                if pipe.poll(0.1) and pipe.recv()[0] == "ready":
                    ready += 1
            if time.monotonic() - t0 > 120:
                print("bench feed: spectators did not all subscribe within 120 s", file=sys.stderr)
                return 1
        connect_s = time.monotonic() - t0
        print(f"{args.spectators} spectators connected and subscribed in {connect_s:.1f} s", flush=True)

        feed = Feed(FeedConfig(host=host, port=port, table_id=table, outbox=Path(tmp.name) / "outbox.sqlite"))
        if not feed.wait_connected(10):
            print(f"bench feed: the feed could not connect ({feed.connect_error})", file=sys.stderr)
            return 1
        total = max(1, round(args.rate * args.seconds))
        start = time.monotonic()
        for n in range(total):
            due = start + n / args.rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            feed.publish_event("bench", {"t": time.time(), "n": n + 1})
        feed.wait_delivered(30)
        stop_after.value = feed.last_seq
        results = [pipe.recv() for pipe in pipes]
        feed.close()
    finally:
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()
        if broker is not None:
            broker.stop()
        tmp.cleanup()

    lat = np.concatenate([np.asarray(r[2], dtype=np.float64) for r in results]) * 1000.0
    lost = int(sum(r[3] for r in results))
    dups = int(sum(r[4] for r in results))
    expected = total * args.spectators
    figures: dict[str, Any] = {
        "spectators": args.spectators,
        "rate_per_s": args.rate,
        "seconds": args.seconds,
        "events": total,
        "deliveries_expected": expected,
        "deliveries": int(lat.size),
        "lost": lost,
        "duplicates": dups,
        "latency_ms": {
            "p50": round(float(np.percentile(lat, 50)), 1) if lat.size else None,
            "p95": round(float(np.percentile(lat, 95)), 1) if lat.size else None,
            "p99": round(float(np.percentile(lat, 99)), 1) if lat.size else None,
            "max": round(float(lat.max()), 1) if lat.size else None,
        },
        "connect_s": round(connect_s, 1),
    }
    ms = figures["latency_ms"]
    print(f"events {total} x {args.spectators} spectators = {expected} deliveries expected")
    print(f"delivered {lat.size}, lost {lost}, duplicates {dups}")
    print(f"publish->receive latency ms: p50 {ms['p50']}  p95 {ms['p95']}  p99 {ms['p99']}  max {ms['max']}")
    met = lost == 0 and ms["p99"] is not None and ms["p99"] < 250
    print("target (p99 < 250 ms, none lost):", "met" if met else "NOT met")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if met else 1
