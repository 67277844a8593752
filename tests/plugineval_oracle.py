"""Run one plugin-eval suite both ways against tests/fakemodel.py and compare what happened: by
the real ``claude plugin eval --json`` (the oracle) and by ``skill-eval run`` with the
claude-code adapter. For conformance tests (settings, graders, mocks):

    case = {"prompt.md": "---\\nmax_turns: 2\\n---\\nGo.\\n",
            "graders/any.md": "---\\ntype: regex\\npattern: x\\n---\\n"}
    plugin = write_plugin(tmp_path / "plug", {"turns": case})
    theirs = plugin_eval(claude, plugin, Script(loop_tool="Glob"), "--ablation", "none")
    ours = skill_eval(claude, plugin, Script(loop_tool="Glob"), tmp_path / "se", variants=("with_skill",))
    assert ours.causes() == theirs.causes()          # per-run error records, as causes
    assert ours.tool_lists() == theirs.tool_lists()  # tool names offered to the model, per request

A ``Capture`` holds the fake server's request log (``requests``), one ``RunRecord`` per run
(``runs``: case, arm, error text or None) and, for plugin eval, its whole JSON document.
``transcript(claude, work, prompt, script)`` makes a real session transcript for history cases.
``cause(text)`` reduces an error text of either tool to a comparable cause (``max_turns``,
``env:<KEY>``, ``scaffold``, ``timeout``, or ``other: <text>``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakemodel import FakeModel, Script

from skill_eval.cli.main import main

SKILL = "csv-summary"
SKILL_MD = f"---\nname: {SKILL}\ndescription: Summarise CSV files, with totals per column.\n---\nSum it.\n"
# Tools the CLI offers in every session whatever the grants (its own plumbing, not the agent's).
PLUMBING = frozenset({"ToolSearch", "DeferredToolPlaceholder"})


@dataclass(frozen=True)
class RunRecord:
    case: str
    arm: str  # "with" | "without"
    error: str | None


@dataclass
class Capture:
    requests: list[dict[str, Any]]
    runs: list[RunRecord]
    document: dict[str, Any] = field(default_factory=dict)
    # (case, arm, run number from 1, grader, passed) of every grader result
    verdicts: list[tuple[str, str, int, str, bool]] = field(default_factory=list)

    def model_requests(self) -> list[dict[str, Any]]:
        """The agent's own model calls (those offering tools), in the order they came."""
        return [r for r in self.requests if r["method"] == "POST" and isinstance(r["body"], dict)
                and r["path"].split("?")[0].endswith("/messages") and r["body"].get("tools")]

    def tool_lists(self) -> list[tuple[str, ...]]:
        """Sorted tool names of each agent request, the CLI's own plumbing left out; a deferred
        tool (an MCP tool the CLI names in a message and sends on ToolSearch) counts as offered."""
        return [tuple(sorted(({t["name"] for t in r["body"]["tools"]} | deferred(r["body"])) - PLUMBING))
                for r in self.model_requests()]

    def mock_answers(self) -> list[str]:
        """The text of every MCP tool result the model was sent (once each, in request order)."""
        out: dict[str, str] = {}
        for r in self.model_requests():
            blocks = [b for m in r["body"]["messages"] if isinstance(m.get("content"), list)
                      for b in m["content"] if isinstance(b, dict)]
            used = {b.get("id"): str(b.get("name")) for b in blocks if b.get("type") == "tool_use"}
            for b in blocks:
                if b.get("type") == "tool_result" and used.get(b.get("tool_use_id"), "").startswith("mcp__"):
                    content = b.get("content")
                    out.setdefault(str(b.get("tool_use_id")), content if isinstance(content, str) else
                                   "".join(c.get("text", "") for c in content if isinstance(c, dict)))
        return list(out.values())

    def causes(self) -> list[tuple[str, str, str | None]]:
        """(case, arm, cause) of every run, sorted."""
        return sorted((r.case, r.arm, cause(r.error)) for r in self.runs)

    def system_text(self) -> list[str]:
        return [json.dumps(r["body"].get("system")) for r in self.model_requests()]


