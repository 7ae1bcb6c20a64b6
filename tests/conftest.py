"""Test tiers and Hypothesis profiles.

Markers (registered in pyproject.toml), set one way: a test module's `pytestmark` for
the whole module, `@pytest.mark.slow` on one test or parameter:
- `browser`: drives a real Chromium;
- `server`: starts real server processes or sockets;
- `slow`: takes more than about a second; browser tests and tests that start a server
  process that keeps running are slow too, so the fast tier (`-m "not slow"`) has none.

`python -m pytest` runs everything (CI does). `python -m pytest -m "not slow"` is the
developer's fast tier: seconds, not minutes. Both run in parallel (pyproject.toml's
addopts: pytest-xdist, work stealing): the tests are independent (each server, database
and browser of its own, on free loopback ports). The fast tier has one worker a core, as
it only computes; a run with the slow tests one more (up to five), as they spend part of
their time waiting on a browser, a server or a clock and another worker fills those waits
(the whole suite on 2 cores: 7 minutes with 3 workers, 8 with 2). `-n 0` runs in one
process, `-n N` in N. Property tests use the Hypothesis profile
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


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The workers of `--numprocesses=auto` (pytest-xdist's hook; the docstring above says why)."""
    cores = os.cpu_count() or 1
    only_fast = "not slow" in (config.getoption("markexpr") or "")
    return cores if only_fast else min(cores + 1, 5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A real Chromium for the browser tests (tests/browser.py says where it comes from)."""
    from browser import launched_chromium

    yield from launched_chromium()
