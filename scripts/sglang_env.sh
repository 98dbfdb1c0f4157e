#!/usr/bin/env bash
# Build the venv in which toolgram's structural tags are tested through SGLang (tests/test_sglang.py, marker
# `sglang`), the way CI does (.ci/run): SGLang 0.5.23 without its declared dependencies (CUDA kernels, torch
# 2.14), the CPU torch 2.13 from local disk, xgrammar 0.2.7 (SGLang's pin), and only the packages that SGLang's
# OpenAI request model and xgrammar grammar backend import. No GPU is needed for these layers.
#   usage: bash scripts/sglang_env.sh [VENV_DIR]   (default .venv-sglang in the checkout, git-ignored)
#   then:  HF_HUB_OFFLINE=1 VENV_DIR/bin/python -m pytest -m sglang tests/test_sglang.py
name=sglang_env venv="${1:-.venv-sglang}"
source "$(dirname "$0")/_venv.sh"
step sglang
"${pip[@]}" --no-deps sglang==0.5.23 xgrammar==0.2.7
# the imports of sglang.srt.entrypoints.openai.protocol and sglang.srt.constrained.xgrammar_backend (triton:
# its bitmask kernels module is imported, though a CPU test never runs it); gguf: transformers reads the
# SmolLM2 tokenizer from the GGUF
step "sglang's imports"
"${pip[@]}" "openai==2.8.0" "transformers<5.21" apache-tvm-ffi==0.1.11 pydantic msgspec numpy orjson psutil \
  pybase64 requests triton pillow starlette pyzmq IPython aiohttp partial_json_parser gguf
install_toolgram
"$venv/bin/python" -c "import sglang.srt.entrypoints.openai.protocol, sglang.srt.constrained.xgrammar_backend"
echo "sglang_env: $venv ready in $((SECONDS - start)) s"
