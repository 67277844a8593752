"""`report --format github`: one ::error per failed required check, at the case's file and line,
grouped and capped so a big suite does not flood the log."""

from __future__ import annotations

import json

import pytest

from skill_eval.cli.main import main
from skill_eval.cli.subcommands.init import init_project
from skill_eval.review.render.github import MAX_CHECK_ANNOTATIONS, annotations, failed_check_annotations


def _bench(n_cases: int, failing: list[str]) -> dict:
    cases = [{"id": f"c{i}", "flags": [], "delta": 0.0,
              "with_skill": {"graded": 3, "pass_rate": 0.0,
                             "failed_checks": [{"iteration": it, "id": cid, "evidence": f"{cid} not found"}
                                               for it in (1, 2) for cid in failing]},
              "without_skill": {"graded": 3, "pass_rate": 0.0}} for i in range(n_cases)]
    return {"skill": "s", "model": "m", "cases": cases, "lift": {"met": None}, "verdict": "pass",
            "decided_by": "checks_only",
            "variants": {"with_skill": {"errors": 0}, "without_skill": {"errors": 0}}}


def test_each_failed_check_is_one_error_at_its_case_line():
    lines = failed_check_annotations([_bench(1, ["heading", "groups"])], {("s", "c0"): ("ev,al:s.json", 12)})
    assert lines[0] == "::group::2 failed required checks" and lines[-1] == "::endgroup::"
    assert lines[1] == ("::error file=ev%2Cal%3As.json,line=12,title=s%3A heading::s (m): case c0: "
                        "check heading failed in 2 of 3 with-skill runs (iteration 1, 2): heading not found")
    assert lines[2].startswith("::error file=ev%2Cal%3As.json,line=12,title=s%3A groups::")


def test_a_check_without_a_known_place_has_no_file():
    [_, line, _] = failed_check_annotations([_bench(1, ["x"])])
    assert line.startswith("::error title=s%3A x::")


def test_a_500_case_suite_is_capped_and_counted():
    lines = failed_check_annotations([_bench(500, ["x"])])
    errors = [line for line in lines if line.startswith("::error")]
    assert len(errors) == MAX_CHECK_ANNOTATIONS + 1
    assert "and 450 more failed checks" in errors[-1]
    assert lines[0] == "::group::500 failed required checks"


def test_nothing_failed_prints_no_group_only_the_verdict():
    assert annotations([_bench(3, [])]) == [
        "::notice ::s (m): verdict: pass (required checks: every required with-skill check passed; "
        "no minimum_lift is set)"]


@pytest.mark.slow
def test_report_prints_the_error_for_a_failed_check(tmp_path, monkeypatch, capsys):
    init_project(tmp_path)
    suite = tmp_path / "skill-eval.yaml"
    suite.write_text(suite.read_text().replace("iterations: 3", "iterations: 1"))
    evals = next(tmp_path.glob("skills/*/evals/evals.json"))
    data = json.loads(evals.read_text())
    data["evals"][0]["checks"].append({"id": "never", "type": "contains", "value": "zzz-never-said"})
    evals.write_text(json.dumps(data, indent=2))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "skill-eval.yaml"]) == 1
    capsys.readouterr()
    assert main(["report", "skill-eval.yaml", "--format", "github"]) == 0
    out = capsys.readouterr().out.splitlines()
    rel = evals.relative_to(tmp_path).as_posix()
    [error] = [line for line in out if line.startswith("::error file=")]
    [verdict] = [line for line in out if line.startswith("::error ::") and ": verdict: " in line]
    assert ": verdict: check failed (required checks: 1 of 3 with-skill runs failed a required" in verdict
    assert error.startswith(f"::error file={rel},line=5,title=") and "check never failed in 1 of 1" in error
