"""plugin_regex (grade/checks/plugin_text.py): claude plugin eval's regex grader on every target."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.grade.checks import CheckContext, check_problem, run_check
from skill_eval.model.cases import Check

SESSION = "\n".join([
    '{"type":"system","subtype":"init"}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"Looking."},'
    '{"type":"tool_use","name":"Read","input":{"file_path":"a \\"b\\""}}]},"parent_tool_use_id":null}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"Done: aaa"}]}}',
    '{"type":"result","result":"Done: aaa"}',
])


def check(**params) -> Check:
    return Check(id="g", type="plugin_regex", params=params, case_sensitive=True)


def grade(ctx: CheckContext, **params) -> tuple[bool, str]:
    r = run_check(check(**params), ctx, "evals/c/graders/g.md")
    return r.passed, r.evidence


@pytest.fixture
def ctx(tmp_path: Path) -> CheckContext:
    (tmp_path / "session.jsonl").write_text(SESSION)
    files = tmp_path / "files"
    (files / "out").mkdir(parents=True)
    (files / "out" / "report.md").write_text("\ufeff# Report\nTotal 42\n")
    return CheckContext(output="result text", files_dir=files, session_path=tmp_path / "session.jsonl",
                        created=("out/report.md", "notes.txt"))


@pytest.mark.parametrize(("params", "passed"), [
    ({"pattern": "Done"}, True),                                   # last assistant text, from the session
    ({"pattern": "result text"}, False),
    ({"pattern": "done", "flags": "i"}, True),
    ({"pattern": "Done", "match": "not_contains"}, False),
    ({"pattern": "a", "match": "count:3"}, True),                 # counted globally without g
    ({"pattern": "a", "match": "count:3", "flags": "g"}, True),
    ({"pattern": "x*", "match": "count:10"}, True),               # empty matches count, one per position
    ({"pattern": "a", "match": "count:2"}, False),
    ({"pattern": '"type":"assistant"', "target": "trace"}, True),  # JSON.stringify: no spaces
    ({"pattern": '"type": "assistant"', "target": "trace"}, False),
    ({"pattern": '\\\\"b\\\\"', "target": "trace"}, True),          # quotes inside are escaped
    ({"pattern": "^\\{", "flags": "m", "match": "count:4", "target": "trace"}, True),
    ({"pattern": "^notes\\.txt$", "flags": "m", "target": "files"}, True),
    ({"pattern": "report", "target": "files", "match": "count:1"}, True),
    ({"pattern": "^# Report", "file": "out/report.md"}, True),    # the BOM is not text
    ({"pattern": "42$", "file": "out/report.md"}, False),          # $ is the end of input in JavaScript
    ({"pattern": "42$", "flags": "m", "file": "out/report.md"}, True),
    ({"pattern": "x", "file": "missing.md"}, False),
    ({"pattern": "(?i)done"}, False),                              # JavaScript throws: the grader fails
])
def test_plugin_regex_as_plugin_eval_grades(ctx, params, passed):
    assert grade(ctx, **params)[0] is passed


def test_the_evidence_reads_as_plugin_evals_explanations(ctx):
    assert grade(ctx, pattern="a", match="count:2")[1] == "found 3 matches (expected 2)"
    assert grade(ctx, pattern="(?i)done")[1].startswith("claude plugin eval's grader throws")


def test_without_a_session_last_message_is_the_output_and_trace_fails_saying_why():
    plain = CheckContext(output="just this")
    assert grade(plain, pattern="just")[0]
    passed, why = grade(plain, pattern="x", target="trace")
    assert not passed and "kept no session" in why


def test_an_untranslatable_pattern_is_a_load_error_naming_the_grader(ctx):
    assert "no faithful translation" in (check_problem(check(pattern="a", flags="v")) or "")
    with pytest.raises(InvalidInput, match="'g'.*graders/g.md|graders/g.md.*'g'"):
        grade(ctx, pattern="a", flags="v")
    assert check_problem(check(pattern="a", flags="i")) is None


def test_mock_calls_without_mocks_fails_as_plugin_evals_grader_does():
    passed, why = grade(CheckContext(output=""), pattern="x", target="mock_calls", match="not_contains")
    assert not passed and why.startswith("no mock stand-ins were active")
