"""Trigger evals end to end: planning, per-query rates, precision/recall/accuracy, the self-check."""

import json
import sys
from pathlib import Path

import pytest
from suitekit import JSON_SHIM

from skill_eval.cli.main import main
from skill_eval.intake.schemas_io import validator

# Loads the skill when the query says "LOAD"; "HALF" loads on odd iterations only (2 of 3 runs).
ADAPTER = JSON_SHIM + """\
import sys
req = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(req["case"]["id"] + "\\n")
assert req.get("trigger") is True and req["mode"] == "with_skill"
q, it = req["prompt"], req["case"]["iteration"]
loaded = sys.argv[2] == "loads" and ("LOAD" in q or ("HALF" in q and it % 2 == 1))
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if loaded else []
print(json.dumps({"output": "ok", "events": events, "usage": {}}))
"""

QUERIES = [
    {"query": "LOAD: write my commit message", "should_trigger": True},       # tp
    {"query": "HALF: commit these changes", "should_trigger": True},          # 2/3 → tp
    {"query": "please describe the diff", "should_trigger": True},            # fn
    {"query": "LOAD: what is the weather", "should_trigger": False},          # fp
    {"query": "tell me a joke", "should_trigger": False},                     # tn
    {"query": "HALF: plan my holiday", "should_trigger": False},              # 2/3 → fp
]


def _setup(tmp_path: Path, mode: str = "loads", queries=QUERIES) -> Path:
    skill = tmp_path / "skills" / "sk"
    (skill / "evals").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: sk\ndescription: Commit messages.\n---\nBody.\n")
    (skill / "evals" / "trigger-queries.json").write_text(json.dumps(queries))
    (tmp_path / "adapter.py").write_text(ADAPTER)
    (tmp_path / "suite.yaml").write_text(
        "suite: trig\nskills_dir: skills\niterations: 3\njobs: 2\nstore: store\nresults: results\n"
        f"adapter:\n  command: [{sys.executable}, adapter.py, {tmp_path / 'calls.txt'}, {mode}]\n")
    return tmp_path


def _calls(root: Path) -> list[str]:
    path = root / "calls.txt"
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    path.unlink()
    return lines


@pytest.mark.slow
def test_precision_recall_accuracy(tmp_path: Path, capsys):
    root = _setup(tmp_path)
    assert main(["validate", str(root / "suite.yaml")]) == 0
    # Triggers never decide the verdict (they are reported beside it): exit 0 despite misses.
    assert main(["run", str(root / "suite.yaml")]) == 0
    assert len(_calls(root)) == 18  # 6 queries × 3 iterations, with_skill only
    bench = json.loads((root / "results" / "sk" / "benchmark.json").read_text())
    assert not list(validator("benchmark").iter_errors(bench))
    block = bench["triggers"]
    assert block["counts"] == {"tp": 2, "fp": 2, "tn": 1, "fn": 1, "errors": 0}
    assert block["precision"] == pytest.approx(2 / 4)
    assert block["recall"] == pytest.approx(2 / 3)
    assert block["accuracy"] == pytest.approx(3 / 6)
    rates = {q["query"]: q["trigger_rate"] for q in block["queries"]}
    assert rates["HALF: commit these changes"] == pytest.approx(2 / 3)
    assert rates["please describe the diff"] == 0.0
    assert block["warnings"] == []
    md = (root / "results" / "sk" / "benchmark.md").read_text()
    assert "## Trigger queries" in md and "Precision 0.50, recall 0.67, accuracy 0.50 over 6 queries" in md
    summary = (root / "results" / "summary.md").read_text()
    assert "## Trigger evals" in summary and "| sk " in summary
    assert "triggers: 6 queries, precision 0.50, recall 0.67, accuracy 0.50" in capsys.readouterr().out

    # Editing one query re-runs that query only (its 3 iterations); the others keep their keys.
    edited = [dict(q) for q in QUERIES]
    edited[4]["query"] = "tell me a better joke"
    (root / "skills" / "sk" / "evals" / "trigger-queries.json").write_text(json.dumps(edited))
    assert main(["run", str(root / "suite.yaml")]) == 0
    assert _calls(root) == ["trigger-5"] * 3


