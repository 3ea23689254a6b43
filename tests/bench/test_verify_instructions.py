"""bench/verify_instructions.py reads valgrind's summaries (the tools themselves are not run here)."""

from __future__ import annotations

from bench.verify_instructions import totals_of

CALLGRIND = """==14568== Events    : Ir
==14568== Collected : 1591589160
==14568==
==14568== I   refs:      1,591,589,160
"""

CACHEGRIND = """==14570== I   refs:      1,129,059,514
==14570== I1  misses:       20,093,830
==14570== LLi misses:           22,623
==14570== D   refs:        487,648,269  (329,629,661 rd   + 158,018,608 wr)
==14570== D1  misses:       11,023,293  (  9,666,854 rd   +   1,356,439 wr)
==14570== LLd misses:          362,432  (     99,678 rd   +     262,754 wr)
"""


def test_callgrind_gives_the_instructions():
    assert totals_of(CALLGRIND) == {"instructions": 1591589160}


def test_cachegrind_gives_instructions_and_the_first_level_misses():
    assert totals_of(CACHEGRIND) == {"instructions": 1129059514, "I1": 20093830, "D1": 11023293}


def test_a_report_without_counts_is_refused():
    assert totals_of("==1== valgrind: failed to start tool") is None
