from __future__ import annotations

import json

import pytest
from benchdata import SKILL, case, error, main_fixture, record
from jsonschema import Draft202012Validator

from skill_eval.intake.schemas_io import load_schema
from skill_eval.review.comparison.benchmark import RunRecord, build_benchmark, diff_benchmarks


def valid(bench: dict) -> dict:
    errors = list(Draft202012Validator(load_schema("benchmark")).iter_errors(bench))
    assert not errors, [e.message for e in errors]
    return bench


@pytest.fixture(scope="module")
def bench() -> dict:
    cases, records = main_fixture()
    return valid(build_benchmark("demo", SKILL, "m1", cases, records, minimum_lift=0.1))


def test_arms(bench):
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    assert (w["runs"], w["graded"], w["passed"], w["errors"]) == (12, 12, 7, 0)
    assert (wo["runs"], wo["graded"], wo["passed"], wo["errors"]) == (12, 12, 5, 0)
    assert w["pass_rate"] == pytest.approx(7 / 12) and wo["pass_rate"] == pytest.approx(5 / 12)
    assert w["duration_s"] == {"median": 2.0, "p95": pytest.approx(3.0), "total": 24.0}
    assert w["usage"] == {"cost_usd": pytest.approx(0.12), "input_tokens": 120, "output_tokens": 60}


def test_lift(bench):
    lift = bench["lift"]
    assert lift["pass_rate"] == pytest.approx(1 / 6)
    assert lift["cases"] == 4 and lift["nonzero_cases"] == 2
    assert lift["p_value"] == pytest.approx(1.0)  # deltas 1 and -1/3: every sign pattern is as extreme
    lo, hi = lift["ci95"]
    assert lo <= 1 / 6 <= hi
    assert lift["minimum_lift"] == 0.1 and lift["met"] is True
    assert lift["significant"] is False and lift["indeterminate"] is True


def test_cases_and_flags(bench):
    rows = {c["id"]: c for c in bench["cases"]}
    assert [c["id"] for c in bench["cases"]] == ["c1", "c2", "c3", "c4"]
    assert rows["c1"]["flags"] == ["improved"] and rows["c1"]["delta"] == 1.0
    assert rows["c2"]["flags"] == ["regressed", "flaky"] and rows["c2"]["delta"] == pytest.approx(-1 / 3)
    assert rows["c3"]["flags"] == ["saturated", "contaminated"] and rows["c3"]["delta"] == 0
    assert rows["c4"]["flags"] == ["floor", "not-loaded"]
    c2 = rows["c2"]["with_skill"]
    assert (c2["runs"], c2["graded"], c2["passed"], c2["errors"]) == (3, 3, 1, 0)
    assert c2["pass_at_k"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(2 / 3), "3": 1.0}
    assert c2["pass_hat_k"] == {"1": pytest.approx(1 / 3), "2": 0.0, "3": 0.0}
    assert [f["iteration"] for f in c2["failed_checks"]] == [2, 3]
    assert c2["failed_checks"][0]["id"] == "ok"


def test_checks_table(bench):
    rows = {c["id"]: c for c in bench["checks"]}
    assert len(rows) == 8
    assert rows["c1/ok"] == {"id": "c1/ok", "case": "c1", "check": "ok", "type": "contains", "required": True,
                             "with_skill": 1.0, "without_skill": 0.0, "non_discriminating": False}
    assert all(rows[f"{c}/always"]["non_discriminating"] for c in ("c1", "c2", "c3", "c4"))
    assert rows["c3/ok"]["non_discriminating"] is True  # saturated case: the check cannot discriminate
    assert rows["c2/ok"]["with_skill"] == pytest.approx(1 / 3)


def test_verdict_fail_when_a_with_skill_check_failed(bench):
    assert bench["verdict"] == "fail"


def test_verdict_pass_and_minimum_lift():
    cases = [case(f"k{i}") for i in range(6)]
    recs = [record(c, v, 1, v == "with_skill", v == "with_skill") for c in cases
            for v in ("with_skill", "without_skill")]
    b = valid(build_benchmark("s", SKILL, "m", cases, recs, None))
    assert b["verdict"] == "pass" and b["lift"]["met"] is None
    assert b["lift"]["p_value"] == pytest.approx(0.03125)
    assert b["lift"]["significant"] is True and b["lift"]["indeterminate"] is False
    assert all(c["flags"] == ["improved"] for c in b["cases"])
    b = build_benchmark("s", SKILL, "m", cases, recs, 1.5)
    assert b["verdict"] == "fail" and b["lift"]["met"] is False


def test_errored_run_is_excluded_and_sets_verdict():
    c = case("e1")
    recs = [record(c, "with_skill", 1, True, True), error(c, "with_skill", 2),
            record(c, "without_skill", 1, False, False), record(c, "without_skill", 2, False, False)]
    b = valid(build_benchmark("s", SKILL, "m", [c], recs, None))
    arm = b["cases"][0]["with_skill"]
    assert (arm["runs"], arm["graded"], arm["passed"], arm["errors"]) == (2, 1, 1, 1)
    assert arm["pass_rate"] == 1.0 and arm["pass_at_k"] == {"1": 1.0}
    assert "timeout" in arm["error_messages"][0]
    assert b["cases"][0]["flags"] == ["improved", "error"]
    assert b["variants"]["with_skill"]["errors"] == 1 and b["variants"]["with_skill"]["graded"] == 1
    assert b["verdict"] == "error"


