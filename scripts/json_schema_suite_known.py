"""Regenerate tests/json_schema_suite_known.json: toolgram's deviations from the JSON-Schema-Test-Suite.

A ratchet for tests/test_json_schema_suite.py: a schema that does not compile, or a verdict (every engine and
the strict parser agreeing) that is not the suite's under toolgram's documented reading.  Run after a change
that fixes deviations, and check the diff only removes lines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import test_json_schema_suite as suite  # noqa: E402


def main() -> None:
    known = {}
    for name, description, schema, tests in [*suite.CLAIMED, *suite.CLAIMED_7]:
        deviations, _ = suite.run_case("hermes", schema, tests, ("lark", "ebnf"), draft=name.split("/")[0])
        if deviations:
            known[f"{name}:{description}"] = deviations
    for case in [*suite.UNCLAIMED, *suite.UNCLAIMED_7]:
        problems = suite.unclaimed_problems(case)
        if problems:
            known[f"{case[0]}:{case[1]}"] = problems
    out = ROOT / "tests" / "json_schema_suite_known.json"
    out.write_text(json.dumps(known, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    total = len(suite.CLAIMED) + len(suite.CLAIMED_7) + len(suite.UNCLAIMED) + len(suite.UNCLAIMED_7)
    print(f"{sum(map(len, known.values()))} deviations in {len(known)} of {total} cases")


if __name__ == "__main__":
    main()
