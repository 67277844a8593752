"""Writing one file under results/: atomic and redacted (every results file passes here); and
telling whether a file or a copied folder there already holds what would be written, so that a
rebuild that changes nothing creates no file (a new file is the dearest thing a results folder
costs: on ext4 the kernel's inode allocation alone is 0.1-0.3 ms)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.specialfiles import read_plain
from skill_eval.store.redact import redact


def write_text(path: Path, text: str, redacted: bool = False) -> None:
    """Atomic: a reader (or a crash) never sees half a table. Redacted: every results/ file
    passes here, and no secret reaches one, whatever the format. ``redacted``: the text is
    already (a stored run's, which the store redacted when it wrote it: redacting it again is
    the same text at a megabyte-per-second price)."""
    if not redacted:
        text = redact(text)
    write_atomic(path, text)


def write_if_changed(path: Path, text: str) -> None:
    """``write_text``, skipped when the file already holds exactly that text, redacted: a file
    that several writers share (a case's case.json, beside each of its arms' folders) is
    written once, not once per writer."""
    text = redact(text)
    data = text.encode("utf-8")
    if read_plain(path, len(data) + 1) == data:
        return
    write_text(path, text, redacted=True)


def holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file (not a link to one) holding exactly ``data``."""
    return read_plain(path, len(data) + 1, follow=False) == data


def same_tree(source: Path, copy: Path) -> bool:
    """Whether ``copy`` is what ``shutil.copytree(source, copy)`` would make of ``source``: the same
    folders and files, each file with its size, permission bits and bytes, and no links on either
    side (a link in the source is copied as what it points to: never taken as equal)."""
    try:
        listing = _listing(source)
        if listing != _listing(copy):
            return False
        return all(_same_bytes(source / rel, copy / rel) for rel, (kind, _) in listing.items()
                   if kind != stat.S_IFDIR)
    except OSError:
        return False


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every entry under ``root``: (S_IFDIR, 0) for a folder, (permission bits, size) for a file."""
    out: dict[str, tuple[int, int]] = {}
    for folder, dirs, names in os.walk(root, onerror=_raise):
        for name in (*dirs, *names):
            path = os.path.join(folder, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, root)
            if stat.S_ISDIR(st.st_mode):
                out[rel] = (stat.S_IFDIR, 0)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = (stat.S_IMODE(st.st_mode), st.st_size)
            else:
                raise OSError(f"{path}: not a plain file or folder")
    return out


def _same_bytes(a: Path, b: Path, chunk: int = 1 << 20) -> bool:
    # Not filecmp.cmp: its cache trusts (size, mtime), and an edit that keeps both is one we see.
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(chunk), fb.read(chunk)
            if x != y:
                return False
            if not x:
                return True


def _raise(error: OSError) -> None:
    raise error


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
