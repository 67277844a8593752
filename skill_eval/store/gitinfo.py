"""Where a suite sits in git, asked of ``git`` itself (called, never required: without git, or
outside a work tree, there is simply no commit to record).

The history records the commit and whether the skill's folder differed from it; ``compare
--against REV`` rebuilds a skill's content hash at a revision from git's objects, by the same
rule as the run keys' tree digest (fs.hashing.tree_files), and looks that hash up."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from skill_eval.errors import SkillEvalError
from skill_eval.fs.hashing import key_of

_TIMEOUT = 20
# As fs.hashing.tree_files: version-control and OS clutter never reaches an adapter.
_SKIP = {".git", ".hg", ".svn", "__pycache__", ".DS_Store"}
_EXCLUDE_TOP = ("evals",)


def _git(folder: Path, *args: str, data: bytes | None = None) -> bytes | None:
    """git's stdout, or None when git is missing, fails, or takes too long."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], input=data, capture_output=True,
                              timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _toplevel(folder: Path) -> Path | None:
    out = _git(folder, "rev-parse", "--show-toplevel")
    return Path(out.decode("utf-8", "replace").strip()).resolve() if out else None


def head(folder: Path, paths: list[Path]) -> tuple[str, bool] | None:
    """(HEAD's commit, whether any of ``paths`` differs from it) for the work tree holding
    ``folder``; None outside git (or without git, or before the first commit)."""
    return heads(folder, {"": paths}).get("")


def heads(folder: Path, paths: Mapping[str, Sequence[Path]]) -> dict[str, tuple[str, bool]]:
    """``head`` for several groups of paths at once (a suite's skills), asking git three times
    in all rather than three times a group; {} outside git."""
    top = _toplevel(folder)
    commit = _git(folder, "rev-parse", "--verify", "HEAD") if top is not None else None
    if top is None or not commit:
        return {}
    rels: dict[str, list[str]] = {}
    for key, group in paths.items():
        rels[key] = []
        for p in group:
            try:
                rels[key].append(p.resolve().relative_to(top).as_posix())
            except ValueError:
                continue  # outside the work tree: git has nothing to say of it
    wanted = sorted({r for group in rels.values() for r in group})
    status = _git(top, "status", "--porcelain", "-z", "--untracked-files=all", "--",
                  *(w or "." for w in wanted)) if wanted else b""
    changed = _status_paths(status or b"")
    sha = commit.decode("ascii", "replace").strip()
    return {key: (sha, any(c == r or not r or c.startswith(r + "/") for r in group for c in changed))
            for key, group in rels.items()}


def _status_paths(out: bytes) -> list[str]:
    """The paths of ``git status --porcelain -z`` (relative to the work tree's top; a rename or
    copy names both its paths)."""
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    paths: list[str] = []
    i = 0
    while i < len(tokens):
        entry = tokens[i]
        i += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC" or entry[1] in "RC":  # the original path follows as its own token
            if i < len(tokens):
                paths.append(tokens[i])
            i += 1
    return [p.rstrip("/") for p in paths]


def _order(rel: str) -> tuple[tuple[int, str], ...]:
    """os.walk's order with sorted names: a folder's files before its subfolders."""
    parts = rel.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


def skill_hash_at(folder: Path, rev: str, skill_path: Path) -> tuple[str, str]:
    """(the commit ``rev`` names, the skill folder's content hash at it). SkillEvalError when
    there is no git work tree, no such revision, or no such folder in it."""
    top = _toplevel(folder)
    if top is None:
        raise SkillEvalError(f"--against {rev}: {folder} is not in a git work tree (or git is not "
                             "installed); compare against 'previous' or 'baseline' instead")
    commit = _git(folder, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if not commit:
        raise SkillEvalError(f"--against {rev}: git knows no such revision in {top}")
    sha = commit.decode("ascii").strip()
    try:
        rel = skill_path.resolve().relative_to(top).as_posix()
    except ValueError:
        raise SkillEvalError(f"--against {rev}: {skill_path} is outside the git work tree {top}") from None
    listing = _git(top, "ls-tree", "-r", "-z", "--full-tree", sha, "--", rel + "/") or b""
    blobs: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, obj = meta.decode("ascii").split()
        name = path.decode("utf-8", "surrogateescape").removeprefix(rel + "/")
        parts = name.split("/")
        # Links and submodules are left out: the tree digest follows links, git does not.
        if kind != "blob" or mode == "120000" or parts[0] in _EXCLUDE_TOP and len(parts) > 1 \
                or any(p in _SKIP for p in parts):
            continue
        blobs.append((name, obj))
    if not blobs:
        raise SkillEvalError(f"--against {rev}: the skill folder {rel} does not exist at {sha[:12]}")
    contents = _git(top, "cat-file", "--batch", data="".join(f"{o}\n" for _, o in blobs).encode()) or b""
    items = []
    pos = 0
    for name, _obj in blobs:
        header_end = contents.index(b"\n", pos)
        size = int(contents[pos:header_end].split()[2])
        body = contents[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
        items.append([name, hashlib.sha256(body).hexdigest()])
    items.sort(key=lambda item: _order(item[0]))
    return sha, key_of(items)
