import subprocess
import sys

import pytest

from controller.cli import main
from controller.cli.addresses import host_port


def test_cardtable_help_lists_commands() -> None:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True, check=True)
    assert "cardtable" in out.stdout and "bench" in out.stdout


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--port", "99999"], "argument --port: expected a TCP port in 0..65535, not 99999"),
        (["demo", "--broker", "localhost:99999"], "argument --broker: expected a port in 1..65535 in HOST:PORT"),
        (["demo", "--broker", ":1883"], "argument --broker: expected HOST:PORT, not ':1883'"),
        (["demo", "--broker", "broker.local"], "argument --broker: expected HOST:PORT, not 'broker.local'"),
        (["bench", "feed", "--broker", "host:mqtt"], "expected HOST:PORT with a port number, not 'host:mqtt'"),
    ],
)
def test_a_bad_address_is_refused_by_name_before_anything_starts(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_broker_address_may_be_an_ipv6_host_in_brackets() -> None:
    assert host_port("[::1]:1883") == ("::1", 1883)
    assert host_port("mqtt.local:8883") == ("mqtt.local", 8883)
