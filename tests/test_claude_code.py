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
from budgets import examples
from hypothesis import given, settings
from hypothesis import strategies as st

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
            "eval_env": {{k: v for k, v in os.environ.items() if k.startswith("EVAL_")}},
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
    # every step is reported, and there was none: "session complete" says so
    assert resp["events"] == [{"type": "model", "name": "claude-sonnet-4-5-20250929"},
                              {"type": "session", "name": "complete"}]
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
    steps = [{k: v for k, v in e.items() if k not in ("input", "input_json")} for e in resp["events"]]
    assert steps == [
        {"type": "model", "name": "claude-opus-4-1-20250805"},
        {"type": "tool_call", "name": "Bash"},
        {"type": "command", "argv": ["ls", "inputs"]},
        {"type": "tool_call", "name": "Read"},
        {"type": "tool_call", "name": "Skill"},  # the load's own call, for plugin eval's graders
        {"type": "skill_loaded", "name": "csv-summary"},
        {"type": "tool_call", "name": "Write"},
        {"type": "session", "name": "complete"},
    ]
    assert resp["events"][1]["input"] == '{"command": "ls inputs", "description": "List inputs"}'
    # the whole input as plugin eval's input_match sees it: JSON.stringify, key order kept
    assert resp["events"][1]["input_json"] == '{"command":"ls inputs","description":"List inputs"}'
    assert '"file_path": "/ws/outputs/summary.md"' in resp["events"][6]["input"]
    assert resp["events"][6]["input_json"].startswith('{"file_path":"/ws/outputs/summary.md"')
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
    # ... and taken out again once the agent is done: the adapter's plumbing is no file the run made
    assert not (workspace / ".claude").exists()


def test_read_of_skill_md_counts_as_load(workspace, fake_bin):
    proc = run(
        workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "read_skill_md.jsonl")
    )
    resp = ok(proc)
    assert [{k: v for k, v in e.items() if k not in ("input", "input_json")} for e in resp["events"]] == [
        {"type": "model", "name": "claude-haiku-4-5"},
        {"type": "tool_call", "name": "Glob"},
        {"type": "tool_call", "name": "Read"},
        {"type": "skill_loaded", "name": "csv-summary"},
        {"type": "session", "name": "complete"},
    ]


def test_turn_limit_is_an_answer_that_says_it_stopped_there(workspace, fake_bin):
    """Not an adapter failure: the run happened; the runner marks it unscorable (turn_limit)."""
    proc = run(workspace, request(workspace), path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "max_turns.jsonl"))
    resp = ok(proc)
    assert resp["events"][-1] == {"type": "stop", "name": "max_turns"}


def test_an_answer_without_a_model_request_says_it_is_unscorable(workspace, fake_bin):
    """Claude Code 2.1.245 answers an unknown slash command itself: 0 turns, no tokens. The
    adapter says the run is unscorable, with the CLI's own answer as the cause."""
    proc = run(workspace, request(workspace), path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "real_unknown_command.jsonl"))
    resp = ok(proc)
    assert resp["events"][-1] == {
        "type": "unscorable", "name": "no_model_request: the agent made no model request (0 turns, no "
        "tokens); the CLI answered itself: 'Unknown command: /dojo:coach'"}
    for transcript in ("normal.jsonl", "real_skill.jsonl", "max_turns.jsonl"):
        done = ok(run(workspace, request(workspace, "without_skill"), path=str(fake_bin),
                      FAKE_TRANSCRIPT=str(DATA / transcript)))
        assert not [e for e in done["events"] if e["type"] == "unscorable"], transcript



