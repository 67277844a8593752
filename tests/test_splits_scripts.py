"""Harness manifests: --split tune|holdout|holdback, hidden prompt_ref prompts, `script` oracles."""

import json
import sys
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.grade.checks.script import DISABLED
from skill_eval.model.cases import Check

ADAPTER = """\
import json, sys
from pathlib import Path
req = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(req["case"]["id"] + "\\n")
Path("outputs/answer.md").write_text("good" if req["skill"] else "bad")
print(json.dumps({"output": "answer: " + req["prompt"], "events": [], "usage": {}}))
"""

# Runs from the manifest's folder (oracles/ is beside it) and reads the run's outputs folder.
ORACLE = """\
import sys
from pathlib import Path
assert Path("oracles/check.py").is_file(), "not run from the manifest folder"
# {output_dir} is the run folder as skill-eval-harness lays it out: output.md beside outputs/.
assert (Path(sys.argv[1]) / "output.md").read_text().startswith("answer: ")
text = (Path(sys.argv[1]) / "outputs" / "answer.md").read_text()
print("answer says", text)
sys.exit(0 if text == "good" else 4)
"""


def _manifest() -> dict:
    return {
        "version": 1, "skill_name": "demo", "skill_paths": ["demo/SKILL.md"],
        "variants": ["with_skill", "without_skill"],
        "cases": [
            {"id": "tune-1", "split": "tune", "prompt": "Write the answer.",
             "assertions": [
                 {"name": "oracle", "type": "script", "timeout_s": 20, "pass_exit_code": 0,
                  "command": ["python3", "oracles/check.py", "{output_dir}"]},
                 {"name": "answers", "type": "contains", "value": "answer"}]},
            {"id": "holdout-1", "split": "holdout", "prompt_ref": "prompts/holdout-1.txt",
             "assertions": [{"name": "answers", "type": "contains", "value": "answer"}]},
            {"id": "holdback-1", "split": "holdback", "prompt_ref": "prompts/holdback-1.txt",
             "assertions": [{"name": "answers", "type": "contains", "value": "answer"}]},
        ],
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "demo").mkdir(parents=True)
    (repo / "demo" / "SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\nBody.\n")
    evals = repo / "evals"
    (evals / "oracles").mkdir(parents=True)
    (evals / "prompts").mkdir()
    (evals / "shared-benchmark.json").write_text(json.dumps(_manifest(), indent=1))
    (evals / "oracles" / "check.py").write_text(ORACLE)
    # The holdout prompt is supplied privately (kept out of the repository); the holdback one is not.
    (evals / "prompts" / "holdout-1.txt").write_text("Write the hidden holdout answer.\n")
    (tmp_path / "adapter.py").write_text(ADAPTER)
    _suite(tmp_path, allow_scripts=True)
    return tmp_path


def _suite(root: Path, allow_scripts: bool) -> None:
    (root / "suite.yaml").write_text(
        f"suite: split\nskills_dir: repo\nskills: [demo]\niterations: 1\njobs: 1\nstore: store\n"
        f"results: results\nallow_scripts: {str(allow_scripts).lower()}\n"
        f"adapter:\n  command: [{sys.executable}, adapter.py, {root / 'calls.txt'}]\n")


def _calls(root: Path) -> list[str]:
    path = root / "calls.txt"
    if not path.exists():
        return []
    lines = sorted(path.read_text().splitlines())
    path.unlink()
    return lines


def _grades(root: Path, case: str) -> dict[str, dict]:
    base = root / "results" / "demo" / "iteration-1" / f"eval-{case}"
    return {v: json.loads((base / v / "grading.json").read_text()) for v in ("with_skill", "without_skill")}


