"""action.yml, the composite GitHub Action: its shell steps run here, in order, as the runner
would (bash -eo pipefail, $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY, `if:` and step outputs), in a temp
repository made by `skill-eval init`. The cache steps are played by copying the store folder
(GitHub itself cannot be reached). The job must fail exactly when the verdict fails or the input
is invalid."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from skill_eval.cli.subcommands.init import init_project

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]
_EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


@dataclass
class Job:
    repo: Path
    inputs: dict[str, str]
    cache: Path
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    failed: bool = False

    def value(self, expr: str) -> str:
        if expr.startswith("inputs."):
            return self.inputs[expr.split(".", 1)[1]]
        if expr.startswith("steps."):
            _, step, _, name = expr.split(".")
            return self.outputs.get(step, {}).get(name, "")
        return {"github.action_path": str(ROOT), "runner.os": "Linux", "github.run_id": "7",
                "github.run_attempt": "1"}[expr]

    def text(self, template: str) -> str:
        return _EXPR.sub(lambda m: self.value(m.group(1)), template)

    def runs(self, step: dict) -> bool:
        cond = step.get("if")
        if cond is None:
            return not self.failed
        # The action's conditions: [always() &&] <value> != '' [&& <value> == '']
        parts = [p.strip() for p in cond.split("&&")]
        if parts[0] == "always()":
            parts = parts[1:]
        elif self.failed:
            return False
        for part in parts:
            op = "!=" if "!=" in part else "=="
            assert part.endswith(f"{op} ''"), cond
            if (self.value(part.split(op)[0].strip()) != "") != (op == "!="):
                return False
        return True


def _inputs(**given: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    values["install"] = ""  # skill-eval is installed here already (the test's own venv)
    values.update(given)
    return values


# `python3 -m pip ...` recorded, not run (pip's own start costs ~1.5 CPU-s and reaches the index);
# every other python3 call is the real one. The test checks what pip was asked for instead.
_PIP_SHIM = """#!/bin/bash
if [ "$1 $2" = "-m pip" ]; then shift 2; printf '%s\\n' "$*" >> "$PIP_LOG"; exit 0; fi
exec "{python}" "$@"
"""


def _pip_shim(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    shim = folder / "python3"
    shim.write_text(_PIP_SHIM.format(python=Path(sys.executable).parent / "python3"))
    shim.chmod(0o755)
    return folder


def play(job: Job, pip_log: Path | None = None) -> Job:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    if pip_log is not None:
        path = f"{_pip_shim(job.repo.parent / 'shim')}{os.pathsep}{path}"
    env_base = {**os.environ, "PATH": path,
                "RUNNER_TEMP": str(job.repo.parent / "runner-temp"), "PYTHONPATH": str(ROOT)}
    if pip_log is not None:
        env_base["PIP_LOG"] = str(pip_log)
    Path(env_base["RUNNER_TEMP"]).mkdir(exist_ok=True)
    summary = job.repo.parent / "step-summary.md"
    for i, step in enumerate(STEPS):
        sid = step.get("id", f"step{i}")
        if not job.runs(step):
            continue
        if "uses" in step:
            _cache(job, step)
            continue
        output = job.repo.parent / f"output-{sid}"
        output.write_text("")
        env = {**env_base, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
               **{k: job.text(str(v)) for k, v in (step.get("env") or {}).items()}}
        script = job.text(step["run"])
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
        done = subprocess.run(argv, cwd=job.repo,
                              env=env, capture_output=True, text=True, timeout=300)
        job.codes[step["name"]] = done.returncode
        job.logs[step["name"]] = done.stdout + done.stderr
        job.outputs[sid] = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
        job.failed = job.failed or done.returncode != 0
    job.logs["summary"] = summary.read_text() if summary.exists() else ""
    return job


def _cache(job: Job, step: dict) -> None:
    store = Path(job.text(step["with"]["path"]))
    kept = job.cache / "store"
    if step["uses"].startswith("actions/cache/restore") and kept.is_dir():
        shutil.copytree(kept, store, dirs_exist_ok=True)
    elif step["uses"].startswith("actions/cache/save") and store.is_dir():
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(store, kept)


def _new_repo(root: Path) -> Path:
    init_project(root, skill="notes")
    suite = root / "skill-eval.yaml"
    suite.write_text(suite.read_text().replace("iterations: 3", "iterations: 1"))
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def repo(tmp_path) -> Path:
    return _new_repo(tmp_path / "repo")


@pytest.fixture(scope="module")
def passed(tmp_path_factory) -> Job:
    """One passing job on a fresh repository, made once for the module (each job costs CPU-seconds
    of child processes): the tests that start from its store take a copy (`warm`)."""
    return _job(_new_repo(tmp_path_factory.mktemp("passed") / "repo"))


@pytest.fixture
def warm(passed: Job, tmp_path: Path) -> Path:
    """The repository after a passing job, and the cache that job saved: the next job restores it."""
    root = tmp_path / "repo"
    shutil.copytree(passed.repo, root, symlinks=True)
    shutil.copytree(passed.cache, tmp_path / "cache")
    return root


def _job(repo: Path, pip_log: Path | None = None, **inputs: str) -> Job:
    cache = repo.parent / "cache"
    cache.mkdir(exist_ok=True)
    return play(Job(repo, _inputs(**inputs), cache), pip_log)


def _fail_a_check(repo: Path) -> None:
    path = repo / "skills" / "notes" / "evals" / "evals.json"
    data = json.loads(path.read_text())
    data["evals"][0]["checks"].append({"id": "never", "type": "contains", "value": "zzz-never-said"})
    path.write_text(json.dumps(data, indent=2))


def test_every_step_is_a_bash_step_or_a_pinned_cache_action():
    for step in STEPS:
        pinned = ("actions/cache/restore@v4", "actions/cache/save@v4")
        assert step.get("shell") == "bash" or step["uses"] in pinned
        # Inputs reach scripts through env only: an input never becomes shell code.
        assert "inputs." not in step.get("run", "")


@pytest.mark.slow
def test_a_passing_suite_passes_the_job_writes_the_summary_and_reuses_the_store(passed, warm):
    job = passed
    assert not job.failed, job.logs
    assert job.outputs["run"]["code"] == "0" and job.codes["Verdict"] == 0
    assert "notes" in job.logs["summary"]
    again = _job(warm)  # a fresh checkout would restore the cache: nothing to run
    assert not again.failed
    assert "Up to date" in again.logs["Run"] or "0 runs executed" in again.logs["Run"], again.logs["Run"]


@pytest.mark.slow
def test_a_failed_check_fails_the_job_after_the_summary_and_annotations(warm):
    _fail_a_check(warm)  # after a passing job: its runs are reused, the new check is graded
    job = _job(warm)
    assert job.failed and job.codes["Verdict"] == 1 and job.outputs["run"]["code"] == "1"
    assert job.codes["Run"] == 0 and job.codes["Summary and annotations"] == 0
    assert "::error file=skills/notes/evals/evals.json,line=5," in job.logs["Summary and annotations"]
    assert job.logs["summary"]


@pytest.mark.slow
def test_invalid_input_fails_the_job(repo):
    suite = repo / "skill-eval.yaml"
    suite.write_text(suite.read_text().replace("[python3, adapter.py]", "[python3, adaptr.py]"))
    job = _job(repo)
    assert job.failed and job.outputs["run"]["code"] == "2" and job.codes["Verdict"] == 2
    assert "adaptr.py' not found" in job.logs["Run"]
    suite.write_text(suite.read_text().replace("iterations:", "iteratons:"))
    job = _job(repo)
    assert job.failed and job.codes["Read the suite"] == 2 and "Run" not in job.codes
    assert job.codes["Verdict"] == 2 and "did you mean" in job.logs["Read the suite"]


@pytest.mark.slow
def test_with_a_remote_a_fresh_job_is_served_from_it_and_no_cache_is_used(repo, tmp_path):
    pytest.importorskip("obstore", reason="obstore is not installed: pip install 'skill-eval[remote]'")
    from importlib.metadata import version

    from packaging.specifiers import SpecifierSet

    remote = tmp_path / "remote"
    pip_log = tmp_path / "pip.log"
    job = _job(repo, pip_log, remote=f"file://{remote}")
    assert not job.failed, job.logs
    # The install step asks pip for the remote extra's client, which the installed one satisfies.
    (asked,) = pip_log.read_text().splitlines()
    spec = asked.removeprefix("install --quiet obstore")
    assert spec != asked and version("obstore") in SpecifierSet(spec), asked
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extra["remote"] == [f"obstore{spec}"]
    assert list(remote.rglob("manifest.json")) and not (job.repo.parent / "cache" / "store").exists()
    fresh = tmp_path / "fresh" / "repo"
    shutil.copytree(repo, fresh, ignore=shutil.ignore_patterns(".skill-eval", "results"))
    again = _job(fresh, pip_log, remote=f"file://{remote}")
    assert not again.failed, again.logs
    assert "runs served by" in again.logs["Run"], again.logs["Run"]


@pytest.mark.slow
def test_a_shard_runs_its_share(repo):
    job = _job(repo, shard="1/2")
    assert not job.failed, job.logs
    runs = list((repo / ".skill-eval" / "store" / "runs").glob("*/*"))
    assert 0 < len(runs) < 6  # 3 cases x 2 arms, split in two


@pytest.mark.parametrize(("text", "args"), [
    ("", []),
    ("--allow-tools\nBash(npm test *)\n", ["--allow-tools", "Bash(npm test *)"]),
    ("  --max-cost=5  \n\n--force\n", ["--max-cost=5", "--force"]),
    ('["--allow-tools", "Bash(npm test *)", "*"]', ["--allow-tools", "Bash(npm test *)", "*"]),
])
def test_args_is_a_list_one_argument_a_line_or_a_json_array(text, args):
    from skill_eval.cli.action_args import parse

    assert parse(text) == args


@pytest.mark.parametrize(("text", "why"), [
    ("--allow-tools Bash(npm test *)", "--allow-tools on one line and Bash(npm test *) on the next"),
    ("--max-cost 5", "or --max-cost=5"),
    ('["--force", 5]', "strings only"),
    ("[--force", "not a JSON array"),
])
def test_args_that_would_be_misread_are_refused_in_one_line(text, why):
    from skill_eval.cli.action_args import BadArgs, parse

    with pytest.raises(BadArgs, match=re.escape(why)):
        parse(text)


@pytest.mark.slow
@pytest.mark.parametrize("args", ["--only\n*\n", '["--only", "*"]'])
def test_args_reach_run_as_written_neither_split_nor_globbed(warm, args):
    # issue 54: $ARGS was expanded unquoted: '*' became the checkout's file names (and
    # 'Bash(npm test *)' three words), so this run failed as a usage error.
    job = _job(warm, args=args)
    assert not job.failed, job.logs
    assert job.outputs["run"]["code"] == "0" and job.codes["Verdict"] == 0


@pytest.mark.slow
def test_an_option_and_its_value_on_one_line_fail_the_job_saying_how(repo):
    job = _job(repo, args="--max-cost 5")
    assert job.failed and job.outputs["run"]["code"] == "2" and job.codes["Verdict"] == 2
    assert "--max-cost on one line and 5 on the next, or --max-cost=5" in job.logs["Run"]
