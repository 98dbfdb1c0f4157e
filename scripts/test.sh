#!/usr/bin/env bash
# The test command (README "Quick start", command 2): lint, dogfood validate, default test run.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
ruff check .
python scripts/lint_layers.py   # import-linter contracts on the installed layout
toolgram validate grammars/examples/manifest.toml
# two workers (CI's 2 cores), each file on one worker: README blocks and session servers keep their order
python -m pytest -q -n 2 --dist loadfile