_DEFERRED = re.compile(r"deferred tools are now available via ToolSearch.*?:\n((?:[^\n]+\n?)+)", re.DOTALL)


def deferred(body: dict[str, Any]) -> set[str]:
    """Names of the deferred tools a request lists in its messages."""
    out: set[str] = set()
    for m in body.get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            text = b.get("text") if isinstance(b, dict) else None
            found = _DEFERRED.search(text) if isinstance(text, str) else None
            if found:
                out |= {line.strip() for line in found.group(1).splitlines() if line.strip()}
    return out


def cause(text: str | None) -> str | None:
    if not text:
        return None
    if m := re.match(r"aborted by mock (.*)", text):
        return f"aborted: {m.group(1)}"
    if m := re.search(r'env key "([^"]+)" is not allowed', text):
        return f"env:{m.group(1)}"
    if re.search(r"maximum number of turns|max_turns", text):
        return "max_turns"
    if "scaffold failed" in text or re.search(r'path "[^"]+" does not exist', text):
        return "scaffold"
    if "timed out" in text:
        return "timeout"
    return f"other: {text}"


def write_plugin(root: Path, cases: dict[str, dict[str, str]], name: str = "csvp") -> Path:
    """A plugin with skill csv-summary and ``cases`` (case folder -> {relative file: text})."""
    files = {".claude-plugin/plugin.json": json.dumps({"name": name, "version": "0.1.0"}),
             f"skills/{SKILL}/SKILL.md": SKILL_MD}
    files.update({f"evals/{case}/{rel}": text for case, spec in cases.items() for rel, text in spec.items()})
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _clean_env(url: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "CLAUDE", "EVAL_"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-fake", HOME=str(home),
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def transcript(claude: Path, work: Path, prompt: str, script: Script) -> str:
    """A real Claude Code session transcript (.jsonl text) of one ``claude -p`` turn, for
    ``context.history_file`` cases."""
    home, ws = work / "t-home", work / "t-ws"
    ws.mkdir(parents=True, exist_ok=True)
    with FakeModel(script) as fm:
        env = {**_clean_env(fm.url, home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        subprocess.run([str(claude), "-p", "--output-format", "json", "--", prompt], cwd=ws, env=env,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=True)
    [found] = (home / ".claude" / "projects").glob("*/*.jsonl")
    return found.read_text()


def plugin_eval(claude: Path, plugin: Path, script: Script, *args: str, timeout: float = 300) -> Capture:
    """``claude plugin eval <plugin> --json --trust-plugin <args>`` against a fresh fake server."""
    with FakeModel(script) as fm:
        done = subprocess.run([str(claude), "plugin", "eval", str(plugin), "--trust-plugin", *args, "--json"],
                              env=_clean_env(fm.url, plugin.parent / "pe-home"), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        requests = list(fm.requests)
    try:
        document = json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"plugin eval printed no JSON (exit {done.returncode}): "
                             f"{done.stderr[-2000:]}") from None
    runs = [RunRecord(c["name"], arm, r.get("error") or _aborted(r.get("aborted"))) for c in document["cases"]
            for arm in ("with", "without") for r in c["arms"].get(arm) or []]
    verdicts = sorted((c["name"], arm, n, g["name"], bool(g["passed"])) for c in document["cases"]
                      for arm in ("with", "without") for n, r in enumerate(c["arms"].get(arm) or [], 1)
                      for g in r.get("graders") or [])
    return Capture(requests, runs, document, verdicts)


def _aborted(record: dict[str, Any] | None) -> str | None:
    """plugin eval's ``aborted`` record in skill-eval's words for the run's error."""
    if not record:
        return None
    return f"aborted by mock {record['server']}/{record['tool']}: {record['reason']}"


def write_suite(work: Path, claude: Path, plugin: Path, url: str,
                arms: tuple[str, ...] = ("with_skill",), suite_extra: str = "") -> Path:
    """``<work>/suite.yaml``: the suite over ``plugin`` that ``claude plugin eval <plugin>`` runs,
    by the claude-code adapter against the model server at ``url`` (each case's own ``runs``)."""
    work.mkdir(parents=True, exist_ok=True)
    suite = work / "suite.yaml"
    suite.write_text(
        f"suite: oracle\nskills_dir: {json.dumps(str(plugin / 'skills'))}\n"
        "skills: ['*']\n"
        f"adapter:\n  builtin: claude-code\n  options: {{claude_bin: {json.dumps(str(claude))}, "
        f"base_url: {json.dumps(url)}}}\n  env: [ANTHROPIC_API_KEY]\n"
        f"variants: {json.dumps(list(arms))}\niterations: 1\njobs: 1\ntimeout_seconds: 120\n"
        f"store: .store\nresults: results\n{suite_extra}")
    return suite


def skill_eval(claude: Path, plugin: Path, script: Script, work: Path, *run_args: str,
               arms: tuple[str, ...] = ("with_skill",), suite_extra: str = "",
               judge: bool = False) -> Capture:
    """``skill-eval run`` of a suite over ``plugin`` (claude-code adapter) against a fresh fake server;
    ``judge``: with the claude-code judge, same CLI and server (for llm and baseline graders)."""
    with FakeModel(script) as fm:
        if judge:
            suite_extra += ("judge:\n  builtin: claude-code\n"
                            f"  options: {{claude_bin: {json.dumps(str(claude))}, "
                            f"base_url: {json.dumps(fm.url)}}}\n  env: [ANTHROPIC_API_KEY]\n")
        suite = write_suite(work, claude, plugin, fm.url, arms, suite_extra)
        old = os.environ.get("ANTHROPIC_API_KEY")
        os.environ["ANTHROPIC_API_KEY"] = "sk-fake"
        try:
            main(["run", str(suite), *run_args])
        finally:
            if old is None:
                os.environ.pop("ANTHROPIC_API_KEY", None)
            else:
                os.environ["ANTHROPIC_API_KEY"] = old
        requests = list(fm.requests)
    return Capture(requests, stored_runs(work / ".store", work / "results"),
                   verdicts=stored_verdicts(work / "results"))


def stored_verdicts(results: Path) -> list[tuple[str, str, int, str, bool]]:
    """(case, arm, iteration, check id, passed) of every graded run under ``results``."""
    arm = {"with_skill": "with", "without_skill": "without"}
    out = []
    for path in results.glob("*/iteration-*/eval-*/*/grading.json"):
        grade = json.loads(path.read_text())
        iteration = int(path.parent.parent.parent.name.split("-")[1])
        out += [(grade["case_id"], arm.get(path.parent.name, path.parent.name), iteration, c["id"],
                 bool(c["passed"])) for c in grade["checks"]]
    return sorted(out)


def grader_verdicts(results: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(case, arm, grader) -> the grade's rubric item (status, votes) of each skill-eval run, from
    its grading.json (one run per case and arm)."""
    arm = {"with_skill": "with", "without_skill": "without"}
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path in sorted(results.glob("*/iteration-*/eval-*/*/grading.json")):
        grade = json.loads(path.read_text())
        for item in grade.get("rubric", []):
            out[(grade["case_id"], arm.get(path.parent.name, path.parent.name), item["id"])] = item
    return out


def stored_runs(store: Path, results: Path) -> list[RunRecord]:
    """One record per run skill-eval made: results (with their ``run_error``) and errors."""
    arm = {"with_skill": "with", "without_skill": "without"}
    out = [RunRecord(m["case"], arm.get(m["variant"], m["variant"]), m.get("run_error"))
           for m in (json.loads(p.read_text()) for p in sorted(store.glob("runs/*/*/meta.json")))]
    for err in sorted(results.glob("*/iteration-*/eval-*/*/error.json")):
        case = json.loads((err.parent.parent / "case.json").read_text()).get("id") \
            if (err.parent.parent / "case.json").is_file() else err.parent.parent.name[len("eval-"):]
        out.append(RunRecord(str(case), arm.get(err.parent.name, err.parent.name),
                             json.loads(err.read_text())["message"]))
    return out
