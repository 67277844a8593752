"""The builtin claude-code and codex adapters against the REAL CLIs from npm, pointed at a
scripted model server on 127.0.0.1 (tests/fakemodel.py). No network, no model. Where the CLIs
are not installed (see tests/realcli.py), every test here is skipped with the reason.
"""

from __future__ import annotations

import json
import sys

import pytest
from fakemodel import FakeModel, Script, free_port
from realcli import (
    CLAUDE_VERSION,
    CODEX_VERSION,
    SKILL,
    Project,
    claude_yaml,
    cli,
    codex_yaml,
    skills_loaded,
)


@pytest.fixture
def model():
    with FakeModel(Script(), lifetime=300) as m:
        yield m


# --------------------------------------------------------------------------- claude-code


@pytest.fixture
def claude_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)


def test_claude_code_suite_run(tmp_path, capsys, model, claude_env):
    exe = cli("claude")
    project = Project(tmp_path, claude_yaml(exe, model.url), iterations=2)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = project.responses()
    assert len(runs) == 4
    for meta, resp in runs:
        if meta["variant"] == "with_skill":
            assert skills_loaded(resp) == [SKILL] and "42" in resp["output"]
        else:
            assert skills_loaded(resp) == [] and "42" not in resp["output"]
        assert resp["usage"]["input_tokens"] > 0 and resp["usage"]["output_tokens"] > 0
        assert resp["usage"]["cost_usd"] > 0
        # the served model, from result.modelUsage
        assert {"type": "model", "name": model.requests[0]["body"]["model"]} in resp["events"]
    # what the real CLI sent: only model calls, the key in x-api-key, the Skill tool offered
    calls = model.model_calls("/v1/messages")
    assert calls and len(calls) == len(model.requests)
    assert all(c["headers"].get("x-api-key") == "sk-ant-test-not-a-real-key" for c in calls)
    assert all("Skill" in {t["name"] for t in c["body"]["tools"]} for c in calls)
    from skill_eval.run.adapters import claude_code

    version = claude_code.identity_extra({"claude_bin": str(exe)})["agent_version"]
    assert version.startswith(CLAUDE_VERSION)


def test_claude_code_bad_key_stops_the_suite_with_the_cause(tmp_path, capsys, claude_env):
    exe = cli("claude")
    with FakeModel(Script(fault="401"), lifetime=120) as bad:
        project = Project(tmp_path, claude_yaml(exe, bad.url), iterations=3, timeout=30)
        code, out, took = project.run(capsys)
    assert code == 2
    assert "authentication failed (HTTP 401)" in out and "ANTHROPIC_API_KEY" in out
    assert "stopped early" in out and "timed out" not in out
    assert took < 30  # the cause, not the suite's timeout (Claude alone would retry ~3 min)
    assert project.responses() == []


def test_claude_code_server_down_gives_up_early_with_the_cause(tmp_path, capsys, claude_env):
    exe = cli("claude")
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, claude_yaml(exe, url), iterations=2, timeout=60)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url} (connection refused) after 3 retries" in out
    assert "check ANTHROPIC_BASE_URL" in out and "stopped early" in out and "timed out" not in out
    assert took < 30, took  # Claude alone retries ~3 minutes
    print(f"claude server down: the cause after {took:.1f} s", file=sys.__stderr__)


def test_claude_code_server_down_honours_its_own_retry_limit(tmp_path, capsys, claude_env, monkeypatch):
    exe = cli("claude")
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "1")
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, claude_yaml(exe, url), iterations=1, timeout=60)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url} (Connection refused" in out and "after 1 retry" in out
    assert took < 30, took


def test_claude_code_no_key(tmp_path, capsys, model, claude_env, monkeypatch):
    exe = cli("claude")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    project = Project(tmp_path, claude_yaml(exe, model.url), iterations=2, timeout=30)
    code, out, took = project.run(capsys)
    assert code == 2
    assert "authentication failed" in out and "Not logged in" in out and "ANTHROPIC_API_KEY" in out
    assert "stopped early" in out
    assert model.model_calls("/v1/messages") == []


def test_claude_code_missing_binary(tmp_path, capsys, model, claude_env):
    project = Project(tmp_path, claude_yaml(tmp_path / "nowhere" / "claude", model.url), timeout=30)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "claude CLI not found" in out


# --------------------------------------------------------------------------- codex


@pytest.fixture
def codex_env(monkeypatch):
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")


def test_codex_suite_run(tmp_path, capsys, model, codex_env):
    exe = cli("codex")
    project = Project(tmp_path, codex_yaml(exe, model.url), iterations=2)
    code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = project.responses()
    assert len(runs) == 4
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
    assert version.endswith(CODEX_VERSION)


def test_codex_bad_key_stops_the_suite_with_the_cause(tmp_path, capsys, codex_env):
    exe = cli("codex")
    with FakeModel(Script(fault="401"), lifetime=120) as bad:
        project = Project(tmp_path, codex_yaml(exe, bad.url), iterations=3, timeout=30)
        code, out, took = project.run(capsys)
    assert code == 2
    assert "authentication failed (HTTP 401)" in out and "CODEX_API_KEY" in out
    assert "stopped early" in out and "timed out" not in out
    assert took < 30


def test_codex_server_down_gives_up_early_with_the_cause(tmp_path, capsys, codex_env):
    exe = cli("codex")
    url = f"http://127.0.0.1:{free_port()}"
    project = Project(tmp_path, codex_yaml(exe, url), iterations=2, timeout=90)
    code, out, took = project.run(capsys)
    assert code == 2
    assert f"could not reach the model API at {url}/v1 (connection refused) after 2 reconnect waits" in out
    assert "check adapter: options: base_url" in out and "stopped early" in out and "timed out" not in out
    assert took < 45, took  # Codex alone waits for the network forever
    print(f"codex server down: the cause after {took:.1f} s", file=sys.__stderr__)


def test_codex_no_key(tmp_path, capsys, model, monkeypatch):
    exe = cli("codex")
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    project = Project(tmp_path, codex_yaml(exe, model.url), iterations=2, timeout=30)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "no API key: environment variable CODEX_API_KEY is not set" in out and "stopped early" in out
    assert model.model_calls("/v1/responses") == []


def test_codex_missing_binary(tmp_path, capsys, model, codex_env):
    project = Project(tmp_path, codex_yaml(tmp_path / "nowhere" / "codex", model.url), timeout=30)
    code, out, _ = project.run(capsys)
    assert code == 2
    assert "codex CLI not found" in out
