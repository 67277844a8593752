"""Files under results/ and the store are readable by others as the umask allows (CI artifacts,
web servers), not private like tempfile's."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.fs import sharedfiles


@pytest.fixture
def umask():
    def set_to(mask: int) -> int:
        os.umask(mask)
        return mask

    old = os.umask(0o022)
    os.umask(old)
    yield set_to
    os.umask(old)


def _modes(root: Path) -> dict[str, int]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                continue
            out[str(path.relative_to(root))] = stat.S_IMODE(st.st_mode) | (0o1000000 if path.is_dir() else 0)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_results_and_store_follow_the_umask(tmp_path, umask, mask):
    umask(mask)
    kit = Kit.create(tmp_path)
    assert kit.run()[0] == 0
    assert kit.cli("export", "suite.yaml", "--format", "skill-creator")[0] == 0
    want_file, want_dir = 0o666 & ~mask, 0o777 & ~mask
    for root in (kit.results, kit.store):
        modes = _modes(root)
        assert "index.html" in modes or "grades" in modes
        wrong = {p: oct(m & 0o777) for p, m in modes.items()
                 if (m & 0o777) != (want_dir if m & 0o1000000 else want_file)}
        assert not wrong, f"{root.name}: {sorted(wrong.items())[:10]}"
    assert stat.S_IMODE(os.stat(kit.results / "index.html").st_mode) == want_file
    assert stat.S_IMODE(os.stat(kit.bench("alpha")).st_mode) == want_file


def test_mkstemp_and_mkdtemp_are_new_and_exclusive(tmp_path, umask):
    umask(0o022)
    fd, path = sharedfiles.mkstemp(tmp_path, ".x.")
    os.close(fd)
    fd2, path2 = sharedfiles.mkstemp(tmp_path, ".x.")
    os.close(fd2)
    folder = sharedfiles.mkdtemp(tmp_path, "d-")
    assert path != path2 and Path(path).name.startswith(".x.") and Path(folder).is_dir()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o755
