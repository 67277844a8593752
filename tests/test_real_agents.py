"""The builtin claude-code and codex adapters against the REAL CLIs from npm, pointed at a
scripted model server on 127.0.0.1 (tests/fakemodel.py). No network, no model. Every test that
runs a CLI runs against each installed set (newest and the pinned oldest, tests/realcli.py);
where a set is not installed, its tests are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from fakemodel import FakeModel, Script, free_port
from realcli import (
    PLUGIN_EVAL_SETS,
    SETS,
    SKILL,
    Project,
    claude_yaml,
    cli,
    codex_yaml,
    installed_version,
    skills_loaded,
)

from skill_eval.cli.main import main

pytestmark = pytest.mark.slow


@pytest.fixture
def model():
    with FakeModel(Script(), lifetime=300) as m:
        yield m


@pytest.fixture(params=SETS)
def claude(request):
    return cli("claude", request.param)


@pytest.fixture(params=SETS)
def codex_exe(request):
    return cli("codex", request.param)


def benchmark_cases(project: Project) -> dict[str, dict]:
    found = sorted((project.root / "results").rglob("benchmark.json"))
    assert found, "no benchmark.json written"
    return {c["id"]: c for c in json.loads(found[0].read_text())["cases"]}


# --------------------------------------------------------------------------- claude-code


@pytest.fixture
def claude_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)


def test_claude_code_suite_run(tmp_path, capsys, model, claude_env, claude):
    exe = claude
    project = Project(tmp_path, claude_yaml(exe, model.url), iterations=1)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = project.responses()
    assert len(runs) == 2  # one run an arm: repeating it through the same CLI shows nothing more
    for meta, resp in runs:
        if meta["variant"] == "with_skill":
            assert skills_loaded(resp) == [SKILL] and "42" in resp["output"]
        else:
            assert skills_loaded(resp) == [] and "42" not in resp["output"]
        assert resp["usage"]["input_tokens"] > 0 and resp["usage"]["output_tokens"] > 0
        assert resp["usage"]["cost_usd"] > 0
        # the served model, from result.modelUsage
        requested = model.model_calls("/v1/messages")[0]["body"]["model"]
        assert {"type": "model", "name": requested} in resp["events"]
    # what the real CLI sent: only model calls, the key in x-api-key, the Skill tool offered
    calls = model.model_calls("/v1/messages")
    # besides: 2.1.245 checks the endpoint first with a bodiless HEAD /api/hello
    others = {(r["method"], r["path"]) for r in model.requests if r not in calls}
    assert calls and others <= {("HEAD", "/api/hello")}, others
    assert all(c["headers"].get("x-api-key") == "sk-ant-test-not-a-real-key" for c in calls)
    assert all("Skill" in {t["name"] for t in c["body"]["tools"]} for c in calls)
    from skill_eval.run.adapters import claude_code

    version = claude_code.identity_extra({"claude_bin": str(exe)})["agent_version"]
    assert version.startswith(installed_version(exe, "claude"))
    # tokens as billed: what the server saw, over every run
    assert sum(r["usage"]["input_tokens"] for _, r in runs) == model.served("messages")["input_tokens"]


def test_claude_code_tokens_include_requests_outside_the_main_turns(tmp_path, capsys, claude_env, claude):
    """The scripted model starts a subagent: its requests are billed but are not main-turn usage.
    The reported input tokens are what the server saw (Claude Code's modelUsage total)."""
    with FakeModel(Script(subagent=True), lifetime=300) as m:
        project = Project(tmp_path, claude_yaml(claude, m.url), iterations=1, jobs=1)
        code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = project.responses()
    served = m.served("messages")
    assert served["requests"] > 2 * len(runs)  # the subagent's requests are there
    assert sum(r["usage"]["input_tokens"] for _, r in runs) == served["input_tokens"]
    assert sum(r["usage"]["output_tokens"] for _, r in runs) == served["output_tokens"]
    for _, r in runs:
        split = [k for k in r["usage"] if k.startswith("model/") and k.endswith("/input_tokens")]
        assert sum(r["usage"][k] for k in split) == r["usage"]["input_tokens"]


def run_with_bundled_skill(tmp_path, capsys, yaml_of, skill: str, api: str, disable: bool):
    """A suite whose scripted model loads the CLI's own ``skill`` in the without-skill arm:
    (the case row of benchmark.json, the model requests whose skill listing named ``skill``)."""
    extra = ", disable_bundled_skills: true" if disable else ""
    with FakeModel(Script(bundled_skill=skill), lifetime=300) as m:
        project = Project(tmp_path, yaml_of(m.url, extra), iterations=1)
        code, out, _ = project.run(capsys)
        offered = [c for c in m.model_calls(api) if m.lists_skill(c["body"], skill)]
    assert code in (0, 1), out
    if disable:  # nothing but the skill under test loaded, in either arm
        assert all(skills_loaded(r) in ([], [SKILL]) for _, r in project.responses())
    return benchmark_cases(project)["sum-sales"], offered


@pytest.mark.parametrize("disable", [False, True], ids=["bundled-on", "bundled-off"])
def test_claude_code_baseline_loading_a_bundled_skill_is_flagged(tmp_path, capsys, claude_env, claude,
                                                                 disable):
    """A without-skill run whose agent loads the CLI's bundled simplify: the case gets the
    other-skills flag naming it and its arm; with disable_bundled_skills it is not offered."""
    def yaml_of(url: str, extra: str) -> str:
        return claude_yaml(claude, url, extra)

    case, offered = run_with_bundled_skill(tmp_path, capsys, yaml_of, "simplify", "/v1/messages", disable)
    if disable:
        assert offered == [] and "other-skills" not in case["flags"]
    else:
        assert "other-skills" in case["flags"]
        assert case["other_skills"] == {"with_skill": [], "without_skill": ["simplify"]}


def test_claude_code_bad_key_stops_the_suite_with_the_cause(tmp_path, capsys, claude_env, claude):
    exe = claude
    with FakeModel(Script(fault="401"), lifetime=120) as bad:
        project = Project(tmp_path, claude_yaml(exe, bad.url), iterations=3, timeout=30, jobs=1)
        code, out, took = project.run(capsys)
    assert code == 2
    assert "authentication failed (HTTP 401)" in out and "ANTHROPIC_API_KEY" in out
    assert "stopped early" in out and "timed out" not in out
    assert took < 30  # the cause, not the suite's timeout (Claude alone would retry ~3 min)
    assert project.responses() == []


def test_claude_code_server_down_gives_up_early_with_the_cause(tmp_path, capsys, claude_env, claude):
    exe = claude
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, claude_yaml(exe, url), iterations=2, timeout=60, jobs=1)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url} (connection refused) after 3 retries" in out
    assert "check ANTHROPIC_BASE_URL" in out and "stopped early" in out and "timed out" not in out
    assert took < 30, took  # Claude alone retries ~3 minutes
    print(f"claude server down: the cause after {took:.1f} s", file=sys.__stderr__)


