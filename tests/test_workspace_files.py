"""Seed-000 semantics end to end: file_exists paths are workspace-relative, and every file the
adapter leaves in its workspace (outside inputs/ and skills/) is kept with the run and graded."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from skill_eval.cli.main import main

# with_skill writes where the seed harness's eval sets expect; without_skill misplaces the entry.
ADAPTER = '''
import json, os, sys
req = json.load(sys.stdin)
os.makedirs("outputs", exist_ok=True)
if req["mode"] == "with_skill":
    open("outputs/CHANGELOG-entry.md", "w").write("## 2.4.0\\n")
    open("report.md", "w").write("done\\n")
else:
    open("CHANGELOG-entry.md", "w").write("## 2.4.0\\n")
open("home/.cache-not-kept", "w").write("x")
open("tmp/scratch-not-kept", "w").write("x")
json.dump({"output": "ok"}, sys.stdout)
'''

EVALS = {"skill_name": "changelog", "evals": [
    {"id": 1, "prompt": "Write the changelog entry.", "assertions": [
        {"name": "entry-in-outputs", "type": "file_exists", "path": "outputs/CHANGELOG-entry.md"},
        {"name": "report-at-root", "type": "file_exists", "path": "report.md"}]},
    {"id": 2, "prompt": "Write the changelog entry at the top.", "assertions": [
        {"name": "entry-at-root", "type": "file_exists", "path": "CHANGELOG-entry.md"}]},
]}


def test_seed_file_exists_verdicts_per_run(tmp_path: Path, capsys):
    skill = tmp_path / "skills" / "changelog"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: changelog\ndescription: Changelog entries.\n---\n"
                                    "Write them.\n")
    (skill / "evals" / "evals.json").write_text(json.dumps(EVALS))
    (tmp_path / "adapter.py").write_text(ADAPTER)
    (tmp_path / "suite.yaml").write_text(
        f"suite: seed\nskills_dir: skills\niterations: 1\njobs: 1\n"
        f"adapter:\n  command: [{sys.executable}, adapter.py]\nstore: store\nresults: results\n")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["run", "suite.yaml"])
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err

    def verdict(case: str, mode: str) -> dict[str, bool]:
        grade = json.loads((tmp_path / "results" / "changelog" / "iteration-1" / f"eval-{case}" / mode
                            / "grading.json").read_text())
        return {c["id"]: c["passed"] for c in grade["checks"]}

    assert verdict("1", "with_skill") == {"entry-in-outputs": True, "report-at-root": True}
    assert verdict("1", "without_skill") == {"entry-in-outputs": False, "report-at-root": False}
    assert verdict("2", "with_skill") == {"entry-at-root": False}
    assert verdict("2", "without_skill") == {"entry-at-root": True}  # a file outside outputs/ is kept
    kept = {p.as_posix().split("/files/", 1)[1] for p in (tmp_path / "store" / "runs").rglob("*")
            if p.is_file() and "/files/" in p.as_posix()}
    assert kept == {"outputs/CHANGELOG-entry.md", "report.md", "CHANGELOG-entry.md"}  # not home/, tmp/


BIG = '''
import json, sys
json.load(sys.stdin)
open("small.txt", "w").write("kept\\n")
open("huge.bin", "wb").write(b"x" * 5000)
json.dump({"output": "ok"}, sys.stdout)
'''


def test_a_file_that_cannot_be_kept_is_one_line_and_exit_2_and_the_run_stays(tmp_path: Path, capsys):
    skill = tmp_path / "skills" / "big"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: big\ndescription: Big files.\n---\nWrite them.\n")
    (skill / "evals" / "evals.json").write_text(json.dumps({"evals": [
        {"id": "c", "prompt": "Write.", "checks": [{"type": "contains", "value": "ok"}]}]}))
    (tmp_path / "adapter.py").write_text(BIG)
    (tmp_path / "suite.yaml").write_text(
        f"suite: big\nskills_dir: skills\niterations: 1\njobs: 1\nmax_output_bytes: 2000\n"
        f"variants: [with_skill]\nadapter:\n  command: [{sys.executable}, adapter.py]\n"
        "store: store\nresults: results\n")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["run", "suite.yaml"])
        out, err = capsys.readouterr()
        assert code == 2, out + err
        assert "Traceback" not in err
        lines = [line for line in err.splitlines() if "were not kept" in line]
        assert len(lines) == 1 and "huge.bin (over max_output_bytes (2000)" in lines[0]
        # The paid run is stored, with the file that fitted: the next run calls nothing.
        kept = [p.name for p in (tmp_path / "store" / "runs").rglob("*") if "/files/" in p.as_posix()]
        assert "small.txt" in kept and "huge.bin" not in kept
        assert main(["status", "suite.yaml"]) == 0
        assert "would run 0" in capsys.readouterr().out
    finally:
        os.chdir(cwd)
