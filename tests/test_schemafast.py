"""The fast schema filter may only ever be stricter than jsonschema, never laxer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from budgets import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from skill_eval.intake.schemafast import compile_schema
from skill_eval.intake.schemas_io import load_schema, quick_test, schema_problems, validator

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False),
                     st.sampled_from(["", "x", "a b", "regex", "contains", "json_schema", "value", "id"]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["type", "value", "values", "pattern", "id",
                                                          "required", "schema", "path", "file", "x"]),
                                         inner, max_size=4), max_leaves=12)
_checks = st.fixed_dictionaries({"type": st.sampled_from(sorted(load_schema("evals")["$defs"]["check"]
                                                                ["properties"]["type"]["enum"]))},
                                optional={"value": _values, "values": _values, "pattern": _values,
                                          "id": _values, "required": _values, "schema": _values,
                                          "path": _values, "limit": _values})


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_checks, _values), max_size=3))
def test_never_accepts_what_jsonschema_refuses(checks: list[Any]) -> None:
    doc = {"evals": [{"id": "c", "prompt": "p", "checks": checks}]}
    quick = quick_test("evals")
    assert quick is not None
    if quick(doc):
        assert not list(validator("evals").iter_errors(doc)), json.dumps(doc)


def test_accepts_a_plain_valid_eval_set() -> None:
    doc = {"evals": [{"id": "c", "prompt": "p", "checks": [{"type": "contains", "value": "x"},
                                                          {"type": "regex", "pattern": "a+"}]}]}
    assert quick_test("evals")(doc)  # type: ignore[misc]


def test_a_refusal_still_gets_jsonschemas_message() -> None:
    doc = {"evals": [{"id": "c", "prompt": "p", "checks": [{"type": "contains", "valeu": "x"}]}]}
    problems = schema_problems("evals", doc, "e.json")
    assert any("did you mean 'value'" in p.message for p in problems)


def test_unknown_keywords_fall_back_to_jsonschema() -> None:
    assert compile_schema({"type": "string", "format": "email"}) is None
    assert compile_schema({"$ref": "https://example.org/x.json"}) is None


def test_recursive_refs_compile() -> None:
    kids = {"type": "array", "items": {"$ref": "#/$defs/node"}}
    tree = {"$defs": {"node": {"type": "object", "properties": {"kids": kids}}}, "$ref": "#/$defs/node"}
    test = compile_schema(tree)
    assert test is not None
    assert test({"kids": [{"kids": []}]})
    assert not test({"kids": [{"kids": 3}]})


def test_the_suite_schema_compiles_so_a_valid_suite_needs_no_jsonschema() -> None:
    # A cold store has no "valid suite" marker: the suite is checked by this filter alone.
    quick = quick_test("suite")
    assert quick is not None
    assert quick({"suite": "s", "adapter": {"command": ["./a.sh"]},
                  "variants": ["with_skill", "without_skill"]})
    assert not quick({"suite": "s", "variants": ["with_skill", "with_skill"]})


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(st.lists(_scalars | st.lists(_scalars, max_size=2), max_size=4),
       st.dictionaries(st.sampled_from(["a", "b", "c"]), _scalars, max_size=3))
def test_unique_items_and_property_counts_are_never_laxer(items: list[Any], obj: dict[str, Any]) -> None:
    for schema, value in (({"type": "array", "uniqueItems": True}, items),
                          ({"type": "object", "minProperties": 1, "maxProperties": 2}, obj)):
        test = compile_schema(schema)
        assert test is not None
        if test(value):
            assert Draft202012Validator(schema).is_valid(value), (schema, value)
