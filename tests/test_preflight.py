"""Preflight (run/agentcli/preflight.py): what would make every run fail is refused before the
first run, in one line and exit 2, by `validate` and `run` alike: no agent CLI, a CLI older than
the oldest supported, no credentials, a `--scaffold` run's missing script, a judge that cannot
start. Fake CLIs stand in for the real ones (their --version answer is all preflight asks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugineval_oracle import write_plugin
from realcli import Project

from skill_eval.cli.main import main
from skill_eval.model.builtins.catalog import CLAUDE_CLI, CODEX_CLI

FAKE = """#!{python}
import sys
with open({log!r}, "a") as f:
    f.write(" ".join(sys.argv[1:2]) + "\\n")
if sys.argv[1:] == ["--version"]:
    print({version!r})
    sys.exit(0)
print('{{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"42",'
      '"usage":{{"input_tokens":5,"output_tokens":2}},"total_cost_usd":0.01}}')
"""


def fake_cli(folder: Path, name: str, version: str) -> Path:
    """An executable ``name`` in ``folder`` answering ``--version`` with ``version``; every call
    is logged (one line: its first argument) in ``folder/<name>.log``."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text(FAKE.format(python=sys.executable, log=str(folder / f"{name}.log"), version=version))
    exe.chmod(0o755)
    return exe


