"""Run one adapter process: own process group, stdout/stderr to temp files, timeout and size cap.

Output goes to unnamed temp files, never pipes, so a chatty adapter cannot fill our memory or
deadlock on a full pipe. A waiter thread blocks in waitpid so an instant adapter is noticed at
once; the caller's thread only wakes every ``_POLL_S`` to check the clock and the file sizes.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from skill_eval.errors import AdapterError
from skill_eval.fs.storage import writing
from skill_eval.run.containment import cgroup, owner, reaper

_POLL_S = 0.02
_TERM_GRACE_S = 0.5
_PIPE_BUFFER = 65536  # Linux default; a request this small never blocks the write

# Process groups of adapters running now, so Ctrl-C can kill them all (kill_all) even when they
# run in worker threads, which never see the KeyboardInterrupt.
_LIVE: set[int] = set()
_GROUPS: dict[int, cgroup.Group] = {}  # adapter pid -> its cgroup, where we could make one
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def kill_all() -> None:
    """Kill every live adapter process group and every process any of our adapters started
    (setsid or not), and any adapter started from now on."""
    _STOPPING.set()
    with _LIVE_LOCK:
        pids = list(_LIVE)
        groups = list(_GROUPS.values())
    for pid in pids:
        _killpg(pid, signal.SIGKILL)
    for group in groups:
        group.kill()
    reaper.sweep(f"{os.getpid()}.", keep=frozenset(pids))


@dataclass(frozen=True)
class ProcessResult:
    returncode: int | None  # None when the process had to be killed and never reported one
    stdout: bytes
    stderr: bytes
    duration_s: float
    timed_out: bool = False
    capped: bool = False  # stdout or stderr went past max_output_bytes; the process was killed


@functools.cache
def _pdeathsig_launcher() -> str | None:
    """util-linux's setpriv, where it can set a parent-death signal (2.33+), else None."""
    path = shutil.which("setpriv")
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "--pdeathsig", "KILL", "--", "true"], capture_output=True,
                            timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return None
    return path if ok else None


def _tied_to_parent(command: list[str]) -> list[str]:
    """``command`` started so that the kernel kills it the moment the process that started it
    dies (kill -9 of a Ray worker included), where setpriv can ask for that."""
    launcher = _pdeathsig_launcher()
    if launcher is None:
        return command  # the token sweep of the next job on this node still applies
    return [launcher, "--pdeathsig", "KILL", "--", *command]


def _start(argv: list[str], cwd: Path, env: dict[str, str], out: int, err: int,
           group: cgroup.Group | None = None, die_with_parent: bool = False) -> subprocess.Popen[bytes]:
    if not argv:
        raise AdapterError("adapter command is empty")
    try:
        command = group.launch(argv, cwd, env) if group is not None else argv  # launch checks argv
        if die_with_parent:
            if group is None:
                cgroup.check_exec(argv, cwd, env)  # a launcher could only say "exit 127"
            command = _tied_to_parent(command)
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=err, cwd=cwd, env=env,
                                shell=False, start_new_session=True, close_fds=True)
    except FileNotFoundError:
        if not Path(cwd).is_dir():
            raise AdapterError(f"workspace {cwd} vanished before the adapter started") from None
        raise AdapterError(f"adapter executable not found: {argv[0]!r}; check the suite's adapter "
                           "command (a relative script path resolves from the suite's folder, "
                           "a bare name is looked up on PATH)") from None
    except PermissionError:
        raise AdapterError(f"adapter {argv[0]!r} is not executable; run 'chmod +x {argv[0]}' or "
                           "start it through its interpreter (e.g. [python3, script.py])") from None
    except OSError as exc:
        if exc.errno == errno.ENOEXEC:
            raise AdapterError(f"adapter {argv[0]!r} cannot be executed (no '#!' line or wrong "
                               "format); add a shebang or run it through its interpreter") from None
        raise AdapterError(f"adapter {argv[0]!r} could not start: {exc.strerror or exc}") from None


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> threading.Thread | None:
    def write() -> None:
        try:
            assert proc.stdin is not None
            proc.stdin.write(data)
            proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the adapter exited or closed stdin without reading: its problem to report

    if len(data) <= _PIPE_BUFFER:
        write()
        return None
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _killpg(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(f: IO[bytes], limit: int) -> bytes:
    f.seek(0)
    return f.read(limit)


def run_process(argv: list[str] | tuple[str, ...], stdin: bytes, cwd: Path, env: dict[str, str],
                timeout: float, max_output_bytes: int, die_with_parent: bool = False) -> ProcessResult:
    """Run ``argv`` to completion (or kill it); raise AdapterError only when it cannot start.
    Every process it started is gone when this returns (see reaper). ``die_with_parent``: the
    adapter is killed by the kernel if this process dies first (a worker that cannot clean up)."""
    owner.claim()
    reaper.become_subreaper()
    token = reaper.new_token()
    env = {**env, reaper.TOKEN_VAR: token}
    with writing(tempfile.gettempdir()):
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    with out, err:
        start = time.perf_counter()
        group = cgroup.Group.create(token)
        try:
            proc = _start(list(argv), cwd, env, out.fileno(), err.fileno(), group, die_with_parent)
        except BaseException:
            if group is not None:
                group.remove()
            raise
        with _LIVE_LOCK:
            _LIVE.add(proc.pid)
            if group is not None:
                _GROUPS[proc.pid] = group
        if _STOPPING.is_set():
            _killpg(proc.pid, signal.SIGKILL)
        done = threading.Event()
        waiter = threading.Thread(target=lambda: (proc.wait(), done.set()), daemon=True)
        waiter.start()
        timed_out = capped = False
        feeder = None
        try:
            feeder = _feed(proc, stdin)
            deadline = start + timeout
            while not done.wait(min(_POLL_S, max(deadline - time.perf_counter(), 0.0))):
                if time.perf_counter() >= deadline:
                    timed_out = True
                elif (os.fstat(out.fileno()).st_size > max_output_bytes
                      or os.fstat(err.fileno()).st_size > max_output_bytes):
                    capped = True
                if timed_out or capped:
                    _killpg(proc.pid, signal.SIGTERM)
                    if not done.wait(_TERM_GRACE_S):
                        _killpg(proc.pid, signal.SIGKILL)
                        done.wait()
                    break
            duration = time.perf_counter() - start
        finally:
            # Stragglers (`sleep 100 &`) must not outlive the run, nor write into a workspace
            # that is about to be removed; this also covers KeyboardInterrupt.
            _killpg(proc.pid, signal.SIGKILL)
            # ... and so must descendants that left the group (setsid) or were orphaned.
            # A cgroup holds every descendant (the adapter joined it before it could fork);
            # without one, the sweep finds them by token and parent links.
            if group is not None:
                reaper.reap(set(group.kill()) - {proc.pid})
            else:
                reaper.sweep(token, roots=(proc.pid,), keep=frozenset({proc.pid}))
            if not done.is_set():
                done.wait()
            if group is not None:
                group.remove()
            with _LIVE_LOCK:
                _LIVE.discard(proc.pid)
                _GROUPS.pop(proc.pid, None)
        if feeder is not None:
            feeder.join(timeout=1)
        capped = capped or (os.fstat(out.fileno()).st_size > max_output_bytes
                            or os.fstat(err.fileno()).st_size > max_output_bytes)
        return ProcessResult(
            returncode=None if (timed_out or capped) and proc.returncode is None else proc.returncode,
            stdout=_read(out, max_output_bytes),
            stderr=_read(err, max_output_bytes),
            duration_s=duration,
            timed_out=timed_out,
            capped=capped,
        )
