"""The Claude Code adapter, run as the runner runs it, against a fake `claude` replaying
recorded stream-json transcripts (tests/data/test_claude_code, see SOURCES.md there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.run.adapters import claude_code
from skill_eval.run.protocol import parse_response

DATA = Path(__file__).parent / "data" / "test_claude_code"
REPO = Path(__file__).resolve().parents[1]

FAKE = """#!{python}
import json, os, sys, time
if sys.argv[1:] == ["--version"]:
    print("2.0.99 (Claude Code)")
    sys.exit(0)
log = os.environ.get("FAKE_LOG")
if log:
    skills = os.path.join(os.getcwd(), ".claude", "skills")
    with open(log, "w") as f:
        json.dump({{
            "argv": sys.argv[1:],
            "cwd": os.getcwd(),
            "home": os.environ.get("HOME"),
            "config_dir": os.environ.get("CLAUDE_CONFIG_DIR"),
            "installed": sorted(os.listdir(skills)) if os.path.isdir(skills) else [],
            "installed_skill_md": os.path.isfile(os.path.join(skills, "csv-summary", "SKILL.md")),
            "staged_left": os.path.exists("skills"),
            "stdin_is_empty": sys.stdin.read() == "",
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
    exe = bin_dir / "claude"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(0o755)
    return bin_dir


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "inputs").mkdir(parents=True)
    (ws / "inputs" / "sales.csv").write_text("region,amount\nnorth,10\nsouth,32\n")
    skill = ws / "skills" / "csv-summary"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: csv-summary\ndescription: Summarise CSV files.\n---\nSum it.\n"
    )
    (skill / "scripts" / "sum.py").write_text("print(42)\n")
    (ws / "home").mkdir()
    (ws / "outputs").mkdir()
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
    env = {
        "PATH": path,
        "HOME": str(ws / "home"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO),
        **env_extra,
    }
    return subprocess.run(
        [sys.executable, "-m", "skill_eval.run.adapters.claude_code", *args],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        cwd=ws,
        env=env,
        timeout=60,
        start_new_session=True,  # like the runner: the adapter leads its own process group
    )


def ok(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    parse_response(proc.stdout.encode(), "test")  # strict protocol-v1 check
    return json.loads(proc.stdout)


def test_normal_answer_usage_and_cost(workspace, fake_bin, tmp_path):
    log = tmp_path / "log.json"
    proc = run(
        workspace,
        request(workspace, mode="without_skill"),
        "--model",
        "sonnet",
        path=str(fake_bin),
        FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"),
        FAKE_LOG=str(log),
    )
    resp = ok(proc)
    assert resp["output"] == "The capital of France is Paris."
    assert resp["events"] == [{"type": "model", "name": "claude-sonnet-4-5-20250929"}]
    assert resp["usage"] == {
        "input_tokens": 3,
        "output_tokens": 9,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 1200,
        "cost_usd": 0.0123,
        "num_turns": 1,
    }
    seen = json.loads(log.read_text())
    assert seen["argv"][:4] == ["-p", "--output-format", "stream-json", "--verbose"]
    assert seen["argv"][-2:] == ["--", "Summarise inputs/sales.csv"]
    assert ["--model", "sonnet"] == seen["argv"][4:6]
    # isolation: HOME and config inside the workspace, no skill anywhere in the baseline
    assert seen["home"] == str(workspace / "home")
    assert seen["config_dir"] == str(workspace / "home" / ".claude")
    assert seen["installed"] == [] and not seen["staged_left"]
    assert seen["stdin_is_empty"]


def test_skill_load_after_other_tool_calls(workspace, fake_bin, tmp_path):
    log = tmp_path / "log.json"
    proc = run(
        workspace,
        request(workspace, model="opus"),
        "--model=haiku",
        "--permission-mode=acceptEdits",
        "--extra-arg=--max-turns",
        "--extra-arg=5",
        path=str(fake_bin),
        FAKE_TRANSCRIPT=str(DATA / "skill_after_tools.jsonl"),
        FAKE_LOG=str(log),
    )
    resp = ok(proc)
    assert resp["output"] == "Total sales: 42 (north 10, south 32)."
    # every step: each tool call with a preview of its input, the shell command it ran
    steps = [{k: v for k, v in e.items() if k != "input"} for e in resp["events"]]
    assert steps == [
        {"type": "model", "name": "claude-opus-4-1-20250805"},
        {"type": "tool_call", "name": "Bash"},
        {"type": "command", "argv": ["ls", "inputs"]},
        {"type": "tool_call", "name": "Read"},
        {"type": "skill_loaded", "name": "csv-summary"},
        {"type": "tool_call", "name": "Write"},
    ]
    assert resp["events"][1]["input"] == '{"command": "ls inputs", "description": "List inputs"}'
    assert '"file_path": "/ws/outputs/summary.md"' in resp["events"][5]["input"]
    assert resp["usage"]["cost_usd"] == 0.2071
    assert resp["usage"]["num_turns"] == 5
    assert resp["usage"]["cache_read_input_tokens"] == 12000
    seen = json.loads(log.read_text())
    # the request's model wins over the option; options and extra args come before "--"
    argv = seen["argv"]
    assert argv[argv.index("--model") + 1] == "opus"
    assert argv[argv.index("--permission-mode") + 1] == "acceptEdits"
    assert argv[argv.index("--max-turns") + 1] == "5"
    assert argv.index("--max-turns") < argv.index("--")
    # the skill is where Claude Code discovers project skills, and only there
    assert seen["installed"] == ["csv-summary"] and seen["installed_skill_md"]
    assert not seen["staged_left"]
    assert (workspace / ".claude" / "skills" / "csv-summary" / "scripts" / "sum.py").is_file()


def test_read_of_skill_md_counts_as_load(workspace, fake_bin):
    proc = run(
        workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "read_skill_md.jsonl")
    )
    resp = ok(proc)
    assert [{k: v for k, v in e.items() if k != "input"} for e in resp["events"]] == [
        {"type": "model", "name": "claude-haiku-4-5"},
        {"type": "tool_call", "name": "Glob"},
        {"type": "tool_call", "name": "Read"},
        {"type": "skill_loaded", "name": "csv-summary"},
    ]


def test_turn_limit_is_an_answer_that_says_it_stopped_there(workspace, fake_bin):
    """Not an adapter failure: the run happened; the runner marks it unscorable (turn_limit)."""
    proc = run(workspace, request(workspace), path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "max_turns.jsonl"))
    resp = ok(proc)
    assert resp["events"][-1] == {"type": "stop", "name": "max_turns"}



