import subprocess
import sys


def test_cardtable_help_lists_commands() -> None:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True, check=True)
    assert "cardtable" in out.stdout and "bench" in out.stdout
