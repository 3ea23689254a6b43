"""The API contract: Schemathesis, with ALL its checks, over /openapi.json of a live `tourney serve`, finds
nothing (every status documented, the documented content type, JSON errors on the API, schema-valid requests
accepted and invalid ones refused, 405 with Allow for methods not listed, no 5xx), run as its command line runs
(`st run`: examples, coverage, fuzzing and stateful phases) with a bounded number of examples per operation.

The one setting: the two bot uploads may refuse a schema-valid body with 422. A schema can say a file is not
empty, but not that it is a bot (a .py by its name, a program by its #!, a readable zip): the server checks
that itself, and says why (tests/web/test_api.py). Everything else runs with Schemathesis' own expectations.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.league import League
from tests.web.live import start, stop

EXAMPLES = 12
"""Generated requests per operation and phase (about 35 operations): the whole run stays under a minute."""
SEED = "20261205"
CONFIG = """
# Uploads: a schema-valid body may still not be a bot (the server says why, with 422).
[[operations]]
include-path = "/api/ladders/{name}/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/account/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
"""


@pytest.mark.slow
def test_schemathesis_with_all_checks_finds_nothing(league: League, tmp_path: Path):
    """`st run --checks all` over the live server, as an owner (so the owner routes run past their token), ends
    with no failure; its report is printed when it does not."""
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    process, base = start(league, "--submissions", "--requests-per-minute", "1000000",
                          "--submissions-per-hour", "100000")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run", f"{base}openapi.json",
             "--checks", "all", "--max-examples", str(EXAMPLES), "--seed", SEED, "--no-shrink", "--workers", "1",
             "--header", f"Authorization: Bearer {league.tokens['alice']}", "--report-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    finally:
        stop(process)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-20000:]
    tested = re.search(r"Tested: (\d+)", report)
    assert tested is not None and int(tested.group(1)) >= 30, report[-3000:]  # every operation of the document
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in report, report[-3000:]
