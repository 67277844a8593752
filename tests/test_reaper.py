"""Every process an adapter starts dies with its run: setsid, double fork, kill -9 of skill-eval."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from skill_eval.run.containment import cgroup, owner, reaper
from skill_eval.run.process import run_process

pytestmark = pytest.mark.skipif(not reaper.enabled(), reason="needs Linux /proc to find processes")

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


@pytest.fixture(params=["sweep", "cgroup"])
def killer(request, monkeypatch):
    """Each test runs with the token sweep alone and, where the kernel allows, with a cgroup."""
    if request.param == "sweep":
        monkeypatch.setattr(cgroup, "_base", (None,))
    elif cgroup.base() is None:
        pytest.skip("no cgroup v2 we may create children in (needs root or a systemd delegation)")
    return request.param


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def gone(pid: int, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


def pids(path) -> list[int]:
    deadline = time.monotonic() + 5
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return [int(p) for p in path.read_text().split()]


@pytest.mark.slow
def test_setsid_grandchild_dies_at_the_timeout(tmp_path, write_adapter, killer):
    pidfile = tmp_path / "pids"
    script = write_adapter(f"#!/bin/sh\nsetsid sh -c 'echo $$ > {pidfile}; exec sleep 100' &\n"
                           f"while [ ! -s {pidfile} ]; do sleep 0.01; done\nsleep 100\n")
    start = time.perf_counter()
    r = run_process([str(script)], b"", tmp_path, ENV, 0.5, 1000)
    assert r.timed_out and time.perf_counter() - start < 5
    [child] = pids(pidfile)
    assert gone(child), "a grandchild in its own session outlived the timeout"


def test_setsid_grandchild_dies_when_the_adapter_exits(tmp_path, write_adapter, killer):
    pidfile = tmp_path / "pids"
    script = write_adapter(f"#!/bin/sh\nsetsid sh -c 'echo $$ > {pidfile}; exec sleep 100' &\n"
                           f"while [ ! -s {pidfile} ]; do sleep 0.01; done\necho ok\n")
    r = run_process([str(script)], b"", tmp_path, ENV, 10, 1000)
    assert r.returncode == 0 and r.stdout == b"ok\n"
    [child] = pids(pidfile)
    assert gone(child), "a grandchild in its own session outlived the run"


@pytest.mark.slow
def test_double_forked_daemon_dies(tmp_path, write_adapter, killer):
    # Double fork + setsid: no process group, its parent gone, re-parented to us (subreaper).
    pidfile = tmp_path / "pids"
    script = write_adapter(
        "#!/bin/sh\n"
        f"(setsid /bin/sh -c 'echo $$ >> {pidfile}; exec sleep 100' &)\n"
        f"while [ ! -s {pidfile} ]; do sleep 0.01; done\nsleep 100\n")
    r = run_process([str(script)], b"", tmp_path, ENV, 1.0, 1000)
    assert r.timed_out
    [child] = pids(pidfile)
    assert gone(child)


def test_orphans_of_a_killed_owner_are_killed_and_others_kept(tmp_path):
    # A stand-in for a skill-eval killed with -9: its pid is dead, so its lock is free.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    orphan = subprocess.Popen(["sleep", "100"], env={**ENV, reaper.TOKEN_VAR: f"{dead_pid}.1"},
                              start_new_session=True)
    bystander = subprocess.Popen(["sleep", "100"], env={**ENV, "SKILL_EVAL_RUN_X": "1"},
                                 start_new_session=True)
    ours = subprocess.Popen(["sleep", "100"], env={**ENV, reaper.TOKEN_VAR: f"{os.getpid()}.999"},
                            start_new_session=True)
    try:
        # No wait needed: Popen returns once each child has exec'd, its environment in place.
        owner.claim()
        reaper.orphans_of_dead_owners(owner.alive)  # (a concurrent run may have been first)
        assert orphan.wait(5) == -9
        assert bystander.poll() is None and ours.poll() is None
    finally:
        for p in (orphan, bystander, ours):
            p.kill()
            p.wait()


@pytest.mark.slow
def test_in_a_cgroup_even_a_daemon_that_clears_its_environment_dies(tmp_path, write_adapter):
    if cgroup.base() is None:
        pytest.skip("no cgroup v2 we may create children in (needs root or a systemd "
                    "delegation); the token sweep alone cannot find this one")
    # Double fork + setsid + `env -i`: no token, no process group, its parents gone.
    pidfile = tmp_path / "pids"
    script = write_adapter(
        "#!/bin/sh\n"
        f"(setsid env -i /bin/sh -c 'echo $$ >> {pidfile}; exec sleep 100' &)\n"
        f"while [ ! -s {pidfile} ]; do sleep 0.01; done\nsleep 100\n")
    r = run_process([str(script)], b"", tmp_path, ENV, 1.0, 1000)
    assert r.timed_out
    [child] = pids(pidfile)
    assert gone(child)
    assert not [p for p in cgroup.base().iterdir() if p.name.startswith(f"skill-eval-{os.getpid()}.")]


def test_in_a_cgroup_start_errors_are_those_of_a_direct_start(tmp_path, write_adapter):
    # The cgroup launch goes through /bin/sh, which would run a file without '#!' as a script.
    from skill_eval.errors import AdapterError

    if cgroup.base() is None:
        pytest.skip("no cgroup v2 we may create children in (needs root or a systemd delegation)")
    plain = write_adapter("echo hi\n", name="plain.sh")
    with pytest.raises(AdapterError, match="cannot be executed"):
        run_process([str(plain)], b"", tmp_path, ENV, 5, 1000)
    with pytest.raises(AdapterError, match="not found"):
        run_process(["no-such-adapter-xyz"], b"", tmp_path, ENV, 5, 1000)
    plain.chmod(0o644)
    with pytest.raises(AdapterError, match="not executable"):
        run_process([str(plain)], b"", tmp_path, ENV, 5, 1000)
    r = run_process(["sh", "-c", "echo ok"], b"", tmp_path, ENV, 5, 1000)
    assert r.stdout == b"ok\n"
