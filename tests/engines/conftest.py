"""The position helpers assert (``conserved``): pytest rewrites their asserts as it does a test module's."""

import pytest

pytest.register_assert_rewrite("tests.engines.nine_tails_positions", "tests.engines.lemur_tails_positions")
