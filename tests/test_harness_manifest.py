"""skill-eval-harness manifests run as their authors wrote them.

The manifests are written here at test time from the harness's documented format (its README's
assertion table and its demo example's shape), not copied from it: the demo manifest, and one
case using every one of the 25 assertion types.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.model.evalsets import read_evalset

SKILL_MD = """\
---
name: demo-reviewer
description: Reviews a proposed change and labels the severity of each finding.
---

# Demo reviewer

## Severity rules

Label every finding Blocking, Minor or Clean.

## Evidence

Cite the file and line of each finding.
"""

# A scripted agent: with the skill it follows it (and reports a trace), without it it does not.
# Trigger queries load the skill when they ask for a review.
ADAPTER = """\
import json, sys
from pathlib import Path
req = json.load(sys.stdin)
events = []
if req.get("trigger"):
    if "review" in req["prompt"].lower():
        events = [{"type": "skill_loaded", "name": "demo-reviewer"}]
    print(json.dumps({"output": "ok", "events": events}))
    sys.exit(0)
if req["skill"]:
    out = "Severity: Blocking. Missing test, see the file and line 3."
    events = [{"type": "skill_loaded", "name": "demo-reviewer"},
              {"type": "tool_call", "name": "Read"},
              {"type": "command", "argv": ["git", "diff", "--stat"]},
              {"type": "command", "argv": ["pytest", "-q"]}]
    Path("outputs/report.json").write_text(json.dumps({"verdict": "block", "findings": 1}))
    Path("outputs/answer.txt").write_text("BLOCK\\n")
else:
    out = "LGTM"
    events = [{"type": "command", "argv": ["rm", "-rf", "build"]}]
print(json.dumps({"output": out, "events": events,
                  "usage": {"input_tokens": 100, "output_tokens": 20}}))
"""

JUDGE = """\
import json, sys
req = json.load(sys.stdin)
good = "Blocking" in req["output"]
print(json.dumps({"verdicts": [{"id": r["id"], "passed": good, "evidence": "scripted"}
                               for r in req["rubric"]]}))
"""

ORACLE = """\
import sys
from pathlib import Path
run = Path(sys.argv[1])
sys.exit(0 if "Blocking" in (run / "output.md").read_text() and (run / "outputs" / "report.json").is_file()
         else 1)
