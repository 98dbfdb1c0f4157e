"""vLLM 0.33.0's own tool-parser tests, run against toolgram's vLLM parsers (a measurement, not a test).

``python benchmarks/vllm_upstream.py [--sdist PATH] [--files a,b]`` with the vLLM venv's Python
(``.venv-vllm/bin/python``, built by ``scripts/vllm_env.sh``; these tests also import ``ijson``,
``mistral_common`` and ``pycountry``, which that script does not install: ``pip install ijson mistral_common
pycountry``). It unpacks ``tests/tool_parsers`` from vLLM's sdist (downloaded from PyPI when ``--sdist`` is not
given), puts toolgram's parser class in place of vLLM's for each file (see ``SWAPS``), serves every hub tokenizer
as SmolLM2's, and prints each file's passed and failed counts. Failures are expected where toolgram's documented
policies differ from vLLM's (docs/engines.md#use-with-vllm, docs/parsing.md).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

SDIST = ("https://files.pythonhosted.org/packages/f7/25/aa5684e9c59d6fc75f78926b7f15e8d9adc7de2d9e6e7575b80776ad8169/"
         "vllm-0.33.0.tar.gz")
V = "vllm.tool_parsers"
#: test file -> the vLLM class it imports, replaced by toolgram's for the format ("" : it asks the registry)
SWAPS = {
    "test_hermes_tool_parser.py": f"{V}.hermes_tool_parser:Hermes2ProToolParser=hermes",
    "test_llama3_json_tool_parser.py": f"{V}.llama_tool_parser:Llama3JsonToolParser=llama3_json",
    "test_pythonic_tool_parser.py": "",
    "test_llama4_pythonic_tool_parser.py": "",
    "test_qwen3coder_tool_parser.py": f"{V}.qwen3_engine_tool_parser:Qwen3EngineToolParser=qwen3_coder",
    "test_kimi_k2_tool_parser.py": f"{V}.kimi_k2_tool_parser:KimiK2ToolParser=kimi_k2",
    "test_glm47_moe_tool_parser.py": f"{V}.glm47_moe_tool_parser:Glm47MoeModelToolParser=glm4_7",
    "test_minimax_m2_tool_parser.py": f"{V}.minimax_m2_tool_parser:MinimaxM2ToolParser=minimax_m2",
    "test_minimax_m3_tool_parser.py": f"{V}.minimax_m3_tool_parser:MinimaxM3ToolParser=minimax_m3",
    "test_deepseekv31_tool_parser.py": f"{V}.deepseekv31_tool_parser:DeepSeekV31ToolParser=deepseek_v3_1",
    "test_deepseekv3_tool_parser.py": "",
    "test_lfm2_tool_parser.py": "",
    "test_apertus_tool_parser.py": f"{V}.apertus_tool_parser:ApertusToolParser=apertus",
    "test_gigachat3_tool_parser.py": "",
    "test_hy_v3_tool_parser.py": f"{V}.hy_v3_tool_parser:HYV3ToolParser=hy3",
    "test_minicpm5xml_tool_parser.py": f"{V}.minicpm5xml_tool_parser:MiniCPM5XMLToolParser=minicpm5",
    "test_gemma4_tool_parser.py": f"{V}.gemma4_engine_tool_parser:Gemma4EngineToolParser=gemma4",
    "test_granite_tool_parser.py": f"{V}.granite_engine_tool_parser:GraniteEngineToolParser=granite",
}
#: vLLM parser names the tests look up -> toolgram formats
NAMES = ("hermes=hermes,llama3_json=llama3_json,pythonic=pythonic,llama4_pythonic=llama4_pythonic,"
         "qwen3_coder=qwen3_coder,kimi_k2=kimi_k2,glm47=glm4_7,glm45=glm4,minimax_m2=minimax_m2,"
         "deepseek_v31=deepseek_v3_1,lfm2=lfm2,apertus=apertus,gigachat3=gigachat3,hy_v3=hy3,minimax_m3=minimax_m3,"
         "minicpm5=minicpm5,gemma4=gemma4,deepseek_v3=deepseek_r1,granite=granite")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sdist", help="vllm-0.33.0.tar.gz (default: download it)")
    ap.add_argument("--files", default="", help="comma-separated subset of the test files")
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="vllm-upstream-"))
    sdist = pathlib.Path(args.sdist) if args.sdist else work / "vllm-0.33.0.tar.gz"
    if not args.sdist:
        urllib.request.urlretrieve(SDIST, sdist)  # noqa: S310 - a fixed https URL
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if "/tests/tool_parsers/" in m.name]
        tar.extractall(work, members=members, filter="data")
    root = work / "vllm-0.33.0"
    (root / "tests" / "__init__.py").touch()
    here = pathlib.Path(__file__).resolve().parent / "vllm_upstream"
    env = {**os.environ, "PYTHONPATH": f"{here}{os.pathsep}{root}", "TOOLGRAM_NAMES": NAMES, "HF_HUB_OFFLINE": "1"}
    files = [f for f in args.files.split(",") if f] or list(SWAPS)
    totals = [0, 0]
    print(f"{'test file':<40} {'passed':>7} {'failed':>7}")
    for name in files:
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                              "-p", "no:warnings", "--tb=no", "--rootdir", str(root), f"tests/tool_parsers/{name}"],
                             cwd=root, env={**env, "TOOLGRAM_SWAP": SWAPS[name]}, capture_output=True, text=True)
        lines = (out.stdout + out.stderr).strip().splitlines()
        summary = lines[-1] if lines else ""
        counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|error)", summary)}
        if not counts:  # the file did not run (a missing import): say why, count nothing
            print(f"{name:<40} did not run: {summary[:80]}", flush=True)
            continue
        passed, failed = counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0)
        totals[0] += passed
        totals[1] += failed
        print(f"{name:<40} {passed:7d} {failed:7d}", flush=True)
    print(f"{'total':<40} {totals[0]:7d} {totals[1]:7d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