def calls(exe: Path) -> list[str]:
    log = exe.parent / f"{exe.name}.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def env(monkeypatch, tmp_path):
    """PATH holds only tmp/bin and the system folders; a key is set (tests unset it)."""
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def both(capsys, suite: Path, *run_args: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit code, output) of `validate` and of `run`."""
    code = main(["validate", str(suite)])
    out = capsys.readouterr()
    vcode, vout = code, out.out + out.err
    code = main(["run", str(suite), *run_args])
    out = capsys.readouterr()
    return (vcode, vout), (code, out.out + out.err)


def refused(lines: str, needle: str) -> list[str]:
    found = [ln for ln in lines.splitlines() if needle in ln]
    assert len(found) == 1, lines
    return found


def no_run_started(project: Project) -> None:
    assert project.responses() == []
    assert not list((project.root / ".store").glob("**/errors/**/*.json"))


CLAUDE = "  builtin: claude-code\n"


def test_no_cli_on_path_is_one_line_naming_where_it_looked(env, capsys):
    project = Project(env / "p", CLAUDE)
    (vcode, vout), (code, out) = both(capsys, project.suite)
    line = refused(vout, "not found on PATH")[0]
    assert vcode == 2 and code == 2
    assert f"looked in {env / 'bin'}, /usr/bin, /bin" in line and "adapter.options.claude_bin" in line
    assert "install.sh" in line
    refused(out, "not found on PATH")
    assert "planned" not in out  # nothing started
    no_run_started(project)


def test_a_claude_bin_that_is_not_there_is_named(env, capsys):
    missing = json.dumps(str(env / "no" / "claude"))
    project = Project(env / "p", CLAUDE + f"  options: {{claude_bin: {missing}}}\n")
    (vcode, vout), (code, out) = both(capsys, project.suite)
    assert vcode == 2 and code == 2
    assert "adapter.options.claude_bin" in refused(out, "is not an executable file")[0]


def test_a_cli_older_than_the_oldest_supported_is_refused_with_both_versions(env, capsys):
    exe = fake_cli(env / "bin", "claude", "2.1.100 (Claude Code)")
    project = Project(env / "p", CLAUDE)
    (vcode, vout), (code, out) = both(capsys, project.suite)
    assert vcode == 2 and code == 2
    line = refused(out, "older than the oldest supported")[0]
    assert "2.1.100" in line and CLAUDE_CLI.oldest in line and "claude update" in line
    assert refused(vout, "older than the oldest supported") == [line]  # validate says the same
    assert "run" not in calls(exe)  # only --version was asked
    no_run_started(project)


def test_the_version_is_asked_once_per_executable_until_it_changes(env, capsys):
    exe = fake_cli(env / "bin", "claude", "2.1.300 (Claude Code)")
    project = Project(env / "p", CLAUDE)
    (vcode, _), (code, out) = both(capsys, project.suite)
    assert vcode == 0 and code == 1, out  # the fake's answer fails the check: it ran
    assert calls(exe).count("--version") == 1 and calls(exe).count("-p") == 2
    exe.write_text(exe.read_text().replace("2.1.300", "2.1.301"))  # upgraded in place
    assert main(["validate", str(project.suite)]) == 0
    assert calls(exe).count("--version") == 2


def test_no_credentials_is_one_line_saying_what_to_set(env, capsys, monkeypatch):
    fake_cli(env / "bin", "claude", "2.1.300 (Claude Code)")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    project = Project(env / "p", CLAUDE)
    (vcode, vout), (code, out) = both(capsys, project.suite)
    assert vcode == 2 and code == 2
    line = refused(out, "no credentials for Claude Code")[0]
    assert "set ANTHROPIC_API_KEY" in line and "claude setup-token" in line
    no_run_started(project)


def test_a_key_set_but_not_passed_is_named(env, capsys, monkeypatch):
    fake_cli(env / "bin", "claude", "2.1.300 (Claude Code)")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok")
    project = Project(env / "p", CLAUDE)
    assert main(["validate", str(project.suite)]) == 2
    line = refused(capsys.readouterr().err, "no credentials")[0]
    assert "ANTHROPIC_AUTH_TOKEN is set but not passed: add it to adapter.env" in line
    passed = CLAUDE + "  env: [ANTHROPIC_AUTH_TOKEN]\n"
    project.suite.write_text(project.suite.read_text().replace(CLAUDE, passed))
    assert main(["validate", str(project.suite)]) == 0


def test_codex_credentials_follow_its_env_key_option(env, capsys, monkeypatch):
    fake_cli(env / "bin", "codex", "codex-cli 0.171.0")
    monkeypatch.delenv("CODEX_API_KEY")
    project = Project(env / "p", "  builtin: codex\n  options: {env_key: MY_KEY}\n  env: [MY_KEY]\n")
    assert main(["validate", str(project.suite)]) == 2
    assert "none of MY_KEY, CODEX_API_KEY" in capsys.readouterr().err
    monkeypatch.setenv("MY_KEY", "k")
    assert main(["validate", str(project.suite)]) == 0


def test_codex_older_than_its_floor(env, capsys):
    fake_cli(env / "bin", "codex", "codex-cli 0.100.0")
    project = Project(env / "p", "  builtin: codex\n")
    assert main(["validate", str(project.suite)]) == 2
    line = refused(capsys.readouterr().err, "older than the oldest supported")[0]
    assert CODEX_CLI.oldest in line and "npm install -g @openai/codex@latest" in line


def test_a_judge_that_cannot_start_is_refused_too(env, capsys):
    fake_cli(env / "bin", "claude", "2.1.300 (Claude Code)")
    project = Project(env / "p", CLAUDE, judge_yaml="  builtin: codex\n")
    assert main(["validate", str(project.suite)]) == 2
    line = refused(capsys.readouterr().err, "judge: Codex CLI 'codex' not found on PATH")[0]
    assert "judge.options.codex_bin" in line


def test_scaffold_missing_for_a_scaffold_run(env, capsys):
    exe = fake_cli(env / "bin", "claude", "2.1.300 (Claude Code)")
    case = {"case.yaml": 'schema_version: "1.1"\nname: s\nruns: 1\ncontext:\n  scaffold_script: setup.sh\n',
            "prompt.md": "Go.\n", "graders/any.md": "---\ntype: regex\npattern: '42'\n---\n"}
    plugin = write_plugin(env / "plug", {"s": case})
    suite = env / "suite.yaml"
    suite.write_text(f"suite: s\nskills_dir: {json.dumps(str(plugin / 'skills'))}\nskills: ['*']\n"
                     "adapter:\n  builtin: claude-code\nstore: .store\nresults: results\n")
    assert main(["validate", str(suite)]) == 0  # whether a run passes --scaffold is not known yet
    assert 'warning: case "s": context.scaffold_script "setup.sh" does not exist' in capsys.readouterr().out
    assert main(["run", str(suite), "--scaffold"]) == 2
    line = refused(capsys.readouterr().err, "context.scaffold_script")[0]
    assert "a --scaffold run needs it" in line
    assert "run" not in calls(exe)


def test_offline_adapters_have_nothing_to_check(env, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    project = Project(env / "p", "  builtin: demo\n")
    (vcode, vout), (code, out) = both(capsys, project.suite)
    assert vcode == 0 and "2 runs planned" in out, out  # started (the demo has no answers here)
