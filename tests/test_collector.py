"""The suite's own process (tests/conftest.py): once collected, what it holds is frozen out of the garbage
collector's generations and full collections are rarer, as docs/testing.md says ("The collector in a worker")."""

from __future__ import annotations

import gc

from tests.conftest import GC_THRESHOLDS


def test_the_collected_suite_is_frozen_and_full_collections_are_rarer():
    """Every module and collected item sits in the permanent generation (tens of thousands of objects: a test's own
    allocations could never make that many), and the thresholds keep Python's young generations."""
    assert gc.get_threshold() == GC_THRESHOLDS
    assert GC_THRESHOLDS[:2] == (700, 10) and GC_THRESHOLDS[2] > 10
    assert gc.get_freeze_count() > 50_000, gc.get_freeze_count()
