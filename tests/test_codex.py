"""The Codex adapter, run as the runner runs it, against a fake `codex` replaying recorded
`codex exec --json` transcripts (tests/data/test_codex, see SOURCES.md there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skill_eval.run.adapters import codex
from skill_eval.run.protocol import parse_response

DATA = Path(__file__).parent / "data" / "test_codex"
REPO = Path(__file__).resolve().parents[1]

FAKE = """#!{python}
import json, os, sys, time
if sys.argv[1:] == ["--version"]:
    print("codex-cli " + os.environ.get("FAKE_VERSION", "0.58.0"))
    sys.exit(0)
def listing(path):
    return sorted(os.listdir(path)) if os.path.isdir(path) else []
log = os.environ.get("FAKE_LOG")
if log:
    codex_home = os.environ.get("CODEX_HOME", "")
    with open(log, "w") as f:
        json.dump({{
            "argv": sys.argv[1:],
            "home": os.environ.get("HOME"),
            "codex_home": codex_home,
            "repo_skills": listing(os.path.join(os.getcwd(), ".agents", "skills")),
            "user_skills": listing(os.path.join(codex_home, "skills")),
            "staged_left": os.path.exists("skills"),
        }}, f)
if os.environ.get("FAKE_PIDFILE"):
    with open(os.environ["FAKE_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))
transcript = os.environ.get("FAKE_TRANSCRIPT")
if transcript:
    with open(transcript) as f:
        sys.stdout.write(f.read())
    sys.stdout.flush()
if os.environ.get("FAKE_STDERR"):
    sys.stderr.write(os.environ["FAKE_STDERR"] + "\\n")
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "codex"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(0o755)
    return bin_dir


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "inputs").mkdir(parents=True)
    (ws / "inputs" / "sales.csv").write_text("region,amount\nnorth,10\nsouth,32\n")
    skill = ws / "skills" / "csv-summary"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: csv-summary\ndescription: Summarise CSV files.\n---\nSum it.\n"
    )
    (ws / "home").mkdir()
    return ws


def request(ws: Path, mode: str = "with_skill", **extra) -> dict:
    req = {
        "protocol_version": 1,
        "mode": mode,
        "skill": {"name": "csv-summary", "path": "skills/csv-summary"} if mode == "with_skill" else None,
        "prompt": "Summarise inputs/sales.csv",
        "files": [{"path": "inputs/sales.csv", "sha256": "0" * 64}],
        "workspace": str(ws),
        "model": "default",
        "case": {"id": "c1", "iteration": 1},
    }
    req.update(extra)
    return req