@pytest.mark.slow
def test_one_query_asked_twice_is_graded_by_each_cases_own_expectation(tmp_path: Path):
    """Issue 45: the same words as a should-trigger and a should-not-trigger query make one
    request (one run per iteration), graded per case: a true positive and a false positive."""
    same = "LOAD: write my commit message"
    root = _setup(tmp_path, queries=[{"query": same, "should_trigger": True},
                                     {"query": same, "should_trigger": False}])
    assert main(["run", str(root / "suite.yaml")]) == 0
    assert len(_calls(root)) == 3  # 3 iterations of one request
    block = json.loads((root / "results" / "sk" / "benchmark.json").read_text())["triggers"]
    assert block["counts"] == {"tp": 1, "fp": 1, "tn": 0, "fn": 0, "errors": 0}
    verdicts = [(q["id"], q["verdict"]) for q in block["queries"]]
    assert verdicts == [("trigger-1", "pass"), ("trigger-2", "fail")]
    grades = sorted((root / "results" / "sk").glob("iteration-*/eval-*/with_skill/grading.json"))
    assert len(grades) == 6
    for path in grades:
        g = json.loads(path.read_text())
        cid = path.parent.parent.name.removeprefix("eval-")
        assert (g["case_id"], g["passed"]) == (cid, cid == "trigger-1")
        assert not list(validator("grading").iter_errors(g))  # a whole grading.json, as a task's


@pytest.mark.slow
def test_broken_measurement_warning(tmp_path: Path, capsys):
    root = _setup(tmp_path, mode="never")  # the adapter never reports a skill load
    assert main(["run", str(root / "suite.yaml")]) == 0
    bench = json.loads((root / "results" / "sk" / "benchmark.json").read_text())
    block = bench["triggers"]
    assert block["recall"] == 0.0 and block["precision"] is None
    assert len(block["warnings"]) == 1 and "measurement is probably broken" in block["warnings"][0]
    assert "measurement is probably broken" in (root / "results" / "sk" / "benchmark.md").read_text()
    assert "measurement is probably broken" in (root / "results" / "summary.md").read_text()
    assert "trigger evals: every should-trigger query scored 0" in capsys.readouterr().err


@pytest.mark.slow
def test_no_warning_when_runs_errored(tmp_path: Path):
    from skill_eval.review.comparison.triggers import trigger_block

    assert trigger_block([]) ["warnings"] == []
    root = _setup(tmp_path, mode="never")
    (root / "adapter.py").write_text("import sys\nsys.exit(1)\n")
    assert main(["run", str(root / "suite.yaml")]) == 2  # adapter errors exit 2
    block = json.loads((root / "results" / "sk" / "benchmark.json").read_text())["triggers"]
    assert block["warnings"] == [] and block["counts"]["errors"] == 18
    assert all(q["verdict"] is None for q in block["queries"])


def test_demo_suite_trigger_set():
    """The demo's commit-message trigger set: one should-trigger query missed (recall 0.75)."""
    from skill_eval.run.adapters.demo import answer, load_recordings

    root = Path(__file__).resolve().parents[1]
    recordings = load_recordings(root / "examples" / "responses")
    data = json.loads((root / "examples/skills/commit-message/evals/trigger-queries.json").read_text())
    hits = {}
    for q in data["queries"]:
        loads = [bool(answer({"trigger": True, "mode": "with_skill", "prompt": q["query"],
                              "skill": {"name": "commit-message", "path": "skills/commit-message"},
                              "case": {"id": q["id"], "iteration": i}}, recordings)["events"])
                 for i in (1, 2, 3)]
        hits[q["id"]] = (sum(loads) >= 2, q["should_trigger"])
    tp = sum(t and s for t, s in hits.values())
    fn = sum(s and not t for t, s in hits.values())
    fp = sum(t and not s for t, s in hits.values())
    assert (tp, fn, fp) == (3, 1, 0)
