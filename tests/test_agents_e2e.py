"""Whole suites run through `skill-eval run` with each real-agent builtin (claude-code, codex,
openai) against fakes: `claude`/`codex` executables replaying the recorded stream transcripts of
tests/data/test_claude_code and tests/data/test_codex, and a local chat-completions server on
127.0.0.1 (ephemeral port). No network, no model.

The fakes answer like the agent would with the skill installed where it discovers skills
(`.claude/skills/`, `.agents/skills/`) and like a plain agent without it, so the with_skill runs
load the skill and pass, and the without_skill runs do not."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from fakechat import FakeChat
from jsonschema import Draft202012Validator

from skill_eval.cli.main import main
from skill_eval.intake.schemas_io import load_schema

DATA = Path(__file__).parent / "data"
SKILL = "csv-summary"

FAKE_AGENT = """#!{python} -S
import os, sys
VERSION = {version!r}
if sys.argv[1:] == ["--version"]:
    print(VERSION)
    sys.exit(0)
here = {here!r}
with open(os.path.join(here, "calls.log"), "a") as f:
    f.write(os.getcwd() + "\\n")
installed = os.path.isdir(os.path.join(os.getcwd(), {skills_dir!r}, {skill!r}))
with open(os.path.join(here, "with_skill.jsonl" if installed else "without_skill.jsonl")) as f:
    sys.stdout.write(f.read())
"""

EVALS = {
    "skill_name": SKILL,
    "evals": [
        {"id": "sum-sales", "prompt": "Summarise inputs/sales.csv: what are total sales?",
         "files": ["evals/files/sales.csv"],
         "checks": [{"id": "used-skill", "type": "loaded_skill"},
                    {"id": "total", "type": "contains", "value": "42"}]},
    ],
}


class Project:
    """A one-skill suite in tmp_path whose adapter is `adapter_yaml`."""

    def __init__(self, root: Path, adapter_yaml: str, iterations: int = 2):
        self.root = root
        skill = root / "skills" / SKILL
        (skill / "evals" / "files").mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {SKILL}\ndescription: Summarise CSV files, with totals per column.\n---\n"
            "Sum the amount column and state the total.\n")
        (skill / "evals" / "evals.json").write_text(json.dumps(EVALS))
        self.fixture = skill / "evals" / "files" / "sales.csv"
        self.fixture.write_text("region,amount\nnorth,10\nsouth,32\n")
        self.suite = root / "suite.yaml"
        self.suite.write_text(
            "suite: e2e\nskills_dir: skills\nskills: ['*']\n"
            f"adapter:\n{adapter_yaml}"
            f"iterations: {iterations}\njobs: 2\ntimeout_seconds: 60\n"
            "store: .store\nresults: results\n")

    def run(self, capsys, *args: str) -> tuple[int, str]:
        code = main(["run", str(self.suite), *args])
        out = capsys.readouterr()
        return code, out.out + out.err

    def cli(self, capsys, *argv: str) -> tuple[int, str]:
        code = main([*argv])
        out = capsys.readouterr()
        return code, out.out + out.err

    def bench(self) -> dict:
        bench = json.loads((self.root / "results" / SKILL / "benchmark.json").read_text())
        errors = list(Draft202012Validator(load_schema("benchmark")).iter_errors(bench))
        assert not errors, [e.message for e in errors]
        return bench


def fake_agent(root: Path, name: str, version: str, with_t: Path, without_t: Path, skills_dir: str) -> Path:
    """An executable `name` in root/bin replaying with_t when the skill is installed under
    skills_dir in its working directory, else without_t. Each call appends to calls.log."""
    here = root / f"{name}-data"
    here.mkdir(exist_ok=True)
    shutil.copy(with_t, here / "with_skill.jsonl")
    shutil.copy(without_t, here / "without_skill.jsonl")
    exe = root / "bin" / name
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(FAKE_AGENT.format(python=sys.executable, version=version, here=str(here),
                                     skills_dir=skills_dir, skill=SKILL))
    exe.chmod(0o755)
    return exe


def claude_yaml(exe: Path) -> str:
    return f"  builtin: claude-code\n  options: {{claude_bin: {json.dumps(str(exe))}}}\n"


def calls(exe: Path) -> int:
    log = exe.parent.parent / f"{exe.name}-data" / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def assert_skill_made_the_difference(bench: dict) -> None:
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    assert (w["pass_rate"], wo["pass_rate"]) == (1.0, 0.0)
    assert bench["lift"]["pass_rate"] == 1.0
    assert bench["verdict"] == "pass"
    used = next(c for c in bench["checks"] if c["check"] == "used-skill")
    # skill_loaded → loaded_skill; not applied where no skill is installed (issue 55)
    assert (used["with_skill"], used["without_skill"]) == (1.0, None)
    assert bench["cases"][0]["flags"] == ["improved"]


# --------------------------------------------------------------------------- claude-code


@pytest.fixture(autouse=True)
def credentials(monkeypatch):
    """The keys the agents' preflight asks for (run/agentcli/preflight.py); the fakes ignore them."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CODEX_API_KEY", "sk-test-not-a-real-key")


