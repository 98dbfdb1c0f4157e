"""Real-world schemas (SchemaStore's CI and tool configuration files, vendored in tests/data/real-world-schemas),
each as one tool's ``parameters``: what strict compiling does with each (compiles, or refuses one keyword with its
path), that ``--permissive`` compiles them all to a grammar xgrammar loads, that the strict parser exists wherever
the grammar compiles, and that valid and invalid instances (``jsonschema``: the oracle) are told apart by xgrammar
and the strict parser alike.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from strategies import engine_results, load_in_engine, tool
from toolgram.compiler.bundle import compile
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import UnsupportedSchemaError

DATA = Path(__file__).parent / "data" / "real-world-schemas"
#: name -> None (compiles strictly) or the path fragment of the one keyword strict compiling refuses
STRICT: dict[str, str | None] = {
    "cloudbuild": None,  # allOf branches disagreed on markdownDescription (an annotation)
    "codecov": None,
    "github-workflows": None,
    "gitlab-ci": "uniqueItems",  # relaxed, its Earley strict parser took 33 s to build (Lark's FOLLOW sweeps)
    "meltano": None,  # a cron pattern whose Lark regex passes the caps: written as its automaton
    "readthedocs": None,  # if contains (a uv install) then maxItems 1: not contains, and contains with maxItems
    # two propertyNames meet in an allOf; refused where an anyOf branch's unanchored pattern meets maxLength 1024
    "mergify": r"propertyNames\.anyOf\[1\]\.pattern",
    "woodpecker-ci": None,  # a type list in a bounded array: Lark's build expanded every sequence of choices
}
#: name -> (valid instances, invalid instances)
INSTANCES: dict[str, tuple[list[Any], list[Any]]] = {
    "cloudbuild": ([{"steps": [{"name": "gcr.io/cloud-builders/docker", "args": ["build", "-t", "img", "."]}],
                     "timeout": "600s"}],
                   [{"steps": "docker build"}, {"steps": [{"name": 5}]}]),
    "meltano": ([{"version": 1, "schedules": [{"name": "daily", "job": "load", "interval": "0 0 * * *"}]},
                 {"schedules": [{"name": "d", "job": "j", "interval": "@daily"}]}],
                [{"schedules": [{"name": "daily", "job": "load", "interval": "0 0 * *"}]}, {"version": "one"}]),
    "codecov": ([{"coverage": {"precision": 2, "round": "down"}}], [{"coverage": {"precision": "two"}}]),
    "github-workflows": ([{"on": "push", "jobs": {"build": {"runs-on": "ubuntu-latest", "steps": [{"run": "make"}]}}}],
                         [{"on": "push"}, {"on": "push", "jobs": {"build": {"steps": [{"run": "make"}]}}}]),
    "readthedocs": ([{"version": 2, "build": {"os": "ubuntu-22.04", "tools": {"python": "3.12"}},
                      "python": {"install": [{"requirements": "docs/requirements.txt"}]}},
                     {"version": 2, "build": {"os": "ubuntu-22.04", "tools": {"python": "3.12"}},
                      "python": {"install": [{"method": "uv", "command": "sync"}]}}],
                    [{"version": 2, "build": {"os": "ubuntu-22.04", "tools": {"python": "3.12"}},
                      "python": {"install": [{"method": "uv", "command": "sync"}, {"requirements": "r.txt"}]}},
                     {"version": 3}]),
    "woodpecker-ci": ([{"steps": {"build": {"image": "golang:1.22", "commands": ["go build", "go test"]}}},
                       {"steps": [{"name": "test", "image": "golang", "commands": "go test"}],
                        "matrix": {"GO_VERSION": ["1.21", "1.22"], "SHARD": [1, 2, True]}}],
                      [{"steps": {"build": {"image": 5}}}, {"steps": [{"image": "go"}], "matrix": {"GO": [None]}},
                       {"steps": [{"image": "go"}], "matrix": {"SHARD": list(range(11))}}]),
}

#: name -> valid instances the permissive strict parser reads (schemas strict compiling refuses)
PERMISSIVE_INSTANCES: dict[str, list[Any]] = {
    "gitlab-ci": [{"stages": ["build", "test"], "build-job": {"script": ["make"], "stage": "build"}},
                  {"build-job": {"script": "make", "tags": ["linux"]}}],
    "mergify": [{"pull_request_rules": [{"name": "merge", "conditions": ["label=ready"],
                                         "actions": {"merge": {"method": "squash"}}}]}],
}


@cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def test_every_vendored_schema_is_listed() -> None:
    assert sorted(p.stem for p in DATA.glob("*.json")) == sorted(STRICT)


@pytest.mark.parametrize("name", STRICT)
def test_strict_compiles_or_refuses_with_the_path(name: str) -> None:
    tools = [tool("f", _schema(name))]
    refused = STRICT[name]
    if refused is not None:
        with pytest.raises(UnsupportedSchemaError, match=rf"\$\[0\]\.function\.parameters\..*{refused}"):
            compile("hermes", tools, dialect="ebnf", tool_choice="required")
        return
    bundle = compile("hermes", tools, dialect="ebnf", tool_choice="required")
    assert bundle.relaxed == []
    load_in_engine(bundle)
    # the strict parser exists for the same tools: it builds and reads text without a call as content
    assert parse_strict("hermes", "no call here", tools, tool_choice="auto")["content"] == "no call here"


@pytest.mark.parametrize("name", STRICT)
def test_permissive_compiles_every_one(name: str) -> None:
    bundle = compile("hermes", [tool("f", _schema(name))], dialect="ebnf", tool_choice="required", permissive=True)
    assert all(r["path"].startswith("$[0].function.parameters") for r in bundle.relaxed)
    assert bool(bundle.relaxed) == (STRICT[name] is not None)
    load_in_engine(bundle)


@pytest.mark.parametrize("name", INSTANCES)
def test_valid_and_invalid_instances(name: str) -> None:
    schema = _schema(name)
    oracle = jsonschema.validators.validator_for(schema)(schema)
    tools = [tool("f", schema)]
    bundle = compile("hermes", tools, dialect="ebnf", tool_choice="required")
    good, bad = INSTANCES[name]
    for instance, ok in [(g, True) for g in good] + [(b, False) for b in bad]:
        assert oracle.is_valid(instance) == ok, instance
        text = render_calls("hermes", [("f", instance)])
        assert {accepted for accepted, _ in engine_results(bundle, text).values()} == {ok}, instance
        calls = parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"]
        assert bool(calls) == ok, instance
        if ok:
            assert json.loads(calls[0]["function"]["arguments"]) == instance


@pytest.mark.parametrize("name", PERMISSIVE_INSTANCES)
def test_the_permissive_strict_parser_reads_valid_instances(name: str) -> None:
    """Where strict compiling refuses a keyword, the relaxed grammar's strict parser (Earley here) is built and
    reads valid instances back equal."""
    schema = _schema(name)
    oracle = jsonschema.validators.validator_for(schema)(schema)
    tools = [tool("f", schema)]
    for instance in PERMISSIVE_INSTANCES[name]:
        assert oracle.is_valid(instance), instance
        text = render_calls("hermes", [("f", instance)])
        calls = parse_strict("hermes", text, tools, tool_choice="required", permissive=True)["tool_calls"]
        assert [json.loads(c["function"]["arguments"]) for c in calls] == [instance]
