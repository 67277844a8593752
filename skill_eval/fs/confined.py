"""Reading a user's input file the way every reader must: never through a link that leaves the
folder it belongs to, never from a FIFO or a device, and as UTF-8 text or not at all.

The native eval-set readers refuse fixtures that resolve outside the eval set, and FIFOs and
devices anywhere a plain file is expected (fs/specialfiles.py); the plugin-eval reader, its mocks
and the plugin's manifests read through here so that they refuse the same things, each refusal a
one-line reason the reader reports against the file. A FIFO is opened without waiting for a
writer, so a reader never blocks on one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skill_eval.fs.specialfiles import special_kind


class Unreadable(ValueError):
    """Why a file cannot be used as input (one line, without the file's name)."""


def outside(path: Path, root: Path) -> Path | None:
    """Where ``path`` really is when a link takes it out of ``root``, else None."""
    try:
        real = path.resolve()
        return None if real.is_relative_to(root.resolve()) else real
    except (OSError, RuntimeError):  # a loop of links, a name too long: not inside
        return path


def refusal(path: Path, root: Path | None = None) -> str | None:
    """Why ``path`` may not be read as an input file (it leaves ``root`` through a link, or it
    is a FIFO, socket or device), or None."""
    if root is not None and (real := outside(path, root)) is not None:
        return (f"is a link to {real}, outside {root.name}/; copy the file in instead of "
                "linking to it")
    what = special_kind(path)
    if what is not None:
        return f"is {what}, not a file: reading it could block or never end; replace it with a regular file"
    return None


def confined_bytes(path: Path, root: Path | None = None, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``; Unreadable when ``refusal`` names a reason, when
    it is a folder or missing, or when it is over ``limit`` bytes."""
    why = refusal(path, root)
    if why is not None:
        raise Unreadable(why)
    if path.is_dir():
        raise Unreadable("is a folder, not a file; rename or remove it")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put here since: no waiting
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("is not a regular file; replace it with one")
        data = file.read(-1 if limit is None else limit + 1)
    if limit is not None and len(data) > limit:
        raise Unreadable(f"is over {limit / (1024 * 1024):g} MiB (the limit); keep it smaller")
    return data


def confined_text(path: Path, root: Path | None = None, limit: int | None = None) -> str:
    """``confined_bytes`` decoded as UTF-8 (a leading byte-order mark dropped, line ends made
    ``\n`` as ``Path.read_text`` makes them); Unreadable, naming the byte, when it is not UTF-8."""
    return decoded(confined_bytes(path, root, limit))


def decoded(data: bytes) -> str:
    """``data`` as ``confined_text`` decodes it; Unreadable when it is not UTF-8."""
    try:
        return universal_newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise Unreadable(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                         "save it as UTF-8") from None


def universal_newlines(text: str) -> str:
    """``\r\n`` and a lone ``\r`` as ``\n``, as text-mode reading gives them."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
