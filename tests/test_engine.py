"""The invalidation matrix (docs/incremental.md#the-invalidation-matrix), row by row, counted with
a counting adapter; and `status`."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from suitekit import Kit

ALL = 18  # alpha (a1, a2) + beta (b1) × 2 variants × 3 iterations
ONE = 6  # the same at iterations: 1, for rows where the number of iterations is not the point


@pytest.fixture
def kit(tmp_path):
    return Kit.warm(tmp_path)  # after a first run of ALL calls


def run_ok(kit: Kit, *args: str) -> str:
    code, out, err = kit.run(*args)
    assert code == 0, out + err
    return out


def reasons(kit: Kit) -> dict[str, str]:
    data = kit.status_json()
    return {i["task"]: i["reason"] for section in ("run", "regrade", "rebuild") for i in data[section]}


# ---- rows of the matrix ---------------------------------------------------------------------

def test_skill_file_edit_reruns_that_skills_with_skill_runs_only(kit):
    before = kit.mtimes()
    (kit.skill_dir("alpha") / "references" / "guide.md").write_text("alpha guide, revised\n")
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == 6 and all("/with_skill/" in t and t.startswith("agent:alpha/") for t in runs)
    assert all(r == "skills/alpha/references/guide.md changed" for r in runs.values())
    assert "bench:alpha" in status and "bench:beta" not in status and "summary" in status
    run_ok(kit)
    assert kit.calls_by() == {"with_skill a1": 3, "with_skill a2": 3}
    after = kit.mtimes()
    assert after["results/beta/benchmark.json"] == before["results/beta/benchmark.json"]
    assert after["results/alpha/benchmark.json"] != before["results/alpha/benchmark.json"]
    assert after["results/summary.json"] != before["results/summary.json"]


def test_skill_file_added_and_removed_are_named(kit):
    (kit.skill_dir("beta") / "scripts").mkdir()
    (kit.skill_dir("beta") / "scripts" / "x.sh").write_text("echo\n")
    assert set(reasons(kit).values()) >= {"skills/beta/scripts/x.sh added"}
    run_ok(kit)
    assert kit.calls_by() == {"with_skill b1": 3}
    kit.reset()
    (kit.skill_dir("beta") / "references" / "guide.md").unlink()
    assert set(reasons(kit).values()) >= {"skills/beta/references/guide.md removed"}
    run_ok(kit)
    assert kit.calls_by() == {"with_skill b1": 3}
    kit.reset()
    (kit.skill_dir("beta") / "references" / "guide.md").write_text("beta guide\n")
    (kit.skill_dir("beta") / "scripts" / "x.sh").unlink()
    assert not [t for t in reasons(kit) if t.startswith("agent:")]  # back to a stored tree
    run_ok(kit)
    assert kit.calls() == 0


def test_evals_folder_is_not_part_of_the_skill(kit):
    (kit.skill_dir("alpha") / "evals" / "notes.md").write_text("for humans\n")
    run_ok(kit)
    assert kit.calls() == 0


def test_fixture_edit_reruns_that_case_in_both_arms(kit):
    (kit.skill_dir("alpha") / "evals" / "files" / "a2.txt").write_text("changed fixture\n")
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == 6 and all(t.startswith("agent:alpha/a2/") for t in runs)
    assert set(runs.values()) == {"fixture inputs/evals/files/a2.txt changed"}
    run_ok(kit)
    assert kit.calls_by() == {"with_skill a2": 3, "without_skill a2": 3}


def test_prompt_edit_reruns_that_case(kit):
    kit.edit_case("beta", "b1", prompt="Task b1: write it again.")
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == 6 and set(runs.values()) == {"prompt changed"}
    run_ok(kit)
    assert kit.calls_by() == {"with_skill b1": 3, "without_skill b1": 3}


def test_check_edit_regrades_without_calls(kit):
    before = json.loads(kit.bench("alpha").read_text())
    mt = kit.mtimes()
    kit.edit_case("alpha", "a1", checks=[{"id": "says", "type": "contains", "value": "says"}])
    status = reasons(kit)
    assert not [t for t in status if t.startswith("agent:")]
    regrades = {t: r for t, r in status.items() if t.startswith("grade:")}
    assert len(regrades) == 6 and all(t.startswith("grade:alpha/a1/") for t in regrades)
    assert set(regrades.values()) == {"check says changed"}  # the check that changed, by id
    run_ok(kit)
    assert kit.calls() == 0
    after = json.loads(kit.bench("alpha").read_text())
    # without_skill now passes a1 too: the grade changed
    assert after["variants"]["without_skill"]["pass_rate"] > before["variants"]["without_skill"]["pass_rate"]
    assert kit.mtimes()["results/beta/benchmark.json"] == mt["results/beta/benchmark.json"]


def test_expected_output_edit_regrades_nothing_without_judge_rubric(kit):
    kit.edit_case("alpha", "a1", expected_output="something else")
    status = reasons(kit)
    assert not [t for t in status if t.startswith("agent:")]
    run_ok(kit)
    assert kit.calls() == 0


def test_iterations_raised_runs_only_new_iterations(kit):
    kit.write_suite(iterations=5)
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == 12 and all(t.endswith(("/4", "/5")) for t in runs)
    assert set(runs.values()) == {"new iteration"}
    run_ok(kit)
    assert kit.calls() == 12
    assert all(n == 2 for n in kit.calls_by().values())
    kit.reset()
    kit.write_suite(iterations=3)  # lowering: nothing runs, tables rebuilt
    run_ok(kit)
    assert kit.calls() == 0
    assert json.loads(kit.bench("alpha").read_text())["variants"]["with_skill"]["runs"] == 6


def test_iterations_option_overrides(kit):
    run_ok(kit, "--iterations", "4")
    assert kit.calls() == 6


def test_case_added_runs_only_it(kit):
    data = kit.evals("alpha")
    (kit.skill_dir("alpha") / "evals" / "files" / "a3.txt").write_text("new\n")
    kit.write_evals("alpha", [*data["evals"], {"id": "a3", "prompt": "Task a3: new.",
                                               "files": ["evals/files/a3.txt"],
                                               "checks": [{"id": "x", "type": "contains", "value": "with"}]}])
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == 6 and set(runs.values()) == {"new case"}
    run_ok(kit)
    assert kit.calls_by() == {"with_skill a3": 3, "without_skill a3": 3}


def test_case_removed_runs_nothing_and_rebuilds_tables(kit):
    mt = kit.mtimes()
    data = kit.evals("alpha")
    kit.write_evals("alpha", [c for c in data["evals"] if c["id"] != "a2"])
    status = reasons(kit)
    assert not [t for t in status if t.startswith(("agent:", "grade:"))]
    assert "bench:alpha" in status
    run_ok(kit)
    assert kit.calls() == 0
    bench = json.loads(kit.bench("alpha").read_text())
    assert [c["id"] for c in bench["cases"]] == ["a1"]
    assert kit.mtimes()["results/beta/benchmark.json"] == mt["results/beta/benchmark.json"]


def test_report_option_rebuilds_tables_only(kit):
    mt = kit.mtimes()
    kit.write_suite(extra="minimum_lift: 0.5\n")
    status = reasons(kit)
    assert not [t for t in status if t.startswith(("agent:", "grade:"))]
    assert {"bench:alpha", "bench:beta", "summary"} <= set(status)
    run_ok(kit)
    assert kit.calls() == 0
    assert json.loads(kit.bench("alpha").read_text())["lift"]["minimum_lift"] == 0.5
    assert kit.mtimes()["results/alpha/benchmark.json"] != mt["results/alpha/benchmark.json"]


@pytest.mark.parametrize("fmt", ["md", "github", "junit", "json", "html"])
def test_report_formats_call_nothing(kit, fmt):
    code, out, err = kit.cli("report", "suite.yaml", "--format", fmt, "--out", f"report.{fmt}")
    assert code == 0, err
    assert (kit.root / f"report.{fmt}").stat().st_size > 0
    assert kit.calls() == 0


def test_touch_is_a_noop(kit):
    mt = kit.mtimes()
    for p in kit.root.rglob("*"):
        if p.is_file() and ".skill-eval" not in p.parts and "results" not in p.parts:
            os.utime(p)
    assert reasons(kit) == {}
    out = run_ok(kit)
    assert "0 to run, 0 to re-grade, 0 tables to rebuild" in out
    assert kit.calls() == 0
    assert kit.mtimes() == mt
    out = run_ok(kit)
    assert out.startswith("Up to date")
    for p in kit.results.rglob("*"):  # touching the tables: looked at closer, not rewritten
        os.utime(p)
    mt = kit.mtimes()
    assert "0 tables to rebuild" in run_ok(kit)
    assert kit.mtimes() == mt and kit.calls() == 0
    assert run_ok(kit).startswith("Up to date")


def test_fresh_clone_and_moved_folder_are_noops(kit, tmp_path):
    mt = kit.mtimes()
    clone = kit.copy_to(tmp_path / "clone")  # copytree: new inodes, new mtimes, new absolute paths
    run_ok(clone)
    assert clone.calls() == 0
    assert reasons(clone) == {}
    moved = tmp_path / "moved"
    kit.root.rename(moved)
    kit = Kit(moved)
    assert reasons(kit) == {}
    run_ok(kit)
    assert kit.calls() == 0
    assert {k: v for k, v in kit.mtimes().items()} == mt


@pytest.mark.parametrize("what", ["doit", "hashcache.json", "state", "all"])
def test_deleted_databases_are_noops(kit, what):
    mt = kit.mtimes()
    targets = ["doit", "hashcache.json", "state"] if what == "all" else [what]
    for t in targets:
        p = kit.store / t
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    run_ok(kit)
    assert kit.calls() == 0
    assert kit.mtimes() == mt


@pytest.mark.parametrize("what", ["hashcache.json", "state/kit.json", "state/kit.fast.json"])
def test_corrupt_databases_are_rebuilt_silently(kit, what):
    (kit.store / what).write_text("{not json")
    os.utime(kit.suite)  # past the fast path, so the damaged file is read
    code, out, err = kit.run()
    assert code == 0 and err == ""
    assert kit.calls() == 0
    json.loads((kit.store / what).read_text())  # rewritten


def test_corrupt_doit_db_is_rebuilt(kit):
    kit.edit_case("beta", "b1", prompt="Task b1: changed.")  # so doit opens its DB
    for db in (kit.store / "doit").iterdir():
        db.write_bytes(b"garbage, not sqlite" * 10)
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == 6


def test_adapter_script_edit_reruns_everything(kit):
    adapter = kit.root / "adapter.py"
    adapter.write_text(adapter.read_text() + "\n# a comment changes the script's hash\n")
    status = reasons(kit)
    runs = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(runs) == ALL
    assert set(runs.values()) == {"adapter changed (script, arguments, options or version)"}
    run_ok(kit)
    assert kit.calls() == ALL


def test_adapter_version_and_model_change_rerun_everything(kit):
    kit.write_suite(extra="models: [other]\n")
    assert kit.status_json()["planned"] == ALL
    run_ok(kit)
    assert kit.calls() == ALL


def test_noop_does_not_rewrite_tables_or_grades(kit):
    mt = kit.mtimes()
    grades = {p: p.stat().st_mtime_ns for p in kit.store.glob("grades/*/*.json")}
    run_ok(kit)
    run_ok(kit, "-j", "1")
    assert kit.mtimes() == mt
    assert {p: p.stat().st_mtime_ns for p in kit.store.glob("grades/*/*.json")} == grades
    assert kit.calls() == 0


# ---- errors ---------------------------------------------------------------------------------

def test_failing_case_others_finish_then_only_failed_retry(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.control(fail="Task a2")
    code, out, err = kit.run()
    assert code == 2
    assert kit.calls() == ONE
    assert len(kit.stored_runs()) == ONE - 2
    status = reasons(kit)
    failed = {t: r for t, r in status.items() if t.startswith("agent:")}
    assert len(failed) == 2 and all(t.startswith("agent:alpha/a2/") for t in failed)
    prefix = "previous attempt failed: adapter command exited with status 3"
    assert all(r.startswith(prefix) for r in failed.values())
    assert all("boom: cannot do Task a2" in r for r in failed.values())
    kit.reset()
    code, out, err = kit.run()  # still failing: retried again, never cached as success
    assert code == 2 and kit.calls() == 2
    kit.reset()
    kit.control()
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls_by() == {"with_skill a2": 1, "without_skill a2": 1}
    kit.reset()
    run_ok(kit)
    assert kit.calls() == 0


# ---- selection ------------------------------------------------------------------------------

def test_force_reruns_selected(kit):
    run_ok(kit, "--force", "--only", "beta/*")
    assert kit.calls_by() == {"with_skill b1": 3, "without_skill b1": 3}
    kit.reset()
    assert reasons(kit) == {}
    run_ok(kit)
    assert kit.calls() == 0


def test_only_selects(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    code, out, err = kit.run("--only", "alpha/a1/*")
    assert code == 0, out + err
    assert kit.calls_by() == {"with_skill a1": 1, "without_skill a1": 1}
    kit.reset()
    run_ok(kit)
    assert kit.calls() == ONE - 2


def test_shards_partition_and_merge(tmp_path):
    base = Kit.create(tmp_path, iterations=1, name="base")
    one, two = base.copy_to(tmp_path / "one"), base.copy_to(tmp_path / "two")
    assert one.run("--shard", "1/2")[0] == 0
    assert two.run("--shard", "2/2")[0] == 0
    assert one.calls() + two.calls() == ONE
    assert 0 < one.calls() < ONE
    assert set(one.stored_runs()).isdisjoint(two.stored_runs())
    assert len(set(one.stored_runs()) | set(two.stored_runs())) == ONE
    for shard in (one, two):
        for kind in ("runs", "grades"):
            shutil.copytree(shard.store / kind, base.store / kind, dirs_exist_ok=True)
    code, out, err = base.cli("report", "suite.yaml", "--format", "json")
    assert code == 0, err
    assert base.calls() == 0
    bench = json.loads(base.bench("alpha").read_text())
    assert bench["variants"]["with_skill"]["runs"] == 2 and bench["variants"]["with_skill"]["errors"] == 0
    assert base.run()[0] == 0
    assert base.calls() == 0


def _strip_durations(obj):
    if isinstance(obj, dict):
        return {k: _strip_durations(v) for k, v in obj.items() if k not in ("duration_s",)}
    if isinstance(obj, list):
        return [_strip_durations(v) for v in obj]
    return obj


def test_jobs_do_not_change_results(tmp_path):
    a, b = Kit.create(tmp_path, iterations=1, name="a"), Kit.create(tmp_path, iterations=1, name="b")
    assert a.run("-j", "1")[0] == 0
    assert b.run("-j", "4")[0] == 0
    for skill in ("alpha", "beta"):
        ja, jb = a.bench(skill).read_text(), b.bench(skill).read_text()
        # wall-clock durations are measurements; every other byte is equal
        assert _strip_durations(json.loads(ja)) == _strip_durations(json.loads(jb))
    grades_a = sorted(p.read_bytes() for p in a.store.glob("grades/*/*.json"))
    grades_b = sorted(p.read_bytes() for p in b.store.glob("grades/*/*.json"))
    assert grades_a == grades_b
    head = [(k.results / "summary.md").read_text().split("\n")[:5] for k in (a, b)]
    assert head[0] == head[1]


# ---- budget ---------------------------------------------------------------------------------

def test_max_cost_stops_scheduling(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.control(cost=0.1)
    code, out, err = kit.run("-j", "1", "--max-cost", "0.25")
    assert code == 2
    assert "budget" in (out + err)
    assert 3 <= kit.calls() <= 4
    assert len(kit.stored_runs()) == kit.calls()
    assert not list(kit.store.glob("errors/*.json"))  # not an error of the runs
    done = len(kit.stored_runs())
    kit.reset()
    code, out, err = kit.run("-j", "1")
    assert code == 0, out + err
    assert kit.calls() == ONE - done
    assert len(kit.stored_runs()) == ONE


# ---- status ---------------------------------------------------------------------------------

def test_status_json_shape(tmp_path):
    kit = Kit.create(tmp_path)
    data = kit.status_json()
    assert set(data) >= {"suite", "planned", "run", "regrade", "rebuild", "estimated_cost_usd"}
    assert data["suite"] == "kit" and data["planned"] == ALL
    assert len(data["run"]) == ALL and {"task", "reason"} == set(data["run"][0])
    assert {r["reason"] for r in data["run"]} == {"never run"}
    assert kit.calls() == 0
    assert not kit.store.exists() or not (kit.store / "runs").exists()


def test_status_text_and_explain(kit):
    code, out, err = kit.status("--explain", "agent:alpha/a1/with_skill/default/1")
    assert code == 0, err
    data = json.loads(out)
    assert data["stored"] is True and len(data["key"]) == 64
    assert data["inputs"]["prompt"]["value"] == "Task a1: write it."
    assert data["inputs"]["files"]["value"][0][0] == "inputs/evals/files/a1.txt"
    assert set(data["skill_files"]) == {"SKILL.md", "references/guide.md"}
    code, out, err = kit.status("--explain", "grade:alpha/a1/with_skill/default/1")
    assert code == 0 and "grading" in json.loads(out)["inputs"]
    code, out, err = kit.status("--explain", "agent:nope")
    assert code == 2 and "no task" in err
    kit.edit_case("alpha", "a1", prompt="Task a1: other.")
    code, out, err = kit.status()
    assert "run       agent:alpha/a1/with_skill/default/1: prompt changed" in out
    assert ", 6 to run," in out


def test_status_does_not_take_the_lock_or_call_anything(kit):
    from skill_eval.store.store import Store

    kit.edit_case("alpha", "a1", prompt="Task a1: other.")
    with Store(kit.store).lock():
        data = kit.status_json()
    assert len(data["run"]) == 6
    assert kit.calls() == 0
