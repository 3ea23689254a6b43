"""The browser fixtures (tests/browser.py) for the replay page's tests."""

from tests.browser import browser, open_page  # noqa: F401 (fixtures, found by name)
