"""The API contract: Schemathesis, with ALL its checks, over /openapi.json of a live `tourney serve`, finds
nothing (every status documented, the documented content type, JSON errors on the API, schema-valid requests
accepted and invalid ones refused, 405 with Allow for methods not listed, no 5xx), run as its command line runs
(`st run`: examples, coverage, fuzzing and stateful phases) with a bounded number of examples per operation.

A second run fuzzes harder where bodies are sent (every POST with a body: the uploads, the sign-in form, the
account's forms) with bodies that break the schema, over several seeds: it is the run that found the undocumented
400 on malformed multipart bodies (issue 41), now documented (web/openapi.py), so it too must find nothing.

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
BODY_SEEDS = ("7", "1", "2", "3")
"""Seeds of the run over the operations that take a body, in negative mode (bodies that break the schema, malformed
multipart among them). Before the 400 was documented, seeds 1, 2 and 3 found it with these examples (Schemathesis'
fuzzing also follows the server's answers, so one seed is not a whole guarantee: hence several)."""
BODY_EXAMPLES = 60
"""Generated requests per operation with a body (6 of them) per seed: some 30 s a seed."""
CONFIG = """
# Uploads: a schema-valid body may still not be a bot (the server says why, with 422).
[[operations]]
include-path = "/api/ladders/{name}/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/account/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
"""


def schemathesis(league: League, tmp_path: Path, *options: str) -> str:
    """`st run --checks all` with ``options`` over a live server, as an owner (so the owner routes run past their
    token); its report, which the test fails with unless the run found nothing."""
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    process, base = start(league, "--submissions", "--requests-per-minute", "1000000",
                          "--submissions-per-hour", "100000")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run", f"{base}openapi.json",
             "--checks", "all", "--no-shrink", "--workers", "1", "--generation-database", "none", *options,
             "--header", f"Authorization: Bearer {league.tokens['alice']}", "--report-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    finally:
        stop(process)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-20000:]
    return report


@pytest.mark.slow
def test_schemathesis_with_all_checks_finds_nothing(league: League, tmp_path: Path):
    """`st run --checks all` over the live server, every phase, ends with no failure; its report is printed when it
    does not."""
    report = schemathesis(league, tmp_path, "--max-examples", str(EXAMPLES), "--seed", SEED)
    tested = re.search(r"Tested: (\d+)", report)
    assert tested is not None and int(tested.group(1)) >= 30, report[-3000:]  # every operation of the document
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in report, report[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("seed", BODY_SEEDS)
def test_schemathesis_fuzzing_the_bodies_finds_nothing(league: League, tmp_path: Path, seed: str):
    """Fuzzing every operation that takes a body (malformed multipart among what it sends) with all checks, seed
    by seed, finds nothing: every status it meets is documented (the 400 of a body that cannot be parsed too)."""
    report = schemathesis(league, tmp_path, "--include-method", "POST", "--phases", "fuzzing", "--mode", "negative",
                          "--max-examples", str(BODY_EXAMPLES), "--seed", seed)
    tested = re.search(r"Tested: (\d+)", report)
    assert tested is not None and int(tested.group(1)) >= 6, report[-3000:]  # every POST with a body
    assert "✅ Fuzzing" in report, report[-3000:]
