#!/usr/bin/env bash
# Install toolgram as a wheel (not -e) into a fresh venv and run the CLI from outside the checkout.
# Catches what an editable install hides: modules missing from the package list, data files
# looked up relative to the repository.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python -m pip wheel -q --no-deps -w "$work/dist" "$repo"
python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/dist/toolgram-*.whl
cd "$work"   # nothing of the checkout is importable from here
tg="$work/venv/bin/toolgram"
examples="$("$work/venv/bin/python" -c 'import pathlib, toolgram.grammars as g; print(pathlib.Path(g.__file__).parent / "examples")')"
case "$examples" in "$repo"*) echo "wheel check: toolgram was imported from the checkout ($examples)"; exit 1;; esac
"$tg" --help > /dev/null
"$tg" generate --help > /dev/null
"$tg" formats > /dev/null
"$tg" compile hermes --tools "$examples/tools.json" > /dev/null
echo '<tool_call>
{"name": "get_weather", "arguments": {"location": "Paris"}}
</tool_call>' | "$tg" parse hermes --tools "$examples/tools.json" > /dev/null
# engines other than Lark are not installed in this venv: they are reported skipped, never passed
"$tg" validate "$examples/manifest.toml" > "$work/validate.txt"
tail -n 1 "$work/validate.txt"
echo "wheel check: ok"
