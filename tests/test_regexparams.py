"""The parameters validate compiles and judges as Python regexes are the ones the eval-set schema
marks with "x-regex": "python" (model/evalsets/regexparams)."""

from __future__ import annotations

import skill_eval.grade.checks  # noqa: F401 - registers the check types (the loaded schema's)
from skill_eval.intake.schemafast import compile_schema
from skill_eval.intake.schemas_io import quick_test, schema_problems
from skill_eval.model.cases import Check
from skill_eval.model.evalsets.regexparams import RegexParam, regex_params
from skill_eval.model.evalsets.validate import check_patterns


def test_the_builtins_regex_parameters_are_the_python_patterns_of_the_trace_and_text_checks() -> None:
    marked = {name: params for name, params in regex_params().items() if params}
    assert marked == {
        "regex": (RegexParam("pattern", many=False),),
        "not_regex": (RegexParam("pattern", many=False),),
        "command_ran": (RegexParam("pattern", many=False),),
        "command_not_ran": (RegexParam("pattern", many=False),),
        "command_order": (RegexParam("patterns", many=True),),
        "tool_call": (RegexParam("pattern", many=False), RegexParam("order", many=True)),
    }


def test_javascript_patterns_are_left_to_their_check_type() -> None:
    # plugin eval's graders compile their patterns as JavaScript (grade/checks/shared/patterns).
    check = Check("p", "plugin_regex", params={"pattern": "(?<=a)(a+)+$"})
    assert check_patterns(check) == []
    used = Check("t", "plugin_tool_used", params={"tool": "Read", "input_match": "(a+)+"})
    assert check_patterns(used) == []


def test_every_pattern_of_a_check_is_found_in_the_schema_s_order() -> None:
    check = Check("t", "tool_call", params={"order": ["Read", "Edit"], "pattern": "bash", "tool": "x"})
    assert check_patterns(check) == [("pattern", "bash"), ("order", "Read"), ("order", "Edit")]
    # not a list: the schema reports it
    assert check_patterns(Check("t", "tool_call", params={"order": "Read"})) == []
    assert check_patterns(Check("x", "no_such_type", params={"pattern": "a"})) == []


def test_the_mark_is_an_annotation_that_refuses_nothing() -> None:
    # Not JSON Schema's "format": "regex": with the format checker on, jsonschema would test it
    # with Python's re and refuse what the regex engine grading uses accepts.
    checks = [{"type": "regex", "pattern": r"\p{L}+"}, {"type": "command_order", "patterns": ["(?<n>x)"]}]
    doc = {"evals": [{"id": "c", "prompt": "p", "checks": checks}]}
    assert schema_problems("evals", doc, "e.json") == []
    assert quick_test("evals")(doc)  # type: ignore[misc]
    assert compile_schema({"type": "string", "x-regex": "python"}) is not None


def test_the_map_is_built_once_per_schema() -> None:
    assert regex_params() is regex_params()
