"""Seed-000 semantics end to end: file_exists paths are workspace-relative, and every file the
adapter leaves in its workspace (outside inputs/ and skills/) is kept with the run and graded."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

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


def _one_case_project(root: Path, name: str, adapter: str, extra: str, python: str = sys.executable) -> None:
    """A suite of one skill with one case (its output must say 'ok'), run with_skill only."""
    skill = root / "skills" / name
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Files.\n---\nWrite them.\n")
    (skill / "evals" / "evals.json").write_text(json.dumps({"evals": [
        {"id": "c", "prompt": "Write.", "checks": [{"type": "contains", "value": "ok"}]}]}))
    (root / "adapter.py").write_text(adapter)
    (root / "suite.yaml").write_text(
        f"suite: {name}\nskills_dir: skills\niterations: 1\njobs: 1\n{extra}"
        f"variants: [with_skill]\nadapter:\n  command: [{python}, adapter.py]\n"
        "store: store\nresults: results\n")


def test_a_file_that_cannot_be_kept_is_one_line_and_exit_2_and_the_run_stays(tmp_path: Path, capsys):
    _one_case_project(tmp_path, "big", BIG, "max_output_bytes: 2000\n")
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
        assert ", 0 to run," in capsys.readouterr().out
    finally:
        os.chdir(cwd)


# --- names and folders the agent chooses never lose the run (issue 20) --------------------------

HOSTILE = r'''
import json, os, sys
req = json.load(sys.stdin)
os.makedirs("outputs", exist_ok=True)
open(os.fsencode("outputs/caf") + b"\xe9.md", "wb").write(b"not utf-8 name")
os.makedirs("outputs/sk-" + "a" * 20)
open("outputs/sk-" + "a" * 20 + "/in.txt", "w").write("folder")
open("outputs/sk-" + "b" * 20, "w").write("file")
os.makedirs("locked/deeper")
open("locked/deeper/secret.txt", "w").write("unredacted")
os.chmod("locked/deeper", 0o000)
os.chmod("locked", 0o000)
os.makedirs("zz-many")  # walked after outputs/
for i in range(12):
    open(f"zz-many/{i:02d}.txt", "w").write("x")
json.dump({"output": "ok"}, sys.stdout)
'''


@pytest.mark.slow
def test_hostile_names_and_locked_folders_keep_the_run_and_leave_nothing_behind(tmp_path: Path):
    # chmod 000 stops only a normal user: as root, skill-eval runs as nobody through setpriv.
    import shutil
    import tempfile

    import pytest
    prefix: list[str] = []
    base = tmp_path
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: a chmod 000 folder cannot stop root")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        base = Path(tempfile.mkdtemp(prefix="skill-eval-test-"))
        base.chmod(0o755)
    try:
        _hostile_names(base, prefix)
    finally:
        if base != tmp_path:
            from skill_eval.fs.removal import remove_tree
            remove_tree(base)


def _hostile_names(root: Path, prefix: list[str]) -> None:
    import shutil
    import subprocess
    # The other user may not reach this interpreter (a pyenv under /root); the system one serves.
    python = (shutil.which("python3", path="/usr/bin:/bin") if prefix else None) or sys.executable
    _one_case_project(root, "names", HOSTILE, "max_kept_files: 10\n", python)
    tmp = root / "tmpdir"
    tmp.mkdir()
    if prefix:
        for p in [root, *root.rglob("*")]:
            os.chown(p, 65534, 65534)
    env = dict(os.environ, TMPDIR=str(tmp))
    cli = [*prefix, sys.executable, "-m", "skill_eval.cli.main"]
    done = subprocess.run([*cli, "run", "suite.yaml"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if "were not kept" in line]
    assert len(lines) == 1, done.stderr
    assert "locked/ (unreadable folder: Permission denied)" in lines[0]
    meta = json.loads(next((root / "store" / "runs").rglob("meta.json")).read_text())
    not_kept = meta["files_not_kept"]
    assert sum("over max_kept_files (10)" in why for why in not_kept.values()) == 5  # 15 files, 10 kept
    kept = {p.relative_to(next((root / "store" / "runs").rglob("files"))).as_posix()
            for p in (root / "store" / "runs").rglob("*") if "/files/" in p.as_posix() and p.is_file()}
    assert "outputs/caf\\xe9.md" in kept
    # Two names holding secrets: a file and a folder, equal after redaction, both kept.
    assert "outputs/[REDACTED:api-key]~2" in kept or "outputs/[REDACTED:api-key]~2/in.txt" in kept
    assert not any("unredacted" in k or "sk-" in k for k in kept)
    # The paid run is stored: the next run calls nothing; and no workspace is left in TMPDIR.
    again = subprocess.run([*cli, "status", "suite.yaml"], cwd=root, env=env, capture_output=True,
                           text=True, timeout=60)
    assert ", 0 to run," in again.stdout, again.stdout + again.stderr
    assert not [p.name for p in tmp.iterdir() if p.name.startswith("skill-eval-ws-")]