@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_tokens_are_the_billed_total_over_model_usage(workspace, fake_bin):
    """Recorded from the real CLI (2.1.332) with a subagent: the last ``result`` event's ``usage``
    holds only the last turn (13,239 input tokens); ``modelUsage`` holds every request the
    scripted server saw (4 requests, 45,928 input tokens), and so does the reported usage."""
    proc = run(workspace, request(workspace, mode="without_skill"), path=str(fake_bin),
               FAKE_TRANSCRIPT=str(DATA / "real_subagent.jsonl"))
    usage = ok(proc)["usage"]
    assert usage["input_tokens"] == 45928 and usage["output_tokens"] == 106
    assert usage["cache_read_input_tokens"] == 0 and usage["cache_creation_input_tokens"] == 0
    assert usage["model/claude-opus-5-5/input_tokens"] == 45928
    assert usage["model/claude-opus-5-5/cost_usd"] == pytest.approx(usage["cost_usd"])


def test_tokens_split_per_model_and_summed(workspace, fake_bin, tmp_path):
    """Two models (the main one and a side model): the totals are their sums, each kept apart;
    a context suffix in a modelUsage key ("[1m]", Claude Code 2.1.245) is not part of the name."""
    result = {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "num_turns": 2,
              "total_cost_usd": 0.05,
              "usage": {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 5,
                        "cache_creation_input_tokens": 7},
              "modelUsage": {
                  "claude-opus-5[1m]": {"inputTokens": 100, "outputTokens": 10, "cacheReadInputTokens": 5,
                                        "cacheCreationInputTokens": 7, "costUSD": 0.04},
                  "claude-haiku-4-5": {"inputTokens": 900, "outputTokens": 30, "cacheReadInputTokens": 50,
                                       "cacheCreationInputTokens": 0, "costUSD": 0.01,
                                       "canonicalModel": "claude-haiku-4-5"}}}
    transcript = tmp_path / "two_models.jsonl"
    transcript.write_text(json.dumps(result) + "\n")
    resp = ok(run(workspace, request(workspace), path=str(fake_bin), FAKE_TRANSCRIPT=str(transcript)))
    usage = resp["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (1000, 40)
    assert (usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]) == (55, 7)
    assert usage["model/claude-opus-5/input_tokens"] == 100
    assert usage["model/claude-haiku-4-5/input_tokens"] == 900
    assert usage["model/claude-haiku-4-5/cost_usd"] == 0.01
    assert {"type": "model", "name": "claude-haiku-4-5"} in resp["events"]  # most output tokens


def test_a_bundled_skill_that_loaded_is_reported(workspace, fake_bin):
    """Recorded from the real CLI (2.1.332): a without-skill run whose agent loaded the bundled
    code-review skill, which ran in a forked subagent (4 requests, 45,776 input tokens at the
    server; the last result's usage says 25,134)."""
    resp = ok(run(workspace, request(workspace, mode="without_skill"), path=str(fake_bin),
                  FAKE_TRANSCRIPT=str(DATA / "real_bundled_skill.jsonl")))
    assert [e["name"] for e in resp["events"] if e["type"] == "skill_loaded"] == ["code-review"]
    assert resp["usage"]["input_tokens"] == 45776


