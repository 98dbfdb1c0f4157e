"""The vLLM plugin stays optional: ``import toolgram`` never imports vLLM, and the extra pins nothing heavy.

The plugin itself is tested against vLLM's real classes in tests/test_vllm_plugin.py (marker ``vllm``,
in the venv of scripts/vllm_env.sh)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_import_toolgram_does_not_import_vllm():
    code = ("import sys, toolgram; toolgram.parse('hermes', 'hi', None); toolgram.compile('hermes', [], "
            "tool_choice='none'); bad = [m for m in sys.modules if m.split('.')[0] in ('vllm', 'torch')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd="/")


def test_vllm_extra_pins_no_heavy_dependency_and_the_marker_is_out_of_default_runs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["optional-dependencies"]["vllm"] == []
    addopts = project["tool"]["pytest"]["ini_options"]["addopts"]
    assert "-m 'not slow and not vllm and not sglang'" in addopts
