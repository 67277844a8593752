"""SIGTERM/SIGHUP stop a run like Ctrl-C; a run killed with -9 is cleaned up by the next one."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import time

import pytest
from suitekit import Kit

from skill_eval.run.containment import reaper
from skill_eval.store.store import Store

pytestmark = pytest.mark.skipif(not reaper.enabled(), reason="needs Linux /proc to find processes")

# The kit's cases x arms; iterations are what the tests choose (each run is an adapter process).
RUNS = 6

# The kit's adapter, plus a grandchild in its own session that would sleep far past the run
# (its pid appended to pids), and a slow answer so the run can be stopped midway.
ADAPTER = r'''#!/usr/bin/env python3
import json, os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
req = json.load(sys.stdin)
ctl = json.load(open(os.path.join(here, "control.json")))
subprocess.Popen(["sleep", "300"], start_new_session=True)
with open(ctl["pidfile"], "a") as f:
    f.write("%d\n" % os.getpid())
time.sleep(ctl["sleep"])
out = "%s says: %s" % (req["mode"], req["prompt"])
json.dump({"output": out, "events": [], "usage": {}}, sys.stdout)
'''


def wait_for(cond, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def run_procs(tmp: str) -> list[int]:
    """Live processes whose environment says they belong to a skill-eval run, started from
    this test (their workspace is under its temp folder)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    continue
        except OSError:
            continue
        if reaper.TOKEN_VAR.encode() + b"=" in env and tmp.encode() in env:
            out.append(int(pid))
    return out


def workspaces(tmp) -> list[str]:
    return sorted(p.name for p in tmp.glob("skill-eval-ws-*"))


def slow_kit(tmp_path, cgroups: bool = True, iterations: int = 1) -> tuple[Kit, dict[str, str]]:
    kit = Kit.create(tmp_path, iterations=iterations)
    adapter = kit.root / "adapter.py"
    adapter.write_text(ADAPTER)
    adapter.chmod(adapter.stat().st_mode | stat.S_IXUSR)
    kit.control(sleep=0.4, pidfile=str(tmp_path / "pids"))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    if not cgroups:
        env["SKILL_EVAL_NO_CGROUP"] = "1"  # the token sweep alone
    return kit, env


def stored(kit: Kit) -> int:
    store = Store(kit.store)
    keys = kit.stored_runs()
    assert all(store.get_run(k) is not None for k in keys)
    return len(keys)


@pytest.mark.parametrize(("sig", "code", "jobs", "cgroups"), [
    (signal.SIGTERM, 143, "1", True), (signal.SIGTERM, 143, "3", True), (signal.SIGHUP, 129, "3", True),
    (signal.SIGTERM, 143, "3", False)])
def test_sigterm_kills_adapters_and_their_sessions_and_removes_workspaces(tmp_path, sig, code, jobs,
                                                                         cgroups):
    kit, env = slow_kit(tmp_path, cgroups, iterations=2)  # 12 runs: some left when it is stopped
    every = 2 * RUNS
    tmp = tmp_path / "tmp"
    # Under nohup (pytest started with SIGHUP ignored) skill-eval rightly keeps SIGHUP ignored
    # (test_nohup_keeps_sighup_ignored): the child starts with the default, as from a terminal.
    proc = kit.subprocess("run", "suite.yaml", "-j", jobs, env=env,
                          preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    try:
        wait_for(lambda: len(kit.stored_runs()) >= 2 and len(run_procs(str(tmp))) >= 2)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert f"stopped by {signal.Signals(sig).name}" in err and "Traceback" not in err
    assert run_procs(str(tmp)) == [], "an adapter or its setsid child outlived skill-eval"
    assert workspaces(tmp) == []
    done = stored(kit)
    assert 2 <= done < every
    assert not list(kit.store.glob("errors/*.json"))  # a stopped adapter is not a failed run
    kit.control(sleep=0, pidfile=str(tmp_path / "pids"))
    code2, out2, err2 = kit.run()
    assert code2 == 0, err2
    assert stored(kit) == every


@pytest.mark.parametrize("cgroups", [True, False])
def test_kill_9_leftovers_are_removed_by_the_next_run(tmp_path, cgroups):
    kit, env = slow_kit(tmp_path, cgroups)
    kit.control(sleep=3, pidfile=str(tmp_path / "pids"))
    tmp = tmp_path / "tmp"
    proc = kit.subprocess("run", "suite.yaml", "-j", "2", env=env)
    try:
        wait_for(lambda: len(workspaces(tmp)) == 2 and len(run_procs(str(tmp))) >= 4)
        proc.kill()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert len(workspaces(tmp)) == 2 and run_procs(str(tmp))  # what kill -9 leaves behind
    kit.control(sleep=0, pidfile=str(tmp_path / "pids"))
    second = kit.subprocess("run", "suite.yaml", "-j", "2", env=env)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert workspaces(tmp) == []
    assert run_procs(str(tmp)) == []
    assert not list(tmp.glob("skill-eval-owner-*"))
    assert stored(kit) == RUNS


def test_nohup_keeps_sighup_ignored(tmp_path):
    import subprocess
    import sys

    kit = Kit.create(tmp_path, iterations=1)
    kit.control(sleep=0.3)
    # What nohup does: SIGHUP ignored before exec; skill-eval must not re-arm it.
    proc = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
         "sys.argv = ['skill-eval', 'run', 'suite.yaml', '-j', '2']; "
         "from skill_eval.cli.main import entry; entry()"],
        cwd=kit.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: kit.calls() >= 1)
        proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert stored(kit) == RUNS


DAEMON_ADAPTER = r'''#!/usr/bin/env python3
import json, os, subprocess, sys, time
json.load(sys.stdin)
pids = "{pids}"
subprocess.run(["/bin/sh", "-c", "(setsid env -i /bin/sh -c 'echo $$ >> %s; exec sleep 300' &)" % pids])
while not (os.path.exists(pids) and open(pids).read().strip()):
    time.sleep(0.01)
json.dump({{"output": "with_skill says hi", "events": [], "usage": {{}}}}, sys.stdout)
'''


def test_without_cgroups_an_orphan_that_cleared_its_environment_dies_at_exit(tmp_path):
    # The sweep cannot tie it to a run (no token, parents gone), but as a subreaper skill-eval
    # adopted it, and kills what it adopted before it exits.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    pids = tmp_path / "pids"
    (kit.root / "adapter.py").write_text(DAEMON_ADAPTER.format(pids=pids))
    proc = kit.subprocess("run", "suite.yaml", env={**os.environ, "SKILL_EVAL_NO_CGROUP": "1"})
    out, err = proc.communicate(timeout=120)
    daemons = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    try:
        assert proc.returncode == 0 and daemons, out + err
        wait_for(lambda: not [p for p in daemons if alive(p)], timeout=5)
    finally:
        for p in daemons:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
