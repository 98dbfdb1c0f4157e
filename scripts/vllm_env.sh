#!/usr/bin/env bash
# Build the venv in which toolgram's vLLM plugin is tested (tests/test_vllm_plugin.py, marker `vllm`),
# the way CI does (.ci/run): vLLM 0.33.0 without its declared dependencies (CUDA kernels, torch 2.14),
# the CPU torch 2.13 from local disk, and only the pure-Python packages that vLLM's tool-parser, reasoning,
# request and xgrammar-backend modules import. No GPU is needed for these layers.
#   usage: bash scripts/vllm_env.sh [VENV_DIR]   (default .venv-vllm in the checkout, git-ignored)
#   then:  VENV_DIR/bin/python -m pytest -m vllm tests/test_vllm_plugin.py
name=vllm_env venv="${1:-.venv-vllm}"
source "$(dirname "$0")/_venv.sh"
step vllm
"${pip[@]}" --no-deps vllm==0.33.0
# vLLM's pure-Python imports for: vllm.tool_parsers, vllm.reasoning, vllm.parser,
# vllm.entrypoints.openai.chat_completion.protocol, vllm.v1.structured_output.backend_xgrammar
# xgrammar without its declared deps (they pull triton, ~200 MB, which the CPU layers never import)
step "vllm's imports"
"${pip[@]}" --no-deps xgrammar==0.2.8
"${pip[@]}" "transformers<5.21" openai "fastapi<0.137" oss-harmony "mcp<3" anthropic uvloop \
  apache-tvm-ffi==0.1.11 numpy gguf pydantic msgspec cbor2 psutil pyzmq aiohttp pillow pybase64 cachetools \
  prometheus_client cloudpickle py-cpuinfo partial_json_parser "llguidance>=1.7,<1.8"
install_toolgram
HF_HUB_OFFLINE=1 "$venv/bin/python" - <<'PY'
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
ToolParserManager.import_tool_parser("toolgram.vllm")
assert ToolParserManager.get_tool_parser("toolgram_hermes")
PY
echo "vllm_env: $venv ready in $((SECONDS - start)) s"
