"""Full disk, read-only store, no permission: one line naming the path and the cause, exit 2,
finished runs kept, and the next run (disk freed) does only what is missing.

Tests run as root, where chmod does not stop writes, so the faults are injected at the OS
calls every writer goes through (os.open, io.open, mkdir, rename, replace, unlink), for paths
under one folder only; reads keep working, as on a read-only mount."""

from __future__ import annotations

import errno
import io
import os
import sqlite3
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.fs.storage import StorageError, fault_of, writing
from skill_eval.store.store import Store

ALL = 18
ONE = 6  # ALL at iterations: 1, where the count is not the point
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Faults:
    """Make writes under ``root`` fail with ``code`` after ``allow`` successful creations of a
    file or folder; ENOSPC only fails creations, EROFS/EACCES every change."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path, code: int, allow: int = 0):
        self.root = str(root)
        self.code = code
        self.allow = allow
        self.hits = 0
        real_open, real_io_open = os.open, io.open
        real = {name: getattr(os, name) for name in ("mkdir", "rename", "replace", "unlink")}

        def under(path: object) -> bool:
            return isinstance(path, str | Path) and os.path.abspath(path).startswith(self.root)

        def fail(path: object, creating: bool = False) -> None:
            if not under(path) or (self.code == errno.ENOSPC and not creating):
                return  # a full disk still lets files be renamed and removed
            if creating and self.allow > 0:
                self.allow -= 1
                return
            self.hits += 1
            raise OSError(self.code, os.strerror(self.code), str(path))

        def fake_open(path, flags, *a, **k):  # type: ignore[no-untyped-def]
            if flags & _WRITE_FLAGS:
                fail(path, creating=True)
            return real_open(path, flags, *a, **k)

        def fake_io_open(file, mode="r", *a, **k):  # type: ignore[no-untyped-def]
            if any(c in mode for c in "wax+"):
                fail(file, creating=True)
            return real_io_open(file, mode, *a, **k)

        def wrap(name: str):  # type: ignore[no-untyped-def]
            def fake(path, *a, **k):  # type: ignore[no-untyped-def]
                fail(path, creating=name == "mkdir")
                if a and name in ("rename", "replace"):
                    fail(a[0])  # the destination
                return real[name](path, *a, **k)
            return fake

        monkeypatch.setattr(os, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_io_open)
        for name in real:
            monkeypatch.setattr(os, name, wrap(name))


def one_line(err: str) -> str:
    """The one message (the progress line also goes to stderr)."""
    lines = [line for line in err.splitlines() if line.startswith("skill-eval:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def stored(kit: Kit) -> int:
    store = Store(kit.store)
    keys = kit.stored_runs()
    assert all(store.get_run(k) is not None for k in keys)
    return len(keys)


def test_fault_of_names_path_and_cause(tmp_path):
    fault = fault_of(OSError(errno.ENOSPC, "No space left on device"), tmp_path / "x")
    assert isinstance(fault, StorageError)
    assert str(fault).startswith(f"cannot write {tmp_path / 'x'}: No space left on device (ENOSPC); ")
    assert fault_of(OSError(errno.ENOENT, "gone"), tmp_path) is None
    with pytest.raises(StorageError, match="Read-only file system"), writing(tmp_path / "y"):
        raise OSError(errno.EROFS, "Read-only file system")  # a write() carries no file name
    with pytest.raises(FileNotFoundError), writing(tmp_path):
        raise FileNotFoundError(errno.ENOENT, "not a storage fault", "z")


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_run_with_an_unwritable_store_says_so_in_one_line(tmp_path, monkeypatch, code):
    kit = Kit.create(tmp_path)
    Faults(monkeypatch, kit.store, code)
    rc, out, err = kit.run()
    assert rc == 2
    line = one_line(err)
    assert line.startswith(f"skill-eval: cannot write {kit.store}") and errno.errorcode[code] in line
    assert kit.calls() == 0


@pytest.mark.slow
def test_report_with_a_read_only_store_says_so_in_one_line(tmp_path, monkeypatch):
    kit = Kit.warm(tmp_path)
    os.utime(kit.suite)
    Faults(monkeypatch, kit.store, errno.EROFS)
    rc, out, err = kit.cli("report", "suite.yaml", "--format", "json")
    assert rc == 2
    assert "Read-only file system (EROFS)" in one_line(err)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_full_disk_mid_run_exits_2_keeps_finished_runs_and_resumes(tmp_path, monkeypatch, jobs):
    kit = Kit.create(tmp_path)
    faults = Faults(monkeypatch, kit.store / "tmp", errno.ENOSPC, allow=3 * 6)  # ~3 whole entries
    rc, out, err = kit.run("-j", jobs)
    assert rc == 2, out + err
    line = one_line(err)
    assert f"cannot write {kit.store}" in line and "No space left on device (ENOSPC)" in line
    assert "finished runs are kept" in line
    assert faults.hits >= 1
    done = stored(kit)
    assert 1 <= done < ALL
    monkeypatch.undo()  # space freed
    kit.reset()
    rc, out, err = kit.run()
    assert rc == 0, err
    assert kit.calls() == ALL - done
    assert stored(kit) == ALL


@pytest.mark.slow
@pytest.mark.parametrize(("where", "code"), [("state", errno.ENOSPC), ("hashcache.json", errno.EROFS),
                                           ("grades", errno.ENOSPC), ("errors", errno.ENOSPC),
                                           ("state/kit.fast.json", errno.EACCES)])
def test_a_fault_in_any_store_file_is_one_line(tmp_path, monkeypatch, where, code):
    kit = Kit.create(tmp_path, iterations=1)
    if where == "errors":
        kit.control(fail="a1")  # adapter errors are recorded under errors/
    Faults(monkeypatch, kit.store / where, code)
    rc, out, err = kit.run()
    assert rc == 2
    line = one_line(err)
    assert f"cannot write {kit.store / where}" in line and errno.errorcode[code] in line


@pytest.mark.slow
def test_unwritable_results_is_one_line(tmp_path, monkeypatch):
    kit = Kit.create(tmp_path, iterations=1)
    Faults(monkeypatch, kit.results, errno.EACCES)
    rc, out, err = kit.run()
    assert rc == 2
    line = one_line(err)
    assert f"cannot write {kit.results}" in line and "Permission denied (EACCES)" in line
    assert stored(kit) == ONE  # the runs themselves are safe in the store


@pytest.mark.slow
def test_full_disk_in_doits_database_is_one_line(tmp_path, monkeypatch):
    from doit.dependency import SqliteDB

    def full(self):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(SqliteDB, "dump", full)
    kit = Kit.create(tmp_path, iterations=1)
    rc, out, err = kit.run()
    assert rc == 2
    line = one_line(err)
    assert f"cannot write {kit.store / 'doit'}" in line and "ENOSPC" in line
    monkeypatch.undo()
    kit.reset()
    assert kit.run()[0] == 0
    assert kit.calls() == 0  # every run was stored before doit's database failed


@pytest.fixture
def small_disk(tmp_path):
    """mount(path, size) -> a real tmpfs of that size at path (root with mount rights only)."""
    import shutil
    import subprocess

    mounted: list[Path] = []

    def mount(path: Path, size: str, *opts: str) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        if not shutil.which("mount") or os.geteuid() != 0:
            pytest.skip("a real small disk needs root and mount(8); the fault-injection tests "
                        "above cover the same paths")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join([f"size={size}", *opts]), "tmpfs",
                            str(path)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()}); the fault-injection "
                        "tests above cover the same paths")
        mounted.append(path)
        return path

    yield mount
    for path in mounted:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.mark.slow
def test_a_real_full_disk_and_a_real_read_only_store(tmp_path, small_disk):
    # The disk is real; the CLI runs in-process (a child process would add nothing but start-up).
    import subprocess

    kit = Kit.create(tmp_path)
    disk = small_disk(kit.root / ".skill-eval", "160k")
    rc, out, err = kit.run()
    assert rc == 2, out + err
    line = one_line(err)
    assert f"cannot write {disk}" in line and "No space left on device (ENOSPC)" in line
    done = stored(kit)
    assert done < ALL
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    for args in (("run", "suite.yaml"), ("report", "suite.yaml")):
        rc, out, err = kit.cli(*args)
        assert rc == 2, out + err
        assert "Read-only file system (EROFS)" in one_line(err)
    subprocess.run(["mount", "-o", "remount,rw,size=8m", str(disk)], check=True)
    kit.reset()
    rc, out, err = kit.run()
    assert rc == 0, err
    assert kit.calls() == ALL - done
    assert stored(kit) == ALL


@pytest.mark.slow
def test_report_out_to_a_read_only_folder_is_one_line(tmp_path, monkeypatch):
    kit = Kit.warm(tmp_path)
    target = tmp_path / "ro" / "report.md"
    Faults(monkeypatch, tmp_path / "ro", errno.EROFS)
    rc, out, err = kit.cli("report", "suite.yaml", "--out", str(target))
    assert rc == 2
    assert one_line(err).startswith(f"skill-eval: cannot write {tmp_path / 'ro'}")


@pytest.mark.slow
@pytest.mark.parametrize("allow", [0, 3])
def test_a_full_temp_folder_for_workspaces_is_one_line_not_a_run_error(tmp_path, monkeypatch, allow):
    import tempfile

    kit = Kit.create(tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    # allow=0: the workspace folder itself; allow=3: its subfolders or the copied files.
    Faults(monkeypatch, tmp / "skill-eval-ws-", errno.ENOSPC, allow=allow)
    rc, out, err = kit.run("-j", "1")
    assert rc == 2
    line = one_line(err)
    assert f"cannot write {tmp}" in line and "ENOSPC" in line
    assert not list(kit.store.glob("errors/*.json"))  # not the adapter's failure
    assert not list(tmp.glob("skill-eval-ws-*"))


def test_a_full_disk_while_copying_the_skill_is_ours_not_the_skills(tmp_path, monkeypatch):
    import shutil

    kit = Kit.create(tmp_path)

    def full(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))

    monkeypatch.setattr(shutil, "copy", full)
    rc, out, err = kit.run("-j", "1")
    assert rc == 2
    line = one_line(err)
    assert "/skills/" in line and "No space left on device (ENOSPC)" in line
    assert not list(kit.store.glob("errors/*.json"))
