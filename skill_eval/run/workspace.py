"""A fresh temporary folder per run: the only place an adapter is given to work in.

Layout: ``inputs/<rel>`` (fixtures, identical bytes in both modes), ``skills/<name>/``
(with_skill only, without the skill's ``evals/``; an ablation arm gets the copy with its part
removed) or, where the skill belongs to a plugin, ``plugins/<folder>/`` (the whole plugin but its
eval folder, model/plugins/), ``outputs/`` (the conventional place for results), ``home/`` and
``tmp/`` (so HOME and TMPDIR point inside the sandbox, not at the user's).

Every regular file the adapter leaves anywhere else (``outputs/x.json``, ``report.md``) is kept
with the run: checks such as ``file_exists`` name files by their workspace-relative path.

The folder is named ``skill-eval-ws-<owner pid>-<random>``: when skill-eval is killed before it
can remove it (kill -9), the next run sees that the owner's lock is free (run/containment/owner.py) and
removes it (``remove_stale``). Workspaces in use are listed so a stop on a signal removes them.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skill_eval.errors import AdapterError
from skill_eval.fs.hashing import tree_files
from skill_eval.fs.removal import remove_tree
from skill_eval.fs.storage import fault_of, writing
from skill_eval.model.ablation.parts import AblatedSkill
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.types import RunSpec
from skill_eval.run.containment import cgroup, owner, reaper

_CHUNK = 1 << 20
# Not the adapter's work: the fixtures and skill it was given, its private home and temp folders.
NOT_KEPT = ("inputs", "skills", "plugins", "home", "tmp")
PREFIX = "skill-eval-ws-"
JOB_PREFIX = "skill-eval-job-"  # a run shipped to a worker (run/remote.py): <JOB_PREFIX><pid>-<random>
MAX_KEPT_FILES = 2000  # the suite's max_kept_files when not given
_OWNED = re.compile(f"(?:{re.escape(PREFIX)}|{re.escape(JOB_PREFIX)})" + r"(\d+)-")
_OWNER_LOCK = re.compile(re.escape(owner.OWNER_PREFIX) + r"(\d+)\.lock")
_LIVE: set[Path] = set()
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Workspace:
    path: Path
    files: tuple[dict[str, str], ...]  # [{path: "inputs/<rel>", sha256}] as sent in the request
    skill_rel: str | None  # "skills/<name>" in with_skill mode

    @property
    def outputs(self) -> Path:
        return self.path / "outputs"

    def env(self, adapter: ResolvedAdapter) -> dict[str, str]:
        """The adapter's whole environment: a minimal base, the allow-list, the adapter's fixed values."""
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.path / "home"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.path / "tmp"),
        }
        for name in adapter.env_names:
            value = os.environ.get(name)
            if value is not None:
                env[name] = value
        env.update(adapter.extra_env)
        return env

    def kept_files(self, limit: int, max_files: int = MAX_KEPT_FILES
                   ) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        """The files to keep with the run, as (workspace-relative path, bytes) in path order, and
        {path: why} for those not kept (over ``limit`` bytes in all, past ``max_files`` files,
        unreadable, or in a folder that cannot be read). Symlinks are never followed nor kept:
        they could point anywhere on the machine."""
        kept: list[tuple[str, bytes]] = []
        dropped: dict[str, str] = {}
        total = 0
        if self.path.is_symlink() or not self.path.is_dir():
            return kept, {".": "the workspace folder was replaced (by a link or a file); nothing kept"}

        def unreadable(exc: OSError) -> None:
            rel = Path(exc.filename).relative_to(self.path).as_posix() + "/"
            dropped[rel] = f"unreadable folder: {exc.strerror or exc}"

        for folder, dirs, names in os.walk(self.path, onerror=unreadable):
            at_root = Path(folder) == self.path
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d))
                             and not (at_root and d in NOT_KEPT))
            for name in sorted(names):
                path = Path(folder) / name
                if path.is_symlink() or not path.is_file():
                    continue
                rel = path.relative_to(self.path).as_posix()
                if len(kept) >= max_files:
                    dropped[rel] = f"over max_kept_files ({max_files}) with the files before it"
                    continue
                try:
                    if total + path.stat().st_size > limit:
                        dropped[rel] = f"over max_output_bytes ({limit}) with the files before it"
                        continue
                    data = path.read_bytes()
                except OSError as exc:
                    dropped[rel] = f"unreadable: {exc.strerror or exc}"
                    continue
                total += len(data)
                kept.append((rel, data))
        return kept, dropped

    def remove(self) -> None:
        remove_tree(self.path)
        with _LIVE_LOCK:
            _LIVE.discard(self.path)


def remove_live() -> None:
    """Remove every workspace still in use (a stop on a signal, after the adapters were killed)."""
    with _LIVE_LOCK:
        paths = list(_LIVE)
        _LIVE.clear()
    for path in paths:
        remove_tree(path)


def remove_stale(base: Path | None = None) -> int:
    """Remove the workspaces of skill-eval processes that died without cleaning up (kill -9),
    and kill the adapters they left running; returns how many workspaces were removed."""
    cgroup.remove_stale(owner.alive)
    reaper.orphans_of_dead_owners(owner.alive)
    folder = Path(base or tempfile.gettempdir())
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    dead: set[int] = set()
    removed = 0
    live: set[int] = set()
    for name in names:
        m = _OWNED.match(name) or _OWNER_LOCK.fullmatch(name)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid in live:
            continue
        if pid not in dead and owner.alive(pid, folder):
            live.add(pid)
            continue
        dead.add(pid)
        if name.startswith(PREFIX) or name.startswith(JOB_PREFIX):
            remove_tree(folder / name)  # a Ray job folder on this machine is swept alike
            removed += 1
    for pid in dead:
        owner.forget(pid, folder)  # also the locks of runs that ended normally
    return removed


def _safe_rel(rel: str) -> PurePosixPath:
    # Eval-set readers refuse escaping paths already; a second check costs nothing here.
    p = PurePosixPath(rel)
    if p.is_absolute() or not p.parts or ".." in p.parts:
        raise AdapterError(f"fixture path {rel!r} escapes the workspace; fixtures must be relative "
                           "paths inside the skill folder")
    return p


def _copy_hashing(src: Path, dst: Path) -> str:
    digest = hashlib.sha256()
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(_CHUNK):
            digest.update(chunk)
            fout.write(chunk)
    return digest.hexdigest()


def copy_skill(src: Path, dst: Path, files: list[Path] | None = None) -> None:
    """Exactly the files the run key's skill digest covers (hashing.tree_files; ``files``: a
    plugin's, Plugin.files): what the adapter receives and what the key says it received never
    differ."""
    for f in tree_files(src) if files is None else files:
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, target)  # keeps the mode: bundled scripts stay executable


def ablate_copy(dst: Path, ablated: AblatedSkill) -> None:
    """Materialize an ablation in a fresh copy of the skill: exactly the tree its key's digest
    covers (the removed files gone, SKILL.md and patched files as resolved when the suite was
    loaded)."""
    for rel in sorted(ablated.removed_files):
        (dst / rel).unlink(missing_ok=True)
    for rel in sorted({str(PurePosixPath(r).parent) for r in ablated.removed_files}, key=len, reverse=True):
        folder = dst / rel
        while folder != dst and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # a removed folder leaves no empty shell that names it
            folder = folder.parent
    for rel, content in ablated.rewritten:
        (dst / rel).write_bytes(content)


def prepare_workspace(spec: RunSpec, base: Path | None = None) -> Workspace:
    """Create the run's workspace; raise AdapterError (a 'workspace' error) when it cannot be built."""
    pid = owner.claim()  # before the folder exists, so no other run can take it for stale
    with writing(base or tempfile.gettempdir()):
        path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{pid}-", dir=base)).resolve()
    with _LIVE_LOCK:
        _LIVE.add(path)
    try:
        for sub in ("inputs", "outputs", "home", "tmp"):
            (path / sub).mkdir()
        files = []
        for fixture in sorted(spec.case.fixtures, key=lambda f: f.rel):
            rel = _safe_rel(fixture.rel)
            dst = path / "inputs" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                sha = _copy_hashing(fixture.source, dst)
            except OSError as exc:
                fault = None if exc.filename == str(fixture.source) else fault_of(exc, dst)
                if fault is not None:
                    raise fault from None  # our side is full or read-only, not the fixture
                raise AdapterError(f"fixture {fixture.source} could not be copied: "
                                   f"{exc.strerror or exc}") from None
            files.append({"path": f"inputs/{rel.as_posix()}", "sha256": sha})
        skill_rel = spec.skill_rel
        if skill_rel is not None:
            try:
                if spec.plugin is not None and spec.plugin_rel is not None:
                    copy_skill(spec.plugin.root, path / spec.plugin_rel, spec.plugin.files())
                else:
                    copy_skill(spec.skill_path, path / skill_rel)
                if spec.ablation is not None:
                    ablate_copy(path / skill_rel, spec.ablation)
            except (OSError, shutil.Error) as exc:
                theirs = isinstance(exc, OSError) and str(exc.filename or "").startswith(str(spec.skill_path))
                fault = None if theirs else fault_of(exc, path / skill_rel)
                if fault is not None:
                    raise fault from None  # our side is full or read-only, not the skill
                raise AdapterError(f"skill folder {spec.skill_path} could not be copied: {exc}") from None
        return Workspace(path, tuple(files), skill_rel)
    except OSError as exc:
        shutil.rmtree(path, ignore_errors=True)
        with _LIVE_LOCK:
            _LIVE.discard(path)
        fault = fault_of(exc, path)
        if fault is None:
            raise
        raise fault from None
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        with _LIVE_LOCK:
            _LIVE.discard(path)
        raise
