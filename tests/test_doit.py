"""doit from the user's own project: `from skill_eval.doit import task_creators` in their dodo.py,
and `skill-eval doit SUITE [doit arguments]` from any folder. A failing verdict fails doit."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from suitekit import Kit, case, main_in

pytestmark = pytest.mark.slow  # doit and skill-eval as child processes

GENERATOR = """from pathlib import Path
Path("skills/alpha/evals/files/a1.txt").write_text("generated {version}\\n")
"""

DODO = """from skill_eval.doit import task_creators

def task_fixtures():
    return {"actions": ["python3 gen.py"], "file_dep": ["gen.py"],
            "targets": ["skills/alpha/evals/files/a1.txt"]}

globals().update(task_creators("suite.yaml", task_dep=["fixtures"]))
"""


def doit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def skill_eval(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skill_eval.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def executed(res: subprocess.CompletedProcess[str]) -> list[str]:
    """The tasks doit ran (". name"), in order; up-to-date ones ("-- name") left out."""
    return [line[3:] for line in res.stdout.splitlines() if line.startswith(".  ")]


def new_project(tmp_path: Path) -> Kit:
    """A user's project outside the checkout: a suite, a fixture generator and their dodo.py."""
    kit = Kit.create(tmp_path, iterations=1)
    kit.use_content_adapter()
    (kit.root / "gen.py").write_text(GENERATOR.format(version="v1"))
    (kit.root / "dodo.py").write_text(DODO)
    return kit


@pytest.fixture
def project(tmp_path: Path) -> Kit:
    return new_project(tmp_path)


@dataclass(frozen=True)
class FirstRun:
    project: Kit  # the project the first `doit` ran in (one test goes on in it)
    res: subprocess.CompletedProcess[str]
    copy: Kit  # the project as that run left it, for the tests that start from there


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> FirstRun:
    """A project's first `doit` (a child process of a CPU-second), made once for the module."""
    project = new_project(tmp_path_factory.mktemp("first"))
    res = doit(project.root)
    return FirstRun(project, res, project.copy_to(tmp_path_factory.mktemp("copy") / "proj"))


def test_a_users_dodo_runs_their_tasks_and_ours_in_order(first_run):
    project, res = first_run.project, first_run.res
    assert res.returncode == 0, res.stdout + res.stderr
    ran = executed(res)
    assert ran[0] == "fixtures" and ran[-1] == "verdict"
    assert (project.skill_dir("alpha") / "evals" / "files" / "a1.txt").read_text() == "generated v1\n"
    assert project.calls() == 6
    # The runs saw the generated fixture (the suite was loaded after the task that writes it).
    shown = (project.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill" / "output.txt").read_text()
    from skill_eval.fs.hashing import sha256_bytes

    assert sha256_bytes(b"generated v1\n")[:8] in shown

    project.reset()
    again = doit(project.root)
    assert again.returncode == 0 and executed(again) == [] and project.calls() == 0, again.stdout

    (project.root / "gen.py").write_text(GENERATOR.format(version="v2"))
    edited = doit(project.root)
    assert edited.returncode == 0, edited.stdout + edited.stderr
    assert "fixtures" in executed(edited)
    assert project.calls_by() == {"with_skill a1": 1, "without_skill a1": 1}


def test_the_doit_route_records_history_for_compare(first_run, tmp_path):
    # As `skill-eval run` does after a complete run: without it, compare had nothing on this route.
    assert first_run.res.returncode == 0
    project = first_run.copy.copy_to(tmp_path / "proj")
    history = project.store / "history" / "kit.jsonl"
    assert len(history.read_text().splitlines()) == 2  # one record per skill
    skill_md = project.skill_dir("alpha") / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "One more line.\n")
    assert doit(project.root).returncode == 0
    assert len(history.read_text().splitlines()) == 3  # alpha's new version; beta's is a repeat
    code, out, err = main_in(project.root, "compare", "suite.yaml", "--against", "previous")
    assert code == 0, out + err
    assert "alpha" in out


def test_a_failing_verdict_fails_doit_both_ways(project, tmp_path):
    evals = project.evals("alpha")["evals"]
    project.write_evals("alpha", [case("a1", "a1.txt", check_value="nowhere in any output"), evals[1]])
    res = doit(project.root)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "verdict" in res.stdout + res.stderr and "fail" in res.stdout + res.stderr
    again = doit(project.root)
    assert again.returncode == 1  # a failure is never recorded as up to date
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    via = skill_eval(elsewhere, "doit", "../proj/suite.yaml")
    assert via.returncode == 1, via.stdout + via.stderr


def test_skill_eval_doit_works_from_another_folder(project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    suite = "../proj/suite.yaml"
    listed = skill_eval(elsewhere, "doit", suite, "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "agent", "bench", "grade", "summary", "verdict"]
    dry = skill_eval(elsewhere, "doit", suite, "-n", "2", "-P", "thread")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert project.calls() == 6 and (project.results / "summary.json").is_file()
    assert not (elsewhere / ".doit.db").exists() and list(elsewhere.iterdir()) == []
    info = skill_eval(elsewhere, "doit", suite, "info", "agent:alpha/a1/with_skill/default/1")
    assert info.returncode == 0 and "up-to-date" in info.stdout, info.stdout + info.stderr
    project.reset()
    again = skill_eval(elsewhere, "doit", suite, "--always", "agent:alpha/a1/with_skill/default/1")
    assert again.returncode == 0 and project.calls() == 1, again.stdout + again.stderr
    forget = skill_eval(elsewhere, "doit", suite, "forget")
    assert forget.returncode == 0, forget.stdout + forget.stderr
    project.reset()
    after = skill_eval(elsewhere, "doit", suite)
    assert after.returncode == 0 and project.calls() == 0  # the store, not doit's memory, decides


def test_an_invalid_suite_is_one_line_per_problem(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.suite.write_text(kit.suite.read_text() + "bogus_key: 1\n")
    code, _, err = main_in(tmp_path, "doit", "proj/suite.yaml", "list")  # refused before doit starts
    assert code == 2 and "Traceback" not in err and "bogus_key" in err
