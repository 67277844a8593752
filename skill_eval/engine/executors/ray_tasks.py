"""The ``ray`` executor: each run is a Ray task; the store stays with the driver.

The task receives the run's job and the content-addressed bytes it needs (each file put in
Ray's object store once per invocation, whatever the number of runs sharing it), runs the
adapter on whichever node Ray picks (run/remote.py) and returns what happened; this process
verifies it and writes the store. doit's threads bound the runs in flight (``-j N``): each waits
for its task. A task whose worker or node is lost is an error of that run (retried by the next
`run`, as every error is); Ray does not retry it behind our back (max_retries=0).

Without an address (suite ``executor.ray.address`` or RAY_ADDRESS) a local Ray is started for
this invocation and stopped at its end, sized so that ``-j N`` runs fit at once.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import ray
from ray import exceptions as rex

from skill_eval.errors import AdapterError, SkillEvalError
from skill_eval.model.config import ExecutorConfig, Suite
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.run.remote import RemoteOutcome, finish, run_job
from skill_eval.run.runner import record_error
from skill_eval.run.shipment import Packer, RemoteJob, read_blob
from skill_eval.run.workspace import remove_stale
from skill_eval.store.store import Store

_CONNECT_TIMEOUT_S = 5.0
_LOCAL_OBJECT_STORE = 256 * 1024 * 1024  # runs ship text-sized inputs; Ray spills past this
# Bytes already in Ray's object store are sent again by reference, not by value; the most
# recently used are remembered up to this size (the skill's files stay; old fixtures go).
_REF_CACHE_BYTES = 64 * 1024 * 1024
_LOST = (rex.WorkerCrashedError, rex.NodeDiedError, rex.ObjectLostError, rex.OwnerDiedError,
         rex.RaySystemError, rex.LocalRayletDiedError)


def _work(job: RemoteJob, shas: tuple[str, ...], *blobs: bytes) -> RemoteOutcome:
    # Ray resolves top-level ObjectRef arguments, so the blobs arrive as bytes.
    return run_job(job, dict(zip(shas, blobs, strict=True)))


def _sweep_lost() -> None:
    """A lost worker cannot clean up after itself: on this machine, kill what its adapter left
    running (their token names a dead owner) and remove its job folder now. On another node the
    next job a worker there takes does the same (run/remote.py)."""
    try:
        remove_stale()
    except OSError:
        pass


def _check_in() -> int:
    """A worker is up and could import skill-eval's run layer (this module did, to get here)."""
    return os.getpid()


def _reachable(address: str) -> None:
    """One quick TCP connect to ``host:port`` or ``ray://host:port`` ('auto' is Ray's to find)."""
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or "/" in hostport:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise SkillEvalError(f"executor ray: cannot reach the Ray cluster at {address} "
                             f"({exc.strerror or exc}); check executor.ray.address in the suite or "
                             "RAY_ADDRESS, and that the cluster is up") from None


