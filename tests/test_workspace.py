import hashlib
import os

from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run.workspace import prepare_workspace


def _tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_fixtures_identical_and_skill_only_with_skill(run_setup):
    _, spec = run_setup(["true"])
    with_ws = prepare_workspace(spec("with_skill"))
    without_ws = prepare_workspace(spec("without_skill"))
    try:
        a = (with_ws.path / "inputs" / "data.txt").read_bytes()
        b = (without_ws.path / "inputs" / "data.txt").read_bytes()
        assert a == b == b"fixture \x00 bytes\r\n"
        assert with_ws.files == without_ws.files == (
            {"path": "inputs/data.txt", "sha256": hashlib.sha256(a).hexdigest()},)
        assert with_ws.skill_rel == "skills/demo-skill" and without_ws.skill_rel is None
        skill = with_ws.path / "skills" / "demo-skill"
        assert (skill / "SKILL.md").is_file() and (skill / "references" / "guide.md").is_file()
        assert not (skill / "evals").exists()
        assert not any("evals" in p for p in _tree(with_ws.path))
        assert not (without_ws.path / "skills").exists()
        for ws in (with_ws, without_ws):
            assert (ws.outputs).is_dir() and not any(ws.outputs.iterdir())
    finally:
        with_ws.remove()
        without_ws.remove()
    assert not with_ws.path.exists() and not without_ws.path.exists()


def test_env_is_minimal(run_setup, monkeypatch):
    _, spec = run_setup(["true"])
    monkeypatch.setenv("ALLOWED_VAR", "yes")
    monkeypatch.setenv("SECRET_NOT_ALLOWED", "no")
    ws = prepare_workspace(spec())
    try:
        adapter = ResolvedAdapter("x", ("true",), env_names=("ALLOWED_VAR", "UNSET_VAR_XYZ"),
                                  extra_env={"FIXED": "1"})
        env = ws.env(adapter)
        assert set(env) == {"PATH", "HOME", "LANG", "TMPDIR", "ALLOWED_VAR", "FIXED"}
        assert env["HOME"] == str(ws.path / "home") and os.path.isdir(env["HOME"])
        assert env["TMPDIR"].startswith(str(ws.path)) and env["LANG"] == "C.UTF-8"
    finally:
        ws.remove()


def test_stale_workspaces_go_and_live_ones_stay(tmp_path):
    import subprocess
    import sys

    from skill_eval.run.containment import owner
    from skill_eval.run.workspace import PREFIX, remove_stale

    # A live skill-eval holds its owner lock; a killed one's lock is free; one never had a file.
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | "
         "os.O_CREAT); fcntl.flock(fd, fcntl.LOCK_EX); print('ok', flush=True); time.sleep(60)",
         str(owner.lock_path(999_001, tmp_path))], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "ok\n"
        owner.lock_path(999_002, tmp_path).write_text("")  # its owner died: nobody holds it
        for pid in (999_001, 999_002, 999_003):
            (tmp_path / f"{PREFIX}{pid}-abc" / "inputs").mkdir(parents=True)
        (tmp_path / "skill-eval-ws-unowned").mkdir()  # older layout: cannot tell, left alone
        assert remove_stale(tmp_path) == 2
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
            f"{PREFIX}999001-abc", "skill-eval-owner-999001.lock", "skill-eval-ws-unowned"])
    finally:
        holder.kill()
        holder.wait()


def test_stale_sweep_removes_a_dead_workers_job_folder_and_unlocks_what_it_must(tmp_path):
    # issue 20: a Ray job folder (unredacted files) is named by its owner and swept like a
    # workspace; folders the adapter locked (chmod 000) are unlocked so removal can enter them.
    from skill_eval.run.workspace import JOB_PREFIX, remove_stale

    job = tmp_path / f"{JOB_PREFIX}999004-xyz"
    (job / "ws" / "locked").mkdir(parents=True)
    (job / "ws" / "locked" / "secret.txt").write_text("x")
    (job / "ws" / "locked").chmod(0)
    live = tmp_path / f"{JOB_PREFIX}{os.getpid()}-mine"
    live.mkdir()
    assert remove_stale(tmp_path) == 1
    assert not job.exists() and live.is_dir()


def test_remove_tree_unlocks_folders_and_removes_a_link_not_its_target(tmp_path):
    from skill_eval.fs.removal import remove_tree

    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("x")
    (tmp_path / "link").symlink_to(target)
    assert remove_tree(tmp_path / "link") and (target / "keep.txt").is_file()
    (target / "a" / "b").mkdir(parents=True)
    (target / "a" / "b").chmod(0)
    (target / "a").chmod(0o500)
    assert remove_tree(target) and not target.exists()


def test_a_workspace_swapped_for_a_link_keeps_nothing_and_removes_only_the_link(run_setup, tmp_path):
    # issue 20: an adapter that replaced its workspace with a symlink got the target's files kept.
    import shutil

    _, spec = run_setup(["true"])
    ws = prepare_workspace(spec("without_skill"))
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "private.txt").write_text("not the agent's")
    shutil.rmtree(ws.path)
    ws.path.symlink_to(target)
    kept, dropped = ws.kept_files(1 << 20)
    assert kept == [] and list(dropped) == ["."]
    ws.remove()
    assert not os.path.lexists(ws.path) and (target / "private.txt").is_file()


def test_kept_files_past_the_cap_are_listed(run_setup):
    _, spec = run_setup(["true"])
    ws = prepare_workspace(spec("without_skill"))
    try:
        for i in range(5):
            (ws.outputs / f"{i}.txt").write_text("x")
        kept, dropped = ws.kept_files(1 << 20, max_files=3)
        assert [rel for rel, _ in kept] == ["outputs/0.txt", "outputs/1.txt", "outputs/2.txt"]
        why = "over max_kept_files (3) with the files before it"
        assert dropped == {f"outputs/{i}.txt": why for i in (3, 4)}
    finally:
        ws.remove()
