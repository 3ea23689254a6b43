"""Property-based: requests generated from /openapi.json never make the server fail (no 5xx),
whatever their paths, queries, headers and bodies (Schemathesis' strategies under Hypothesis;
a bounded number of examples per operation keeps it well under a minute)."""

from __future__ import annotations

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck, given

from web.app import create_app
from web.settings import Settings

EXAMPLES = 15
"""Generated requests per operation (about 20 operations)."""


@pytest.mark.slow
def test_no_generated_request_fails_the_server(league):
    """Every operation of /openapi.json answers below 500 to the requests Schemathesis makes of it, with
    the token of a real owner (so the owner routes run past authentication) or the generated one."""
    app = create_app(Settings(db=str(league.path), submissions=True, max_upload_bytes=16 * 1024))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    token = league.tokens["alice"]
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        check(operation, token)
    app.state.site.ledger.close()


def check(operation, token: str) -> None:
    """Run Hypothesis over one operation's generated requests."""

    @hypothesis.settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy())
    def no_server_error(case) -> None:
        headers = dict(case.headers or {})
        if "authorization" not in {key.lower() for key in headers}:
            headers["Authorization"] = f"Bearer {token}"
        response = case.call(headers=headers)
        assert response.status_code < 500, (f"{operation.label}: {case.method} {case.formatted_path} "
                                            f"{case.query} -> {response.status_code} {response.text[:300]}")

    no_server_error()
