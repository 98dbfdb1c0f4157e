#!/usr/bin/env bash
# The test command (README "Quick start", command 2): lint, dogfood validate, default test run.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
ruff check .
python scripts/lint_layers.py   # import-linter contracts on the installed layout
toolgram validate grammars/examples/manifest.toml
python -m pytest -q
