"""Finding FIFOs, sockets and devices where skill-eval expects plain files.

Reading a FIFO blocks until something writes to it (forever, in a skill folder), and a device can
be endless: hashing either would hang ``run`` and ``status``. They are found by ``lstat`` alone
(never opened) and reported as input errors; a symlink counts by what it points at. Where one
only stands in the place of a file we read back (our own files under results/), ``read_plain``
reads it as no file at all.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def special_kind(path: Path | str) -> str | None:
    """What ``path`` is when it is neither a regular file, a folder nor a dangling link, else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((what for test, what in _KINDS if test(mode)), None)


def special_files(root: Path, limit: int = 20) -> list[tuple[Path, str]]:
    """Up to ``limit`` special files under ``root`` (folder links are not followed)."""
    found: list[tuple[Path, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            what = special_kind(os.path.join(folder, name))
            if what is not None:
                found.append((Path(folder) / name, what))
                if len(found) >= limit:
                    return found
    return found


def read_plain(path: Path | str, limit: int, follow: bool = True) -> bytes | None:
    """Up to ``limit`` bytes of ``path`` when it is a regular file, else None (missing, a folder,
    a FIFO or a device: opened without waiting for a writer, and not read). ``follow=False``: a
    symlink is None too, whatever it points at."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    except OSError:
        return None
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)