@pytest.mark.slow
def test_split_tune_runs_script_oracle(repo: Path, capsys):
    suite = str(repo / "suite.yaml")
    assert main(["run", suite, "--split", "tune"]) == 0
    assert _calls(repo) == ["tune-1", "tune-1"]
    grades = _grades(repo, "tune-1")
    oracle = {v: next(c for c in g["checks"] if c["id"] == "oracle") for v, g in grades.items()}
    assert oracle["with_skill"]["passed"] is True and "answer says good" in oracle["with_skill"]["evidence"]
    assert oracle["without_skill"]["passed"] is False and "exit 4" in oracle["without_skill"]["evidence"]
    err = capsys.readouterr().err
    assert "holdback prompt not supplied; case skipped" in err  # reported, never faked

    capsys.readouterr()
    assert main(["status", suite, "--split", "holdout", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["planned"] == 2 and all("holdout-1" in r["task"] for r in status["run"])


@pytest.mark.slow
def test_split_holdout_uses_private_prompt_and_holdback_is_skipped(repo: Path, capsys):
    suite = str(repo / "suite.yaml")
    assert main(["run", suite, "--split", "holdout"]) == 0
    assert _calls(repo) == ["holdout-1", "holdout-1"]
    run_dir = repo / "results" / "demo" / "iteration-1" / "eval-holdout-1" / "with_skill"
    assert "hidden holdout answer" in (run_dir / "output.txt").read_text()
    assert main(["run", suite, "--split", "holdback"]) == 0  # its only case has no prompt: nothing runs
    assert _calls(repo) == []
    assert "holdback-1" not in (repo / "results" / "demo" / "benchmark.json").read_text()
    # Supplying the hidden prompt later makes the case appear, and run.
    (repo / "repo" / "evals" / "prompts" / "holdback-1.txt").write_text("Hidden holdback prompt.\n")
    assert main(["run", suite, "--split", "holdback"]) == 0
    assert _calls(repo) == ["holdback-1", "holdback-1"]
    # The default (all splits) reuses the stored holdout/holdback runs: only tune-1 is new.
    assert main(["run", suite]) == 0
    assert _calls(repo) == ["tune-1", "tune-1"]


@pytest.mark.slow
def test_script_check_refused_without_allow_scripts(repo: Path, capsys):
    _suite(repo, allow_scripts=False)
    assert main(["validate", str(repo / "suite.yaml")]) == 0
    out = capsys.readouterr().out
    assert "1 script check(s) will fail: the suite does not set allow_scripts: true" in out
    assert main(["run", str(repo / "suite.yaml"), "--split", "tune"]) == 1  # a required check failed
    for grade in _grades(repo, "tune-1").values():
        oracle = next(c for c in grade["checks"] if c["id"] == "oracle")
        assert oracle["passed"] is False and oracle["evidence"] == DISABLED
    # Allowing scripts changes the grade key: re-grade only, no re-run.
    _calls(repo)
    _suite(repo, allow_scripts=True)
    assert main(["run", str(repo / "suite.yaml"), "--split", "tune"]) == 0
    assert _calls(repo) == []


def test_script_cwd_and_output_dir_placeholder(tmp_path: Path):
    skill = tmp_path / "skill"
    (skill / "evals" / "oracles").mkdir(parents=True)
    (skill / "evals" / "oracles" / "check.py").write_text(ORACLE)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "answer.md").write_text("good")
    check = Check("o", "script", params={"command": [sys.executable, "oracles/check.py", "{output_dir}"],
                                         "cwd": "evals", "timeout_seconds": 20, "run_layout": True})
    ctx = CheckContext(output="answer: x", outputs_dir=outputs, allow_scripts=True, skill_root=skill)
    assert run_check(check, ctx).passed
    # Without run_layout, {output_dir} is the outputs folder itself (no output.md, no outputs/).
    bare = Check("o", "script", params={"command": [sys.executable, "-c",
                                                    "import sys, pathlib; "
                                                    "sys.exit(0 if pathlib.Path(sys.argv[1], 'answer.md')"
                                                    ".is_file() else 5)", "{output_dir}"]})
    assert run_check(bare, ctx).passed
    # Without cwd the script runs in the outputs folder, where oracles/ does not exist.
    plain = Check("o", "script", params={"command": [sys.executable, str(skill / "evals/oracles/check.py"),
                                                     "{output_dir}"]})
    assert not run_check(plain, ctx).passed
    missing = Check("o", "script", params={"command": [sys.executable, "-c", "pass"], "cwd": "nope"})
    result = run_check(missing, ctx)
    assert not result.passed and "is not a folder" in result.evidence
    nonzero = Check("o", "script", params={"command": [sys.executable, "-c", "raise SystemExit(3)"],
                                           "pass_exit_code": 3})
    assert run_check(nonzero, ctx).passed
    refused = CheckContext(output="x", outputs_dir=outputs, allow_scripts=False, skill_root=skill)
    assert run_check(check, refused).evidence == DISABLED
