"""Grader audits (skill_eval/grade/audit.py): checks that pass a useless answer, found before
any adapter call, in validate, status and the tables."""

from __future__ import annotations

import json

import pytest

from skill_eval.grade.audit import audit_case, audit_problems
from skill_eval.model.cases import Case, Check
from tests.suitekit import Kit


def _case(*checks: Check, prompt: str = "Summarise the release.", expected: str = "") -> Case:
    return Case("c1", prompt, expected_output=expected, checks=checks, source="evals.json", line=3)


def test_a_case_whose_only_check_is_not_contains_is_flagged():
    a = audit_case(_case(Check("no-todo", "not_contains", params={"value": "TODO"})))
    assert a.flags == ("passes-on-empty", "passes-on-echo")
    [first, _second] = audit_problems([a.case])
    assert first.severity == "warning" and first.line == 3 and "passes-on-empty" in first.message


def test_a_check_the_answer_must_meet_is_not_flagged():
    a = audit_case(_case(Check("says", "contains", params={"value": "## Changes"}),
                         Check("no-todo", "not_contains", params={"value": "TODO"})))
    assert a.flags == ()


def test_a_check_the_prompt_already_satisfies_passes_on_echo():
    a = audit_case(_case(Check("mentions", "contains", params={"value": "release"})))
    assert a.flags == ("passes-on-echo",)


def test_an_exact_reference_answer_that_fails_its_own_checks():
    answer = "Version 2.0 adds dark mode."
    golden = Check("golden", "golden_output", params={"expected": answer, "normalize": "trim"})
    ok = audit_case(_case(golden, Check("v", "contains", params={"value": "2.0"}), expected=answer))
    assert ok.flags == ()
    bad = audit_case(_case(golden, Check("v", "contains", params={"value": "3.0"}), expected=answer))
    assert bad.flags == ("reference-fails",)
    # A described expectation (no check compares against it) is not an exact answer.
    prose = audit_case(_case(Check("v", "contains", params={"value": "3.0"}), expected="Lists changes."))
    assert prose.flags == ()


@pytest.mark.slow
def test_validate_status_and_the_tables_show_the_flags_without_calling_the_adapter(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2"]})
    data = kit.evals("alpha")
    data["evals"][1]["checks"] = [{"id": "clean", "type": "not_contains", "value": "TODO"}]
    kit.write_evals("alpha", data["evals"])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 0 and "'a2': passes-on-empty" in out + err and "'a1'" not in out + err
    code, out, _err = kit.status()
    assert code == 0 and "audit    alpha/a2: passes-on-empty" in out
    assert kit.status_json()["audits"] == [{"skill": "alpha", "case": "a2",
                                            "flags": ["passes-on-empty", "passes-on-echo"]}]
    assert kit.calls() == 0
    kit.run()
    rows = {c["id"]: c["flags"] for c in json.loads(kit.bench("alpha").read_text())["cases"]}
    assert "passes-on-empty" in rows["a2"] and "passes-on-empty" not in rows["a1"]
