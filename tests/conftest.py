"""Hypothesis profiles: the default test run stays fast; a long run is one flag away.

    .venv/bin/python -m pytest tests/test_properties.py --hypothesis-profile=long
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("fast", max_examples=30, deadline=None, suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("long", max_examples=3000, deadline=None, suppress_health_check=_SLOW_OK, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def in_repo():
    """Run a module's tests from the repository root (export specs name paths relative to it):
    `pytestmark = pytest.mark.usefixtures("in_repo")`."""
    before = os.getcwd()
    os.chdir(REPO)
    yield
    os.chdir(before)