"""

DEMO = {
    "version": 1, "skill_name": "demo-reviewer", "skill_paths": ["skills/demo/SKILL.md"],
    "variants": ["with_skill", "without_skill"], "notes": "offline demo",
    "cases": [
        {"id": "c-review", "split": "tune", "kind": "review",
         "prompt": "Review this change: it adds an endpoint with no test.",
         "expected_behavior": ["Label the severity.", "Cite the file and line."],
         "assertions": [
             {"name": "severity-label", "type": "contains_any", "values": ["Blocking", "Minor", "Clean"]},
             {"name": "cite-checklist", "type": "contains_any", "values": ["file and line"]}],
         "tags": ["demo"]},
        {"id": "trig-pos-review-change", "split": "tune", "kind": "trigger",
         "prompt": "Review this proposed change and label each finding.",
         "expected_behavior": ["The demo-reviewer skill loads from its description alone."]},
        {"id": "trig-neg-unrelated-question", "split": "tune", "kind": "trigger",
         "prompt": "What is the capital of France?",
         "expected_behavior": ["The demo-reviewer skill should not trigger on an unrelated question."]},
    ],
    "ablations": [{"id": "no-severity", "removed_component": "severity rule", "mechanism": "section",
                   "class": "instructions", "target": {"heading": "## Severity rules"},
                   "expected_regressions": [{"summary": "stops labelling", "cases": ["c-review"],
                                             "assertions": ["severity-label"]}]}],
}

# One assertion of each of the 25 types, each true of the with-skill answer above.
EVERY_TYPE = [
    {"name": "t-contains", "type": "contains", "value": "Blocking"},
    {"name": "t-contains-any", "type": "contains_any", "values": ["Blocking", "Minor"]},
    {"name": "t-contains-all", "type": "contains_all", "values": ["Severity", "line"]},
    {"name": "t-excludes-any", "type": "excludes_any", "values": ["LGTM", "rubber stamp"]},
    {"name": "t-regex", "type": "regex", "pattern": r"line \d+"},
    {"name": "t-not-regex", "type": "not_regex", "pattern": "^LGTM$"},
    {"name": "t-file-exists", "type": "file_exists", "path": "outputs/report.json"},
    {"name": "t-json-field", "type": "json_field_equals", "path": "outputs/report.json", "field": "verdict",
     "equals": "block"},
    {"name": "t-golden", "type": "golden_output", "reference": "references/answer.txt",
     "artifact": "outputs/answer.txt", "normalize": "trim"},
    {"name": "t-similarity", "type": "similarity", "expected": "Severity: Blocking. Missing test.",
     "threshold": 0.5, "severity": "gate"},
    {"name": "t-structured", "type": "structured_output", "path": "outputs/report.json",
     "schema": {"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["block"]}}}},
    {"name": "t-script", "type": "script", "command": ["python3", "oracles/check.py", "{output_dir}"],
     "timeout_s": 30},
    {"name": "t-skill-invoked", "type": "skill_invoked", "expected": True, "variants": ["with_skill"]},
    {"name": "t-command-ran", "type": "command_ran", "pattern": "^git diff"},
    {"name": "t-command-not-ran", "type": "command_not_ran", "pattern": "rm -rf", "severity": "critical"},
    {"name": "t-command-order", "type": "command_order", "patterns": ["git diff", "pytest"]},
    {"name": "t-tool-call", "type": "tool_call", "tool": "Read", "min_count": 1},
    {"name": "t-tool-count", "type": "tool_count_le", "max": 5},
    {"name": "t-no-loop", "type": "no_repeated_command_loop", "max_repeats": 1},
    {"name": "t-tokens", "type": "total_tokens_le", "max": 1000},
    {"name": "t-elapsed", "type": "elapsed_seconds_le", "max": 120},
    {"name": "t-command-count", "type": "command_count_le", "max": 3},
    {"name": "t-judge", "type": "judge", "prompt": "Names the missing test as the finding."},
    {"name": "t-rubric", "type": "rubric", "rubric": ["Specific", "Actionable"], "severity": "gate"},
    {"name": "t-factuality", "type": "factuality"},
]


def _repo(root: Path, manifest: dict, judge: bool = False) -> Path:
    repo = root / "repo"
    (repo / "skills" / "demo").mkdir(parents=True)
    (repo / "skills" / "demo" / "SKILL.md").write_text(SKILL_MD)
    evals = repo / "evals"
    (evals / "oracles").mkdir(parents=True)
    (evals / "references").mkdir()
    (evals / "oracles" / "check.py").write_text(ORACLE)
    (evals / "references" / "answer.txt").write_text("BLOCK")
    (evals / "shared-benchmark.json").write_text(json.dumps(manifest, indent=1))
    (root / "adapter.py").write_text(ADAPTER)
    (root / "judge.py").write_text(JUDGE)
    judge_cfg = f"judge:\n  command: [{sys.executable}, judge.py]\n" if judge else ""
    suite = root / "suite.yaml"
    suite.write_text(f"suite: harness\nskills_dir: repo/skills\nskills: [demo]\niterations: 1\njobs: 2\n"
                     f"store: store\nresults: results\nallow_scripts: true\nskill_name_check: warn\n"
                     f"adapter:\n  command: [{sys.executable}, adapter.py]\n{judge_cfg}")
    return suite


def _read(root: Path):  # noqa: ANN202 - EvalSet
    return read_evalset(root / "repo" / "evals" / "shared-benchmark.json", root / "repo" / "skills" / "demo")


def _grade(root: Path, case: str, arm: str) -> dict:
    return json.loads((root / "results" / "demo" / "iteration-1" / f"eval-{case}" / arm
                       / "grading.json").read_text())


@pytest.mark.slow
def test_demo_manifest_runs_unchanged(tmp_path: Path, capsys):
    suite = _repo(tmp_path, DEMO)
    assert main(["validate", str(suite)]) == 0
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "name 'demo-reviewer' does not match its folder 'demo'" in err and "skill_name_check: warn" in err
    assert main(["run", str(suite)]) == 0
    with_skill = _grade(tmp_path, "c-review", "with_skill")
    without = _grade(tmp_path, "c-review", "without_skill")
    assert with_skill["passed"] is True and without["passed"] is False
    assert with_skill["partial_credit"] == 1.0 and without["partial_credit"] == 0.0
    bench = json.loads((tmp_path / "results" / "demo" / "benchmark.json").read_text())
    # Trigger cases are trigger evals; the skill loads under its SKILL.md name.
    queries = {q["id"]: q for q in bench["triggers"]["queries"]}
    assert set(queries) == {"trig-pos-review-change", "trig-neg-unrelated-question"}
    assert bench["triggers"]["accuracy"] == 1.0
    assert bench["variants"]["with_skill"]["partial_credit"] == 1.0
    md = (tmp_path / "results" / "demo" / "benchmark.md").read_text()
    assert "Partial credit (share of graded checks passed per run; not the pass rate)" in md


def test_skill_name_differing_from_folder_is_an_error_by_default(tmp_path: Path, capsys):
    suite = _repo(tmp_path, DEMO)
    suite.write_text(suite.read_text().replace("skill_name_check: warn\n", ""))
    assert main(["run", str(suite)]) == 2
    captured = capsys.readouterr()
    assert "set skill_name_check: warn in the suite" in captured.out + captured.err


@pytest.mark.slow
def test_every_assertion_type_is_graded(tmp_path: Path):
    manifest = {**DEMO, "cases": [{"id": "all-types", "split": "tune", "kind": "review",
                                   "prompt": "Review this change.", "assertions": EVERY_TYPE}]}
    suite = _repo(tmp_path, manifest, judge=True)
    es = _read(tmp_path)
    assert not [p for p in es.problems if p.is_error]
    assert main(["run", str(suite)]) == 0
    good = _grade(tmp_path, "all-types", "with_skill")
    checks = {c["id"]: c for c in good["checks"]}
    rubric = {r["id"]: r for r in good["rubric"]}
    names = {a["name"] for a in EVERY_TYPE}
    # Every deterministic type became a check, every judge type rubric for the judge.
    assert set(checks) | {r.rsplit("-", 1)[0] if r[-1].isdigit() else r for r in rubric} == names
    assert all(c["passed"] for c in checks.values()), [c for c in checks.values() if not c["passed"]]
    assert all(r["status"] == "passed" for r in rubric.values())
    assert good["passed"] is True and good["partial_credit"] == 1.0
    assert checks["t-similarity"]["required"] is True  # severity: gate overrides the soft default
    assert rubric["t-judge"]["required"] is False  # judge assertions are soft by default
    bad = _grade(tmp_path, "all-types", "without_skill")
    assert "t-skill-invoked" not in {c["id"] for c in bad["checks"]}  # scoped to with_skill
    assert bad["critical_failed"] == ["t-command-not-ran"] and bad["passed"] is False
    assert 0 < bad["partial_credit"] < 0.5
    bench = json.loads((tmp_path / "results" / "demo" / "benchmark.json").read_text())
    assert bench["variants"]["without_skill"]["critical_failures"] == 1
    assert "critical-failure" in bench["cases"][0]["flags"]
    assert bench["variants"]["with_skill"]["soft_items"] >= 4  # the soft judge/factuality items


def test_ungradable_type_leaves_out_only_its_case(tmp_path: Path):
    manifest = {**DEMO, "cases": [*DEMO["cases"], {
        "id": "per-step", "split": "tune", "prompt": "Review.",
        "assertions": [{"name": "steps", "type": "judge", "per_step": True}]}, {
        "id": "future", "split": "tune", "prompt": "Review.",
        "assertions": [{"name": "x", "type": "vision_match"}]}]}
    _repo(tmp_path, manifest)
    es = _read(tmp_path)
    assert not [p for p in es.problems if p.is_error]
    assert [c.id for c in es.cases] == ["c-review", "trig-pos-review-change", "trig-neg-unrelated-question"]
    text = "\n".join(p.message for p in es.problems)
    assert "case 'future' is left out: assertion type 'vision_match' cannot be graded" in text
    assert "case 'per-step' is left out" in text and "per_step" in text


@pytest.mark.parametrize("severity, required, critical", [
    ("soft", False, False), ("normal", True, False), ("required", True, False), ("gate", True, False),
    ("critical", True, True)])
def test_severity_spellings(tmp_path: Path, severity: str, required: bool, critical: bool):
    manifest = {**DEMO, "cases": [{"id": "c", "split": "tune", "prompt": "Review.", "assertions": [
        {"name": "a", "type": "contains", "value": "x", "severity": severity}]}]}
    _repo(tmp_path, manifest)
    es = _read(tmp_path)
    (check,) = es.cases[0].checks
    assert (check.required, check.critical) == (required, critical)
