"""The builtin claude-code and codex JUDGES against the REAL CLIs from npm (``python -m
skill_eval.run.adapters.<x> --judge``), pointed at the scripted model server (tests/fakemodel.py),
which answers the judge prompt with a verdict JSON. The runs themselves come from a tiny command
adapter, so only the judge is the real CLI. Where the CLIs are not installed (tests/realcli.py),
every test here is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from fakemodel import FakeModel, Script, free_port
from realcli import REPO, SETS, SKILL, Project, claude_yaml, cli

# Answers like an agent that needs the skill to find the total.
ADAPTER = """\
import json, sys
req = json.load(sys.stdin)
out = "Total sales: 42" if req["mode"] == "with_skill" else "I cannot tell the total."
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req.get("skill") else []
print(json.dumps({"output": out, "events": events, "usage": {"input_tokens": 1, "output_tokens": 1}}))
"""

RUBRIC = ["It states the total of the amount column", "It gives the total as a number"]


def judged_evals(check_value: str = "sales") -> dict:
    return {"skill_name": SKILL, "evals": [
        {"id": "sum-sales", "prompt": "Summarise inputs/sales.csv: what are total sales?",
         "files": ["evals/files/sales.csv"], "assertions": RUBRIC,
         "checks": [{"id": "mentions", "type": "contains", "value": check_value}]},
    ]}


def judged_project(root: Path, judge_yaml: str, iterations: int = 1, timeout: int = 60) -> Project:
    adapter = root / "adapter.py"
    root.mkdir(parents=True, exist_ok=True)
    adapter.write_text(ADAPTER)
    return Project(root, f"  command: [{json.dumps(sys.executable)}, {json.dumps(str(adapter))}]\n",
                   iterations=iterations, timeout=timeout, evals=judged_evals(), judge_yaml=judge_yaml,
                   jobs=1)


@pytest.fixture
def model():
    with FakeModel(Script(), lifetime=300) as m:
        yield m


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")


pytestmark = pytest.mark.slow

DOCS = REPO / "docs" / "adapters.md"
DOC_URL = "http://127.0.0.1:8080"
SECTIONS = {"claude": "### Claude Code as a judge", "codex": "### Codex as a judge"}


@pytest.fixture(params=SETS)
def cli_set(request) -> str:
    """Each installed set of CLIs (tests/realcli.py): newest and the pinned oldest."""
    return str(request.param)


def judge_of(name: str, url: str, monkeypatch, which: str = "newest") -> str:
    """The ``judge:`` block of docs/adapters.md for the real CLI ``name``, as written there but
    for its URL (the scripted server's); the CLI (of set ``which``) found on PATH, as a user's
    would be."""
    exe = cli(name, which)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    section = DOCS.read_text().split(SECTIONS[name] + "\n", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert block.startswith("judge:\n") and DOC_URL in block, block
    return block.removeprefix("judge:\n").replace(DOC_URL, url)


def rubric_status(grade: dict) -> set[str]:
    return {r["status"] for r in grade["rubric"]}


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_real_judge_verdicts_usage_and_cache(tmp_path, capsys, model, keys, agent, monkeypatch, cli_set):
    project = judged_project(tmp_path, judge_of(agent, model.url, monkeypatch, cli_set))
    code, out, took = project.run(capsys)
    assert code == 0, out
    grades = project.grades()
    assert len(grades) == 2
    for where, grade in grades.items():
        # the scripted judge passes an answer with the total, fails one without
        assert rubric_status(grade) == ({"passed"} if "with_skill" in where else {"failed"}), grade
        assert grade["judge_cached"] is False
        usage = grade["judge_usage"]
        assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
        # Tokens as the endpoint billed them; no dollars: the claude-code judge asks the Messages
        # API itself (no CLI to price it), Codex reports tokens only.
        assert "cost_usd" not in usage
    judged = len(model.judge_calls())
    assert judged == 2  # one judge call per run: one model request each
    if agent == "claude":  # as claude plugin eval's judge asks: its own system text, no tools, one turn
        for call in model.judge_calls():
            body = call["body"]
            assert not body.get("tools") and [m["role"] for m in body["messages"]] == ["user"]
            assert isinstance(body["system"], str) and "judge" in body["system"]
            assert "Claude Code" not in body["system"] and len(body["system"]) < 400
    print(f"{agent} judge: 2 grades judged in {took:.1f} s", file=sys.__stderr__)

    assert project.run(capsys)[0] == 0  # unchanged: a no-op
    project.evals.write_text(json.dumps(judged_evals(check_value="Total")))  # a check edit: re-grade
    code, out, _ = project.run(capsys)
    assert code == 0, out
    assert len(model.judge_calls()) == judged  # the verdicts came from the store
    grades = project.grades()
    assert all(g["judge_cached"] is True for g in grades.values())
    assert {w: rubric_status(g) for w, g in grades.items()} == {
        w: ({"passed"} if "with_skill" in w else {"failed"}) for w in grades}


@pytest.mark.parametrize("agent, key_name", [("claude", "ANTHROPIC_API_KEY"), ("codex", "CODEX_API_KEY")])
def test_real_judge_bad_key_is_one_clear_error(tmp_path, capsys, keys, agent, key_name, monkeypatch,
                                               cli_set):
    with FakeModel(Script(fault="401"), lifetime=120) as bad:
        project = judged_project(tmp_path, judge_of(agent, bad.url, monkeypatch, cli_set), iterations=2,
                                 timeout=60)
        code, out, took = project.run(capsys)
    assert code == 2
    assert "judge stopped early: judge" in out and "cannot judge" in out
    assert "authentication failed (HTTP 401)" in out
    assert f"check {key_name} (allow-list it in judge: env)" in out
    assert "(3 more grades not judged" in out  # the first fatal call stopped the other three
    assert "timed out" not in out and "exited with status" not in out
    assert took < 30, took
    assert project.responses() != [] and project.grades() == {}  # runs kept, nothing graded
    print(f"{agent} judge bad key: the cause after {took:.1f} s", file=sys.__stderr__)


@pytest.mark.parametrize("agent, causes", [
    ("claude", ("after 3 retries: check ANTHROPIC_BASE_URL (judge: options: base_url)",)),
    ("codex", ("(connection refused) after 1 reconnect wait (", "check judge: options: base_url")),
])
def test_real_judge_server_down_is_one_clear_error(tmp_path, capsys, keys, agent, causes, monkeypatch,
                                                   cli_set):
    url = f"http://127.0.0.1:{free_port()}"
    project = judged_project(tmp_path, judge_of(agent, url, monkeypatch, cli_set), iterations=2, timeout=90)
    code, out, took = project.run(capsys)
    assert code == 2
    assert "judge stopped early" in out and f"could not reach the model API at {url}" in out
    assert "(connection refused)" in out and "(3 more grades not judged" in out
    assert all(cause in out for cause in causes), out
    assert "timed out" not in out
    assert took < 45, took
    print(f"{agent} judge server down: the cause after {took:.1f} s", file=sys.__stderr__)


@pytest.mark.parametrize("agent, product, key_name", [("claude", "Claude Code", "ANTHROPIC_API_KEY"),
                                                       ("codex", "Codex", "CODEX_API_KEY")])
def test_real_judge_no_key_is_one_clear_error(tmp_path, capsys, model, keys, agent, product, key_name,
                                              monkeypatch, cli_set):
    """Refused by the preflight, before any run or judge call: one line saying what to set."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("CODEX_API_KEY")
    project = judged_project(tmp_path, judge_of(agent, model.url, monkeypatch, cli_set), iterations=2)
    code, out, took = project.run(capsys)
    assert code == 2
    [line] = [ln for ln in out.splitlines() if f"judge: no credentials for {product}" in ln]
    assert f"set {key_name}" in line and "planned" not in out
    assert model.judge_calls() == [] and project.responses() == []


def test_real_judge_missing_binary(tmp_path, capsys, model, keys):
    project = judged_project(tmp_path, claude_yaml(tmp_path / "nowhere" / "claude", model.url))
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "judge.options.claude_bin" in out and "is not an executable file" in out
    assert project.responses() == []  # refused before the first run
