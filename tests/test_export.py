"""`skill-eval export`: stored results in skill-creator's and agentskills.io's workspace layouts,
validated against schemas written from their documentation (schemas/skill-creator-*.schema.json,
schemas/agentskills-*.schema.json). The results come from a real `run` with the fake claude of
test_agents_e2e; export itself runs nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from test_agents_e2e import DATA, EVALS, SKILL, Project, calls, claude_yaml, credentials, fake_agent  # noqa: F401

from skill_eval.intake.schemas_io import load_schema


def export(project: Project, capsys, fmt: str, out: Path) -> tuple[int, str]:
    return project.cli(capsys, "export", str(project.suite), "--format", fmt, "--out", str(out))


def valid(schema: str, path: Path) -> dict:
    data = json.loads(path.read_text())
    errors = list(Draft202012Validator(load_schema(schema)).iter_errors(data))
    assert not errors, f"{path}: {[e.message for e in errors]}"
    return data


def make(tmp_path: Path, iterations: int = 2, rubric: bool = True) -> tuple[Project, Path]:
    exe = fake_agent(tmp_path, "claude", "2.1.299 (Claude Code)",
                     DATA / "test_claude_code" / "skill_after_tools.jsonl",
                     DATA / "test_claude_code" / "normal.jsonl", ".claude/skills")
    project = Project(tmp_path, claude_yaml(exe), iterations=iterations)
    if rubric:  # a plain-sentence assertion: without a judge it is ungraded
        evals = json.loads(json.dumps(EVALS))
        evals["evals"][0]["assertions"] = ["The answer states the total of the amount column"]
        (tmp_path / "skills" / SKILL / "evals" / "evals.json").write_text(json.dumps(evals))
    return project, exe


@pytest.mark.slow
def test_skill_creator_export(tmp_path: Path, capsys):
    project, exe = make(tmp_path)
    assert project.run(capsys)[0] == 0
    out = tmp_path / "exported"
    code, text = export(project, capsys, "skill-creator", out)
    assert code == 0, text
    assert "exported 4 runs" in text
    assert calls(exe) == 4  # nothing was run

    it = out / f"{SKILL}-workspace" / "iteration-1"
    bench = valid("skill-creator-benchmark", it / "benchmark.json")
    assert (it / "benchmark.md").read_text().startswith(f"# Skill Benchmark: {SKILL}")
    meta = bench["metadata"]
    assert meta["skill_name"] == SKILL and meta["runs_per_configuration"] == 2 and meta["evals_run"] == [0]
    assert meta["executor_model"] == "claude-opus-4-1-20250805"  # the model the agent reported
    runs = bench["runs"]
    assert len(runs) == 4
    assert {(r["configuration"], r["run_number"]) for r in runs} == {
        ("with_skill", 1), ("with_skill", 2), ("without_skill", 1), ("without_skill", 2)}
    with1 = next(r for r in runs if r["configuration"] == "with_skill" and r["run_number"] == 1)
    assert with1["eval_name"] == "sum-sales" and with1["eval_id"] == 0
    assert with1["result"] == {"pass_rate": 1.0, "passed": 2, "failed": 0, "total": 2,
                               "time_seconds": with1["result"]["time_seconds"], "tokens": 15230,
                               "tool_calls": 3, "errors": 0}
    assert [e["text"] for e in with1["expectations"]] == ["used-skill: loaded_skill",
                                                         'total: contains value="42"']
    assert all(set(e) == {"text", "passed", "evidence"} for e in with1["expectations"])
    assert with1["notes"] == ["ungraded (no judge verdict): The answer states the total of the amount column"]
    without = [r for r in runs if r["configuration"] == "without_skill"]
    assert all(r["result"]["pass_rate"] == 0.0 and r["result"]["tokens"] == 1212 for r in without)
    summary = bench["run_summary"]
    assert summary["with_skill"]["pass_rate"] == {"mean": 1.0, "stddev": 0.0, "min": 1.0, "max": 1.0}
    assert summary["delta"] == {"pass_rate": "+1.00", "time_seconds": summary["delta"]["time_seconds"],
                                "tokens": "+14018"}
    # The workspace layout its aggregator and viewer read.
    eval_dir = it / "eval-sum-sales"
    assert json.loads((eval_dir / "eval_metadata.json").read_text()) == {
        "eval_id": 0, "eval_name": "sum-sales", "prompt": EVALS["evals"][0]["prompt"],
        "assertions": ["used-skill: loaded_skill", 'total: contains value="42"',
                       "The answer states the total of the amount column"]}
    for arm in ("with_skill", "without_skill"):
        for n in (1, 2):
            run_dir = eval_dir / arm / f"run-{n}"
            grading = valid("skill-creator-grading", run_dir / "grading.json")
            # loaded_skill is not applied in the arm with no skill (issue 55): one check there.
            assert grading["summary"]["total"] == (2 if arm == "with_skill" else 1)
            timing = valid("agentskills-timing", run_dir / "timing.json")
            assert timing["total_tokens"] == (15230 if arm == "with_skill" else 1212)
            assert (run_dir / "outputs").is_dir()
            assert json.loads((run_dir / "eval_metadata.json").read_text())["prompt"]
            assert "## Eval Prompt" in (run_dir / "transcript.md").read_text()
    answer = (eval_dir / "with_skill" / "run-1" / "outputs" / "agent_output.md").read_text()
    assert answer == "Total sales: 42 (north 10, south 32)."
    grading = json.loads((eval_dir / "with_skill" / "run-1" / "grading.json").read_text())
    assert grading["execution_metrics"]["tool_calls"] == {"Bash": 1, "Read": 1, "Write": 1}
    assert grading["execution_metrics"]["total_steps"] == 5

    # Exporting again replaces the workspace (a view of the store, nothing stale kept).
    (eval_dir / "with_skill" / "run-9").mkdir()
    assert export(project, capsys, "skill-creator", out)[0] == 0
    assert not (eval_dir / "with_skill" / "run-9").exists()


@pytest.mark.slow
def test_agentskills_export_single_run_is_flat(tmp_path: Path, capsys):
    project, _ = make(tmp_path, iterations=1, rubric=False)
    assert project.run(capsys)[0] == 0
    code, text = project.cli(capsys, "export", str(project.suite), "--format", "agentskills")
    assert code == 0, text
    it = tmp_path / "results" / "export-agentskills" / f"{SKILL}-workspace" / "iteration-1"
    bench = valid("agentskills-benchmark", it / "benchmark.json")
    assert bench["run_summary"]["delta"] == {"pass_rate": 1.0, "time_seconds": pytest.approx(
        bench["run_summary"]["delta"]["time_seconds"]), "tokens": 14018.0}
    assert bench["run_summary"]["with_skill"]["tokens"]["mean"] == 15230
    for arm, rate in (("with_skill", 1.0), ("without_skill", 0.0)):
        run_dir = it / "eval-sum-sales" / arm
        grading = valid("agentskills-grading", run_dir / "grading.json")
        assert set(grading) == {"assertion_results", "summary"}
        assert grading["summary"]["pass_rate"] == rate
        assert all(set(a) == {"text", "passed", "evidence"} for a in grading["assertion_results"])
        timing = valid("agentskills-timing", run_dir / "timing.json")
        assert set(timing) == {"total_tokens", "duration_ms"}
        assert (run_dir / "outputs" / "agent_output.md").is_file()


@pytest.mark.slow
def test_agentskills_export_several_runs_use_run_folders(tmp_path: Path, capsys):
    project, _ = make(tmp_path, iterations=2, rubric=False)
    assert project.run(capsys)[0] == 0
    out = tmp_path / "x"
    assert export(project, capsys, "agentskills", out)[0] == 0
    eval_dir = out / f"{SKILL}-workspace" / "iteration-1" / "eval-sum-sales"
    assert sorted(p.name for p in (eval_dir / "with_skill").iterdir()) == ["run-1", "run-2"]
    valid("agentskills-grading", eval_dir / "with_skill" / "run-2" / "grading.json")


def test_export_before_any_run_says_so(tmp_path: Path, capsys):
    project, exe = make(tmp_path)
    code, text = project.cli(capsys, "export", str(project.suite), "--format", "skill-creator")
    assert code == 2
    assert "nothing to export" in text and "skill-eval run" in text
    assert calls(exe) == 0


@pytest.mark.slow
def test_errored_runs_are_named_not_failed(tmp_path: Path, capsys):
    project, exe = make(tmp_path, iterations=1, rubric=False)
    # The agent breaks for with_skill runs only: that run errors, the baseline is stored.
    data = exe.parent.parent / "claude-data" / "with_skill.jsonl"
    data.write_text('{"type":"system","subtype":"init"}\n')
    assert project.run(capsys)[0] == 2
    out = tmp_path / "x"
    code, text = export(project, capsys, "skill-creator", out)
    assert code == 0, text
    it = out / f"{SKILL}-workspace" / "iteration-1"
    bench = valid("skill-creator-benchmark", it / "benchmark.json")
    assert [r["configuration"] for r in bench["runs"]] == ["without_skill"]
    assert any("with_skill run 1 errored" in n for n in bench["notes"])
    run_dir = it / "eval-sum-sales" / "with_skill" / "run-1"
    assert not (run_dir / "grading.json").exists()
    assert "claude stream ended without a result event" in (run_dir / "outputs" / "error.txt").read_text()


def test_judge_graded_rubric_items_are_expectations():
    from skill_eval.model.cases import Case, Check, RubricItem
    from skill_eval.review.exports.viewer_workspaces import _expectations

    case = Case(id="c", prompt="p", checks=(Check("has", "contains", params={"value": "x"}),),
                rubric=(RubricItem("r1", "Clear"), RubricItem("r2", "Short")))
    check = {"id": "has", "type": "contains", "required": True, "passed": True, "evidence": "found"}
    grade = {"checks": [check],
             "rubric": [{"id": "r1", "text": "Clear", "status": "failed", "evidence": "rambles"},
                        {"id": "r2", "text": "Short", "status": "ungraded"}]}
    expectations, ungraded = _expectations(case, grade)
    assert expectations == [{"text": 'has: contains value="x"', "passed": True, "evidence": "found"},
                            {"text": "Clear", "passed": False, "evidence": "rambles"}]
    assert ungraded == ["Short"]
