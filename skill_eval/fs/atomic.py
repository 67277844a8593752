"""The one way skill-eval puts a file or a folder in its final place: whole or not at all.

A reader (or a crash) sees the old file or the new one, never half of one: the bytes go to a
new temporary file beside the target (``sharedfiles``: the umask's mode, not tempfile's 0600),
which is then renamed over it. Every rename into place in the program goes through here
(tests/test_architecture.py holds that), so the rule lives in one module.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from skill_eval.fs import sharedfiles
from skill_eval.fs.storage import writing


def write_atomic(path: Path | str, data: bytes | str, *, prefix: str | None = None) -> None:
    """Write ``data`` (text is UTF-8) to ``path`` through a temporary file in its folder (made
    if missing; its name starts with ``prefix``, by default ``.<name>.``) renamed over it. On
    any failure the temporary file is removed and ``path`` is as it was; a full disk, a
    read-only folder or a missing permission is a StorageError naming ``path``."""
    path = Path(path)
    blob = data.encode("utf-8") if isinstance(data, str) else data
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = sharedfiles.mkstemp(dir=path.parent, prefix=f".{path.name}." if prefix is None else prefix)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def rename_into_place(source: Path | str, target: Path | str) -> None:
    """Move ``source`` (a whole folder or file, built beside ``target``) to ``target`` in one
    step. Unlike ``write_atomic`` it never replaces a non-empty folder: when ``target`` is one,
    the OSError is the caller's to judge (someone else put it there first)."""
    os.rename(source, target)
