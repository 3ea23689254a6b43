"""Golden replays: the checked-in logs are what the code produces today, and they verify."""

from __future__ import annotations

import orjson
import pytest

from replays import log as logfmt
from replays.verify import verify_log
from tests.golden.cases import CASES, render


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_code_still_produces_the_golden_log(case):
    """Any change of behaviour shows up here; accept it with `python -m tests.golden.regenerate`."""
    expected = case.path.read_bytes()
    produced = render(case)
    if produced != expected:
        old, new = orjson.loads(expected)["events"], orjson.loads(produced)["events"]
        first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        pytest.fail(f"{case.path.name} changed first at event {first} ({len(old)} events before, {len(new)} now): "
                    "if the change is intended, run `python -m tests.golden.regenerate` and review the diff")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@pytest.mark.parametrize("view", ["full", "spectator", "seat:0"])
def test_golden_logs_verify_in_every_view(case, view):
    """Each golden log, and each redacted view of it, passes `replay verify`."""
    log = logfmt.redact(logfmt.read(case.path), view)
    report = verify_log(log)
    assert report.decisions > 0 and report.chance_steps > 0
