"""Trajectories: the real claude and codex CLIs (npm), made by the scripted model server to run
a shell command before answering, report each step; the steps reach the store, benchmark.json
and the review page (in a real browser). Skipped with the reason where the CLIs or Chromium
are missing (tests/realcli.py, tests/test_review_page.py)."""

from __future__ import annotations

import json

import pytest
from fakemodel import FakeModel, Script
from realcli import SKILL, Project, claude_yaml, cli, codex_yaml, skills_loaded
from test_review_page import Watch, browser  # noqa: F401  (the module's Chromium fixture)

SHELL = "ls inputs"


@pytest.fixture
def model():
    with FakeModel(Script(shell_first=SHELL), lifetime=300) as m:
        yield m


def _steps(resp: dict) -> list[dict]:
    return [e for e in resp["events"] if e["type"] in ("tool_call", "command", "stop")]


def _run(tmp_path, capsys, adapter_yaml: str) -> Project:
    project = Project(tmp_path, adapter_yaml, iterations=1)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    return project


@pytest.mark.slow
def test_claude_steps_in_events_benchmark_and_page(tmp_path, capsys, model, monkeypatch, browser):  # noqa: F811
    exe = cli("claude")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    project = _run(tmp_path, capsys, claude_yaml(exe, model.url))
    runs = {meta["variant"]: resp for meta, resp in project.responses()}
    for resp in runs.values():
        steps = _steps(resp)
        bash = next(i for i, e in enumerate(steps) if e.get("name") == "Bash")
        assert SHELL in steps[bash]["input"]
        assert steps[bash + 1] == {"type": "command", "argv": SHELL.split()}
        assert steps[-1] == {"type": "stop", "name": "end_turn"}
        assert resp["usage"]["num_turns"] >= 2
    assert skills_loaded(runs["with_skill"]) == [SKILL] and "42" in runs["with_skill"]["output"]
    assert "42" not in runs["without_skill"]["output"]
    bench = json.loads((project.root / "results" / SKILL / "benchmark.json").read_text())
    assert bench["variants"]["without_skill"]["mean_tool_calls"] == 1  # Bash
    assert bench["variants"]["with_skill"]["mean_tool_calls"] == 1  # Bash (the Skill call is a load)
    assert bench["variants"]["with_skill"]["mean_turns"] >= bench["variants"]["without_skill"]["mean_turns"]
    md = (project.root / "results" / SKILL / "benchmark.md").read_text()
    assert "tool calls/run" in md and "turns/run" in md
    _page_shows_the_steps(browser, project, f"skill {SKILL}")


def _page_shows_the_steps(browser, project: Project, only_with: str | None) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    watch = Watch(page)
    page.goto((project.root / "results" / "index.html").as_uri())
    page.locator("tr.case").first.click()
    lists = page.locator("ol.steps")
    assert lists.count() == 2  # one per arm, beside its output
    for i in range(2):
        text = lists.nth(i).inner_text()
        assert SHELL in text, text
    assert page.locator(".trajectory pre.output").count() == 2
    if only_with:  # the tools and commands only one arm used, per case
        assert only_with in page.locator(".only-with").inner_text()
    watch.clean(page)
    context.close()


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["", "bwrap"])
@pytest.mark.usefixtures("system_tmp")  # codex runs a command here, in its own sandbox
def test_codex_steps_in_events_and_page(tmp_path, capsys, model, monkeypatch, browser, sandbox):  # noqa: F811
    exe = cli("codex")
    if sandbox:
        from test_sandbox import _need_bwrap

        _need_bwrap()
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")
    boxed = f"  sandbox: {sandbox}\n" if sandbox else ""
    project = _run(tmp_path, capsys, codex_yaml(exe, model.url) + boxed)
    # The commands really ran (inside our sandbox too, where Codex's own sandbox must not get in
    # the way): their output went back to the model.
    outputs = [json.dumps(item.get("output")) for r in model.requests if isinstance(r["body"], dict)
               for item in r["body"].get("input") or [] if isinstance(item, dict)
               and str(item.get("type", "")).endswith("_output")]
    assert any("Sum the amount column" in o for o in outputs), outputs
    runs = {meta["variant"]: resp for meta, resp in project.responses()}
    assert "42" in runs["with_skill"]["output"] and "42" not in runs["without_skill"]["output"]
    assert skills_loaded(runs["with_skill"]) == [SKILL] and skills_loaded(runs["without_skill"]) == []
    for resp in runs.values():
        commands = [e["argv"] for e in resp["events"] if e["type"] == "command"]
        assert SHELL.split() in commands, resp["events"]
        assert any(e["type"] == "tool_call" and SHELL in e.get("input", "") for e in resp["events"])
    bench = json.loads((project.root / "results" / SKILL / "benchmark.json").read_text())
    assert bench["variants"]["without_skill"]["mean_tool_calls"] >= 1
    _page_shows_the_steps(browser, project, None)


