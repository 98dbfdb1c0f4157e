"""Shared test data for the compiler suites: fixed schemas, hypothesis strategies, engine checks.

- :data:`SCHEMAS`: named tool lists for the option matrix (flat, nested, enums, arrays, optional
  fields, no parameters, ``strict: false``, plus one with every feature).
- :func:`json_schemas` / :func:`tool_lists`: random parameter schemas (flat, nested objects, enums,
  arrays with min/maxItems, optional fields, integer min/max, strings with maxLength, anyOf, type
  lists, ``$defs``/``$ref``, no-parameter tools, ``strict: false`` tools).
- :func:`valid_values`: random values VALID for a schema (checked with ``jsonschema`` by the tests).
- :func:`engine_results`: one text checked by every engine of a bundle's dialect.

Restriction on generated strings: they use ASCII letters, digits, space and ``-_.,:/`` only,
never start or end with whitespace and are non-empty. Characters such as ``<``, ``\\``, quotes,
newlines and non-ASCII text are in scope for the grammars but out of scope here: raw XML values
containing ``</parameter>``-like text or leading/trailing newlines (qwen3_coder strips one
newline on each side) cannot round-trip unambiguously, and the escaping cases are covered by
the value converter's own tests. Property names are lowercase identifiers (every format can
carry them as keyword arguments / XML attribute text).
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import strategies as st
from toolgram.compiler.bundle import Bundle, lazy_patterns
from toolgram.compiler.ir import Alt, Dispatch, Expr, Rep, Seq, Token
from toolgram.grammars import FORMATS, get_format

# --------------------------------------------------------------------------------------------
# Test-time budget for tests parametrized over every format (the default run must stay under ~9 min
# on 2 cores; each such test multiplies by the number of formats: with 29 formats and 6 formats' worth
# of examples per test the default run took 13.5 min).

#: True under ``TOOLGRAM_HYPOTHESIS=slow`` (the slow suite: ``TOOLGRAM_HYPOTHESIS=slow pytest -m slow``).
SLOW = os.environ.get("TOOLGRAM_HYPOTHESIS") == "slow"
#: The default run gives a test over every format the examples this many formats would have at the full
#: count, shared by all formats (see :func:`per_format`).
BUDGET_FORMATS = 3


def per_format(full: int, minimum: int = 20) -> int:
    """Hypothesis examples per format for a test parametrized over every format.

    ``full`` under the slow profile. In the default run ``full * BUDGET_FORMATS`` examples are shared by
    all formats, never below ``minimum`` (nor above ``full``): every format keeps its default-run
    property check, with fewer examples once there are many formats; each such test has a
    ``slow``-marked twin with the full count."""
    if SLOW:
        return full
    return max(min(full, minimum), min(full, full * BUDGET_FORMATS // max(len(FORMATS), 1)))


def slow_per_format(full: int, minimum: int = 50) -> int:
    """Hypothesis examples per format for a slow twin: the slow suite shares the count three formats
    would have (``full`` each) among all formats, never below ``minimum`` (nor above ``full``), so it
    keeps fitting CI's budget as formats are added (six shares took 12 of the slow suite's 55 minutes
    with 35 formats)."""
    return max(min(full, minimum), min(full, full * 3 // max(len(FORMATS), 1)))


def format_cases(cases: Sequence[Any], k: int = 1, formats: Sequence[str] | None = None,
                 every: int = 1) -> list[Any]:
    """``pytest.param(fmt, *case)`` for every format and case: ``k`` cases per format in the default run,
    the others marked ``slow``.

    Formats take turns (by position), so every case still runs in each default run (on some format)
    and every format runs ``k`` of them; the slow suite runs the remaining (format, case) pairs.
    ``every=n``: only every n-th format runs cases by default (for extra checks on top of one that
    every format runs by default), the others run all theirs in the slow suite."""
    import pytest

    out = []
    for i, fmt in enumerate(FORMATS if formats is None else formats):
        turn, mine = divmod(i, every)
        keep = {(turn * k + j) % len(cases) for j in range(k)} if mine == 0 else set()
        for n, case in enumerate(cases):
            values = case if isinstance(case, tuple) else (case,)
            out.append(pytest.param(fmt, *values, marks=() if n in keep else (pytest.mark.slow,)))
    return out


# --------------------------------------------------------------------------------------------
# Fixed schemas for the matrix and the reject tests


def tool(name: str, parameters: dict[str, Any] | None = None, strict: bool | None = None) -> dict[str, Any]:
    """An OpenAI tools-array entry."""
    fn: dict[str, Any] = {"name": name, "description": f"{name} tool"}
    if parameters is not None:
        fn["parameters"] = parameters
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


WEATHER = tool("get_weather", {
    "type": "object",
    "properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["location"],
})
TIME = tool("get_time", {
    "type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"],
})

SCHEMAS: dict[str, list[dict[str, Any]]] = {
    "flat": [tool("add", {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "number"}, "label": {"type": "string"},
                       "flag": {"type": "boolean"}},
        "required": ["a", "b", "label", "flag"],
    })],
    "nested": [tool("book", {
        "type": "object",
        "properties": {"guest": {"type": "object", "properties": {
            "name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120}},
            "required": ["name"]}},
        "required": ["guest"],
    })],
    "enums": [tool("paint", {
        "type": "object",
        "properties": {"color": {"enum": ["red", "green", "blue"]}, "level": {"enum": [1, 2, 3, None]}},
        "required": ["color", "level"],
    })],
    "arrays": [tool("sum", {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 4},
                       "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}}},
        "required": ["xs"],
    })],
    "optional": [WEATHER, TIME],
    "no_params": [tool("ping"), tool("noop", {"type": "object", "properties": {}})],
    "not_strict": [tool("free", {"type": "object", "properties": {"q": {"type": "string"}},
                                 "required": ["q"]}, strict=False), TIME],
}

# --------------------------------------------------------------------------------------------
# Random schemas

SAFE_CHARS = string.ascii_letters + string.digits + " -_.,:/"
_NAMES = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6)


def safe_strings(max_size: int = 12) -> st.SearchStrategy[str]:
    """Non-empty strings of :data:`SAFE_CHARS` without leading/trailing whitespace."""
    return st.text(alphabet=SAFE_CHARS, min_size=1, max_size=max_size).map(str.strip).filter(bool)


def _leaf_schemas(bounded_strings: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    ints = st.one_of(
        st.just({"type": "integer"}),
        st.tuples(st.integers(-50, 50), st.integers(0, 100)).map(
            lambda t: {"type": "integer", "minimum": t[0], "maximum": t[0] + t[1]}),
        st.integers(-10, 10).map(lambda m: {"type": "integer", "minimum": m}),
    )
    strs = st.one_of(
        st.just({"type": "string"}),
        st.integers(1, 10).map(lambda n: {"type": "string", "maxLength": n}),
    ) if bounded_strings else st.just({"type": "string"})
    enums = st.lists(st.one_of(safe_strings(8), st.integers(-5, 5), st.booleans(), st.none()),
                     min_size=1, max_size=4, unique_by=lambda v: (type(v).__name__, v)).map(lambda v: {"enum": v})
    return st.one_of(
        ints, strs, enums,
        st.sampled_from([{"type": "number"}, {"type": "boolean"}, {"type": "null"},
                         {"type": ["string", "null"]}, {"type": ["integer", "boolean"]},
                         {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                         {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                         {"const": "fixed"}]),
    )


def _objects(children: st.SearchStrategy[dict[str, Any]], max_props: int = 4) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        names = draw(st.lists(_NAMES, max_size=max_props, unique=True))
        props = {n: draw(children) for n in names}
        required = [n for n in names if draw(st.booleans())]
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        return out

    return build()


def _arrays(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array", "items": draw(children)}
        lo = draw(st.none() | st.integers(0, 2))
        hi = draw(st.none() | st.integers(0, 3))
        if lo is not None:
            out["minItems"] = lo
        if hi is not None:
            out["maxItems"] = max(hi, lo or 0)
        return out

    return build()


def value_schemas(bounded_strings: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas of argument values, nested up to a few levels (``maxLength`` strings unless told not)."""
    return st.recursive(_leaf_schemas(bounded_strings),
                        lambda kids: st.one_of(_objects(kids, 3), _arrays(kids)), max_leaves=6)