@pytest.mark.slow
def test_disable_bundled_skills_option(workspace, fake_bin, tmp_path):
    """The settings that turn Claude Code's bundled skills off, those surviving its switch by
    name, but never the skill under test."""
    assert claude_code.build_args({"disable_bundled_skills": True}) == ["--disable-bundled-skills"]
    log = tmp_path / "log.json"
    ok(run(workspace, request(workspace), "--disable-bundled-skills", path=str(fake_bin),
           FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"), FAKE_LOG=str(log)))
    argv = json.loads(log.read_text())["argv"]
    settings = json.loads(argv[argv.index("--settings") + 1])
    assert settings == {"disableBundledSkills": True,
                        "skillOverrides": {"doctor": "off", "plugin-authoring": "off"}}
    assert argv.index("--settings") < argv.index("--")
    from skill_eval.run.adapters.shared import bundled_skills

    kept = json.loads(bundled_skills.claude_args("doctor")[1])["skillOverrides"]
    assert kept == {"plugin-authoring": "off"}
    ok(run(workspace, request(workspace, mode="without_skill"), path=str(fake_bin),
           FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"), FAKE_LOG=str(log)))
    assert "--settings" not in json.loads(log.read_text())["argv"]


def test_a_refused_skill_call_is_no_load(workspace, fake_bin):
    """The CLI answered the Skill call with an error (the skill is turned off or unknown): the
    agent asked for it but never had it, so no skill_loaded (and no other-skills flag)."""
    resp = ok(run(workspace, request(workspace, mode="without_skill"), path=str(fake_bin),
                  FAKE_TRANSCRIPT=str(DATA / "refused_skill.jsonl")))
    assert [e for e in resp["events"] if e["type"] != "model"] == [
        {"type": "tool_call", "name": "Skill", "input": '{"skill": "code-review"}',
         "input_json": '{"skill":"code-review"}'},
        {"type": "session", "name": "complete"}]


_counts = st.integers(min_value=0, max_value=10**9)
_entry = st.fixed_dictionaries({"inputTokens": _counts, "outputTokens": _counts,
                                "cacheReadInputTokens": _counts, "cacheCreationInputTokens": _counts})
_names = st.from_regex(r"claude-[a-z0-9-]{1,12}", fullmatch=True)


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(_names, _entry, min_size=1, max_size=4))
def test_for_any_model_usage_the_totals_are_the_sums_of_the_split(per_model):
    usage = claude_code._usage_from_result({"modelUsage": per_model, "usage": {"input_tokens": 1}})
    for key, field in (("input_tokens", "inputTokens"), ("output_tokens", "outputTokens"),
                       ("cache_read_input_tokens", "cacheReadInputTokens"),
                       ("cache_creation_input_tokens", "cacheCreationInputTokens")):
        assert usage.get(key, 0) == sum(e[field] for e in per_model.values())
        assert usage.get(key, 0) == sum(usage[f"model/{m}/{key}"] for m in per_model)


def test_a_cases_settings_become_claude_flags_env_and_a_resume(workspace, fake_bin, tmp_path):
    """A plugin eval case's settings (docs/protocol.md): its own flags, its EVAL_* variables."""
    log = tmp_path / "log.json"
    (workspace / "tmp").mkdir()
    (workspace / "tmp" / "skill-eval-history.jsonl").write_text("{}\n")
    settings = {"max_turns": 2, "append_system_prompt": "be brief", "env": {"EVAL_X": "1"},
                "allowed_tools": ["Read", "Glob"], "disallowed_tools": ["Bash", "Write"]}
    ok(run(workspace, request(workspace, settings=settings, history="tmp/skill-eval-history.jsonl"),
           path=str(fake_bin), FAKE_TRANSCRIPT=str(DATA / "normal.jsonl"), FAKE_LOG=str(log)))
    seen = json.loads(log.read_text())
    assert seen["eval_env"] == {"EVAL_X": "1"}
    argv = seen["argv"]
    flags = argv[: argv.index("--")]
    for part in (["--max-turns", "2"], ["--permission-mode", "dontAsk"], ["--allowedTools=Read,Glob"],
                 ["--disallowedTools=Bash,Write"], ["--append-system-prompt=be brief"],
                 ["--resume", str(workspace / "tmp" / "skill-eval-history.jsonl")]):
        assert any(flags[i:i + len(part)] == part for i in range(len(flags))), part


def test_claude_exiting_1_at_its_turn_cap_is_still_an_answer(workspace, fake_bin):
    """Claude Code exits 1 when --max-turns stops it: the run happened, and is graded."""
    resp = ok(run(workspace, request(workspace, settings={"max_turns": 2}), path=str(fake_bin),
                  FAKE_TRANSCRIPT=str(DATA / "max_turns.jsonl"), FAKE_EXIT="1"))
    assert resp["events"][-1] == {"type": "stop", "name": "max_turns"}