# ---- without the CLIs --------------------------------------------------------------------------

def test_codex_code_mode_steps_come_from_the_session_log(tmp_path):
    from skill_eval.run.adapters.shared.trajectory import codex_session_steps

    log = tmp_path / "sessions" / "2026" / "rollout-x-T1.jsonl"
    log.parent.mkdir(parents=True)
    js = 'const r = await tools.exec_command({cmd: "cat \\"a b.txt\\""});\ntext(r.output);'
    shell = {"type": "function_call", "name": "shell",
             "arguments": json.dumps({"command": ["bash", "-lc", "ls -la"]})}
    lines = [{"type": "response_item", "payload": {"type": "custom_tool_call", "name": "exec", "input": js}},
             {"type": "response_item", "payload": shell},
             {"type": "event_msg", "payload": {"type": "token_count"}}]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    events = codex_session_steps(str(tmp_path), "T1")
    assert [e["type"] for e in events] == ["tool_call", "command", "tool_call", "command"]
    assert events[1]["argv"] == ["cat", "a b.txt"] and events[3]["argv"] == ["ls", "-la"]
    assert events[0]["name"] == "exec" and "exec_command" in events[0]["input"]
    assert codex_session_steps(str(tmp_path), "other") == []


def test_previews_are_bounded_and_redacted_when_stored():
    from skill_eval.run.adapters.shared.trajectory import PREVIEW_CHARS, tool_events
    from skill_eval.run.protocol import parse_response
    from skill_eval.store.store import redact_response

    secret = "sk-ant-api03-" + "A" * 40
    events = tool_events("Bash", {"command": f"curl -H 'x-api-key: {secret}' " + "x" * 5000}, shell=True)
    assert len(events[0]["input"]) <= PREVIEW_CHARS
    resp = redact_response(parse_response(json.dumps({"output": "", "events": events}).encode(), "t"))
    assert secret not in resp.events[0].input and secret not in " ".join(resp.events[1].argv)
    # the whole input is never cut, and redacted like the rest
    assert resp.events[0].input_json.endswith("x" * 5000 + '"}') and secret not in resp.events[0].input_json


def test_review_data_numbers_steps_in_order():
    from skill_eval.review.render.page.run_data import steps

    got = steps([{"type": "model", "name": "m"},
                 {"type": "tool_call", "name": "Bash", "input": '{"command": "ls"}'},
                 {"type": "command", "argv": ["ls"]}, {"type": "skill_loaded", "name": "pdf"},
                 {"type": "stop", "name": "end_turn"}])
    assert got == [["tool", 'Bash: {"command": "ls"}'], ["command", "ls"], ["skill", "pdf"],
                   ["stop", "end_turn"]]
    assert steps([{"type": "tool_call", "name": "Read", "subagent": True}]) == [["tool", "[subagent] Read"]]
