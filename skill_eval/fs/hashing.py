"""Content hashes: canonical JSON keys, and file hashes cached by a stat stamp.

The cache makes a no-op cheap (a stat per file, no reads) and makes "touch" harmless: a file
whose stat changed is re-hashed once, its key stays the same, and the cache entry is updated.

A stamp is what git's index keeps: size, mtime_ns, ctime_ns and inode. ``utime`` cannot set
ctime, so an edit that restores size and mtime (``cp -p``, ``touch -r``, ``rsync -a``, a restored
CI cache) still changes the stamp. And, as git does for its "racy" entries, a stamp is only
trusted for a file last changed before the cache itself was written: a file changed in the same
clock tick as the recording could change again within that tick without its stamp moving, so
it is hashed again (see ``is_racy``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat as statmod
from pathlib import Path
from typing import Any

from skill_eval.fs.atomic import write_atomic

CACHE_VERSION = 2  # 2: stamps are (size, mtime_ns, ctime_ns, inode)


def stat_stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    """The fingerprint of a file's stat, as git's index keeps it."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def changed_ns(st: os.stat_result) -> int:
    """When the file (its bytes or its inode) last changed, in the file system's own clock."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


def is_racy(changed: int, recorded_ns: int | None) -> bool:
    """Whether a stamp recorded at ``recorded_ns`` (the mtime of the file that holds it, so the
    same clock as the stamp) must not be trusted for a file that changed at ``changed``: not when
    it changed at or after that moment, since a second edit within the same clock tick leaves
    mtime and ctime as they were."""
    return recorded_ns is None or changed >= recorded_ns


def recorded_at(path: Path) -> int | None:
    """The file system's time of the last write of a file of recorded stamps (None: none yet)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns if statmod.S_ISREG(st.st_mode) else None


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def key_of(obj: Any) -> str:
    """SHA-256 of the canonical JSON of ``obj``: the one way keys are made."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class HashCache:
    """File hashes keyed by path, valid while the stat stamp is unchanged and not racy."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self._entries: dict[str, list[Any]] = {}
        self._dirty = False
        self.hashed = 0  # files actually read: lets tests and benchmarks see the cache work
        # Stamps loaded from the file are as old as its last write; the time is taken before
        # reading, so a concurrent save can only make us distrust more, never less.
        self._loaded_at = recorded_at(path) if path is not None else None
        self._fresh: set[str] = set()  # hashed by this process: one invocation sees one version
        if path is not None:
            try:
                data = json.loads(path.read_text("utf-8"))
                if data.get("version") == CACHE_VERSION:
                    self._entries = data["entries"]
            except (OSError, ValueError, KeyError, AttributeError):
                # A missing or corrupt cache only costs re-hashing.
                self._entries = {}

    def file(self, path: Path) -> str:
        st = os.stat(path)
        key = str(path)
        entry = self._entries.get(key)
        stamp = list(stat_stamp(st))
        if entry is not None and entry[:4] == stamp and (
                key in self._fresh or not is_racy(changed_ns(st), self._loaded_at)):
            return entry[4]
        digest = sha256_file(path)
        self.hashed += 1
        self._entries[key] = [*stamp, digest]
        self._fresh.add(key)
        # Saved even when the digest is as it was: the new write time is what un-races it.
        self._dirty = True
        return digest

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        # dumps, then one write: json.dump to a file takes the slow pure-Python encoder.
        write_atomic(self.path, json.dumps({"version": CACHE_VERSION, "entries": self._entries},
                                           separators=(",", ":")), prefix=".hashcache.")
        self._dirty = False


def tree_files(root: Path, exclude_top: tuple[str, ...] = ("evals",),
               exclude_files: tuple[str, ...] = ()) -> list[Path]:
    """Files under ``root`` in a stable order, skipping the ``exclude_top`` folders (relative
    paths: ``evals`` at the top level, ``skills/x/evals`` deeper), version-control/OS clutter,
    and links that lead out of ``root``: exactly what an adapter receives of a skill (or a
    plugin), and what its key covers. ``exclude_files``: relative paths of files left out too."""
    out: list[Path] = []
    real_root = root.resolve()
    skip = {".git", ".hg", ".svn", "__pycache__", ".DS_Store"}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in skip
                             and os.path.normpath(os.path.join(rel_dir, d)) not in exclude_top)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name in skip or (path.is_symlink() and not path.resolve().is_relative_to(real_root)):
                continue
            if exclude_files and os.path.normpath(os.path.join(rel_dir, name)) in exclude_files:
                continue
            out.append(path)
    return out


def tree_digest(root: Path, cache: HashCache, exclude_top: tuple[str, ...] = ("evals",),
                exclude_files: tuple[str, ...] = ()) -> tuple[str, list[list[str]]]:
    """Digest of a folder by relative path and content hash; also returns the (path, hash) list."""
    items = []
    for p in tree_files(root, exclude_top, exclude_files):
        items.append([p.relative_to(root).as_posix(), cache.file(p)])
    return key_of(items), items
