"""Content hashes: canonical JSON keys, and file hashes cached by (size, mtime_ns, inode).

The cache makes a no-op cheap (a stat per file, no reads) and makes "touch" harmless: a file
whose stat changed is re-hashed once, its key stays the same, and the cache entry is updated.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from skill_eval.fs import sharedfiles
from skill_eval.fs.storage import writes

CACHE_VERSION = 1


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
    """File hashes keyed by path, valid while (size, mtime_ns, inode) are unchanged."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self._entries: dict[str, list[Any]] = {}
        self._dirty = False
        self.hashed = 0  # files actually read: lets tests and benchmarks see the cache work
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
        stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
        if entry is not None and entry[:3] == stamp:
            return entry[3]
        digest = sha256_file(path)
        self.hashed += 1
        self._entries[key] = [*stamp, digest]
        self._dirty = True
        return digest

    @writes(lambda self: self.path)
    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = sharedfiles.mkstemp(dir=self.path.parent, prefix=".hashcache.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                # dumps, then one write: json.dump to a file takes the slow pure-Python encoder.
                f.write(json.dumps({"version": CACHE_VERSION, "entries": self._entries},
                                   separators=(",", ":")))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._dirty = False


def tree_files(root: Path, exclude_top: tuple[str, ...] = ("evals",)) -> list[Path]:
    """Files under ``root`` in a stable order, skipping ``exclude_top`` folders at the top level,
    version-control/OS clutter, and links that lead out of ``root``: exactly what an adapter
    receives of a skill, and what its key covers."""
    out: list[Path] = []
    real_root = root.resolve()
    skip = {".git", ".hg", ".svn", "__pycache__", ".DS_Store"}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in skip
                             and not (rel_dir == "." and d in exclude_top))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name in skip or (path.is_symlink() and not path.resolve().is_relative_to(real_root)):
                continue
            out.append(path)
    return out


def tree_digest(root: Path, cache: HashCache,
                exclude_top: tuple[str, ...] = ("evals",)) -> tuple[str, list[list[str]]]:
    """Digest of a folder by relative path and content hash; also returns the (path, hash) list."""
    items = []
    for p in tree_files(root, exclude_top):
        items.append([p.relative_to(root).as_posix(), cache.file(p)])
    return key_of(items), items
