"""plugin_tool_used / plugin_tool_order / plugin_file_exists (grade/checks/plugin_tools.py):
claude plugin eval's tool_used, tool_order and file_exists graders."""

from __future__ import annotations

import pytest

from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.grade.checks.plugin_tools import glob_regex
from skill_eval.model.cases import Check
from skill_eval.model.results import Event

COMPLETE = Event("session", "complete")


def call(name: str, input_json: str = "{}", subagent: bool = False) -> Event:
    return Event("tool_call", name, input_json=input_json, subagent=subagent)


RUN = (call("Skill", '{"skill":"csvp:csv-summary"}'), Event("skill_loaded", "csv-summary"),
       call("Read", '{"file_path":"inputs/sales.csv","limit":5}'), call("Glob", '{"pattern":"**/é*.csv"}'),
       call("Agent", '{"subagent_type":"general-purpose","prompt":"go"}'),
       call("Read", '{"file_path":"sub.txt"}', subagent=True), call("mcp__db__query", '{"sql":"select 1"}'),
       COMPLETE)


def grade(type_: str, events=RUN, created=None, **params) -> tuple[bool, str]:
    r = run_check(Check(id="g", type=type_, params=params, case_sensitive=True),
                  CheckContext(output="", events=tuple(events), created=created), "g.md")
    return r.passed, r.evidence


@pytest.mark.parametrize(("params", "passed"), [
    ({"tool": "Read"}, True),
    ({"tool": "Read", "min": 2}, True),                       # the subagent's call counts
    ({"tool": "Read", "min": 3}, False),
    ({"tool": "Read", "max": 1}, False),
    ({"tool": "read"}, False),                                # exact, case-sensitive
    ({"tool": "Gl*"}, False),                                 # not a glob
    ({"tool": "mcp__db__query", "input_match": "select"}, True),
    ({"tool": "Read", "input_match": '"file_path":"[^"]*","limit":5'}, True),  # key order kept
    ({"tool": "Read", "input_match": '"file_path": "'}, False),                # no spaces
    ({"tool": "Skill", "input_match": '"skill"\\s*:\\s*"(?:[\\w-]+:)?csv-summary"'}, True),
    ({"tool": "Write", "min": 0, "max": 0}, True),
    ({"tool": "Agent", "input_match": "general-purpose"}, True),
    ({"tool": "Glob", "input_match": "é"}, True),
])
def test_tool_used(params, passed):
    assert grade("plugin_tool_used", **params)[0] is passed


def test_no_call_at_all_is_a_clean_trace_only_when_the_adapter_reports_the_session():
    assert grade("plugin_tool_used", events=(COMPLETE,), tool="Read", min=0, max=0) == (
        True, "Read called 0x (expected 0..0)")
    passed, why = grade("plugin_tool_used", events=(), tool="Read", min=0, max=0)
    assert not passed and "no command or tool_call events" in why


def test_input_match_needs_the_input():
    passed, why = grade("plugin_tool_used", events=(Event("tool_call", "Read"),), tool="Read",
                        input_match="x")
    assert not passed and "input_json" in why


@pytest.mark.parametrize(("before", "after", "passed"), [
    ("Skill", "Read", True),
    ("Read", "Skill", False),
    ("Read", "Glob", True),
    ({"tool": "Read", "input_match": "sub"}, "Glob", False),  # the first matching call is what counts
    ("Glob", {"tool": "Read", "input_match": "sub"}, True),
    ("Read", "Grep", False),                                 # both must have been called
])
def test_tool_order(before, after, passed):
    assert grade("plugin_tool_order", before=before, after=after)[0] is passed


def test_tool_order_evidence_reads_as_plugin_evals():
    assert grade("plugin_tool_order", before="Read", after="Skill")[1] == "Read@1 does NOT precede Skill@0"
    assert grade("plugin_tool_order", before="Read", after="Grep")[1] == '"after" tool Grep never called'


CREATED = ("notes.txt", "out/report.md", ".hidden/x.json", "a/b/c.md")


@pytest.mark.parametrize(("path", "exists", "passed"), [
    ("notes.txt", True, True),
    ("*.txt", True, True),
    ("*.md", True, False),                 # * stops at /
    ("**/*.md", True, True),               # **/ is any folders, none too
    ("**/report.md", True, True),
    ("out/*", True, True),
    ("*/x.json", True, True),              # dotfiles are not special
    ("a/**", True, True),
    ("notes?txt", True, True),             # ? is any one character
    ("missing.txt", False, True),          # exists: false
    ("*.txt", False, False),
])
def test_file_exists(path, exists, passed):
    assert grade("plugin_file_exists", created=CREATED, path=path, exists=exists)[0] is passed


def test_glob_escapes_regex_characters():
    assert glob_regex("a+b(1).md").search("a+b(1).md") and not glob_regex("a.md").search("aXmd")


def test_a_session_line_that_is_not_json_is_named_in_the_evidence(tmp_path):
    # As an older version's redaction left a Bash call: the escaped quote taken for the secret.
    broken = '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":' \
             '{"command":"API_TOKEN=[REDACTED:api-key]"$(cat t)\\" ./deploy.sh"}}]}}'
    fine = '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{}}]}}'
    session = tmp_path / "session.jsonl"
    session.write_text(f"{fine}\n{broken}\n")
    ctx = CheckContext(output="", events=(COMPLETE,), session_path=session)
    used = run_check(Check(id="g", type="plugin_tool_used", params={"tool": "Bash"}, case_sensitive=True),
                     ctx)
    assert not used.passed and used.evidence.endswith("[session line 2 not JSON: not read]")
    # A check that does not read the messages says nothing of them.
    files = run_check(Check(id="f", type="plugin_file_exists", params={"path": "x"}, case_sensitive=True),
                      ctx)
    assert "session" not in files.evidence


def test_a_glob_that_backtracks_on_a_long_name_fails_at_the_time_limit_instead_of_hanging():
    # issue 54: the glob was a plain Python regex: grading hung on every run with such a name.
    import subprocess
    import sys

    # Under a short limit (as tests/test_checks.py's children): the timed-out search spends it all.
    code = ("import skill_eval.intake.timedmatch as tm; tm.REGEX_TIMEOUT_MS = 300; "
            "import sys; sys.path.insert(0, 'tests'); from test_plugin_tools import grade; "
            "print(grade('plugin_file_exists', created=('a' * 3000 + 'bx',), path='**a' * 16 + '**b'))")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("file_exists grading hung on a backtracking glob")
    assert done.returncode == 0, done.stderr
    assert "(False, " in done.stdout and "timed out" in done.stdout


def test_a_glob_is_matched_as_javascript_matches_it():
    # ? is JavaScript's '.', which stops at a line break; $ is the very end of the name.
    assert not glob_regex("a?b").search("a\nb") and not glob_regex("*.md").search("x.md\n")
