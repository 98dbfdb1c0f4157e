"""Test-suite hygiene for 2-core machines (ENGINES.md): no hub calls, derandomised hypothesis."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.set_int_max_str_digits(0)

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "default", deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "slow", deadline=None, derandomize=True, max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("TOOLGRAM_HYPOTHESIS", "default"))


# Every skip in this suite is a missing dependency (an engine, the model, the console script).
# CI installs them all and sets TOOLGRAM_NO_SKIP=1 (.ci/run), so there a skip fails the test
# instead of passing silently: a skipped test proves nothing.
if os.environ.get("TOOLGRAM_NO_SKIP") == "1":
    import pytest  # noqa: E402

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
        outcome = yield
        report = outcome.get_result()
        if report.skipped and not hasattr(report, "wasxfail"):
            report.outcome = "failed"
            report.longrepr = f"skipped with TOOLGRAM_NO_SKIP=1 (a dependency is missing): {report.longrepr}"


#: test files that run in a venv of their own, under their marker, with the module they need there
_OWN_VENV = {"test_vllm_plugin.py": "vllm", "test_sglang.py": "sglang"}


def pytest_ignore_collect(collection_path, config):  # type: ignore[no-untyped-def]
    """tests/test_vllm_plugin.py and tests/test_sglang.py run in their venvs (scripts/vllm_env.sh,
    scripts/sglang_env.sh) under ``-m vllm`` / ``-m sglang``; elsewhere they are not collected at all (so
    neither skipped nor failing on the missing import), unless ``-m`` asks for them."""
    marker = _OWN_VENV.get(collection_path.name)
    if marker is None:
        return None
    import importlib.util

    markexpr = config.getoption("markexpr", "") or ""
    wanted = marker in markexpr and f"not {marker}" not in markexpr
    return None if wanted or importlib.util.find_spec(marker) is not None else True
