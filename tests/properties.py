"""Hypothesis's settings for the whole suite, written once (tests/conftest.py imports this before any test module).

Two profiles: ``default`` (a developer's run) and ``ci`` (tox sets HYPOTHESIS_PROFILE=ci): no deadline in either (a
deadline is a timing assertion, and a loaded 2-core machine stalls an example for seconds) and no too_slow health
check (the properties play whole games on purpose); ``ci`` also prints the blob that reproduces a failure and keeps
no example database in the clean clone. A test asks only for its number of examples, ``examples(N)``, through a
named constant where the number matters (what one example costs).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("default"), print_blob=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def examples(count: int, *suppressed: HealthCheck) -> settings:
    """The loaded profile with ``count`` examples (and any further health check a test must suppress)."""
    profile = settings()
    return settings(profile, max_examples=count,
                    suppress_health_check=[*profile.suppress_health_check, *suppressed])