def run(ws: Path, req: dict, *args: str, path: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {"PATH": path, "HOME": str(ws / "home"), "LANG": "C.UTF-8", "PYTHONPATH": str(REPO), **env_extra}
    return subprocess.run(
        [sys.executable, "-m", "skill_eval.run.adapters.codex", *args],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        cwd=ws,
        env=env,
        timeout=60,
        start_new_session=True,
    )


def ok(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    parse_response(proc.stdout.encode(), "test")
    return json.loads(proc.stdout)


def test_normal_answer_with_usage(workspace, fake_bin, tmp_path):
    log = tmp_path / "log.json"
    proc = run(
        workspace,
        request(workspace, mode="without_skill"),
        "--model",
        "gpt-5-codex",
        "--sandbox",
        "workspace-write",
        path=str(fake_bin),
        FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"),
        FAKE_LOG=str(log),
    )
    resp = ok(proc)
    assert resp["output"] == "The capital of France is Paris."
    assert resp["events"] == [{"type": "model", "name": "gpt-5-codex"},
                              {"type": "session", "name": "complete"}]
    assert resp["usage"] == {
        "input_tokens": 24763,
        "cached_input_tokens": 24448,
        "output_tokens": 122,
        "num_turns": 1,
    }
    seen = json.loads(log.read_text())
    argv = seen["argv"]
    assert argv[:3] == ["exec", "--json", "--skip-git-repo-check"]
    assert argv[argv.index("--sandbox") + 1] == "workspace-write"
    assert argv[-2:] == ["--", "Summarise inputs/sales.csv"]
    assert seen["codex_home"] == str(workspace / "home" / ".codex")
    assert seen["repo_skills"] == [] and seen["user_skills"] == [] and not seen["staged_left"]


@pytest.mark.slow
def test_skill_load_after_other_tool_calls(workspace, fake_bin, tmp_path):
    log = tmp_path / "log.json"
    proc = run(
        workspace,
        request(workspace),
        path=str(fake_bin),
        FAKE_TRANSCRIPT=str(DATA / "skill_after_tools.jsonl"),
        FAKE_LOG=str(log),
    )
    resp = ok(proc)
    assert resp["output"] == "Total sales: 42."
    steps = [{k: v for k, v in e.items() if k not in ("input", "input_json")} for e in resp["events"]]
    assert [e for e in steps if e["type"] != "command"] == [
        {"type": "tool_call", "name": "command_execution"},
        {"type": "tool_call", "name": "mcp:files/stat"},
        {"type": "tool_call", "name": "command_execution"},
        {"type": "skill_loaded", "name": "csv-summary"},
        {"type": "tool_call", "name": "file_change"},
        {"type": "session", "name": "complete"},
    ]
    assert resp["events"][0]["input_json"] == '{"command":"bash -lc ls inputs"}'
    assert steps[1] == {"type": "command", "argv": ["bash", "-lc", "ls", "inputs"]}  # as recorded (unquoted)
    assert resp["events"][0]["input"] == '{"command": "bash -lc ls inputs"}'
    assert resp["usage"] == {
        "input_tokens": 1000,
        "cached_input_tokens": 600,
        "output_tokens": 80,
        "num_turns": 1,
    }
    seen = json.loads(log.read_text())
    # Installed once, where this (0.58) Codex reads skills: it would list a second copy too.
    assert seen["repo_skills"] == [] and seen["user_skills"] == ["csv-summary"]
    assert not seen["staged_left"]


@pytest.mark.slow
def test_skill_installed_once_in_repo_scope_for_current_codex(workspace, fake_bin, tmp_path):
    log = tmp_path / "log.json"
    proc = run(workspace, request(workspace), path=str(fake_bin), FAKE_VERSION="0.171.0",
               FAKE_TRANSCRIPT=str(DATA / "skill_after_tools.jsonl"), FAKE_LOG=str(log))
    ok(proc)
    seen = json.loads(log.read_text())
    assert seen["repo_skills"] == ["csv-summary"] and seen["user_skills"] == []


@pytest.mark.slow
def test_early_item_shape(workspace, fake_bin):
    proc = run(
        workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "early_item_type.jsonl")
    )
    resp = ok(proc)
    assert resp["output"] == "Listed the folder."
    assert resp["events"] == [
        {"type": "tool_call", "name": "command_execution", "input_json": '{"command":"bash -lc ls"}',
         "input": '{"command": "bash -lc ls"}'},
        {"type": "command", "argv": ["ls"]}, {"type": "session", "name": "complete"}]


@pytest.mark.slow
def test_transient_error_then_success(workspace, fake_bin):
    proc = run(
        workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "reconnect.jsonl")
    )
    assert ok(proc)["output"] == "Recovered answer."


@pytest.mark.slow
@pytest.mark.parametrize(
    "transcript, message",
    [
        ("turn_failed.jsonl", "codex turn failed: model response stream ended unexpectedly"),
        ("no_turn_completed.jsonl", "codex stream ended without turn.completed"),
        ("malformed.jsonl", "codex stream line 3 is not valid JSON"),
    ],
)
def test_bad_streams_fail_with_one_clear_line(workspace, fake_bin, transcript, message):
    proc = run(workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / transcript))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.slow
