"""fs/atomic: a file is written whole or not at all, with the umask's mode, and a failed write
leaves neither a half file nor a temporary one behind."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from skill_eval.fs import atomic
from skill_eval.fs.atomic import rename_into_place, write_atomic
from skill_eval.fs.storage import StorageError


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


def test_text_and_bytes_land_whole_in_a_new_folder(tmp_path):
    write_atomic(tmp_path / "a" / "b.json", "é\n")
    write_atomic(tmp_path / "c.bin", b"\x00\xff")
    assert (tmp_path / "a" / "b.json").read_bytes() == "é\n".encode()
    assert (tmp_path / "c.bin").read_bytes() == b"\x00\xff"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b.json", "c.bin"]


def test_it_replaces_what_was_there(tmp_path):
    (tmp_path / "f").write_text("old")
    write_atomic(tmp_path / "f", "new", prefix=".f-")
    assert (tmp_path / "f").read_text() == "new"
    assert os.listdir(tmp_path) == ["f"]


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_the_mode_is_the_umasks(tmp_path, umask, mask):
    umask(mask)
    write_atomic(tmp_path / "f", "x")
    assert stat.S_IMODE(os.stat(tmp_path / "f").st_mode) == 0o666 & ~mask


class _Boom(Exception):
    pass


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    (tmp_path / "f").write_text("old")
    real = os.fdopen

    class Failing:
        def __init__(self, fd: int):
            self.file = real(fd, "wb")

        def __enter__(self):  # noqa: ANN204
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            self.file.write(data[:1])  # half written, then the failure
            raise _Boom

    monkeypatch.setattr(atomic.os, "fdopen", lambda fd, _mode: Failing(fd))
    with pytest.raises(_Boom):
        write_atomic(tmp_path / "f", "new content")
    assert (tmp_path / "f").read_text() == "old"
    assert os.listdir(tmp_path) == ["f"]


def test_a_full_disk_is_a_storage_error_naming_the_file(tmp_path, monkeypatch):
    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "replace", full)
    with pytest.raises(StorageError, match=f"cannot write {tmp_path / 'f'}: .*ENOSPC"):
        write_atomic(tmp_path / "f", "x")
    assert os.listdir(tmp_path) == []


def test_rename_into_place_moves_a_whole_folder_and_never_over_a_full_one(tmp_path):
    built = tmp_path / "tmp" / "entry"
    built.mkdir(parents=True)
    (built / "a").write_text("1")
    rename_into_place(built, tmp_path / "entry")
    assert (tmp_path / "entry" / "a").read_text() == "1" and not built.exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "b").write_text("2")
    with pytest.raises(OSError):
        rename_into_place(other, tmp_path / "entry")
    assert (tmp_path / "entry" / "a").read_text() == "1"
