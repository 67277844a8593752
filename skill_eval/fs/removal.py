"""Removing a folder the agent under test had its hands on, whatever it did to the permissions.

An adapter can leave a folder it made unreadable (``chmod 000``) or unwritable: ``rmtree``
cannot enter it, and the workspace with its unredacted files would stay in TMPDIR forever. When
a plain removal leaves anything behind, the owner's permissions are restored on every folder
below (each ours: the adapter ran as this user) and the removal is tried again.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


def _unlock(root: str) -> None:
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            os.chmod(folder, stat.S_IRWXU, follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass
        try:
            with os.scandir(folder) as entries:
                stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue


def remove_tree(path: Path | str) -> bool:
    """Remove ``path`` and everything under it; True when it is gone."""
    if os.path.islink(path):  # the agent swapped its folder for a link: remove the link only
        os.unlink(path)
        return True
    failed: list[object] = []
    shutil.rmtree(path, onerror=lambda *args: failed.append(args))
    if failed and os.path.lexists(path):
        _unlock(str(path))
        shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)