def test_claude_code_server_down_honours_its_own_retry_limit(tmp_path, capsys, claude_env, monkeypatch,
                                                              claude):
    exe = claude
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "1")
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, claude_yaml(exe, url), iterations=1, timeout=60, jobs=1)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url} (Connection refused" in out and "after 1 retry" in out
    assert took < 30, took


def test_claude_code_no_key(tmp_path, capsys, model, claude_env, monkeypatch, claude):
    """Refused by the preflight, before any run: one line saying what to set."""
    exe = claude
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    project = Project(tmp_path, claude_yaml(exe, model.url), iterations=2, timeout=30, jobs=1)
    code, out, took = project.run(capsys)
    assert code == 2
    [line] = [ln for ln in out.splitlines() if "no credentials for Claude Code" in ln]
    assert "set ANTHROPIC_API_KEY" in line and "planned" not in out
    assert model.model_calls("/v1/messages") == [] and project.responses() == []


def test_claude_code_missing_binary(tmp_path, capsys, model, claude_env):
    project = Project(tmp_path, claude_yaml(tmp_path / "nowhere" / "claude", model.url), timeout=30)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "adapter.options.claude_bin" in out and "is not an executable file" in out


# --------------------------------------------------------------------------- codex


@pytest.fixture
def codex_env(monkeypatch):
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")


def test_codex_suite_run(tmp_path, capsys, model, codex_env, codex_exe):
    exe = codex_exe
    project = Project(tmp_path, codex_yaml(exe, model.url), iterations=1)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = project.responses()
    assert len(runs) == 2  # one run an arm: repeating it through the same CLI shows nothing more
    for meta, resp in runs:
        if meta["variant"] == "with_skill":
            assert skills_loaded(resp) == [SKILL] and "42" in resp["output"]
        else:
            assert skills_loaded(resp) == [] and "42" not in resp["output"]
        usage = resp["usage"]
        assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
        assert "cache_write_input_tokens" in usage  # every usage field is kept
        assert any(e["type"] == "model" for e in resp["events"])  # from Codex's session log
    calls = model.model_calls("/v1/responses")
    auth = [{k.lower(): v for k, v in c["headers"].items()}.get("authorization") for c in calls]
    assert auth and set(auth) == {"Bearer sk-test-not-a-real-key"}
    # the skill is listed once (installed once), and only in with-skill runs
    listings = [json.dumps(c["body"]).count(f"- {SKILL}: Summarise CSV files") for c in calls]
    assert set(listings) <= {0, 1} and 1 in listings
    from skill_eval.run.adapters import codex

    version = codex.identity_extra({"codex_bin": str(exe)})["agent_version"]
    assert version.endswith(installed_version(exe, "codex"))
    # Codex's turn totals are every request of the turn: what the server saw
    assert sum(r["usage"]["input_tokens"] for _, r in runs) == model.served("responses")["input_tokens"]


@pytest.mark.parametrize("disable", [False, True], ids=["bundled-on", "bundled-off"])
def test_codex_baseline_loading_a_bundled_skill_is_flagged(tmp_path, capsys, codex_env, codex_exe, disable):
    """A without-skill run whose agent reads Codex's own skill-creator SKILL.md (in code mode, so
    only the session log shows it): other-skills names it; disable_bundled_skills hides it."""
    def yaml_of(url: str, extra: str) -> str:
        return codex_yaml(codex_exe, url, extra)

    case, offered = run_with_bundled_skill(tmp_path, capsys, yaml_of, "skill-creator", "/v1/responses",
                                           disable)
    if disable:
        assert offered == [] and "other-skills" not in case["flags"]
    else:
        assert case["other_skills"] == {"with_skill": [], "without_skill": ["skill-creator"]}


def test_codex_bad_key_stops_the_suite_with_the_cause(tmp_path, capsys, codex_env, codex_exe):
    exe = codex_exe
    with FakeModel(Script(fault="401"), lifetime=120) as bad:
        project = Project(tmp_path, codex_yaml(exe, bad.url), iterations=3, timeout=30, jobs=1)
        code, out, took = project.run(capsys)
    assert code == 2
    assert "authentication failed (HTTP 401)" in out and "CODEX_API_KEY" in out
    assert "stopped early" in out and "timed out" not in out
    assert took < 30


def test_codex_server_down_gives_up_early_with_the_cause(tmp_path, capsys, codex_env, codex_exe):
    exe = codex_exe
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, codex_yaml(exe, url), iterations=2, timeout=90, jobs=1)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url}/v1 (connection refused) after 1 reconnect wait (" in out
    assert "check adapter: options: base_url" in out and "stopped early" in out and "timed out" not in out
    assert took < 45, took  # Codex alone waits for the network forever
    print(f"codex server down: the cause after {took:.1f} s", file=sys.__stderr__)


def test_codex_no_key(tmp_path, capsys, model, monkeypatch, codex_exe):
    exe = codex_exe
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    project = Project(tmp_path, codex_yaml(exe, model.url), iterations=2, timeout=30, jobs=1)
    code, out, _ = project.run(capsys)
    assert code == 2
    [line] = [ln for ln in out.splitlines() if "no credentials for Codex" in ln]
    assert "set CODEX_API_KEY" in line and "planned" not in out
    assert model.model_calls("/v1/responses") == []


def test_codex_missing_binary(tmp_path, capsys, model, codex_env):
    project = Project(tmp_path, codex_yaml(tmp_path / "nowhere" / "codex", model.url), timeout=30)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "adapter.options.codex_bin" in out and "is not an executable file" in out


# --------------------------------------------------------------------------- where people install it


def native_install(claude_exe: Path) -> Path:
    """A HOME with Claude Code laid out as its native installer lays it out:
    ``~/.local/bin/claude`` -> ``~/.local/share/claude/versions/<v>``, the single executable.
    The npm package's ``bin/claude.exe`` is that same executable (a native build since 2.1.2xx),
    linked in (copied across file systems). The HOME is made beside the npm tree, outside every
    system folder and outside /tmp (the sandbox's own /tmp would hide it for another reason)."""
    real = claude_exe.resolve()
    version = installed_version(claude_exe, "claude")
    home = Path(tempfile.mkdtemp(prefix="native-home-", dir=real.parents[4]))
    versions = home / ".local" / "share" / "claude" / "versions"
    versions.mkdir(parents=True)
    try:
        os.link(real, versions / str(version))
    except OSError:
        shutil.copy2(real, versions / str(version))
    (home / ".local" / "bin").mkdir()
    link = home / ".local" / "bin" / "claude"
    link.symlink_to(Path("..") / "share" / "claude" / "versions" / str(version))
    return home


NATIVE_CASE = {
    "case.yaml": 'schema_version: "1.1"\nname: look\nruns: 1\nexecution:\n  max_turns: 6\n'
                 "  allowed_tools: [Read, Glob, Skill, Bash]\n",
    "prompt.md": "Sum inputs/sales.csv.\n",
    "graders/answer.md": "---\ntype: regex\npattern: 'Total sales: 42'\n---\n",
    "graders/ran-bash.md": "---\ntype: tool_used\ntool: Bash\n---\n",
}


@pytest.fixture(params=PLUGIN_EVAL_SETS)
def claude_with_plugin_eval(request):
    return cli("claude", request.param)


def test_a_natively_installed_claude_runs_sandboxed_from_path_and_agrees_with_plugin_eval(
        tmp_path, capsys, monkeypatch, claude_with_plugin_eval):
    """No claude_bin: the CLI is found on PATH under HOME (~/.local/bin), its version file is
    mounted in the sandbox a Bash grant turns on, and nothing else of HOME is: a file planted
    there cannot be read by the agent's Bash. Verdicts agree with `claude plugin eval`'s."""
    from plugineval_oracle import plugin_eval, stored_verdicts, write_plugin

    if not (shutil.which("bwrap") and shutil.which("socat")):
        pytest.skip("the Bash sandbox needs bubblewrap and socat (.ci/run installs them)")
    home = native_install(claude_with_plugin_eval)
    try:
        secret = home / ".local" / "share" / "claude" / "planted.txt"
        secret.write_text("PLANTED-SECRET\n")
        (home / "planted.txt").write_text("PLANTED-SECRET\n")
        look = f"cat {secret} {home / 'planted.txt'}; ls {home}"
        script = Script(steps=({"name": "Bash", "input": {"command": look, "description": "Look"}},))
        plugin = write_plugin(tmp_path / "plug", {"look": NATIVE_CASE})
        link = home / ".local" / "bin" / "claude"
        theirs = plugin_eval(link, plugin, script, "--allow-tools", "Bash")
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("PATH", f"{link.parent}:/usr/local/bin:/usr/bin:/bin")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        work = tmp_path / "se"
        work.mkdir()
        suite = work / "suite.yaml"
        with FakeModel(script, lifetime=300) as fm:
            suite.write_text(
                f"suite: native\nskills_dir: {json.dumps(str(plugin / 'skills'))}\nskills: ['*']\n"
                f"adapter:\n  builtin: claude-code\n  options: {{base_url: {json.dumps(fm.url)}}}\n"
                "  env: [CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC]\n"
                "iterations: 1\njobs: 1\ntimeout_seconds: 120\nstore: .store\nresults: results\n")
            code = main(["validate", str(suite)])
            assert code == 0, capsys.readouterr()
            code = main(["run", str(suite), "--allow-tools", "Bash"])
            out = capsys.readouterr()
            bash_results = [json.dumps(r["body"]) for r in fm.model_calls("/v1/messages")
                            if "tool_result" in json.dumps(r["body"])]
        assert code in (0, 1), out.out + out.err
        assert "not found" not in out.err
        metas = [json.loads(p.read_text()) for p in (work / ".store").glob("runs/*/*/meta.json")]
        assert len(metas) == 2 and all(m["limits"]["sandbox"]["kind"] == "bwrap" for m in metas)
        assert bash_results and all("PLANTED-SECRET" not in b for b in bash_results)
        assert any("No such file or directory" in b for b in bash_results)
        assert stored_verdicts(work / "results") == theirs.verdicts
        assert ("look", "with", 1, "answer", True) in theirs.verdicts
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_runs_that_never_reach_the_model_are_unscorable_and_stop_the_suite(tmp_path, capsys, model,
                                                                            claude_env):
    """Claude Code 2.1.245 answers an unknown slash command itself (0 turns, no tokens): those
    runs are unscorable, never graded; two cases so, for one cause, stop the suite."""
    exe = cli("claude", "oldest")
    evals = {"skill_name": SKILL, "evals": [
        {"id": f"cmd-{i}", "prompt": f"/nosuch:command go {i}", "checks": [{"id": "any", "type": "contains",
                                                                         "value": "Unknown"}]}
        for i in range(3)]}
    project = Project(tmp_path, claude_yaml(exe, model.url), iterations=1, jobs=1, evals=evals)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "stopped early: every run so far never reached the model, for one cause: no_model_request" in out
    assert "Unknown command: /nosuch:command" in out and "more runs not started" in out
    assert model.model_calls("/v1/messages") == [] and project.responses() == []
    assert not list((tmp_path / "results").rglob("grading.json"))
    bench = benchmark_cases(project)
    assert all(c[arm]["pass_rate"] is None for c in bench.values() for arm in ("with_skill", "without_skill"))