class RayExecutor:
    name = "ray"

    def __init__(self, config: ExecutorConfig, jobs: int = 1):
        self.config = config
        self.jobs = max(jobs, 1)
        self.address = config.address or os.environ.get("RAY_ADDRESS") or None
        self._packer = Packer()
        self._lock = threading.Lock()
        self._refs: OrderedDict[str, tuple[Any, int]] = OrderedDict()  # sha256 -> (ObjectRef, size)
        self._ref_bytes = 0
        self._inflight: set[Any] = set()
        self._cancelled = threading.Event()
        self._task: Any = None
        self._opened = False

    # ---- lifecycle ------------------------------------------------------------------------
    def open(self) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        cfg = self.config
        common: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR,
                                  "configure_logging": True}
        if cfg.runtime_env:
            common["runtime_env"] = dict(cfg.runtime_env)
        where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
        if self.address:
            _reachable(self.address)  # Ray itself retries an unreachable address for minutes
        try:
            if self.address:
                ray.init(address=self.address, **common)
            else:
                # Logical CPUs, so that -j N runs fit at once (as with threads: agents mostly wait).
                cpus = max(os.cpu_count() or 1, math.ceil(self.jobs * cfg.num_cpus_per_run))
                resources = {k: v * self.jobs for k, v in cfg.resources.items()}
                ray.init(num_cpus=cpus, resources=resources or None, include_dashboard=False,
                         object_store_memory=_LOCAL_OBJECT_STORE, **common)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; each is one line for the user
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise SkillEvalError(f"executor ray: could not start or join {where}: {first} "
                                 "(check executor.ray.address in the suite or RAY_ADDRESS)") from None
        self._opened = True
        options: dict[str, Any] = {"num_cpus": cfg.num_cpus_per_run,
                                   "resources": dict(cfg.resources) or None, "max_retries": 0}
        self._task = ray.remote(_work).options(**options)
        self._probe(options)

    def _probe(self, options: dict[str, Any]) -> None:
        """Learn now, once, whether a worker can run skill-eval at all (rather than as one error
        per run). If the cluster is busy past the wait, runs simply queue behind the probe."""
        ref = ray.remote(_check_in).options(**options).remote()
        try:
            ray.get(ref, timeout=60)
        except rex.GetTimeoutError:
            ray.cancel(ref, force=False)
        except rex.RayError as exc:
            cause = str(getattr(exc, "cause", None) or exc).strip().splitlines()
            self.close()
            raise SkillEvalError("executor ray: a Ray worker cannot run skill-eval: "
                                 f"{cause[-1] if cause else type(exc).__name__}; install skill-eval[ray] "
                                 "on every node (or give executor.ray.runtime_env pip)") from None

    def close(self) -> None:
        if self._opened:
            self._opened = False
            self._refs.clear()
            self._ref_bytes = 0
            ray.shutdown()  # stops the local Ray we started; only disconnects from a cluster

    def cancel(self) -> None:
        self._cancelled.set()
        with self._lock:
            refs = list(self._inflight)
        for ref in refs:
            try:
                # Not force: Ray interrupts the task, whose process code kills the adapter's group.
                ray.cancel(ref, force=False)
            except Exception:  # noqa: BLE001, S110 - already finished or its worker is gone
                pass

    # ---- one run --------------------------------------------------------------------------
    def _ref(self, sha: str, path: Path) -> Any:
        with self._lock:
            hit = self._refs.get(sha)
            if hit is not None:
                self._refs.move_to_end(sha)
                return hit[0]
        data = read_blob(sha, path)
        ref = ray.put(data)
        with self._lock:
            if sha not in self._refs:
                self._refs[sha] = (ref, len(data))
                self._ref_bytes += len(data)
            # A ref dropped here stays valid for the tasks that hold it (Ray counts references).
            while self._ref_bytes > _REF_CACHE_BYTES and len(self._refs) > 1:
                _, (_, size) = self._refs.popitem(last=False)
                self._ref_bytes -= size
        return ref

    def run(self, spec: RunSpec, suite: Suite, store: Store) -> RunResult | RunError:
        if self._cancelled.is_set() or self._task is None:
            return RunError(spec.key, "interrupted", "interrupted before it started")
        try:
            job, sources = self._packer.pack(spec, suite)
            blobs = [self._ref(sha, path) for sha, path in sources.items()]
        except AdapterError as exc:
            return record_error(store, RunError(spec.key, "workspace", str(exc)))
        ref = self._task.remote(job, tuple(sources), *blobs)
        with self._lock:
            self._inflight.add(ref)
        try:
            outcome = ray.get(ref)
        except rex.TaskCancelledError:
            return RunError(spec.key, "interrupted", "interrupted")
        except _LOST as exc:
            _sweep_lost()
            return record_error(store, RunError(spec.key, "worker_lost", "the Ray worker running it was "
                                                f"lost ({type(exc).__name__}); the next run retries it"))
        except rex.RayTaskError as exc:
            # run_job raised: the worker cannot run skill-eval (not installed there, wrong version).
            cause = str(exc.cause if getattr(exc, "cause", None) else exc).strip().splitlines()
            return record_error(store, RunError(spec.key, "worker", "the Ray task failed: "
                                                f"{cause[-1] if cause else type(exc).__name__} (is "
                                                "skill-eval[ray] installed on every node?)"))
        except rex.RayError as exc:
            _sweep_lost()
            return record_error(store, RunError(spec.key, "worker_lost", f"Ray could not finish it "
                                                f"({type(exc).__name__}); the next run retries it"))
        finally:
            with self._lock:
                self._inflight.discard(ref)
        return finish(spec, suite, store, job, outcome)