@pytest.fixture
def claude(tmp_path: Path) -> tuple[Project, Path]:
    exe = fake_agent(tmp_path, "claude", "2.1.299 (Claude Code)",
                     DATA / "test_claude_code" / "skill_after_tools.jsonl",
                     DATA / "test_claude_code" / "normal.jsonl", ".claude/skills")
    return Project(tmp_path, claude_yaml(exe)), exe


def test_claude_code_suite_run(claude, capsys):
    project, exe = claude
    code, out = project.run(capsys)
    assert code == 0, out
    assert calls(exe) == 4
    bench = project.bench()
    assert_skill_made_the_difference(bench)
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    # skill_after_tools.jsonl: 50 in, 180 out, 12000 cache read, 3000 cache write, $0.2071;
    # normal.jsonl: 3 in, 9 out, 1200 cache write, $0.0123 (per run; 2 iterations).
    assert (w["input_tokens"], w["output_tokens"]) == (100, 360)
    assert (w["cache_read_tokens"], w["cache_write_tokens"]) == (24000, 6000)
    assert w["total_tokens"] == 2 * 15230 and w["tokens_per_run"] == 15230
    assert w["cost_usd"] == pytest.approx(0.4142) and w["cost_usd_per_run"] == pytest.approx(0.2071)
    assert wo["total_tokens"] == 2 * 1212 and wo["cost_usd"] == pytest.approx(0.0246)
    assert (w["runs_with_cost"], wo["runs_with_cost"]) == (2, 2)
    assert w["judge_cost_usd"] is None and w["judge_tokens"] is None
    lift = bench["lift"]
    assert lift["extra_tokens_per_run"] == 15230 - 1212
    assert lift["extra_cost_usd_per_run"] == pytest.approx(0.1948)
    assert "per_1k_tokens" not in lift and "per_usd" not in lift  # ratios that explode on noise
    md = (project.root / "results" / SKILL / "benchmark.md").read_text()
    assert "## Cost and time" in md and "$0.2071" in md and "cost/run" in md
    assert "+14,018 tokens per run with the skill; +$0.1948 per run" in md and "pp of lift per" not in md
    summary = (project.root / "results" / "summary.md").read_text()
    assert "cost (with / without)" in summary and "$0.4142 / $0.0246" in summary


def test_stored_cost_is_kept_and_agent_upgrade_reruns_everything(claude, capsys):
    project, exe = claude
    assert project.run(capsys)[0] == 0
    assert calls(exe) == 4
    # The agent's price changes, but nothing that is in a run key: the stored results keep the
    # cost they had when they were bought, through a no-op run and a rebuilt report alike.
    data = exe.parent.parent / "claude-data" / "with_skill.jsonl"
    data.write_text(data.read_text().replace('"total_cost_usd":0.2071', '"total_cost_usd":9.5'))
    code, out = project.run(capsys)
    assert code == 0 and calls(exe) == 4, out
    assert project.bench()["variants"]["with_skill"]["cost_usd"] == pytest.approx(0.4142)
    assert project.cli(capsys, "report", str(project.suite), "--format", "json")[0] == 0
    assert project.bench()["variants"]["with_skill"]["cost_usd"] == pytest.approx(0.4142)

    # An agent upgrade (`claude --version` says something new) re-runs every run.
    exe.write_text(exe.read_text().replace("2.1.299 (Claude Code)", "2.1.300 (Claude Code)"))
    code, out = project.run(capsys)
    assert code == 0, out
    assert "4 to run" in out
    assert calls(exe) == 8
    assert project.bench()["variants"]["with_skill"]["cost_usd"] == pytest.approx(19.0)
    # ... and once is enough.
    code, out = project.run(capsys)
    assert code == 0 and calls(exe) == 8, out


