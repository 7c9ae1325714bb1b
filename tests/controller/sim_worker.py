"""A referee process for the SIGKILL test: plays a scripted game through a journal, writes the record.

Run as ``python -m tests.controller.sim_worker JOURNAL RECORD PRESET SEED HANDS``. On start it resumes
from the journal (if any), skips the inputs the journal already holds, feeds the rest (each journaled
with fsync before it is acted on) and writes the final record as JSON. The test kills it at random
moments and restarts it. ``SIM_WORKER_PACE_S`` spaces the inputs out, as at a real table, so that the
kills land while the game is being played even on a loaded machine.
"""

import json
import os
import sys
import time
from pathlib import Path

from controller.announcements import Announcer
from controller.journal import Journal
from controller.referee.threefiveeight import ThreeFiveEightReferee
from controller.simulation import direct_inputs, script_358

NAMES = ("Ada", "Ben", "Cem")


def main(argv: list[str]) -> int:
    journal_path, record_path, preset, seed, hands = argv
    actions, _truth = script_358(preset, seed=int(seed), hands=int(hands))
    inputs = list(direct_inputs(actions))
    referee = ThreeFiveEightReferee(NAMES, preset, Announcer([], NAMES), Journal(journal_path), hands=int(hands))
    done = referee.resume()
    referee.start()
    print(f"resumed {done}", flush=True)
    pace = float(os.environ.get("SIM_WORKER_PACE_S", "0"))
    for item in inputs[done:]:
        referee.submit(item)
        if pace:
            time.sleep(pace)  # a table's inputs come over seconds, not microseconds
    referee.close()
    tmp = Path(record_path).with_suffix(".tmp")
    tmp.write_text(json.dumps(referee.record(), indent=1))
    tmp.replace(record_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
