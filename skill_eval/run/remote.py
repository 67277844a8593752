"""One run split across two machines: the adapter part on a worker, the store part on the driver.

``run_job`` is what a worker does: from a RemoteJob and the bytes it names it builds a clean job
folder (``ws/`` laid out exactly as a local workspace, ``adapter/`` with the shipped adapter
files outside it), runs the adapter with the same process hygiene and limits as a local run
(run/process.py), and hands back what happened as data. stderr is redacted before it leaves the
worker; the response goes back as printed, because grading sees the unredacted response (as it
does locally) and the driver redacts before anything is written.

``finish`` is what the driver does with that: check that it answers this run and that every kept
file arrived whole, then store it through the same code as a local run (runner.conclude). The
store has one writer, the driver.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skill_eval.errors import AdapterError
from skill_eval.fs.removal import remove_tree
from skill_eval.model.config import Suite
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.types import RunSpec
from skill_eval.run import sandbox
from skill_eval.run.containment import owner
from skill_eval.run.mocks.served import mocks_refusal
from skill_eval.run.process import ProcessResult, run_process
from skill_eval.run.protocol import build_request, replay_key
from skill_eval.run.resolve import _PACKAGE_PARENT
from skill_eval.run.runner import conclude, env_refusal, read_session, record_error
from skill_eval.run.scaffold import ScaffoldFailed, place_history, run_scaffold
from skill_eval.run.shipment import RemoteJob
from skill_eval.run.workspace import JOB_PREFIX, Workspace, ablate_copy, remove_stale
from skill_eval.store.redact import redact
from skill_eval.store.store import Store


@dataclass(frozen=True)
class KeptFile:
    rel: str  # workspace-relative, as a local run keeps it
    data: bytes
    sha256: str


@dataclass(frozen=True)
class RemoteOutcome:
    key: str
    proc: ProcessResult | None  # None when the adapter never started
    kept: tuple[KeptFile, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()  # (path, why not kept)
    error_kind: str | None = None  # workspace | not_found, as a local run would record
    error_message: str = ""
    duration_s: float = 0.0
    host: str = ""
    session: str | None = None  # the session the adapter kept (target: trace), if it kept one


def _materialize(root: Path, job: RemoteJob, blobs: Mapping[str, bytes]) -> Workspace:
    ws = root / "ws"
    for sub in ("inputs", "outputs", "home", "tmp"):
        (ws / sub).mkdir(parents=True)
    for f in job.files:
        data = blobs.get(f.sha256)
        if data is None or hashlib.sha256(data).hexdigest() != f.sha256:
            raise AdapterError(f"{f.dest}: the bytes that reached the worker do not match their hash")
        target = root / f.dest
        if not target.resolve().is_relative_to(root.resolve()):
            raise AdapterError(f"{f.dest}: escapes the job folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if f.executable:
            target.chmod(0o755)
    if job.spec.ablation is not None and job.skill_rel is not None:
        ablate_copy(ws / job.skill_rel, job.spec.ablation)
    return Workspace(ws, tuple(job.inputs), job.skill_rel)


def _argv(root: Path, job: RemoteJob) -> list[str]:
    out = []
    for kind, value in job.argv:
        out.append(sys.executable if kind == "python" else str(root / value) if kind == "file" else value)
    return out


def _sandboxed(argv: list[str], ws: Path, job: RemoteJob) -> list[str]:
    """The worker's argv inside the sandbox the suite asked for (the paths it needs are this
    machine's: the driver's would not exist here)."""
    adapter = job.spec.adapter
    if adapter.sandbox is None:
        return argv
    return sandbox.wrap(argv, ws, adapter.network, sandbox.needed_paths(argv), hidden=())


def _env(ws: Workspace, job: RemoteJob) -> dict[str, str]:
    # The local base (PATH of this machine, HOME/TMPDIR inside the workspace), then the allow-list
    # (the driver's value, else this machine's), then the adapter's fixed values.
    env = ws.env(ResolvedAdapter(job.spec.adapter.name, ()))
    for name in job.spec.adapter.env_names:
        value = job.env.get(name, os.environ.get(name))
        if value is not None:
            env[name] = value
    env.update(job.extra_env)
    if job.skill_python_path:
        env["PYTHONPATH"] = _PACKAGE_PARENT
    return env


def _kept(ws: Workspace, limit: int, max_files: int
          ) -> tuple[tuple[KeptFile, ...], tuple[tuple[str, str], ...]]:
    """The files the adapter left, chosen exactly as a local run chooses them (Workspace.kept_files)."""
    kept, dropped = ws.kept_files(limit, max_files)
    return (tuple(KeptFile(rel, data, hashlib.sha256(data).hexdigest()) for rel, data in kept),
            tuple(sorted(dropped.items())))


_swept: set[int] = set()


def _sweep_once() -> None:
    """The first job a worker process runs removes what lost workers on this node left: their
    adapters (killed by token) and their job folders."""
    if os.getpid() in _swept:
        return
    _swept.add(os.getpid())
    try:
        remove_stale()
    except OSError:
        pass


def _timeout(job: RemoteJob) -> float:
    own = job.spec.case.settings.timeout_seconds if job.spec.case.settings is not None else None
    return float(own) if own is not None else job.timeout_seconds


def run_job(job: RemoteJob, blobs: Mapping[str, bytes]) -> RemoteOutcome:
    """The worker's part of a run; never raises for the adapter's faults (they are data)."""
    start = time.perf_counter()
    key = job.spec.key
    host = os.uname().nodename
    _sweep_once()
    # Named by its owner, like a workspace, so a sweep removes it once this worker is gone.
    root = Path(tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{owner.claim()}-")).resolve()
    try:
        try:
            ws = _materialize(root, job, blobs)
        except (AdapterError, OSError) as exc:
            return RemoteOutcome(key, None, (), (), "workspace", str(exc), time.perf_counter() - start, host)
        refused = env_refusal(job.spec) or mocks_refusal(job.spec)
        if refused is not None:
            return RemoteOutcome(key, None, (), (), "settings", refused, time.perf_counter() - start, host)
        settings = job.spec.case.settings
        try:  # as a local run does (its pre_existing listing stays with local runs for now)
            if settings is not None and settings.scaffold is not None and job.spec.adapter.scaffold:
                run_scaffold(settings.scaffold, ws.path)
            if settings is not None and settings.history is not None:
                place_history(settings.history, ws.path)
        except (ScaffoldFailed, AdapterError) as exc:
            return RemoteOutcome(key, None, (), (), "scaffold", f"{exc} (on {host})",
                                 time.perf_counter() - start, host)
        request = build_request(job.spec, ws.path, list(ws.files), ws.skill_rel)
        try:
            argv = _sandboxed(_argv(root, job), ws.path, job)
        except sandbox.SandboxUnavailable as exc:  # never unsandboxed when asked sandboxed
            return RemoteOutcome(key, None, (), (), "sandbox", f"{exc} (on {host})",
                                 time.perf_counter() - start, host)
        try:
            proc = run_process(argv, json.dumps(request).encode("utf-8"), ws.path,
                               _env(ws, job), _timeout(job), job.max_output_bytes,
                               die_with_parent=True)
        except AdapterError as exc:
            return RemoteOutcome(key, None, (), (), "not_found", f"{exc} (on {host})",
                                 time.perf_counter() - start, host)
        stderr = redact(proc.stderr.decode("utf-8", "replace")).encode("utf-8")
        proc = ProcessResult(proc.returncode, proc.stdout, stderr, proc.duration_s, proc.timed_out,
                             proc.capped)
        ok = proc.returncode == 0 and not proc.timed_out and not proc.capped
        kept, dropped = _kept(ws, job.max_output_bytes, job.max_kept_files) if ok else ((), ())
        session = read_session(ws.path) if ok else None
        return RemoteOutcome(key, proc, kept, dropped, None, "", proc.duration_s, host, session)
    finally:
        remove_tree(root)


def finish(spec: RunSpec, suite: Suite, store: Store, job: RemoteJob,
           outcome: RemoteOutcome) -> RunResult | RunError:
    """The driver's part: verify what came back and write the store (its single writer)."""
    if outcome.key != spec.key:
        return record_error(store, RunError(spec.key, "worker", f"a worker answered run {outcome.key[:12]} "
                                            f"for run {spec.key[:12]}; not stored"))
    if outcome.error_kind is not None or outcome.proc is None:
        return record_error(store, RunError(spec.key, outcome.error_kind or "worker",
                                            outcome.error_message, outcome.duration_s))
    for f in outcome.kept:
        if hashlib.sha256(f.data).hexdigest() != f.sha256:
            return record_error(store, RunError(spec.key, "worker", f"kept file {f.rel} did not "
                                                "arrive whole from the worker; not stored",
                                                outcome.duration_s))
    replay = replay_key(build_request(spec, Path("/"), job.inputs, job.skill_rel))
    return conclude(spec, suite, store, outcome.proc, replay, [(f.rel, f.data) for f in outcome.kept],
                    dict(outcome.dropped), session=outcome.session)
