"""Per-run folders under results/: derived from the store entry each run's current key names.

The repro of issue 19: edit, run, revert, run. The reverted runs come from the store (no call),
and their folders must show them, not the edited version's outputs and verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from scratch import kept
from suitekit import Kit, case


def run_folders(kit: Kit) -> dict[str, bytes]:
    """Every file of every per-run folder (iteration-*/...), by path."""
    out = {}
    for p in sorted(kit.results.glob("*/iteration-*/**/*")):
        if p.is_file():
            out[str(p.relative_to(kit.results))] = p.read_bytes()
    return out


def _first_run(folder: Path) -> Path:
    k = Kit.create(folder, iterations=1, skills={"alpha": ["a1", "a2"]})
    k.use_content_adapter()
    code, out, err = k.run()
    assert code == 0, out + err
    k.reset()
    return k.root


@pytest.fixture
def kit(tmp_path: Path) -> Kit:
    """The kit after its first run, made once per test process and copied (as Kit.warm does)."""
    k = Kit(kept("run-folders-warm", _first_run)).copy_to(tmp_path / "proj")
    code, out, err = k.run()
    assert code == 0 and k.calls() == 0, out + err
    return k


def _edit_and_revert(kit: Kit, edit, revert) -> None:  # noqa: ANN001
    before = run_folders(kit)
    edit()
    assert kit.run()[0] in (0, 1)
    assert run_folders(kit) != before, "the edit should show in the run folders"
    revert()
    kit.reset()
    code, out, err = kit.run()
    assert kit.calls() == 0, "the reverted runs are in the store"
    assert run_folders(kit) == before


def test_fixture_edit_then_revert_shows_the_reverted_runs(kit):
    fixture = kit.skill_dir("alpha") / "evals" / "files" / "a1.txt"
    text = fixture.read_text()
    _edit_and_revert(kit, lambda: fixture.write_text("edited fixture\n"), lambda: fixture.write_text(text))


def test_check_edit_then_revert_shows_the_reverted_verdicts(kit):
    evals = kit.evals("alpha")["evals"]
    changed = [case("a1", "a1.txt", check_value="nowhere in the output"), evals[1]]
    _edit_and_revert(kit, lambda: kit.write_evals("alpha", changed), lambda: kit.write_evals("alpha", evals))
    grading = json.loads((kit.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill" / "grading.json")
                         .read_text())
    assert grading["passed"] is True


def test_skill_edit_then_revert(kit):
    skill_md = kit.skill_dir("alpha") / "SKILL.md"
    text = skill_md.read_text()
    # The kit's adapter does not read the skill: a prompt edit shows instead, then the skill's.
    evals = kit.evals("alpha")["evals"]
    edited = [dict(evals[0], prompt="Task a1: write it twice."), evals[1]]

    def edit() -> None:
        skill_md.write_text(text + "\nOne more rule.\n")
        kit.write_evals("alpha", edited)

    def revert() -> None:
        skill_md.write_text(text)
        kit.write_evals("alpha", evals)

    _edit_and_revert(kit, edit, revert)


def test_removed_case_and_iterations_leave_no_folders(kit):
    kit.write_suite(iterations=2)
    assert kit.run()[0] == 0
    assert (kit.results / "alpha" / "iteration-2").is_dir()
    kit.write_suite(iterations=1)
    kit.write_evals("alpha", kit.evals("alpha")["evals"][:1])
    assert kit.run()[0] == 0
    assert not (kit.results / "alpha" / "iteration-2").exists()
    assert not (kit.results / "alpha" / "iteration-1" / "eval-a2").exists()


def test_an_error_then_its_fix_leaves_no_error_file(kit):
    fixture = kit.skill_dir("alpha") / "evals" / "files" / "a1.txt"
    text = fixture.read_text()
    fixture.write_text("REFUSE\n")
    assert kit.run()[0] == 2
    folder = kit.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill"
    assert (folder / "error.json").is_file() and not (folder / "timing.json").exists()
    fixture.write_text(text)
    assert kit.run()[0] == 0
    assert not (folder / "error.json").exists() and (folder / "output.txt").is_file()


def test_a_model_added_then_removed_leaves_one_layout(kit):
    """One model: tables in results/<skill>/; more: one folder per model. Switching leaves
    nothing of the other layout (found by the equivalence machine)."""
    kit.write_suite(iterations=1, extra="models: [default, other]\n")
    assert kit.run()[0] == 0
    assert not (kit.results / "alpha" / "benchmark.json").exists()
    assert (kit.results / "alpha" / "other" / "benchmark.json").is_file()
    kit.write_suite(iterations=1)
    assert kit.run()[0] == 0
    assert sorted(p.name for p in (kit.results / "alpha").iterdir() if not p.name.startswith(".")) == [
        "benchmark.json", "benchmark.md", "iteration-1"]


def test_a_removed_skill_leaves_no_tables(kit):
    kit.add_skill("beta", ["b1"])
    (kit.results / "notes").mkdir()
    (kit.results / "notes" / "benchmark.md").write_text("mine\n")  # not ours: kept
    assert kit.run()[0] == 0 and kit.bench("beta").is_file()
    import shutil

    shutil.rmtree(kit.skill_dir("beta"))
    assert kit.run()[0] == 0
    assert not (kit.results / "beta").exists()
    assert (kit.results / "notes" / "benchmark.md").read_text() == "mine\n"


def test_a_run_folder_whose_key_file_is_not_text_is_rewritten(kit):
    before = run_folders(kit)
    folder = kit.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill"
    (folder / ".view-key").write_bytes(b"\xff\xfe not a key")
    (folder / "output.txt").write_text("hand-edited")
    other = kit.results / "alpha" / "iteration-1" / "eval-a1" / "without_skill" / ".view-key"
    other.unlink()
    os.mkfifo(other)  # read without waiting for a writer
    evals = kit.evals("alpha")["evals"]
    kit.write_evals("alpha", [evals[0], case("a2", "a2.txt", check_value="nowhere in the output")])
    code, out, err = kit.run()  # a2 is graded again, so alpha's table and its folders are rebuilt
    assert code in (0, 1) and "Traceback" not in err, out + err
    assert kit.calls() == 0
    after = run_folders(kit)
    assert all(after[name] == before[name] for name in after if "eval-a1" in name)


def _inodes(kit: Kit) -> dict[str, int]:
    """The inode of every file and folder of every per-run folder: a file written anew (even with
    the same bytes) gets a new one."""
    return {str(p.relative_to(kit.results)): p.lstat().st_ino
            for p in sorted(kit.results.glob("*/iteration-*/**/*"))}


def _keeping_kit(tmp_path: Path) -> Kit:
    """A kit whose adapter leaves a file in its workspace (kept: files/ in each run folder)."""
    from test_kept_verify import KEEPING

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2"]})
    (kit.root / "adapter.py").write_text(KEEPING)
    assert kit.run()[0] == 0
    assert list(kit.results.glob("alpha/iteration-1/*/*/files/notes.txt")), "no kept file in the view"
    return kit


def test_a_report_that_changes_nothing_writes_no_run_folder_file(tmp_path):
    # report rebuilds every run folder; one that already holds what it would write is left as it is
    # (each new file costs the kernel an inode allocation), kept files/ included.
    kit = _keeping_kit(tmp_path)
    before, contents = _inodes(kit), run_folders(kit)
    assert kit.cli("report", "suite.yaml")[0] == 0
    assert _inodes(kit) == before
    assert run_folders(kit) == contents


def test_a_report_repairs_a_hand_edited_run_folder_and_only_what_was_edited(tmp_path):
    kit = _keeping_kit(tmp_path)
    clean = run_folders(kit)
    folder = kit.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill"
    (folder / "output.txt").write_text("hand-edited")
    (folder / "files" / "notes.txt").write_text("hand-edited too")
    (folder / "stray.txt").write_text("not ours")
    os.chmod(folder / "files", 0o755)
    elsewhere = kit.root / "same-bytes.json"
    elsewhere.write_bytes((folder / "timing.json").read_bytes())
    (folder / "timing.json").unlink()
    (folder / "timing.json").symlink_to(elsewhere)  # the right bytes, but not a file of ours
    untouched = _inodes(kit)
    assert kit.cli("report", "suite.yaml")[0] == 0
    assert run_folders(kit) == clean
    assert not (folder / "stray.txt").exists() and not (folder / "timing.json").is_symlink()
    after = _inodes(kit)
    changed = {name for name in after if after[name] != untouched.get(name)}
    assert changed == {f"alpha/iteration-1/eval-a1/with_skill/{name}"
                       for name in ("output.txt", "timing.json", ".view-key", "files", "files/notes.txt")}
