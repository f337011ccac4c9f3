"""Hypothesis profiles: the default test run stays fast; a long run is one flag away.

    .venv/bin/python -m pytest tests/test_properties.py --hypothesis-profile=long
"""

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("fast", max_examples=30, deadline=None, suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("long", max_examples=3000, deadline=None, suppress_health_check=_SLOW_OK, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


REPO = Path(__file__).resolve().parent.parent

# One ATen thread per test process: pytest-xdist runs a worker per core, and each worker's
# OpenMP threads (and those of the exports it forks, which inherit the variable) would contend
# for the same cores. Measured on 2 cores: the decomposition tests took 90 s with torch's
# default threads, 48 s with one (a 16x16 Jacobi SVD: 11 s -> 1.6 s). Before torch's import:
# it reads the variable once.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def in_repo():
    """Run a module's tests from the repository root (export specs name paths relative to it):
    `pytestmark = pytest.mark.usefixtures("in_repo")`."""
    before = os.getcwd()
    os.chdir(REPO)
    yield
    os.chdir(before)


@pytest.hookimpl(wrapper=True)  # marks first: xdist's own hook turns them into node-id suffixes
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`--dist loadgroup`, pyproject's addopts), the tests that share a
    module-scoped fixture (one export, one batch of exports) run on one worker, so the fixture
    runs once; every other test is spread on its own."""
    for item in items:
        group = _shared_fixture_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: getattr(item.module, "__name__", "") not in LONG_FIRST)  # stable: the rest keep their order
    return (yield)


# Modules with tests of 15-45 s each (whole `onnxfix export --fix` loops on transformers models,
# scans, KV caches): scheduled first, so that no worker is still in one when the other has run out
# of tests (they came last in file order: one worker ran them for the last 50 s of a 790 s run
# while the other waited).
LONG_FIRST = frozenset({"test_export_scan", "test_transformers_export_fix", "test_transformers_equivalence",
                        "test_realworld", "test_export_kv_cache", "test_export_traced_len", "test_export_cmd_repairs",
                        "test_export_operator_repairs", "test_packed_sequences"})


def _shared_fixture_group(item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    callspec = getattr(item, "callspec", None)
    shared = []
    for name in info.names_closure:
        definitions = info.name2fixturedefs.get(name)
        if not definitions or definitions[-1].scope not in ("module", "class", "package"):
            continue
        if name == "in_repo":  # a chdir, nothing to share
            continue
        index = callspec.indices.get(name) if callspec is not None else None
        shared.append(name if index is None else f"{name}-{index}")  # no "]": xdist reads "x]@g" as no group
    return f"{item.module.__name__}:{','.join(sorted(shared))}" if shared else None


# ONNXFIX_TIMELINE=<file>: one line per test, "<worker> <start> <end> <nodeid>", to see how the
# suite's tests spread over the xdist workers (an idle worker at the end is wall time lost).
_TIMELINE = os.environ.get("ONNXFIX_TIMELINE")
_STARTS: dict[str, float] = {}


def pytest_configure(config):
    global _CONFIG
    _CONFIG = config


_CONFIG = None


def pytest_runtest_logstart(nodeid, location):
    # xdist's controller hears of each test too, when its report arrives: the workers record
    if _TIMELINE and not _CONFIG.pluginmanager.hasplugin("dsession"):
        _STARTS[nodeid] = time.time()


def pytest_runtest_logfinish(nodeid, location):
    if _TIMELINE and nodeid in _STARTS:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(_TIMELINE, "a", encoding="utf-8") as out:
            out.write(f"{worker} {_STARTS.pop(nodeid):.2f} {time.time():.2f} {nodeid}\n")


@pytest.fixture(autouse=True)
def _torch_seeded_per_test():
    """Every test draws its unseeded random inputs from the same state, whatever ran before it in
    the process: a tolerance checked on `torch.randn(...)` is then the same check in the parallel
    suite, in CI's single-process default-kernel pass and when run alone (an fft draw once crossed
    its bound only in the one order). torch is seeded only where a test already imported it: the
    static path's tests must not import torch."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(0)
    yield
