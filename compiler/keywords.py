"""The one registry of JSON Schema keywords: what toolgram does with each (docs table: scripts/keywords_table.py).

* ``enforced``: the grammar (every dialect) and the strict parser accept exactly what the keyword allows,
  under toolgram's documented policies (docs/schema.md: member order, ``additionalProperties`` absent).
* ``annotation``: never changes what is valid (``format`` stays one for the formats toolgram does not check).
* ``unsupported``: constrains values but no grammar here enforces it: strict compiling raises a
  :class:`~toolgram.ToolgramError` naming the keyword's path; ``--permissive`` drops it, lists the path under
  ``relaxed`` and compiles a grammar that admits a superset of the schema's language.

Add a keyword here (and nowhere else): :mod:`.schema` reads its sets from this dict, the JSON-Schema-Test-Suite
test picks the suite files of the ``enforced`` keywords, and the docs table is printed from it.
"""

from __future__ import annotations

KEYWORDS: dict[str, str] = {
    # -- annotations
    "description": "annotation", "title": "annotation", "default": "annotation", "examples": "annotation",
    "example": "annotation", "$schema": "annotation", "$id": "annotation", "$comment": "annotation",
    "deprecated": "annotation", "readOnly": "annotation", "writeOnly": "annotation", "format": "enforced",
    "contentMediaType": "annotation", "contentEncoding": "annotation", "$defs": "annotation",
    "definitions": "annotation", "strict": "annotation", "x-order": "annotation", "$anchor": "annotation",
    # -- any value
    "type": "enforced", "enum": "enforced", "const": "enforced", "anyOf": "enforced", "oneOf": "enforced",
    "allOf": "enforced", "$ref": "enforced", "nullable": "enforced", "not": "enforced",
    "if": "enforced", "then": "enforced", "else": "enforced",
    "$dynamicRef": "unsupported",
    # -- objects
    "properties": "enforced", "required": "enforced", "additionalProperties": "enforced",
    "minProperties": "enforced", "maxProperties": "enforced",
    "dependentRequired": "enforced", "dependencies": "enforced",
    "patternProperties": "enforced", "propertyNames": "enforced", "dependentSchemas": "enforced",
    "unevaluatedProperties": "enforced",
    # -- arrays
    "items": "enforced", "prefixItems": "enforced", "minItems": "enforced", "maxItems": "enforced",
    "additionalItems": "enforced", "uniqueItems": "enforced", "contains": "enforced",
    "minContains": "enforced", "maxContains": "enforced", "unevaluatedItems": "enforced",
    # -- strings and numbers
    "minLength": "enforced", "maxLength": "enforced", "pattern": "enforced",
    "minimum": "enforced", "maximum": "enforced", "exclusiveMinimum": "enforced", "exclusiveMaximum": "enforced",
    "multipleOf": "enforced",
}  # fmt: skip