@pytest.mark.parametrize(
    "transcript, message",
    [
        ("is_error.jsonl", "claude reported an error (success): Invalid API key · Please run /login"),
        ("no_result.jsonl", "claude stream ended without a result event"),
        ("malformed.jsonl", "claude stream line 3 is not valid JSON"),
    ],
)
def test_bad_streams_fail_with_one_clear_line(workspace, fake_bin, transcript, message):
    proc = run(workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / transcript))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_crash_of_claude(workspace, fake_bin):
    proc = run(
        workspace,
        request(workspace),
        path=str(fake_bin),
        FAKE_EXIT="3",
        FAKE_STDERR="Error: something broke badly",
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "claude exited with status 3: Error: something broke badly"


def test_timeout_stops_a_hanging_claude(workspace, fake_bin, tmp_path):
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
    assert "claude did not finish within 1 s and was stopped" in proc.stderr
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_missing_binary(workspace, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(workspace, request(workspace), path=str(empty))
    assert proc.returncode == 1
    assert proc.stderr.strip() == "claude CLI not found on PATH; install Claude Code or set adapter.command"


def test_print_version(workspace, fake_bin):
    proc = run(workspace, {}, "--print-version", path=str(fake_bin))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2.0.99 (Claude Code)"


def test_judge_mode(workspace, fake_bin):
    judge_request = {
        "protocol_version": 1,
        "prompt": "What is the capital of France, and its population?",
        "output": "Paris.",
        "rubric": [{"id": "a1", "text": "Names Paris"}, {"id": "a2", "text": "Gives the population"}],
    }
    proc = run(
        workspace, judge_request, "--judge", path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "judge.jsonl")
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["verdicts"] == [
        {"id": "a1", "passed": True, "evidence": "says Paris"},
        {"id": "a2", "passed": False, "evidence": "no population given"},
    ]
    assert answer["usage"]["input_tokens"] == 400


def test_bad_request_is_one_line(workspace, fake_bin):
    proc = run(workspace, {"protocol_version": 2}, path=str(fake_bin))
    assert proc.returncode == 1
    assert "unsupported protocol_version 2" in proc.stderr


def test_build_args_maps_suite_options():
    args = claude_code.build_args(
        {"model": "opus", "permission_mode": "acceptEdits", "args": ["--max-turns", "3"], "timeout": 100}
    )
    assert args == [
        "--extra-arg=--max-turns",
        "--extra-arg=3",
        "--model=opus",
        "--permission-mode=acceptEdits",
        "--timeout=100",
    ]
    parsed = claude_code.parse_args(args)
    assert parsed.extra_arg == ["--max-turns", "3"] and parsed.model == "opus" and parsed.timeout == 100
    with pytest.raises(InvalidInput, match="unknown option 'permision_mode'.*did you mean 'permission_mode'"):
        claude_code.build_args({"permision_mode": "x"})
