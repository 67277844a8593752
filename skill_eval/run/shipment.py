"""A run packed for another machine: the run spec and the content-addressed bytes it needs.

The driver reads every file a run's workspace is made of (fixtures, the skill's files in
with_skill mode, the adapter's script when it lives in the suite's folder) and names each by its
SHA-256. A worker gets the job plus those bytes and needs nothing of the driver's file system
(see run/remote.py). Paths of the driver never reach the worker: argv parts are tagged so the
worker can put in its own Python, its own copy of skill-eval and the shipped files.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from skill_eval.errors import AdapterError
from skill_eval.fs.hashing import stat_stamp, tree_files
from skill_eval.model.config import Suite, depends_files
from skill_eval.plan.types import RunSpec
from skill_eval.run.adapters.command import _INTERPRETER
from skill_eval.run.resolve import _PACKAGE_PARENT
from skill_eval.run.workspace import _safe_rel

# argv parts: ("arg", text) as is; ("python", "") the worker's interpreter; ("file", dest) a
# shipped file, by its place under the job folder.
ArgvPart = tuple[str, str]


@dataclass(frozen=True)
class ShippedFile:
    dest: str  # under the job folder: "ws/inputs/<rel>", "ws/skills/<name>/<rel>", "adapter/<rel>"
    sha256: str
    executable: bool = False


@dataclass(frozen=True)
class RemoteJob:
    """Everything a worker needs for one run besides the bytes (passed beside it, by hash)."""

    spec: RunSpec  # without grading material: a worker never sees expected outputs or checks
    argv: tuple[ArgvPart, ...]
    env: dict[str, str]  # the driver's values of the adapter's allow-listed variables
    extra_env: dict[str, str]  # the adapter's fixed values
    skill_python_path: bool  # PYTHONPATH must name the worker's copy of skill-eval (builtins)
    files: tuple[ShippedFile, ...]
    timeout_seconds: float
    max_output_bytes: int
    max_kept_files: int = 2000

    @property
    def inputs(self) -> list[dict[str, str]]:
        """The request's ``files`` list, as a local workspace would report it."""
        return [{"path": f.dest[len("ws/"):], "sha256": f.sha256} for f in self.files
                if f.dest.startswith("ws/inputs/")]

    @property
    def skill_rel(self) -> str | None:
        return self.spec.skill_rel


class Packer:
    """Builds jobs. A file's hash is remembered by its path and stat stamp, so the skill's files,
    shared by every run of it, are hashed once per invocation; no bytes are kept here (the
    executor reads them when it has to send them: a big suite's fixtures never sit in memory)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, tuple[int, int, int, int]], str] = {}

    def _hash(self, path: Path) -> tuple[str, bool]:
        st = os.stat(path)
        mark = (str(path), stat_stamp(st))
        sha = self._seen.get(mark)
        if sha is None:
            with open(path, "rb") as f:
                sha = self._seen[mark] = hashlib.file_digest(f, "sha256").hexdigest()
        return sha, bool(st.st_mode & stat.S_IXUSR)

    def pack(self, spec: RunSpec, suite: Suite) -> tuple[RemoteJob, dict[str, Path]]:
        """The job, and for each hash it names a file holding those bytes; AdapterError (a
        'workspace' error) when a file cannot be read."""
        sources: dict[str, Path] = {}
        files: list[ShippedFile] = []

        def ship(path: Path, dest: str, what: str) -> None:
            try:
                sha, exe = self._hash(path)
            except OSError as exc:
                raise AdapterError(f"{what} {path} could not be read: {exc.strerror or exc}") from None
            sources[sha] = path
            files.append(ShippedFile(dest, sha, exe))

        for fixture in sorted(spec.case.fixtures, key=lambda f: f.rel):
            ship(fixture.source, f"ws/inputs/{_safe_rel(fixture.rel).as_posix()}", "fixture")
        if spec.plugin is not None and spec.plugin_rel is not None:  # the whole plugin, skill inside
            for f in spec.plugin.files():
                ship(f, f"ws/{spec.plugin_rel}/{f.relative_to(spec.plugin.root).as_posix()}", "plugin file")
        elif spec.installs_skill:  # an ablation arm's copy is cut down on the worker (remote.py)
            for f in tree_files(spec.skill_path):
                ship(f, f"ws/skills/{spec.skill_name}/{f.relative_to(spec.skill_path).as_posix()}",
                     "skill file")
        argv: list[ArgvPart] = []
        root = suite.root.resolve()
        for i, arg in enumerate(spec.adapter.argv):
            if i == 0 and arg == sys.executable:
                argv.append(("python", ""))
            elif (os.path.isabs(arg) and not _INTERPRETER.fullmatch(Path(arg).name)
                  and Path(arg).resolve().is_relative_to(root) and os.path.isfile(arg)):
                # The adapter's own script: it travels; interpreters and tools must be on the worker.
                dest = f"adapter/{Path(arg).resolve().relative_to(root).as_posix()}"
                ship(Path(arg), dest, "adapter file")
                argv.append(("file", dest))
            else:
                argv.append(("arg", arg))
        for dep in depends_files(suite):
            # Files the adapter reads (adapter.depends) travel beside its script, where it looks.
            if dep.resolve().is_relative_to(root):
                ship(dep, f"adapter/{dep.resolve().relative_to(root).as_posix()}", "adapter input")
        extra_env = dict(spec.adapter.extra_env)
        skill_path = extra_env.get("PYTHONPATH") == _PACKAGE_PARENT
        if skill_path:
            del extra_env["PYTHONPATH"]
        env = {n: os.environ[n] for n in spec.adapter.env_names if n in os.environ}
        lean = replace(spec, case=replace(spec.case, expected_output="", fixtures=(), checks=(), rubric=()))
        job = RemoteJob(lean, tuple(argv), env, extra_env, skill_path, tuple(files),
                        suite.timeout_seconds, suite.max_output_bytes, suite.max_kept_files)
        return job, sources


def read_blob(sha: str, path: Path) -> bytes:
    """The bytes ``sha`` names, read from ``path``; AdapterError when the file is gone or changed
    since it was hashed (the run would not be the one its key describes)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AdapterError(f"{path} could not be read: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise AdapterError(f"{path} changed while the suite was running; run again")
    return data


def read_blobs(sources: dict[str, Path]) -> dict[str, bytes]:
    return {sha: read_blob(sha, path) for sha, path in sources.items()}
