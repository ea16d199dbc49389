"""CPU time of each hostile settings file (issue 24, item 8): the cases of
`tests/security/test_security_settings_input.py`, each read and previewed through the Studies
page's service (`annotate.services.admin.study_settings.preview_settings_file`: the file read, the
study's checks, nothing written) on a scratch database. Prints each case's CPU time (best of
three), and the worst. Target: every case under one second of CPU.

Run: ``python benchmarks/bench_hostile_settings.py [--backend sqlite|postgresql]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scratch_db import scratch_database

from annotate.db import make_engine, write_session
from annotate.domain.study import studies
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import PrbError
from annotate.services.admin.study_settings import preview_settings_file
from tests.security.test_security_settings_input import CASES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    backend = parser.parse_args().backend
    with scratch_database(backend) as url:
        engine = make_engine(url)
        with write_session(engine) as session:
            studies.create_study(session, "s", seed=7)
        print(f"backend {backend}, load average {os.getloadavg()[0]:.1f}")
        worst = 0.0
        for case in CASES:
            times = []
            for _ in range(3):
                start = time.process_time()
                try:
                    preview_settings_file(engine, SYSTEM, "s", case.name, case.data)
                    outcome = "ACCEPTED"
                except PrbError as error:
                    outcome = str(error).splitlines()[0][:70]
                times.append(time.process_time() - start)
            worst = max(worst, min(times))
            print(f"{min(times) * 1000:8.1f} ms  {len(case.data):>9,} B  {case.id}: {outcome}")
        engine.dispose()
    print(f"worst CPU time: {worst * 1000:.1f} ms (target: under 1000 ms)")


if __name__ == "__main__":
    main()