def test_crash_reports_the_turn_failure(workspace, fake_bin):
    proc = run(
        workspace,
        request(workspace),
        path=str(fake_bin),
        FAKE_TRANSCRIPT=str(DATA / "turn_failed.jsonl"),
        FAKE_EXIT="1",
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "codex exited with status 1: model response stream ended unexpectedly"


@pytest.mark.slow
def test_crash_without_stream(workspace, fake_bin):
    proc = run(
        workspace, request(workspace), path=str(fake_bin), FAKE_EXIT="2", FAKE_STDERR="error: bad flag"
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "codex exited with status 2: error: bad flag"


@pytest.mark.slow
def test_timeout_stops_a_hanging_codex(workspace, fake_bin, tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    proc = run(
        workspace,
        request(workspace),
        "--timeout",
        "1",
        path=str(fake_bin),
        FAKE_SLEEP="60",
        FAKE_PIDFILE=str(pidfile),
    )
    assert time.monotonic() - started < 20
    assert proc.returncode == 1
    assert "codex did not finish within 1 s and was stopped" in proc.stderr
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


def test_missing_binary(workspace, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(workspace, request(workspace), path=str(empty))
    assert proc.returncode == 1
    assert proc.stderr.startswith("codex CLI not found on PATH")


def test_print_version(workspace, fake_bin):
    proc = run(workspace, {}, "--print-version", path=str(fake_bin))
    assert proc.returncode == 0 and proc.stdout.strip() == "codex-cli 0.58.0"


def test_judge_mode(workspace, fake_bin):
    judge_request = {
        "protocol_version": 1,
        "prompt": "Capital of France?",
        "output": "Paris.",
        "rubric": [{"id": "a1", "text": "Names Paris"}],
    }
    proc = run(
        workspace, judge_request, "--judge", path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "judge.jsonl")
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["verdicts"] == [{"id": "a1", "passed": True, "evidence": "says Paris"}]
    assert answer["usage"]["input_tokens"] == 300


def test_build_args_maps_suite_options():
    args = codex.build_args(
        {
            "model": "gpt-5-codex",
            "sandbox": "read-only",
            "args": ["-c", "model_reasoning_effort=low"],
            "skip_git_repo_check": False,
        }
    )
    assert args == [
        "--extra-arg=-c",
        "--extra-arg=model_reasoning_effort=low",
        "--model=gpt-5-codex",
        "--sandbox=read-only",
        "--no-skip-git-repo-check",
    ]
    parsed = codex.parse_args(args)
    assert parsed.extra_arg == ["-c", "model_reasoning_effort=low"] and parsed.skip_git_repo_check is False


@pytest.mark.slow
def test_bundled_skill_reads_from_the_session_log(workspace, fake_bin):
    """In code mode Codex runs commands inside its JavaScript ``exec`` tool and ``--json`` shows
    no item for them; the session log has the calls, so a read of a bundled (system) skill's
    SKILL.md (the developer message's skill listing is no read) is a skill_loaded event."""
    sessions = workspace / "home" / ".codex" / "sessions" / "2026" / "12" / "01"
    sessions.mkdir(parents=True)
    log = (DATA / "session_bundled_skill.jsonl").read_text()
    (sessions / "rollout-2026-12-01T20-56-41-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl").write_text(log)
    proc = run(workspace, request(workspace, mode="without_skill"), path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"))
    loaded = [e["name"] for e in ok(proc)["events"] if e["type"] == "skill_loaded"]
    assert loaded == ["skill-creator", "openai-docs"]


@pytest.mark.slow
def test_disable_bundled_skills_option(workspace, fake_bin, tmp_path):
    assert codex.build_args({"disable_bundled_skills": True}) == ["--disable-bundled-skills"]
    log = tmp_path / "log.json"
    for flag, expected in (([], False), (["--disable-bundled-skills"], True)):
        ok(run(workspace, request(workspace, mode="without_skill"), *flag, path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"), FAKE_LOG=str(log)))
        argv = json.loads(log.read_text())["argv"]
        assert ("skills.bundled.enabled=false" in argv) is expected
        assert argv.index("--") > (argv.index("skills.bundled.enabled=false") if expected else 0)
