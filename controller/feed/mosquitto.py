"""Run a private mosquitto for tests and ``cardtable bench feed``: own ports, own folder, own config.

Two shapes: :meth:`Mosquitto.plain` (anonymous TCP + websockets on loopback, persistence on) and
:meth:`Mosquitto.secured` (the real drop-in from ``systemd/mosquitto/``, with its paths rewritten into
the folder and users made with ``mosquitto_passwd``), so the tests exercise the file that ships.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from controller.feed.ports import free_port, wait_for_port

REPO = Path(__file__).resolve().parents[2]
DROPIN_DIR = REPO / "systemd" / "mosquitto"


def mosquitto_binary() -> str | None:
    """Path of the mosquitto executable, or None (Debian puts it in /usr/sbin)."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None
    )


class Mosquitto:
    """A mosquitto process listening on loopback. Start, stop, restart (same ports, same persistence)."""

    def __init__(self, workdir: Path, config: str, tcp_port: int, ws_port: int) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise FileNotFoundError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.binary = binary
        self.workdir = workdir
        self.tcp_port = tcp_port
        self.ws_port = ws_port
        self.conf_path = workdir / "mosquitto.conf"
        self.conf_path.write_text(config, encoding="utf-8")
        self.log_path = workdir / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @staticmethod
    def _main_conf(workdir: Path) -> str:
        # Like Debian's mosquitto.conf, plus `user root` so a root test run need not chown the folder.
        lines = [
            f"persistence true\npersistence_location {workdir}/\n",
            f"log_dest file {workdir}/mosquitto.log\nlog_type error\nlog_type warning\nlog_type notice\n",
        ]
        if os.geteuid() == 0:
            lines.append("user root\n")
        return "".join(lines)

    @classmethod
    def plain(cls, workdir: Path, *, http_dir: Path | None = None, max_queued: int = 1000) -> Mosquitto:
        """Anonymous, read-write broker: the bench and feed tests (security is tested separately)."""
        workdir.mkdir(parents=True, exist_ok=True)
        tcp, ws = free_port(), free_port()
        conf = cls._main_conf(workdir) + (
            f"max_queued_messages {max_queued}\n"
            f"listener {tcp} 127.0.0.1\nallow_anonymous true\n"
            f"listener {ws} 127.0.0.1\nprotocol websockets\n"
        )
        if http_dir is not None:
            conf += f"http_dir {http_dir}\n"
        return cls(workdir, conf, tcp, ws)

    @classmethod
    def secured(
        cls, workdir: Path, users: dict[str, str], *, http_dir: Path | None = None, dropin_dir: Path = DROPIN_DIR
    ) -> Mosquitto:
        """The shipped drop-in and ACLs, rewritten to this folder and free ports; ``users``: name → password."""
        workdir.mkdir(parents=True, exist_ok=True)
        confd = workdir / "conf.d"
        confd.mkdir(exist_ok=True)
        tcp, ws = free_port(), free_port()
        text = (dropin_dir / "cardtable.conf").read_text(encoding="utf-8")
        text = text.replace("/etc/mosquitto/", f"{workdir}/")
        text = re.sub(r"^listener 1883\b.*$", f"listener {tcp} 127.0.0.1", text, flags=re.M)
        text = re.sub(r"^listener 9001\b.*$", f"listener {ws} 127.0.0.1", text, flags=re.M)
        text = re.sub(r"^http_dir .*$", f"http_dir {http_dir or workdir}", text, flags=re.M)
        (confd / "cardtable.conf").write_text(text, encoding="utf-8")
        for acl in ("cardtable-tcp.acl", "cardtable-ws.acl"):
            shutil.copy(dropin_dir / acl, workdir / acl)
        passwd = workdir / "cardtable.passwd"
        passwd.unlink(missing_ok=True)
        tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        for name, password in users.items():
            flags = ["-b"] if passwd.exists() else ["-c", "-b"]
            subprocess.run([tool, *flags, str(passwd), name, password], check=True, capture_output=True)
        conf = cls._main_conf(workdir) + f"include_dir {confd}\n"
        return cls(workdir, conf, tcp, ws)

    def start(self, timeout: float = 10.0) -> Mosquitto:
        if self.proc is not None and self.proc.poll() is None:
            return self
        with open(self.workdir / "stderr.log", "ab") as err:
            self.proc = subprocess.Popen(
                [self.binary, "-c", str(self.conf_path)], stdout=subprocess.DEVNULL, stderr=err
            )
        try:
            wait_for_port("127.0.0.1", self.tcp_port, timeout, alive=self.proc)
            wait_for_port("127.0.0.1", self.ws_port, timeout, alive=self.proc)
        except (TimeoutError, RuntimeError) as exc:
            self.stop()
            raise RuntimeError(f"mosquitto did not start: {exc}\n{self.logs()}") from None
        return self

    def logs(self) -> str:
        parts = [p.read_text(errors="replace") for p in (self.log_path, self.workdir / "stderr.log") if p.exists()]
        return "\n".join(parts)[-4000:]

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (mosquitto saves its persistence file) and wait. Idempotent."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
