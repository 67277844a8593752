"""End to end over copies of real-world skills in three eval-set dialects, with a scripted adapter
and a scripted judge: validate, run, benchmark figures, trigger blocks, and a no-op re-run.

The skills are copied into tmp_path at test time (never into the repository)."""

import json
import shutil
import sys
from pathlib import Path

import pytest
from suitekit import FAST_JSON

from skill_eval.cli.main import main
from skill_eval.intake.schemas_io import validator

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
SOURCES = {
    "commit": REALWORLD / "gokulkrishh__skills" / "skills" / "commit",  # native, rubric only
    "logic-audit": REALWORLD / "srinitude__skills" / "skills" / "logic-audit",  # required/veto + triggers
    "xcode": REALWORLD / "AvdLee__Xcode-Disk-Cleanup-Agent-Skill",  # skill-creator + trigger evals
}

# Loads the skill for trigger queries that share a word with its name; answers tasks by mode.
# The adapter and the judge start for every run and every judging: on suitekit's FAST_JSON,
# which spares each start importing json (and re).
ADAPTER = FAST_JSON + """\
import sys
req = loads(sys.stdin.read())
with open(sys.argv[1], "a") as f:
    f.write("x\\n")
skill = req["skill"]["name"] if req["skill"] else None
words = {"commit": ["commit"], "logic-audit": ["contradiction", "audit", "follow"],
         "xcode-disk-cleanup": ["xcode", "deriveddata", "simulator"]}.get(skill, [])
if req.get("trigger"):
    loaded = any(w in req["prompt"].lower() for w in words)
    out = "handled"
else:
    loaded = skill is not None
    out = ("Following the skill step by step. " if skill else "") + "Answer to: " + req["prompt"][:200]
events = [{"type": "skill_loaded", "name": skill}] if loaded else []
print(dumps({"output": out, "events": events,
             "usage": {"input_tokens": 50, "output_tokens": len(out) // 4, "cost_usd": 0.0001}}))
"""

# A deterministic judge: the items pass when the answer follows the skill, except for prompts whose
# length is a multiple of 3 (so some cases fail with the skill too); one line per call.
JUDGE = FAST_JSON + """\
import sys
req = loads(sys.stdin.read())
with open(sys.argv[1], "a") as f:
    f.write("x\\n")
good = "Following the skill" in req["output"] and len(req["prompt"]) % 3 != 0
verdicts = [{"id": r["id"], "passed": good, "evidence": "scripted"} for r in req["rubric"]]
usage = {"input_tokens": 300, "output_tokens": 40, "cost_usd": 0.002}
print(dumps({"verdicts": verdicts, "usage": usage}))
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    missing = [str(p) for p in SOURCES.values() if not p.is_dir()]
    if missing:
        pytest.skip(f"real-world skills not available: {', '.join(missing)}")
    skills = tmp_path / "skills"
    skills.mkdir()
    shutil.copytree(SOURCES["commit"], skills / "commit")
    shutil.copytree(SOURCES["logic-audit"], skills / "logic-audit")
    shutil.copytree(SOURCES["xcode"] / "xcode-disk-cleanup", skills / "xcode-disk-cleanup")
    # This repository keeps its evals beside the skill; the suite names them explicitly.
    shutil.copytree(SOURCES["xcode"] / "evals", tmp_path / "xcode-evals")
    (tmp_path / "adapter.py").write_text(ADAPTER)
    (tmp_path / "judge.py").write_text(JUDGE)
    path = tmp_path / "suite.yaml"
    path.write_text(f"""\
suite: realworld
skills_dir: skills
skills:
  - commit
  - {{name: logic-audit, evals: [evals/cases.json, evals/trigger-queries.json]}}
  - {{name: xcode-disk-cleanup, evals: [../../xcode-evals/evals.json, ../../xcode-evals/trigger-evals.json]}}
iterations: 1
jobs: 4
store: store
results: results
adapter:
  command: [{sys.executable}, adapter.py, {tmp_path / 'adapter-calls.txt'}]
judge:
  command: [{sys.executable}, judge.py, {tmp_path / 'judge-calls.txt'}]
""")
    return path


def _count(path: Path) -> int:
    n = len(path.read_text().splitlines()) if path.exists() else 0
    path.unlink(missing_ok=True)
    return n


def test_realworld_suite_end_to_end(suite: Path, capsys):
    root = suite.parent
    assert main(["validate", str(suite)]) == 0
    out = capsys.readouterr().out
    assert "Validated 3 skills, 5 eval sets" in out

    code = main(["run", str(suite)])
    assert code in (0, 1), capsys.readouterr().err  # pass or fail on behaviour, never an error
    adapter_calls, judge_calls = _count(root / "adapter-calls.txt"), _count(root / "judge-calls.txt")
    assert adapter_calls > 0 and judge_calls > 0

    benches = {}
    for skill in ("commit", "logic-audit", "xcode-disk-cleanup"):
        bench = json.loads((root / "results" / skill / "benchmark.json").read_text())
        assert not list(validator("benchmark").iter_errors(bench)), skill
        benches[skill] = bench
        w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
        assert w["graded"] == w["runs"] > 0 and wo["graded"] == wo["runs"] > 0 and w["errors"] == 0
        # The scripted judge passes most cases with the skill and none without it.
        assert 0 < w["judged_pass_rate"] <= 1 and wo["judged_pass_rate"] == 0.0
        assert w["deterministic_pass_rate"] is None  # these eval sets carry rubric sentences only
        assert w["pass_rate"] <= w["judged_pass_rate"] and wo["pass_rate"] == 0.0
        assert bench["lift"]["pass_rate"] == pytest.approx(w["pass_rate"] - wo["pass_rate"])
        assert bench["judge"]["name"] == "command judge.py"
        assert bench["verdict"] in ("pass", "fail")
        assert w["judge_cost_usd"] > 0

    assert "triggers" not in benches["commit"]
    for skill, n in (("logic-audit", 12), ("xcode-disk-cleanup", 20)):
        block = benches[skill]["triggers"]
        assert len(block["queries"]) == n and block["counts"]["errors"] == 0
        for figure in ("precision", "recall", "accuracy"):
            assert block[figure] is None or 0 <= block[figure] <= 1
        assert block["recall"] > 0 and block["warnings"] == []
        counts = block["counts"]
        assert counts["tp"] + counts["fp"] + counts["tn"] + counts["fn"] == n
        assert block["accuracy"] == pytest.approx((counts["tp"] + counts["tn"]) / n)
    summary = (root / "results" / "summary.md").read_text()
    assert "## Trigger evals" in summary and "## Deterministic checks and judged rubric" in summary

    # Unchanged: nothing runs, nothing is judged.
    assert main(["run", str(suite)]) == code
    assert (_count(root / "adapter-calls.txt"), _count(root / "judge-calls.txt")) == (0, 0)
