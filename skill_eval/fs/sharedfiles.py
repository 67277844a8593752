"""Temporary files and folders that become results or store entries by a rename. tempfile's
own are private (0600 / 0700) whatever the umask, so a results folder written that way could
not be served by a web server or read from a CI artifact by another user. These are created
with 0666 / 0777 and the kernel applies the umask, as for any file a program writes."""

from __future__ import annotations

import os
from pathlib import Path

_TRIES = 100


def _name(folder: str | Path, prefix: str) -> str:
    # secrets.token_hex(6) is this; importing secrets (and random with it) costs ~4 ms a start.
    return os.path.join(folder, f"{prefix}{os.urandom(6).hex()}")


def mkstemp(dir: str | Path, prefix: str) -> tuple[int, str]:  # noqa: A002 (tempfile's names)
    """Like tempfile.mkstemp (an open, new, exclusive file), with the umask's mode."""
    for _ in range(_TRIES):
        path = _name(dir, prefix)
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                           0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name under {dir}")


def mkdtemp(dir: str | Path, prefix: str) -> str:  # noqa: A002
    """Like tempfile.mkdtemp (a new, empty folder), with the umask's mode."""
    for _ in range(_TRIES):
        path = _name(dir, prefix)
        try:
            os.mkdir(path, 0o777)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name under {dir}")
