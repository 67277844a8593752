"""The builtin gemini, opencode and vibe adapters against the REAL CLIs (npm @google/gemini-cli
and opencode-ai, PyPI mistral-vibe), pointed at a scripted model server on 127.0.0.1
(tests/fakeagents.py: Gemini's generateContent/streamGenerateContent, chat completions). No
network, no model. Where a CLI is not installed, its tests are skipped with the reason.

For each: in the with-arm the skill is listed to the model and, once the agent loads it, its
body reaches the model; in the without-arm neither; tokens, tool calls and the load are
recorded; a file planted in the real HOME is never read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeagents import FakeAgents, Script
from realcli import SETS, SKILL, Project, cli, installed_version, skills_loaded

pytestmark = pytest.mark.slow

PLANTED = "PLANTED-IN-THE-REAL-HOME"


@pytest.fixture
def server():
    with FakeAgents(Script(), lifetime=600) as m:
        yield m


@pytest.fixture
def real_home(tmp_path, monkeypatch):
    """A HOME with the user's own settings, memory and skills for every CLI, each holding PLANTED."""
    home = tmp_path / "real-home"
    for rel in (".gemini/GEMINI.md", ".gemini/skills/leak/SKILL.md", ".agents/skills/leak/SKILL.md",
                ".config/opencode/AGENTS.md", ".config/opencode/skills/leak/SKILL.md",
                ".vibe/skills/leak/SKILL.md", ".claude/skills/leak/SKILL.md"):
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: leak\ndescription: {PLANTED} use me always\n---\n{PLANTED}\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def _arms(server: FakeAgents) -> tuple[list[dict], list[dict]]:
    """The model calls that listed the skill, and those that did not."""
    calls = server.model_calls()
    return [c for c in calls if server.lists_skill(c)], [c for c in calls if not server.lists_skill(c)]


def _check_arms(project: Project, server: FakeAgents, loader: str) -> None:
    runs = project.responses()
    assert len(runs) == 2
    for meta, resp in runs:
        tools = [e for e in resp["events"] if e["type"] == "tool_call"]
        if meta["variant"] == "with_skill":
            assert skills_loaded(resp) == [SKILL] and "42" in resp["output"]
            assert loader in [t["name"] for t in tools] and all("input_json" in t for t in tools)
        else:
            assert skills_loaded(resp) == [] and "42" not in resp["output"] and tools == []
        assert {"type": "session", "name": "complete"} in resp["events"]
        usage = resp["usage"]
        assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    listed, unlisted = _arms(server)
    body = server.script.body_marker
    assert listed and unlisted  # the with-arm listed the skill; the without-arm never did
    assert any(body in json.dumps(c["body"]) for c in listed)  # loaded: its body reached the model
    assert not any(body in json.dumps(c["body"]) for c in unlisted)
    assert not any(PLANTED in json.dumps(c.get("body")) for c in server.requests)


# --------------------------------------------------------------------------- gemini


@pytest.fixture(params=SETS)
def gemini(request):
    return cli("gemini", request.param)


def gemini_yaml(exe: Path, url: str, extra: str = "") -> str:
    return (f"  builtin: gemini\n  options: {{gemini_bin: {json.dumps(str(exe))}, "
            f"base_url: {json.dumps(url)}{extra}}}\n")


def test_gemini_suite_run(tmp_path, capsys, gemini, server, real_home, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-not-a-real-key")
    project = Project(tmp_path, gemini_yaml(gemini, server.url), iterations=1, jobs=1, timeout=120)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "activate_skill")
    for _meta, resp in project.responses():
        assert "cost_usd" not in resp["usage"]  # Gemini CLI reports no cost: unknown, never 0
        assert {"type": "model", "name": server.script.model} in resp["events"]
    calls = server.model_calls()
    assert all(c["headers"].get("x-goog-api-key") == "gm-test-not-a-real-key" for c in calls)
    # the default model 'auto' asks its router first: a structured side request
    assert any("generateContent" in c["path"] and "complexity_score" in json.dumps(c["body"]) for c in calls)
    bench = json.loads(next((tmp_path / "results").rglob("benchmark.json")).read_text())
    assert bench["variants"]["with_skill"].get("cost_usd") is None
    from skill_eval.run.adapters import gemini as adapter

    version = adapter.identity_extra({"gemini_bin": str(gemini)})["agent_version"]
    assert version == installed_version(gemini, "gemini")


def test_gemini_without_the_consent_policy_reads_skill_md(tmp_path, capsys, gemini, server, real_home,
                                                          monkeypatch):
    """Gemini CLI's own headless policy withholds activate_skill: the model reads SKILL.md with
    read_file instead, and that read is the load."""
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-not-a-real-key")
    project = Project(tmp_path, gemini_yaml(gemini, server.url, ", allow_activate_skill: false, "
                                            "model: gemini-2.5-flash"), iterations=1, jobs=1, timeout=120)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "read_file")
    listed, _ = _arms(server)
    assert all("activate_skill" not in json.dumps(c["body"].get("tools")) for c in listed)