def test_all_runs_errored_gives_no_lift():
    c = case("e2")
    b = valid(build_benchmark("s", SKILL, "m", [c], [error(c, "with_skill", 1), error(c, "without_skill", 1)],
                              0.1))
    assert b["lift"]["pass_rate"] is None and b["lift"]["ci95"] is None and b["lift"]["met"] is False
    assert b["cases"][0]["delta"] is None and b["cases"][0]["flags"] == ["error"]
    assert b["verdict"] == "error"


def test_not_loaded_needs_loads_reported_somewhere():
    c = case("n1")
    recs = [record(c, "with_skill", 1, True, False), record(c, "without_skill", 1, False, False)]
    assert "not-loaded" not in build_benchmark("s", SKILL, "m", [c], recs, None)["cases"][0]["flags"]


def test_unknown_case_is_a_caller_bug():
    with pytest.raises(ValueError):
        build_benchmark("s", SKILL, "m", [case("a")], [record(case("b"), "with_skill", 1, True, True)], None)


def test_run_record_from_result():
    r = record(case("x"), "with_skill", 2, True, True)
    assert isinstance(r, RunRecord) and r.loaded_skills == frozenset({SKILL})
    assert r.duration_s == 2.0 and r.usage["input_tokens"] == 10 and r.passed


def test_diff_benchmarks(bench):
    cases, records = main_fixture()
    records = [r if not (r.case_id == "c4" and r.arm == "with_skill")
               else record(case("c4"), "with_skill", r.iteration, True, True) for r in records]
    new = build_benchmark("demo", SKILL, "m1", cases + [case("c5")], records, 0.1)
    moved = diff_benchmarks(bench, new)
    assert moved == [
        {"skill": SKILL, "model": "m1", "id": "c4", "status": "moved",
         "with_skill": {"old": 0.0, "new": 1.0}, "without_skill": {"old": 0.0, "new": 0.0}},
        {"skill": SKILL, "model": "m1", "id": "c5", "status": "added",
         "with_skill": {"old": None, "new": None}, "without_skill": {"old": None, "new": None}},
    ]
    assert diff_benchmarks(None, new) == []
    assert diff_benchmarks(new, new) == []


def _loading(c, arm: str, it: int, *skills: str) -> RunRecord:
    from skill_eval.model.results import AdapterResponse, Event, RunResult

    events = tuple(Event("skill_loaded", s) for s in skills)
    result = RunResult(key=f"{c.id}-{arm}-{it}", duration_s=1.0,
                       response=AdapterResponse("ok", events, {}))
    return RunRecord.of(c.id, arm, it, result, None)


def test_other_skills_are_flagged_and_named_per_arm():
    """A baseline that loaded the CLI's bundled code-review, a with-skill run that also loaded
    simplify: the case says so, and which arm loaded which; the skill under test is not 'other'."""
    c, quiet = case("o1"), case("o2")
    recs = [_loading(c, "with_skill", 1, SKILL, "simplify"), _loading(c, "with_skill", 2, SKILL),
            _loading(c, "without_skill", 1, "code-review"), _loading(c, "without_skill", 2),
            _loading(quiet, "with_skill", 1, SKILL), _loading(quiet, "without_skill", 1),
            error(quiet, "without_skill", 2)]
    rows = {r["id"]: r for r in valid(build_benchmark("s", SKILL, "m", [c, quiet], recs, None))["cases"]}
    assert "other-skills" in rows["o1"]["flags"]
    assert rows["o1"]["other_skills"] == {"with_skill": ["simplify"], "without_skill": ["code-review"]}
    assert "other-skills" not in rows["o2"]["flags"] and "other_skills" not in rows["o2"]


@pytest.mark.slow
def test_runs_outside_a_shard_are_not_errors(tmp_path):
    """`run --shard 2/2` on a fresh store: shard 1's runs are "not run yet", not errors; the
    summary does not list them as errored, the console says "undecided (runs not run: ...)", never
    "error", exit 0."""
    from suitekit import Kit

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2", "a3"]})
    code, out, err = kit.run("--shard", "2/2")
    assert code == 0, out + err
    assert 0 < kit.calls() < 6
    summary = (kit.results / "summary.md").read_text()
    assert "errored" not in summary and "not run yet" in summary
    assert ": error (" not in out and "undecided (runs not run: " in out
    bench = json.loads(kit.bench("alpha").read_text())
    assert (bench["verdict"], bench["decided_by"]) == ("undecided", "not_run")
    assert bench["variants"]["with_skill"]["errors"] == 0
    assert kit.run("--shard", "1/2")[0] == 0
    kit.reset()
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 0 and "alpha [default]: pass (" in out, out + err