@st.composite
def json_schemas(draw: st.DrawFn, bounded_strings: bool = True) -> dict[str, Any]:
    """A tool's ``parameters``: an object schema, sometimes with ``$defs`` reached by ``$ref``."""
    params = draw(_objects(value_schemas(bounded_strings)))
    if params["properties"] and draw(st.booleans()):
        key = next(iter(params["properties"]))
        params["$defs"] = {"shared": params["properties"][key]}
        params["properties"][key] = {"$ref": "#/$defs/shared"}
    return params


@st.composite
def tool_lists(draw: st.DrawFn, bounded_strings: bool = True) -> list[dict[str, Any]]:
    """1-3 tools: schema'd ones, sometimes a no-parameter tool and a ``strict: false`` one."""
    n = draw(st.integers(1, 3))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["schema", "schema", "schema", "none", "loose"]))
        if kind == "none":
            out.append(tool(f"t{i}"))
        elif kind == "loose":
            out.append(tool(f"t{i}", draw(json_schemas(bounded_strings)), strict=False))
        else:
            out.append(tool(f"t{i}", draw(json_schemas(bounded_strings))))
    return out


# --------------------------------------------------------------------------------------------
# Random valid values


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return _resolve(node, root)


_LOOSE_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | safe_strings(),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_NAMES, kids, max_size=3), max_leaves=5)