def test_gemini_in_the_sandbox(tmp_path, capsys, gemini, server, real_home, monkeypatch):
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed (.ci/run installs bubblewrap)")
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-not-a-real-key")
    yaml = gemini_yaml(gemini, server.url, ", model: gemini-2.5-flash") + "  sandbox: bwrap\n"
    project = Project(tmp_path, yaml, iterations=1, jobs=1, timeout=120)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "activate_skill")


def test_gemini_no_key_stops_the_suite(tmp_path, capsys, server, monkeypatch, gemini):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    project = Project(tmp_path, gemini_yaml(gemini, server.url), iterations=1)
    code, out, _ = project.run(capsys)
    assert code == 2 and "GEMINI_API_KEY is not set" in out
    assert server.model_calls() == []


# --------------------------------------------------------------------------- opencode


@pytest.fixture(params=SETS)
def opencode(request):
    import shutil

    if shutil.which("rg") is None:
        pytest.skip("OpenCode's skill tool needs ripgrep (rg) on PATH, else it downloads one: .ci/run "
                    "installs Debian's ripgrep")
    return cli("opencode", request.param)


def opencode_yaml(exe: Path, url: str, extra: str = "") -> str:
    return (f"  builtin: opencode\n  options: {{opencode_bin: {json.dumps(str(exe))}, "
            f"base_url: {json.dumps(url + '/v1')}, model: fake-model-1{extra}}}\n")


def test_opencode_suite_run(tmp_path, capsys, opencode, server, real_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oc-test-not-a-real-key")
    project = Project(tmp_path, opencode_yaml(opencode, server.url), iterations=1, jobs=1, timeout=240)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "skill")
    for _meta, resp in project.responses():
        assert "cost_usd" not in resp["usage"]  # our provider has no price: unknown, not 0
        assert resp["usage"]["num_turns"] >= 1
    calls = server.model_calls()
    assert all(c["path"] == "/v1/chat/completions" for c in calls)
    auth = {{k.lower(): v for k, v in c["headers"].items()}.get("authorization") for c in calls}
    assert auth == {"Bearer sk-oc-test-not-a-real-key"}
    # the workspace holds no config of ours: the provider is in the run's fresh home
    assert not any("opencode.json" in p.name for p in (tmp_path / "results").rglob("*"))
    from skill_eval.run.adapters import opencode as adapter

    version = adapter.identity_extra({"opencode_bin": str(opencode)})["agent_version"]
    assert version == installed_version(opencode, "opencode")


# --------------------------------------------------------------------------- vibe


@pytest.fixture(params=SETS)
def vibe(request):
    from realcli import vibe_cli

    return vibe_cli(request.param)


def vibe_yaml(exe: Path, url: str, extra: str = "") -> str:
    return (f"  builtin: vibe\n  options: {{vibe_bin: {json.dumps(str(exe))}, "
            f"base_url: {json.dumps(url + '/v1')}, model: fake-model-1{extra}}}\n")


def test_vibe_suite_run(tmp_path, capsys, vibe, server, real_home, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "mi-test-not-a-real-key")
    project = Project(tmp_path, vibe_yaml(vibe, server.url), iterations=1, jobs=1, timeout=240)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "skill")
    for _meta, resp in project.responses():
        assert "cost_usd" not in resp["usage"]  # our provider has no price: unknown, not 0
        assert resp["usage"]["num_turns"] >= 1
    calls = server.model_calls()
    assert calls and all(c["path"] == "/v1/chat/completions" for c in calls)
    auth = {{k.lower(): v for k, v in c["headers"].items()}.get("authorization") for c in calls}
    assert auth == {"Bearer mi-test-not-a-real-key"}
    from skill_eval.run.adapters import vibe as adapter

    version = adapter.identity_extra({"vibe_bin": str(vibe)})["agent_version"]
    assert version.startswith("vibe ")


def _sandboxed(tmp_path, capsys, server, yaml: str) -> None:
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed (.ci/run installs bubblewrap)")
    project = Project(tmp_path, yaml + "  sandbox: bwrap\n", iterations=1, jobs=1, timeout=240)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    _check_arms(project, server, "skill")


def test_opencode_in_the_sandbox(tmp_path, capsys, opencode, server, real_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oc-test-not-a-real-key")
    _sandboxed(tmp_path, capsys, server, opencode_yaml(opencode, server.url))


def test_vibe_in_the_sandbox(tmp_path, capsys, vibe, server, real_home, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "mi-test-not-a-real-key")
    _sandboxed(tmp_path, capsys, server, vibe_yaml(vibe, server.url))


def test_vibe_at_its_turn_limit_is_unscorable_not_an_error(tmp_path, capsys, vibe, server, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "mi-test-not-a-real-key")
    yaml = vibe_yaml(vibe, server.url, ', args: ["--max-turns", "1"]')
    project = Project(tmp_path, yaml, iterations=1, jobs=1, timeout=240)
    code, out, _ = project.run(capsys)
    assert "error" not in out.lower() or "0 errors" in out.lower(), out
    arms = {meta["variant"]: resp for meta, resp in project.responses()}
    assert {"type": "stop", "name": "turn_limit"} in arms["with_skill"]["events"]  # it loaded, then the limit
    assert any(e["type"] == "unscorable" for e in arms["with_skill"]["events"])
    assert not any(e["type"] == "unscorable" for e in arms["without_skill"]["events"])
