"""How a fixed mock answers a call (model/mockrules.py): ``expect`` and the substitutions, worded
and rendered as the real ``claude plugin eval`` does (the expected texts were read off its
``aborted`` records and tool results, Claude Code 2.1.332)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skill_eval.model.mockrules import (
    MISSING,
    call_line,
    check_expect,
    js_string,
    lookup,
    render,
    rule_problem,
)

CALL = {"id": "7", "a": {"b": "z"}, "n": 1.5, "flag": True, "arr": [1, "x"]}


@pytest.mark.parametrize(("path", "rule", "reason"), [
    ("id", "/^x/", 'id = "7" does not match /^x/'),
    ("id", 5, 'id = "7" is not "5"'),
    ("id", "8", 'id = "7" is not "8"'),
    ("id", ["a", "b"], 'id = "7" is not one of [a, b]'),
    ("q.r", "string", "q.r = (missing) is not a string"),
    ("a.b", "number", 'a.b = "z" is not a number'),
    ("arr", "object", 'arr = [1,"x"] is not an object'),
])
def test_a_broken_rule_is_worded_as_plugin_eval_words_it(path, rule, reason):
    assert check_expect(((path, rule),), CALL) == f"the model's call violates expect: {reason}"


def test_a_call_that_keeps_every_rule_passes():
    rules = (("a.b", "/^z$/"), ("id", ["7", "9"]), ("n", "number"), ("flag", "boolean"), ("arr", "array"),
             ("a", "object"), ("id", 7), ("id", "/^\\d$/"), ("arr.1", "x"), ("a.b", "/^Z$/i"))
    assert check_expect(rules, CALL) is None


def test_the_first_broken_rule_is_the_reason():
    assert "q = (missing)" in check_expect((("id", "string"), ("q", "string"), ("id", "number")), CALL)


def test_substitutions_are_filled_as_the_real_cli_fills_them():
    body = ("id={{input.id}} b={{input.a.b}} arr={{input.arr}} a={{input.a}} n={{input.n}} "
            "flag={{input.flag}} miss=[{{input.nope}}] f={{file:fixtures/{input.id}.json}}\n")
    assert render(body, CALL, {"fixtures/7.json": '{"seven": 7}'}) == (
        'id=7 b=z arr=[1,"x"] a={"b":"z"} n=1.5 flag=true miss=[] f={"seven": 7}', False)


def test_a_missing_fixture_makes_the_whole_answer_an_error_naming_it():
    assert render("x {{file:fixtures/{input.id}.json}} y", CALL, {}) == (
        "{{file:fixtures/7.json}}: no such fixture", True)
    # A name built from input cannot leave the fixtures folder.
    assert render("{{file:fixtures/{input.id}}}", {"id": "../secret"}, {"secret": "no"})[1] is True


@given(st.dictionaries(st.sampled_from(["id", "x", "y"]),
                       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)))
def test_an_answer_is_filled_once_whatever_the_input_holds(arguments):
    # A value that looks like a substitution is sent as it is, never filled in a second time.
    text, failed = render("<{{input.id}}>", {**arguments, "x": "{{input.y}}"}, {})
    assert not failed and text == "<" + arguments.get("id", "") + ">"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                max_size=3), max_leaves=6))
def test_any_value_keeps_a_literal_rule_made_of_itself(value):
    assert check_expect((("v", [value] if not isinstance(value, list | dict) else "array" if
                          isinstance(value, list) else "object"),), {"v": value}) is None


def test_paths_walk_objects_and_arrays():
    assert lookup(CALL, "a.b") == "z" and lookup(CALL, "arr.0") == 1
    assert lookup(CALL, "arr.5") is MISSING and lookup(CALL, "id.x") is MISSING


def test_values_are_strings_as_javascript_writes_them():
    assert [js_string(v) for v in (1.0, 2.5, True, None, [1, {"a": 1}], "s")] == [
        "1", "2.5", "true", "null", '[1,{"a":1}]', "s"]
    assert json.loads(js_string({"k": [1]})) == {"k": [1]}


@pytest.mark.parametrize(("rule", "why"), [
    ({"a": 1}, "must be a type name"), ([{"a": 1}], "only literals"), ("/x/g", "flags 'g'"),
    ("/(unclosed/", "regex /(unclosed/")])
def test_a_rule_plugin_eval_does_not_know_is_named_at_load(rule, why):
    assert why in rule_problem(rule)


def test_a_recorded_call_is_shown_as_plugin_eval_shows_it_whatever_the_stored_key_order():
    # The store keeps JSON with sorted keys; the mock_calls line has plugin eval's order.
    stored = {"verdict": "tool_error", "output": "é", "isError": True, "input": {"b": 1, "a": 2},
              "tool": "mcp__s__t"}
    assert call_line(stored) == (
        '{"tool":"mcp__s__t","input":{"b":1,"a":2},"output":"é","isError":true,"verdict":"tool_error"}')
    assert call_line({"tool": "t", "input": {}, "output": "", "verdict": "ok", "isError": False}) == (
        '{"tool":"t","input":{},"output":"","verdict":"ok"}')


@pytest.mark.parametrize(("rule", "value", "broken"), [
    ("/^[0-9]+$/", "7\n", True),      # JavaScript's $ is the very end: plugin eval aborts the call
    ("/\\bfoo\\b/", "éfoo", False),  # JavaScript's \b is ASCII: é is no word character there
    ("/\\bfoo\\b/", "xfoo", True),
    ("/^é$/i", "É", False),
])
def test_an_expect_regex_is_matched_as_javascript_matches_it(rule, value, broken):
    # issue 54: Python's semantics let "7\n" through and aborted on "éfoo".
    assert (check_expect((("id", rule),), {"id": value}) is not None) == broken


def test_an_expect_regex_javascript_refuses_is_named_at_load():
    assert "regex /(?i)x/" in (rule_problem("/(?i)x/") or "")
    assert rule_problem("/(?<name>a)\\k<name>/") is None
