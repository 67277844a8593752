"""docs/reliability.md: kill -9, Ctrl-C, two runs on one store, damaged store entries."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time

import pytest
from suitekit import Kit

from skill_eval.store.store import Store

ALL = 18  # runs in a Kit.warm project
# Ctrl-C and two runs on one store use two iterations: enough runs to stop one midway with margin,
# without paying for a third iteration's adapter calls.
LIVE = 12


def wait_for(cond, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except FileNotFoundError:
        return False


def _processes_running(path: str) -> list[int]:
    """Live processes (not zombies) with ``path`` among their arguments."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if path.encode() in args and alive(int(entry)):
            found.append(int(entry))
    return found


def all_verify(kit: Kit) -> int:
    store = Store(kit.store)
    keys = kit.stored_runs()
    assert all(store.get_run(k) is not None for k in keys)
    return len(keys)


def test_truncated_response_is_detected_and_rerun(tmp_path):
    kit = Kit.warm(tmp_path)
    key = kit.stored_runs()[0]
    (kit.store / "runs" / key[:2] / key / "response.json").write_text('{"outp')
    data = kit.status_json()
    missing = "result missing from the store (deleted, corrupt, or never stored)"
    assert [r["reason"] for r in data["run"]] == [missing]
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == 1
    assert all_verify(kit) == ALL
    kit.reset()
    assert kit.run()[1].startswith("Up to date")


@pytest.mark.parametrize("victim", ["timing.json", "COMPLETE.json"])
def test_other_damaged_files_are_detected(tmp_path, victim):
    kit = Kit.warm(tmp_path)
    key = kit.stored_runs()[3]
    path = kit.store / "runs" / key[:2] / key / victim
    path.write_bytes(path.read_bytes()[:5])
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 1
    assert all_verify(kit) == ALL


def test_corrupt_grade_is_redone_without_calls(tmp_path):
    kit = Kit.warm(tmp_path)
    grade = sorted(kit.store.glob("grades/*/*.json"))[0]
    grade.write_text("{")
    os.utime(kit.suite)
    assert kit.cli("report", "suite.yaml", "--format", "json")[0] == 0
    assert kit.calls() == 0
    json.loads(grade.read_text())


def _damage_in_place(kit: Kit, case: str) -> str:
    """Flip one byte of a stored response, keeping its size and mtime: its ctime moves, so the
    stat stamp no longer says "verified" and the checksum notices when the plan looks at it."""
    key = next(k for k in kit.stored_runs()
               if json.loads((kit.store / "runs" / k[:2] / k / "meta.json").read_text())["case"] == case)
    path = kit.store / "runs" / key[:2] / key / "response.json"
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[5] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return key


def _regrade_all(kit: Kit) -> None:
    for skill in ("alpha", "beta"):
        data = kit.evals(skill)
        for c in data["evals"]:
            c["checks"][0]["value"] = "says"  # still passes; every grade key changes
        kit.write_evals(skill, data["evals"])


def test_entry_found_damaged_at_regrade_is_run_again_at_once(tmp_path):
    kit = Kit.warm(tmp_path)
    _regrade_all(kit)
    key = _damage_in_place(kit, "a1")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == 1
    assert "was damaged" in err and "run again" in err
    assert key in kit.stored_runs() and all_verify(kit) == ALL
    kit.reset()
    assert kit.run()[1].startswith("Up to date")


def test_report_names_an_entry_found_damaged(tmp_path):
    kit = Kit.warm(tmp_path)
    _regrade_all(kit)
    _damage_in_place(kit, "b1")
    code, out, err = kit.cli("report", "suite.yaml", "--format", "json")
    assert code == 2
    [line] = [line for line in err.splitlines() if "damaged" in line]
    assert line.startswith("skill-eval: the stored run agent:beta/b1/") and "'skill-eval run'" in line
    assert kit.calls() == 0  # report runs nothing
    assert kit.run()[0] == 0 and kit.calls() == 1


def test_kill_9_resumes_only_unfinished_runs(tmp_path):
    kit = Kit.create(tmp_path)
    kit.control(sleep=0.25, pidfile=str(tmp_path / "pids"))
    proc = kit.subprocess("run", "suite.yaml", "-j", "1")
    try:
        wait_for(lambda: len(kit.stored_runs()) >= 3)
        proc.kill()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    # The orphaned adapters die, found by their command line (the adapter's absolute path): one
    # spawned just before the kill may not have logged its call or written its pid yet, and its
    # call must not be counted against the next run.
    adapter = str(kit.root / "adapter.py")

    empty_scans = []

    def orphans_gone() -> bool:  # twice in a row: a child forked before the kill may exec late
        found = _processes_running(adapter)
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        empty_scans.append(not found)
        return empty_scans[-2:] == [True, True]

    wait_for(orphans_gone)
    done = all_verify(kit)
    assert 3 <= done < ALL
    kit.control()
    kit.reset()
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == ALL - done
    assert all_verify(kit) == ALL
    assert not list(kit.store.glob("errors/*.json"))


@pytest.mark.parametrize("jobs", ["1", "4"])
def test_ctrl_c_keeps_finished_runs_and_kills_adapters(tmp_path, jobs):
    kit = Kit.create(tmp_path, iterations=2)
    pids = tmp_path / "pids"
    kit.control(sleep=0.4, pidfile=str(pids))
    proc = kit.subprocess("run", "suite.yaml", "-j", jobs)
    try:
        wait_for(lambda: len(kit.stored_runs()) >= 2 and pids.exists()
                 and len(pids.read_text().split()) > len(kit.stored_runs()))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    wait_for(lambda: not [int(p) for p in pids.read_text().split() if alive(int(p))], timeout=5)
    done = all_verify(kit)
    assert 2 <= done < LIVE
    assert not list(kit.store.glob("errors/*.json"))  # a killed adapter is not a failed run
    assert not [p for p in (kit.store / "tmp").glob("*")] if (kit.store / "tmp").exists() else True
    kit.control()
    kit.reset()
    assert kit.run()[0] == 0
    assert kit.calls() == LIVE - done


def test_second_run_waits_or_refuses(tmp_path):
    kit = Kit.create(tmp_path, iterations=2)
    kit.control(sleep=0.15)
    first = kit.subprocess("run", "suite.yaml", "-j", "2")
    try:
        wait_for(lambda: kit.calls() >= 1)
        refused = kit.subprocess("run", "suite.yaml", "--no-wait")
        out, err = refused.communicate(timeout=30)
        assert refused.returncode == 2
        assert "in use by another skill-eval process" in err
        second = kit.subprocess("run", "suite.yaml")
        out2, err2 = second.communicate(timeout=60)
        out1, err1 = first.communicate(timeout=60)
    finally:
        for p in (first,):
            if p.poll() is None:
                p.kill()
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    assert kit.calls() == LIVE  # the waiting run found everything done
    assert all_verify(kit) == LIVE


def test_status_runs_while_a_run_holds_the_store(tmp_path):
    kit = Kit.create(tmp_path, iterations=2)
    kit.control(sleep=0.2)
    first = kit.subprocess("run", "suite.yaml", "-j", "1")
    try:
        wait_for(lambda: kit.calls() >= 1)
        t = time.monotonic()
        status = kit.subprocess("status", "suite.yaml", "--json")
        out, err = status.communicate(timeout=30)
        assert status.returncode == 0, err
        assert time.monotonic() - t < 5
        assert json.loads(out)["planned"] == LIVE
    finally:
        first.kill()
        first.wait()
