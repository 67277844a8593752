"""dodo.py through doit's own CLI (`doit list/info/run`, `-n 2`), in the repo, on a tmp suite.

doit runs in-process (its ``DoitMain``, what ``python -m doit`` calls): a child process would cost
a second of start-up each and test nothing more; tests/test_doit.py drives doit as a process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from doit import cmd_run
from doit.doit_cmd import DoitMain
from suitekit import Kit

REPO = Path(__file__).resolve().parents[1]
ALL = 18


def doit(kit: Kit, cmd: str = "run", *args: str) -> subprocess.CompletedProcess[str]:
    """``doit CMD -f dodo.py [options] suite=<kit> [tasks]`` from the repo folder."""
    opts = [a for a in args if a.startswith("-") or a.isdigit()]
    names = [a for a in args if a not in opts]
    argv = [cmd, "-f", str(REPO / "dodo.py"), *opts, f"suite={kit.suite}", *names]
    out, err = io.StringIO(), io.StringIO()
    cwd, path = os.getcwd(), list(sys.path)
    sys.modules.pop("dodo", None)  # doit imports dodo.py as a module: read it again for this suite
    default_out = cmd_run.opt_outfile["default"]  # `doit run` reports to sys.stdout as imported
    cmd_run.opt_outfile["default"] = out
    try:
        os.chdir(REPO)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = DoitMain().run(argv)
    finally:
        cmd_run.opt_outfile["default"] = default_out
        os.chdir(cwd)
        sys.path[:] = path
        sys.modules.pop("dodo", None)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture
def kit(tmp_path):
    return Kit.create(tmp_path)


def test_doit_list_and_info(kit):
    res = doit(kit, "list")
    assert res.returncode == 0, res.stderr
    assert [line.split()[0] for line in res.stdout.splitlines()] == [
        "agent", "bench", "grade", "summary", "verdict"]
    res = doit(kit, "list", "--all")
    names = {line.split()[0] for line in res.stdout.splitlines()}
    assert "agent:alpha/a1/with_skill/default/1" in names and "bench:beta" in names
    assert "grade:beta/b1/without_skill/default/3" in names
    assert len([n for n in names if n.startswith("agent:")]) == ALL
    res = doit(kit, "info", "agent:alpha/a1/with_skill/default/1")
    assert res.returncode == 1, res.stderr  # doit info: 1 = the task is not up to date
    assert "status     : run" in res.stdout
    assert " * never run\n" in res.stdout  # status's words, alone
    assert "args=" not in res.stdout and "lambda" not in res.stdout
    assert kit.calls() == 0


def test_doit_handles_model_names_with_equals_slash_and_colon(kit):
    kit.write_suite(iterations=1, extra="models: [meta-llama/Llama-3.1-8B-Instruct, 'llama3.1:8b', a=b]\n")
    res = doit(kit, "list", "--all")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "agent:alpha/a1/with_skill/a%3Db/1" in res.stdout  # doit refuses '=' in task names
    assert "agent:alpha/a1/with_skill/llama3.1:8b/1" in res.stdout
    res = doit(kit, "run", "-n", "2")
    assert res.returncode == 0, res.stdout + res.stderr
    assert kit.calls() == 3 * 3 * 2


def test_doit_runs_then_is_up_to_date(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)  # 6 runs: each adapter call is a process
    res = doit(kit, "run", "-n", "2")
    assert res.returncode == 0, res.stdout + res.stderr
    assert kit.calls() == ALL // 3
    assert kit.bench("alpha").is_file() and (kit.results / "summary.json").is_file()
    kit.reset()
    res = doit(kit)
    assert res.returncode == 0, res.stderr
    assert kit.calls() == 0
    assert all(line.startswith("--") for line in res.stdout.splitlines() if line.strip())
    # skill-eval agrees: the store is shared, nothing to run
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 0
    assert "0 to run, 0 to re-grade" in out
    res = doit(kit, "info", "agent:alpha/a1/with_skill/default/1")
    assert res.returncode == 0 and "up-to-date" in res.stdout


def test_doit_reruns_one_case_after_a_fixture_edit(tmp_path):
    kit = Kit.warm(tmp_path)  # after a first run
    (kit.skill_dir("beta") / "evals" / "files" / "b1.txt").write_text("edited\n")
    res = doit(kit, "run", "-n", "2")
    assert res.returncode == 0, res.stderr
    assert kit.calls_by() == {"with_skill b1": 3, "without_skill b1": 3}
    ran = [line[3:] for line in res.stdout.splitlines() if line.startswith(". ")]
    assert "bench:beta" in ran and "bench:alpha" not in ran
    assert json.loads(kit.bench("beta").read_text())["variants"]["with_skill"]["runs"] == 3


def test_doit_single_task(kit):
    res = doit(kit, "run", "agent:alpha/a2/without_skill/default/2")
    assert res.returncode == 0, res.stderr
    assert kit.calls_by() == {"without_skill a2": 1}


def test_doit_db_deleted_costs_no_call(tmp_path):
    kit = Kit.warm(tmp_path)  # after a first run
    for db in (kit.store / "doit").iterdir():
        db.unlink()
    res = doit(kit)
    assert res.returncode == 0, res.stderr
    assert kit.calls() == 0


def test_a_damaged_page_deep_in_doits_db_is_found_and_the_db_replaced(tmp_path):
    # issue 20: one bad page (not the first, which opening reads) made every run "internal error
    # in doit", exit 2, forever.
    import sqlite3

    kit = Kit.create(tmp_path, iterations=1)
    code, _, err = kit.run()
    assert code in (0, 1), err
    (db,) = (kit.store / "doit").glob("*.sqlite3")
    with sqlite3.connect(db) as conn:  # enough rows that the data lives past page 1
        conn.execute("CREATE TABLE IF NOT EXISTS filler (x TEXT)")
        conn.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,)] * 200)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    data[2 * page + 8: 3 * page] = b"\xa5" * (page - 8)
    db.write_bytes(bytes(data))
    kit.reset()
    kit.add_skill("gamma", ["g1"])  # new work, so doit runs (a no-op run never opens its DB)
    code, _, err = kit.run()
    assert code in (0, 1), err
    assert "internal error" not in err
    assert "doit's database in the store was damaged; it was replaced" in err
    assert {k.split()[1] for k in kit.calls_by()} == {"g1"}  # the store is the truth: no re-run
    code, _, err = kit.run()
    assert "damaged" not in err
