"""A three-agent suite against the REAL CLIs (claude-code, codex and gemini), each pointed at a
local scripted server: the servers' script makes the skill help on Claude Code and Codex (with
it they answer the total) and do nothing on Gemini CLI (it answers the same either way). The
summary, summary.json, benchmark.json and the page say so per agent; editing one agent's
options re-runs only its runs."""

from __future__ import annotations

import json

import pytest
from fakeagents import FakeAgents
from fakeagents import Script as GeminiScript
from fakemodel import FakeModel, Script
from realcli import SKILL, Project, agent_entry, claude_yaml, cli, codex_yaml

pytestmark = pytest.mark.slow

CASES = 7  # paired cases enough for p (Holm over three cells) <= 0.05 where the skill helps


def _evals() -> dict:
    return {"skill_name": SKILL, "evals": [
        {"id": f"sum-{i}", "prompt": f"Summarise inputs/sales.csv (region {i}): what are total sales?",
         "files": ["evals/files/sales.csv"], "checks": [{"type": "contains", "value": "42"}]}
        for i in range(CASES)]}


def test_three_agents_one_suite(tmp_path, capsys, monkeypatch):
    claude, codex, gemini = cli("claude"), cli("codex"), cli("gemini")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-not-a-real-key")
    flat = GeminiScript(answer_with_skill="I cannot tell the total.")
    with FakeModel(Script(), lifetime=900) as model, FakeAgents(flat, lifetime=900) as server:
        gemini_entry = (f"  builtin: gemini\n  options: {{gemini_bin: {json.dumps(str(gemini))}, "
                        f"base_url: {json.dumps(server.url)}, model: gemini-2.5-flash}}\n")
        agents = ("agents:\n" + agent_entry("claude-code", claude_yaml(claude, model.url))
                  + agent_entry("codex", codex_yaml(codex, model.url))
                  + agent_entry("gemini", gemini_entry))
        project = Project(tmp_path, agents, iterations=1, jobs=2, timeout=180, evals=_evals())
        code, out, _ = project.run(capsys)
        assert code in (0, 1), out
        results = tmp_path / "results"
        benches = {b["agent"]["name"]: b for b in
                   (json.loads(p.read_text()) for p in (results / SKILL).glob("*/benchmark.json"))}
        assert sorted(benches) == ["claude-code", "codex", "gemini"]
        for name in ("claude-code", "codex"):
            assert benches[name]["lift"]["pass_rate"] == 1.0 and benches[name]["lift"]["p_holm"] <= 0.05
        assert benches["gemini"]["lift"]["pass_rate"] == 0.0
        rows = json.loads((results / "summary.json").read_text())["agents"]
        effects = {r["agent"]: r["effect"] for r in rows}
        assert effects == {"claude-code": "helps", "codex": "helps", "gemini": "none"}
        summary = (results / "summary.md").read_text()
        table = summary[summary.index("## Lift per agent"):]
        assert "| gemini " in table and "no clear effect" in table and "the skill helps" in table
        page = (results / "index.html").read_text()
        assert "Lift per agent" in page and page.count('class="effect-helps"') == 2
        # gemini listed and loaded the skill in its with-arm (the script just does not use it)
        loads = {(m["adapter"], m["variant"]): json.dumps(r) for m, r in project.responses()}
        assert '"skill_loaded"' in loads[("gemini", "with_skill")]

        # Editing one agent's options re-runs its runs only.
        before_model, before_gemini = len(model.requests), len(server.requests)
        project.suite.write_text(project.suite.read_text().replace(
            "model: gemini-2.5-flash}", "model: gemini-2.5-flash, approval_mode: default}"))
        code, out, _ = project.run(capsys)
        assert code in (0, 1), out
        assert len(model.requests) == before_model  # neither claude-code nor codex ran again
        assert len(server.requests) > before_gemini
