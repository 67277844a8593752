"""Shared by the real-CLI tiers (tests/test_real_agents.py, tests/test_real_judges.py): where
the npm-installed CLIs are, and a throw-away project with one skill and one eval case.

The tier runs against two sets of CLIs (both must pass): ``newest``, the newest published
versions when .ci/run installed them, and ``oldest``, the oldest versions we support, pinned in
.ci/agent-versions. A set lives in ``<base>/<set>/node_modules/.bin/`` for the base
$SKILL_EVAL_NPM_PREFIX, else .ci/npm in the checkout (where .ci/run installs both), else
~/.cache/skill-eval-npm; a flat ``<base>/node_modules/.bin/`` counts as ``newest``. Where a set is
not installed (or an ``oldest`` install is not the pinned version), its tests are skipped with
the reason.

``claude plugin eval`` (the first-party command the plugin-eval conformance tests compare with)
exists from Claude Code 2.1.269, after our oldest supported agent CLI: its tests run on
``newest`` and on ``plugin-eval-oldest``, Claude Code alone at CLAUDE_PLUGIN_EVAL_OLDEST.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from skill_eval.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SKILL = "csv-summary"
SETS = ("newest", "oldest")
PLUGIN_EVAL_SETS = ("newest", "plugin-eval-oldest")
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex",
            "gemini": "@google/gemini-cli", "opencode": "opencode-ai"}
_PIN_KEYS = {("claude", "oldest"): "CLAUDE_CODE_OLDEST", ("codex", "oldest"): "CODEX_OLDEST",
             ("gemini", "oldest"): "GEMINI_CLI_OLDEST", ("opencode", "oldest"): "OPENCODE_OLDEST",
             ("vibe", "oldest"): "VIBE_OLDEST",
             ("claude", "plugin-eval-oldest"): "CLAUDE_PLUGIN_EVAL_OLDEST"}


def pinned(name: str, which: str = "oldest") -> str:
    """The pinned version of CLI ``name`` in set ``which``, from .ci/agent-versions (what .ci/run reads)."""
    pin = _PIN_KEYS[(name, which)]
    for line in (REPO / ".ci" / "agent-versions").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == pin:
            return value.strip()
    raise KeyError(f"{pin} is not set in .ci/agent-versions")


def _bases() -> list[Path]:
    env = os.environ.get("SKILL_EVAL_NPM_PREFIX")
    return [Path(env)] if env else [REPO / ".ci" / "npm", Path.home() / ".cache" / "skill-eval-npm"]


def _prefixes(which: str) -> list[Path]:
    return [p for base in _bases() for p in ([base / which] + ([base] if which == "newest" else []))]


def installed_version(exe: Path, name: str) -> str | None:
    """The npm package version beside ``<prefix>/node_modules/.bin/<name>``."""
    meta = exe.parent.parent / PACKAGES[name] / "package.json"
    try:
        return str(json.loads(meta.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def cli(name: str, which: str = "newest") -> Path:
    """The ``which`` set's executable ``name`` ("claude", "codex", "gemini", "opencode"); skips
    the test if missing."""
    for prefix in _prefixes(which):
        exe = prefix / "node_modules" / ".bin" / name
        if exe.exists() and os.access(exe, os.X_OK):
            version = installed_version(exe, name)
            if which != "newest" and version != pinned(name, which):
                pytest.skip(f"{exe} is {PACKAGES[name]} {version}, not the pinned {which} "
                            f"{pinned(name, which)} (run .ci/run, or npm install it under <prefix>/{which})")
            return exe
    where = " or ".join(str(p) for p in _prefixes(which))
    pytest.skip(f"the {which} real {name} CLI is not installed under {where} (.ci/run installs it "
                "with npm when npm and the registry are reachable; or set SKILL_EVAL_NPM_PREFIX)")


def vibe_cli(which: str = "newest") -> Path:
    """Mistral Vibe (PyPI mistral-vibe, Python >= 3.12) of set ``which``, from its own venv:
    ``<base>/<which>/bin/vibe`` for the base $SKILL_EVAL_VIBE_PREFIX, else .ci/vibe (where .ci/run
    installs it), else ~/.cache/skill-eval-vibe; skips the test if missing or not the pin."""
    env = os.environ.get("SKILL_EVAL_VIBE_PREFIX")
    bases = [Path(env)] if env else [REPO / ".ci" / "vibe", Path.home() / ".cache" / "skill-eval-vibe"]
    for base in bases:
        exe = base / which / "bin" / "vibe"
        if exe.exists() and os.access(exe, os.X_OK):
            found = sorted((base / which / "lib").glob("python3*/site-packages/mistral_vibe-*.dist-info"))
            version = found[-1].name.removesuffix(".dist-info").split("-")[1] if found else None
            if which != "newest" and version != pinned("vibe", which):
                pin = pinned("vibe", which)
                pytest.skip(f"{exe} is mistral-vibe {version}, not the pinned {which} {pin}")
            return exe
    where = " or ".join(str(b / which) for b in bases)
    pytest.skip(f"the {which} Mistral Vibe is not installed under {where} "
                "(.ci/run installs it into a Python >= 3.12 venv when one is found; or set "
                "SKILL_EVAL_VIBE_PREFIX)")


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
    """``adapter_yaml``: the adapter mapping's lines; or a whole ``agents:`` block (several agents)."""

    def __init__(self, root: Path, adapter_yaml: str, iterations: int = 1, timeout: int = 60,
                 evals: dict[str, Any] | None = None, judge_yaml: str = "", jobs: int = 2):
        self.root = root
        skill = root / "skills" / SKILL
        (skill / "evals" / "files").mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {SKILL}\ndescription: Summarise CSV files, with totals per column.\n---\n"
            "Sum the amount column and state the total.\n")
        self.evals = skill / "evals" / "evals.json"
        self.evals.write_text(json.dumps(evals or EVALS))
        (skill / "evals" / "files" / "sales.csv").write_text("region,amount\nnorth,10\nsouth,32\n")
        self.suite = root / "suite.yaml"
        self.suite.write_text(
            "suite: real\nskills_dir: skills\nskills: ['*']\n"
            + (adapter_yaml if adapter_yaml.startswith("agents:") else f"adapter:\n{adapter_yaml}")
            + (f"judge:\n{judge_yaml}" if judge_yaml else "")
            + f"iterations: {iterations}\njobs: {jobs}\ntimeout_seconds: {timeout}\n"
            "store: .store\nresults: results\n")

    def run(self, capsys) -> tuple[int, str, float]:
        start = time.monotonic()
        code = main(["run", str(self.suite)])
        out = capsys.readouterr()
        return code, out.out + out.err, time.monotonic() - start

    def responses(self) -> list[tuple[dict, dict]]:
        """(meta, response) of every stored run."""
        found = []
        for resp in sorted((self.root / ".store").glob("**/runs/*/*/response.json")):
            meta = json.loads((resp.parent / "meta.json").read_text())
            found.append((meta, json.loads(resp.read_text())))
        return found


    def grades(self) -> dict[str, dict[str, Any]]:
        """variant/iteration -> the grading.json written to results/."""
        found = {}
        for path in sorted((self.root / "results" / SKILL).rglob("grading.json")):
            found[path.parent.relative_to(self.root / "results" / SKILL).as_posix()] = json.loads(
                path.read_text())
        return found


def skills_loaded(response: dict) -> list[str]:
    return [e["name"] for e in response["events"] if e["type"] == "skill_loaded"]


def agent_entry(name: str, adapter_yaml: str) -> str:
    """One ``agents:`` entry from an adapter mapping's lines (as claude_yaml writes them)."""
    lines = adapter_yaml.rstrip("\n").split("\n")
    return f"  - name: {name}\n" + "".join(f"  {line}\n" for line in lines)


def claude_yaml(exe: Path, base_url: str, extra: str = "") -> str:
    return (f"  builtin: claude-code\n  options: {{claude_bin: {json.dumps(str(exe))}, "
            f"base_url: {json.dumps(base_url)}{extra}}}\n"
            "  env: [CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC]\n")


def codex_yaml(exe: Path, base_url: str, extra: str = "") -> str:
    return (f"  builtin: codex\n  options: {{codex_bin: {json.dumps(str(exe))}, "
            f"base_url: {json.dumps(base_url + '/v1')}{extra}}}\n")