def valid_values(schema: dict[str, Any], root: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    """Values valid for ``schema`` (the subset generated by :func:`json_schemas`)."""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of(*[valid_values(s, root) for s in schema["anyOf"]])
    t = schema.get("type")
    if isinstance(t, list):
        return st.one_of(*[valid_values({**schema, "type": one}, root) for one in t])
    if t == "integer":
        return st.integers(schema.get("minimum", -10**6), schema.get("maximum", 10**6))
    if t == "number":
        return st.one_of(st.integers(-1000, 1000),
                         st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3)))
    if t == "string":
        return safe_strings(schema.get("maxLength", 12))
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", max(lo, 3))
        return st.lists(valid_values(schema.get("items", {}), root), min_size=lo, max_size=hi)
    if t == "object":
        return object_values(schema, root)
    return _LOOSE_JSON


def object_values(schema: dict[str, Any], root: dict[str, Any] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Objects in ``properties`` order, with every required key and a random subset of the others."""
    root = root if root is not None else schema
    props = schema.get("properties", {})
    required = set(schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out = {}
        for k, sub in props.items():
            if k in required or draw(st.booleans()):
                out[k] = draw(valid_values(sub, root))
        return out

    return build()


@st.composite
def calls_for(draw: st.DrawFn, tools: list[dict[str, Any]], max_calls: int = 3,
              max_loose_keys: int = 3) -> list[tuple[str, dict[str, Any]]]:
    """1..max_calls calls to random tools of ``tools`` with valid arguments (``strict: false`` tools
    get any object of at most ``max_loose_keys`` keys)."""
    out = []
    for _ in range(draw(st.integers(1, max_calls))):
        fn = draw(st.sampled_from(tools))["function"]
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        if fn.get("strict") is False:
            args = draw(st.dictionaries(_NAMES, _LOOSE_JSON, max_size=max_loose_keys))
        else:
            args = draw(object_values(params))
        out.append((fn["name"], args))
    return out


def mutations(text: str, names: list[str]) -> list[str]:
    """``text`` and strings near it: cut, a character dropped or added, doubled, a call renamed."""
    out = [text, text + text, text + "x", " " + text]
    for k in {len(text) // 4, len(text) // 2, 3 * len(text) // 4, len(text) - 1}:
        out += [text[:k], text[:k] + text[k + 1:], text[:k] + "}" + text[k:], text[:k] + "<" + text[k:]]
    for a in names:
        for b in names:
            if a != b and a in text:
                out.append(text.replace(a, b, 1))
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------------------------
# The grammar IR


def ir_nodes(e: Expr) -> Iterator[Expr]:
    """Every node of ``e``, ``e`` first: through Tokens, both parts of a Dispatch; Refs are not followed."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, Token):
            stack.append(x.expr)
        elif isinstance(x, (Seq, Alt)):
            stack.extend(reversed(x.items))
        elif isinstance(x, Rep):
            stack.append(x.item)
        elif isinstance(x, Dispatch):
            stack += [x.lowered, x.then]


# --------------------------------------------------------------------------------------------
# Engines


def _representable(text: str) -> bool:
    """Whether SmolLM2's vocabulary spells ``text`` (its byte-level BPE has no token for some bytes, e.g. the
    lead byte 0xF1 of U+40000..U+7FFFF, which tokenizing drops)."""
    from toolgram.engines import llamacpp_engine
    llm = llamacpp_engine._llama()
    return llm.detokenize(llamacpp_engine.tokenize(text), special=True) == text.encode("utf-8")


def engine_results(bundle: Bundle, text: str) -> dict[str, tuple[bool, int | None]]:
    """``text`` checked by every Python-side engine of ``bundle.dialect``.

    GBNF in ``auto`` is lazy: llama.cpp gets the format's trigger patterns (bundle.lazy_patterns).
    """
    assert bundle.grammar is not None
    if bundle.dialect == "ebnf":
        from toolgram.engines import xgrammar_engine
        return {"xgrammar": xgrammar_engine.accepts_ebnf(bundle.grammar, text)}
    if bundle.dialect == "structural-tag":
        from toolgram.engines import xgrammar_engine
        return {"xgrammar": xgrammar_engine.accepts_structural_tag(bundle.grammar, text)}
    if bundle.dialect == "gbnf":
        from toolgram.engines import llamacpp_engine
        if not _representable(text):
            return {}  # llama.cpp is checked through SmolLM2's tokens: this text has none (asserted by callers)
        pats = lazy_patterns(get_format(bundle.format)) if bundle.lazy else None
        return {"llama.cpp": llamacpp_engine.accepts_gbnf(bundle.grammar, text, lazy_patterns=pats)}
    from toolgram.engines import lark_engine
    return {"lark": lark_engine.accepts_lark(bundle.grammar, text, bundle.lark_parser or "lalr")}


def load_in_engine(bundle: Bundle) -> None:
    """Load ``bundle.grammar`` in its (Python-side) engine; raises ``GrammarRejected``."""
    assert bundle.grammar is not None
    if bundle.dialect == "ebnf":
        from toolgram.engines import xgrammar_engine
        xgrammar_engine.compile_ebnf(bundle.grammar)
    elif bundle.dialect == "structural-tag":
        from toolgram.engines import xgrammar_engine
        xgrammar_engine.compile_structural_tag(bundle.grammar)
    elif bundle.dialect == "gbnf":
        from toolgram.engines import llamacpp_engine
        llamacpp_engine.check_gbnf(bundle.grammar)
    else:
        from toolgram.engines import lark_engine
        lark_engine.build(bundle.grammar, bundle.lark_parser or "lalr")


def raw_values_round_trip(tools: list[dict[str, Any]], calls: list[tuple[str, dict[str, Any]]], call: Any) -> bool:
    """A string that reads as another type of a union (``"12"`` for ``anyOf[string, integer]``) is
    read as that type by design (SPEC section 1); such draws cannot round-trip. Nested elements
    (minimax_m3) are typed by the schema too: an untyped ``[]`` is written as no text, read as ``""``."""
    from toolgram.grammars.syntax import xml_elements
    from toolgram.parsing.element_values import convert_element_value
    from toolgram.parsing.values import convert_xml_value

    by_name = {t["function"]["name"]: t["function"] for t in tools}
    for name, args in calls:
        fn = by_name[name]
        props = (fn.get("parameters") or {}).get("properties", {})
        loose = fn.get("strict") is False
        for k, v in args.items():
            # the raw text the renderer writes (strings as is, other values as JSON), typed back the
            # way the parsers type it: a loose tool's schema is a hint (None drawn for a string
            # parameter of a strict:false tool reads back as the text "null")
            if call.values == "elements":
                got, _ = convert_element_value(xml_elements.write(v, call.ns), props.get(k),
                                               ns=call.ns, root=fn.get("parameters"), hint=loose)
                if got != v or type(got) is not type(v):
                    return False
                continue
            raw = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            got, _ = convert_xml_value(raw, props.get(k), root=fn.get("parameters"), hint=loose)
            if got != v or type(got) is not type(v):
                return False
    return True