#: Notes on partly enforced keywords (printed in the docs table).
NOTES: dict[str, str] = {
    "minimum": "integers and numbers (decimal range rules; draft 4 boolean exclusives too)",
    "maximum": "integers and numbers (decimal range rules; draft 4 boolean exclusives too)",
    "exclusiveMinimum": "integers and numbers",
    "exclusiveMaximum": "integers and numbers",
    "allOf": "merged: properties merged, required joined, types intersected, bounds tightened, enums filtered; "
             "two `pattern`s both hold; `prefixItems` met position by position; what cannot be merged is refused "
             "with its path "
             "(`--permissive`: the first branch's keyword alone, relaxed)",
    "oneOf": "exact where the branches are disjoint or each overlapping one can be negated (as a condition's "
             "test is); elsewhere read as `anyOf`, as llama.cpp, xgrammar and llguidance do: a value that more "
             "than one branch matches is accepted",
    "$ref": "within the tool's schema: a JSON pointer, an `$anchor`, an `$id` (resolved against the `$id` around "
            "it); another document is not fetched (unsupported); with sibling keywords it means allOf [target, "
            "siblings], except in a document that declares draft 3 to 7 (`$schema`), where it overrides them",
    "not": "over `type`, `const` and `enum` (an untyped value that is no string of some: not in raw XML text), "
           "over `pattern` (the complement of its automaton), and over a test `if` could hold (written as the "
           "values it rejects); any other `not`: unsupported",
    "format": "date-time, date, time, duration, email, hostname, ipv4, ipv6, uuid, uri (RFC grammars); "
              "other formats are annotations; beside a `pattern`: the strings both admit (their automata's "
              "product; refused past 200 states)",
    "multipleOf": "integers and numbers, as decimal spellings (a DFA over the remainder); a multiple whose "
                  "minimized DFA has more than 64 states (e.g. of 97 or 0.039; 128 within bounds): unsupported",
    "additionalItems": "enforced with the array form of `items` (draft 7); beside a schema `items` or none, "
                       "ignored (as JSON Schema ignores it)",
    "unevaluatedProperties": "as `additionalProperties` of the met schema where every in-place part (`allOf` "
                             "branch, `$ref` target) evaluates unconditionally, and in each branch of an "
                             "`anyOf`/`oneOf` whose branches admit no common value; under overlapping branches, "
                             "`if`, `dependentSchemas`: unsupported",
    "unevaluatedItems": "as `items` past the met `prefixItems` where every in-place part evaluates unconditionally, "
                        "and in each branch of disjoint `anyOf`/`oneOf` branches; under overlapping branches, "
                        "`if`/`contains`/draft 7 tuples: unsupported",
    "contains": "`minContains` (default 1) to `maxContains` items match, beside `items` and a `minItems` those "
                "matches reach; with `maxItems`, one match (no `maxContains`); with `prefixItems`, "
                "`uniqueItems: true`, `maxItems` beside more matches, or a larger `minItems` alone: unsupported",
    "minContains": "with `contains`: that many matches at least (see `contains`); without, no constraint",
    "maxContains": "with `contains`: that many matches at most, where the `contains` schema can be negated (as a "
                   "condition's test); otherwise unsupported",
    "uniqueItems": "`true` over items of listed values (`enum`, `const`, `boolean`, `null`): each at most once, in "
                   "any order; where no array can repeat an item (`maxItems` 1, a closed tuple of positions that "
                   "admit no common value) no constraint; over other items: unsupported; `false` is no constraint",
    "if": "written as `anyOf` branches: `then` met with the test, `else` with each part of the test's negation; "
          "the test may use `type`, `const`, `enum`, `not`, `anyOf`, `required`, `properties`, bounds, "
          "lengths, `pattern` and `multipleOf` (a test with `items` ...: unsupported); at most 64 branches; alone "
          "it constrains nothing",
    "then": "with `if` (see `if`); a name it declares is declared in its branch, as an `allOf` branch's",
    "else": "with `if` (see `if`)",
    "dependentSchemas": "each `{p: S}` as `if: {required: [p]}, then: S` (see `if`)",
    "additionalProperties": "an extra key is never a declared name; absent means none when `properties` is present",
    "properties": "members in `properties` order unless `--any-order`; a property whose schema is `false` may not "
                  "appear",
    "propertyNames": "its `pattern`, `minLength`/`maxLength`, `enum`/`const`, and `allOf`/`anyOf`/`not` of "
                     "those (every key, declared ones too); other keywords in it: unsupported",
    "patternProperties": "a key takes the schemas of the patterns it matches (one DFA over names and patterns); "
                         "a pattern no grammar holds: unsupported",
    "required": "a name `properties` does not declare is a member with any value",
    "minProperties": "at most 2,147,483,647 (counted members; past the declared ones, extra members as one count)",
    "maxProperties": "at most 2,147,483,647 (counted members; past the declared ones, extra members as one count)",
    "pattern": "ECMAScript subset (top-level look-arounds included; anchors and word boundaries inside it where "
               "what stands beside them decides them); together with minLength/maxLength: intersected "
               "where exact (one variable part, one character of a class somewhere, or a DFA of at most 64 states, "
               "each run of fixed-length parts read as one mark, whose counted product has at most 4,000 parts: an "
               "email-like pattern of 7 states under maxLength 4096, an AWS ARN under maxLength 2048)",
    "dependentRequired": "member by member; a name `properties` does not declare is a member where it may "
                         "appear as an extra key",
    "dependencies": "the array form, as dependentRequired; the schema form, as dependentSchemas",
}


def with_status(status: str) -> frozenset[str]:
    """The keywords of one status."""
    return frozenset(k for k, v in KEYWORDS.items() if v == status)


#: the prefix of toolgram's own keys, which a merge or a negation writes into a schema (never a user's keyword)
INTERNAL_PREFIX = "$toolgram:"


def annotation(key: str) -> bool:
    """Whether keyword ``key`` never changes what is valid: a registered annotation, or a keyword JSON Schema does
    not define (editor hints such as ``markdownDescription`` and ``deprecationMessage``, OpenAPI's
    ``discriminator``, ``x-...`` extensions), which validators ignore, so two ``allOf`` branches may disagree on
    it.  Not ``format`` (enforced where toolgram checks it) and not toolgram's own ``$toolgram:`` keys."""
    status = KEYWORDS.get(key)
    return status == "annotation" or (status is None and not key.startswith(INTERNAL_PREFIX))
