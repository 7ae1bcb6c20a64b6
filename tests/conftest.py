"""Test tiers and Hypothesis profiles.

Markers (registered in pyproject.toml):
- `browser`: drives a real Chromium (every test in test_browser.py);
- `server`: starts real server processes or sockets (test_restart.py, test_hostile_network.py);
- `slow`: takes more than about a second; browser and server tests are slow too.

`python -m pytest` runs everything (CI does). `python -m pytest -m "not slow"` is the
developer's fast tier: seconds, not minutes. Property tests use the Hypothesis profile
named by HYPOTHESIS_PROFILE: `thorough` (the default, CI) or `quick` (fewer examples
for tests that do not set their own).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("thorough", deadline=None, print_blob=True)
settings.register_profile("quick", max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "thorough"))

MODULE_MARKS = {
    "test_browser.py": ("browser", "slow"),
    "test_restart.py": ("server", "slow"),
    "test_hostile_network.py": ("server", "slow"),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for name in MODULE_MARKS.get(item.path.name, ()):
            item.add_marker(getattr(pytest.mark, name))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A real Chromium for the browser tests (tests/browser.py says where it comes from)."""
    from browser import launched_chromium

    yield from launched_chromium()