def test_status_estimates_cost_from_earlier_runs_of_the_same_slots(claude, capsys):
    project, exe = claude
    code, out = project.cli(capsys, "status", str(project.suite))
    assert code == 0 and "estimated cost" not in out  # nothing recorded yet: no guess
    assert project.run(capsys)[0] == 0
    project.fixture.write_text("region,amount\nnorth,11\nsouth,31\n")
    code, out = project.cli(capsys, "status", str(project.suite))
    assert code == 0, out
    assert ", 4 to run," in out
    assert "estimated cost $0.44" in out  # 2 × $0.2071 + 2 × $0.0123, recorded by the first run
    code, out = project.cli(capsys, "status", str(project.suite), "--json")
    assert json.loads(out)["estimated_cost_usd"] == pytest.approx(0.4388)
    assert calls(exe) == 4  # status runs nothing


# --------------------------------------------------------------------------- codex


def test_codex_suite_run(tmp_path: Path, capsys):
    exe = fake_agent(tmp_path, "codex", "codex-cli 0.171.0",
                     DATA / "test_codex" / "skill_after_tools.jsonl",
                     DATA / "test_codex" / "normal.jsonl", ".agents/skills")
    project = Project(tmp_path, f"  builtin: codex\n  options: {{codex_bin: {json.dumps(str(exe))}}}\n")
    code, out = project.run(capsys)
    assert code == 0, out
    assert calls(exe) == 4
    bench = project.bench()
    assert_skill_made_the_difference(bench)
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    # Codex reports tokens, no price; cached_input_tokens are part of input_tokens.
    assert (w["input_tokens"], w["output_tokens"], w["cache_read_tokens"]) == (2000, 160, 1200)
    assert w["total_tokens"] == 2 * 1080 and wo["total_tokens"] == 2 * (24763 + 122)
    assert w["cost_usd"] is None and w["runs_with_cost"] == 0
    assert bench["lift"]["extra_tokens_per_run"] == 1080 - (24763 + 122)

    exe.write_text(exe.read_text().replace("codex-cli 0.171.0", "codex-cli 0.172.1"))
    code, out = project.run(capsys)
    assert code == 0 and "4 to run" in out and calls(exe) == 8, out


# --------------------------------------------------------------------------- openai


def chat_answer(body: dict) -> tuple[int, dict, dict]:
    """Answers well only when the skill is in the system prompt."""
    system = " ".join(m.get("content") or "" for m in body["messages"] if m["role"] == "system")
    with_skill = "Sum the amount column" in system
    text = "Total sales: 42." if with_skill else "Here is a summary of the regions."
    usage = {"prompt_tokens": 400 if with_skill else 100, "completion_tokens": 20,
             "total_tokens": 420 if with_skill else 120}
    return 200, {}, {"id": "chatcmpl-e2e", "object": "chat.completion", "created": 1700000000,
                     "model": "local-model",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text}}],
                     "usage": usage}


@pytest.fixture
def chat_server():
    server = FakeChat(chat_answer)
    yield server
    server.close()


def test_openai_suite_run(tmp_path: Path, capsys, chat_server):
    project = Project(tmp_path, f"  builtin: openai\n  options: {{base_url: {json.dumps(chat_server.url)}, "
                                "model: local-model}\n")
    code, out = project.run(capsys)
    assert code == 0, out
    assert len(chat_server.requests) == 4
    bench = project.bench()
    assert_skill_made_the_difference(bench)
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    assert (w["input_tokens"], w["output_tokens"]) == (800, 40)
    assert (w["tokens_per_run"], wo["tokens_per_run"]) == (420, 120)
    assert bench["lift"]["extra_tokens_per_run"] == 300
    assert w["cost_usd"] is None  # a plain endpoint reports no price
    code, out = project.run(capsys)
    assert code == 0 and len(chat_server.requests) == 4, out  # nothing changed: nothing re-run
