import os
import time

import pytest

from skill_eval.errors import AdapterError
from skill_eval.run.process import run_process

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (it only waits for its parent to reap it).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_stdin_stdout_stderr_and_exit_code(tmp_path):
    r = run_process(["sh", "-c", "cat; echo oops >&2; exit 3"], b'{"a": 1}', tmp_path, ENV, 10, 1000)
    assert (r.returncode, r.stdout, r.stderr) == (3, b'{"a": 1}', b"oops\n")
    assert not r.timed_out and not r.capped


def test_large_stdin_does_not_deadlock(tmp_path):
    data = b"x" * 500_000
    r = run_process(["sh", "-c", "cat"], data, tmp_path, ENV, 10, 1_000_000)
    assert r.stdout == data


@pytest.mark.slow
def test_timeout_kills_the_whole_group(tmp_path, write_adapter):
    pidfile = tmp_path / "child.pid"
    script = write_adapter(f"#!/bin/sh\nsleep 100 &\necho $! > {pidfile}\nwait\n")
    start = time.perf_counter()
    r = run_process([str(script)], b"", tmp_path, ENV, 0.5, 1000)
    assert r.timed_out and time.perf_counter() - start < 3
    child = int(pidfile.read_text())
    deadline = time.time() + 2
    while _alive(child) and time.time() < deadline:
        time.sleep(0.02)
    assert not _alive(child), "a child of the timed-out adapter survived"


def test_stragglers_are_killed_after_a_normal_exit(tmp_path, write_adapter):
    pidfile = tmp_path / "child.pid"
    script = write_adapter(f"#!/bin/sh\nsleep 100 &\necho $! > {pidfile}\necho done\n")
    r = run_process([str(script)], b"", tmp_path, ENV, 5, 1000)
    assert r.returncode == 0 and r.stdout == b"done\n"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 2  # killed before run_process returns; reaped by its new parent
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive(child)


@pytest.mark.slow
def test_sigterm_ignored_still_killed(tmp_path, write_adapter):
    script = write_adapter("#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.05; done\n")
    r = run_process([str(script)], b"", tmp_path, ENV, 0.3, 1000)
    assert r.timed_out and r.duration_s < 3


def test_output_cap_kills_and_truncates(tmp_path):
    r = run_process(["sh", "-c", "yes"], b"", tmp_path, ENV, 10, 4096)
    assert r.capped and not r.timed_out
    assert len(r.stdout) == 4096


def test_stderr_cap(tmp_path):
    r = run_process(["sh", "-c", "yes >&2"], b"", tmp_path, ENV, 10, 4096)
    assert r.capped and len(r.stderr) == 4096


def test_not_found(tmp_path):
    with pytest.raises(AdapterError, match="not found: '/no/such/adapter'"):
        run_process(["/no/such/adapter"], b"", tmp_path, ENV, 5, 1000)
    with pytest.raises(AdapterError, match="not found"):
        run_process(["no-such-adapter-xyz"], b"", tmp_path, ENV, 5, 1000)


def test_not_executable(tmp_path):
    script = tmp_path / "adapter.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(AdapterError, match="not executable.*chmod"):
        run_process([str(script)], b"", tmp_path, ENV, 5, 1000)


def test_no_shebang(tmp_path, write_adapter):
    script = write_adapter("\x7fELFnot really", name="bad.bin")
    with pytest.raises(AdapterError, match="cannot be executed"):
        run_process([str(script)], b"", tmp_path, ENV, 5, 1000)


WORKER = """import os, sys
from pathlib import Path
from skill_eval.run.process import run_process
run_process(["sh", "-c", "echo $$ > adapter.pid; exec sleep 60"], b"", Path.cwd(),
            {"PATH": os.environ["PATH"]}, 120, 1000, die_with_parent=sys.argv[1] == "tied")
"""


def _adapter_of_a_killed_worker(tmp_path, how: str) -> int:
    """A stand-in for a Ray worker: it starts an adapter and is then killed with -9, so that it
    can neither kill the adapter nor remove anything."""
    import signal
    import subprocess
    import sys

    worker = subprocess.Popen([sys.executable, "-c", WORKER, how], cwd=tmp_path)
    pidfile = tmp_path / "adapter.pid"
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert worker.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    adapter = int(pidfile.read_text())
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    return adapter


def test_an_adapter_tied_to_its_worker_dies_with_it(tmp_path):
    # issue 20: an adapter kept running after the Ray worker that started it was lost.
    from skill_eval.run.process import _pdeathsig_launcher

    if _pdeathsig_launcher() is None:
        pytest.skip("setpriv --pdeathsig (util-linux 2.33+) is not available here")
    adapter = _adapter_of_a_killed_worker(tmp_path, "tied")
    # The kernel kills it at once; the window is short so that another skill-eval's sweep of
    # dead owners (which would also kill it, later) cannot pass this test for it.
    deadline = time.monotonic() + 0.5
    while _alive(adapter) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(adapter), "the adapter outlived the worker that started it"

